"""The book's single figure style, and how a page shows a figure.

Every figure's text must stay at least 11 px high as a reader sees it, on a
1366 px desktop and on a 390 px phone, where the text column is 342 px
wide. A PNG is shrunk to fit that column, so text of ``pt`` points in a
figure ``w`` inches wide shows at ``pt * 342 / (72 * w)`` px on a phone.
Hence the two numbers every figure keeps to: no text smaller than
:data:`SMALLEST_TEXT_PT` and no figure wider than :data:`MAX_WIDTH_IN`
(the PNG adds 0.1 inch on each side: ``12 * 342 / (72 * 5.1) = 11.2`` px).
Figures with many panels stack them.
"""

from __future__ import annotations

import matplotlib as mpl

from .pngfile import png

#: Okabe–Ito colours: distinguishable with every common colour-vision deficiency.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")

#: One colour per word of the running example (cat, dog, car).
WORD_COLOURS = OKABE_ITO[:3]

#: Sequential colormap for weights: perceptually uniform and colour-blind safe.
CMAP = "viridis"

#: The smallest text any figure may use, in points (tick labels, legends, notes).
SMALLEST_TEXT_PT = 12.0

#: The widest a figure may be, in inches (its PNG adds a margin of 0.1 inch on each side).
MAX_WIDTH_IN = 4.9

#: Width of the book's text column on a 390 px phone, in CSS pixels (measured).
PHONE_COLUMN_PX = 342

STYLE = {
    # Opaque white: figures stay readable on the dark theme.
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "savefig.facecolor": "white",
    "savefig.transparent": False,
    "figure.dpi": 110,
    "savefig.dpi": 110,
    "figure.figsize": (5.0, 3.6),
    # Text: nothing below SMALLEST_TEXT_PT.
    "font.size": 13,
    "axes.titlesize": 13,
    "axes.labelsize": 13,
    "xtick.labelsize": SMALLEST_TEXT_PT,
    "ytick.labelsize": SMALLEST_TEXT_PT,
    "legend.fontsize": SMALLEST_TEXT_PT,
    "legend.title_fontsize": SMALLEST_TEXT_PT,
    "figure.titlesize": 13,
    "figure.labelsize": 13,
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
    """Apply the book's figure style, and show figures as the book's PNGs.

    Sets matplotlib's global settings to :data:`STYLE`. Inside IPython (a
    page being built, or a notebook) it also makes a Figure display as
    :func:`booktools.pngfile.png`: cropped, at the style's resolution,
    with its smallest text recorded for the browser test.

    Examples
    --------
    >>> import matplotlib as mpl
    >>> use_book_style()
    >>> mpl.rcParams["figure.facecolor"], mpl.rcParams["legend.fontsize"]
    ('white', 12.0)
    """
    mpl.rcParams.update(STYLE)
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python: nothing displays figures
        return
    shell = get_ipython()
    if shell is None:
        return
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    printers = shell.display_formatter.formatters["image/png"]
    if printers.type_printers.get(Figure) is png:
        return
    # Load the backend now: matplotlib-inline registers its own PNG printer
    # when its module is first imported (usually at the first figure), and it
    # must not replace ours afterwards. No figure is open yet at this point.
    plt.switch_backend(mpl.get_backend())
    printers.for_type(Figure, png)
