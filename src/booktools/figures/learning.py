"""Learning where to look: the attention maps that training runs end with.

The numbers come from :func:`selfattention.training_run`; this module only
draws them. Each map is a ``2 x 2`` table of weights (rows: the word that
looks; columns: the word it looks at), coloured with viridis from 0 to 1 and
labelled with its numbers, so that the colour is never the only cue.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from ..formatting import fmt
from ..style import CMAP, MAX_WIDTH_IN
from .base import finish, subplots


def plot_attention_maps(maps, titles: Sequence[str], words: Sequence[str], *, decimals: int = 2) -> Figure:
    """Several small attention maps side by side, two per row, each labelled with its weights.

    Parameters
    ----------
    maps : array_like, shape (n, L, L)
        One matrix of weights per run; each row sums to 1.
    titles : sequence of str
        One title per map.
    words : sequence of str
        The ``L`` words: rows look, columns are looked at.
    decimals : int, default 2, keyword-only
        Decimals of the numbers written in the cells. Use 3 when a weight
        such as 0.996 would otherwise read 1.00.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``maps`` is not ``(n, L, L)`` with ``n = len(titles)`` and
        ``L = len(words)``, or ``decimals`` is not an integer from 0 to 4.

    Examples
    --------
    >>> fig = plot_attention_maps([[[0.5, 0.5], [1.0, 0.0]]], ["run 1"], ["apple", "sweet"])
    >>> fig.axes[0].get_title()
    'run 1'
    >>> fig = plot_attention_maps([[[0.996, 0.004], [1.0, 0.0]]], ["run 1"], ["apple", "sweet"], decimals=3)
    >>> fig.axes[0].texts[0].get_text()
    '0.996'
    """
    m = np.asarray(maps, dtype=float)
    L = len(words)
    if m.ndim != 3 or m.shape[1:] != (L, L) or m.shape[0] != len(titles):
        raise ValueError(f"maps must have shape ({len(titles)}, {L}, {L}): one (L, L) map per title, got {m.shape}")
    if isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= 4:
        raise ValueError(f"decimals must be an integer from 0 to 4 (the cells are small), got {decimals!r}")
    n = m.shape[0]
    columns = min(2, n)
    rows = -(-n // columns)
    fig, axes = subplots(rows, columns, figsize=(MAX_WIDTH_IN, 2.35 * rows + 0.6), squeeze=False,
                         sharex=True, sharey=True, layout="constrained")
    for k, ax in enumerate(axes.flat):
        if k >= n:
            fig.delaxes(ax)
            continue
        ax.imshow(m[k], cmap=CMAP, vmin=0.0, vmax=1.0)
        for i in range(L):
            for j in range(L):
                dark = m[k, i, j] < 0.6          # viridis is dark below, light above
                ax.text(j, i, fmt(m[k, i, j], decimals), ha="center", va="center", fontsize=13,
                        color="white" if dark else "black")
        ax.set_title(titles[k])
        ax.set_xticks(range(L), labels=list(words))
        ax.set_yticks(range(L), labels=list(words))
        ax.tick_params(length=0, labelleft=k % columns == 0, labelbottom=k >= n - columns)
        ax.spines[:].set_visible(False)
    fig.supylabel("word that looks")
    fig.supxlabel("word looked at")
    return finish(fig)


__all__ = ["plot_attention_maps"]
