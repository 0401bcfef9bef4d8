"""Several heads of one layer side by side (chapter "What comes next").

Each head's table of weights is a heatmap, rows the tokens that look,
columns the tokens looked at; all share one viridis scale from 0 to 1 and
one labelled colour bar. The numbers come from the package
(:func:`selfattention.multi_head_attention` or
:func:`selfattention.minilm.encode`); this module only draws them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from .heatmaps import heatmap_grid


def plot_heads(weights, tokens: Sequence[str], titles: Sequence[str], *, columns: int = 2) -> Figure:
    """One heatmap per head, ``columns`` to a row, on one shared scale from 0 to 1.

    Tokens label the rows of the first column and the columns of the last
    row of heatmaps.

    Parameters
    ----------
    weights : array_like, shape (heads, L, L)
        Each head's attention weights, rows summing to 1.
    tokens : sequence of str
        The ``L`` tokens.
    titles : sequence of str
        One title per head, e.g. ``"head 3"``.
    columns : int, default 2, keyword-only
        Heatmaps per row of the figure.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``weights`` is not ``(heads, L, L)`` with ``L = len(tokens)``,
        there is not one title per head, or ``columns`` is not a positive
        integer.

    Examples
    --------
    >>> w = np.full((3, 4, 4), 0.25)
    >>> fig = plot_heads(w, ["[CLS]", "a", "b", "[SEP]"], ["head 0", "head 1", "head 2"])
    >>> [ax.get_title() for ax in fig.axes[:3]]
    ['head 0', 'head 1', 'head 2']
    """
    w = np.asarray(weights, dtype=float)
    L = len(tokens)
    if w.ndim != 3 or w.shape[1:] != (L, L):
        raise ValueError(f"weights must have shape (heads, {L}, {L}), got {w.shape}")
    if len(titles) != w.shape[0]:
        raise ValueError(f"give one title per head: {w.shape[0]} heads, {len(titles)} titles")
    if isinstance(columns, bool) or not isinstance(columns, int) or columns < 1:
        raise ValueError(f"columns must be a positive integer, got {columns!r}")
    return heatmap_grid(w, tokens, titles, columns=columns, bar_label="weight (0 to 1)",
                        title_in=0.25, margin_in=0.9)


__all__ = ["plot_heads"]
