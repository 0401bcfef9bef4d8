"""The book's single matplotlib style."""

from __future__ import annotations

import matplotlib as mpl

#: Okabe–Ito colours: distinguishable with every common colour-vision deficiency.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")

#: One colour per word of the running example (cat, dog, car).
WORD_COLOURS = OKABE_ITO[:3]

#: Sequential colormap for weights: perceptually uniform and colour-blind safe.
CMAP = "viridis"

STYLE = {
    # Opaque white: figures stay readable on the dark theme.
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "savefig.facecolor": "white",
    "savefig.transparent": False,
    "figure.dpi": 110,
    "savefig.dpi": 110,
    "figure.figsize": (5.6, 3.6),
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.prop_cycle": mpl.cycler(color=list(OKABE_ITO)),
    "image.cmap": CMAP,
    "text.color": "black",
    "axes.labelcolor": "black",
    "xtick.color": "black",
    "ytick.color": "black",
    # Deterministic output: no random ids, no dates in files.
    "svg.hashsalt": "self-attention-computed",
    "path.simplify": False,
}


def use_book_style() -> None:
    """Apply the book's figure style to matplotlib's global settings.

    Examples
    --------
    >>> import matplotlib as mpl
    >>> use_book_style()
    >>> mpl.rcParams["figure.facecolor"]
    'white'
    """
    mpl.rcParams.update(STYLE)
