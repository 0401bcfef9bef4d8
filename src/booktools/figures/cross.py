"""Cross-attention's rectangular weight table, and causal masks aligned two ways.

Chapter "Self-attention and cross-attention". The numbers come from
:func:`selfattention.cross_attention`, :func:`selfattention.causal_mask` and
:func:`selfattention.causal_mask_bottom_right`; these functions only draw them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from ..style import CMAP, OKABE_ITO
from .base import finish, subplots
from .masks import MASK_CMAP


def plot_weight_table(weights, rows: Sequence[str], columns: Sequence[str], *,
                      row_title: str = "query (looks)", column_title: str = "key (looked at)",
                      decimals: int = 3) -> Figure:
    """A rectangular ``(L_q, L_kv)`` table of weights, coloured, with each value written in.

    Parameters
    ----------
    weights : array_like, shape (L_q, L_kv)
        Attention weights, rows summing to 1.
    rows, columns : sequence of str
        Labels of the rows (the words that look) and columns (the words read).
    row_title, column_title : str, keyword-only
        Axis titles.
    decimals : int, default 3, keyword-only
        Decimals of the numbers written in the cells.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``weights`` is not ``(len(rows), len(columns))``.

    Examples
    --------
    >>> fig = plot_weight_table([[0.9, 0.05, 0.05], [0.2, 0.3, 0.5]], ["a", "b"], ["x", "y", "z"])
    >>> [t.get_text() for t in fig.axes[0].texts][:2]
    ['0.900', '0.050']
    """
    w = np.asarray(weights, dtype=float)
    if w.shape != (len(rows), len(columns)):
        raise ValueError(f"weights must have shape (len(rows), len(columns)) = ({len(rows)}, {len(columns)}), "
                         f"got {w.shape}")
    L_q, L_kv = w.shape
    cell = min(1.0, 3.6 / L_kv)  # inches per cell: the table stays within the column of a phone
    fig, ax = subplots(figsize=(cell * L_kv + 1.3, cell * L_q + 1.1))
    ax.imshow(w, cmap=CMAP, vmin=0.0, vmax=1.0)
    for i in range(L_q):
        for j in range(L_kv):
            dark = w[i, j] < 0.6  # viridis is dark below about 0.6: white text there
            ax.text(j, i, f"{w[i, j]:.{decimals}f}", ha="center", va="center",
                    color="white" if dark else "black")
    ax.set_xticks(range(L_kv), labels=list(columns))
    ax.set_yticks(range(L_q), labels=list(rows))
    ax.xaxis.set_label_position("top")
    ax.xaxis.tick_top()
    ax.tick_params(length=0)
    ax.spines[:].set_visible(False)
    ax.set_xlabel(column_title)
    ax.set_ylabel(row_title)
    return finish(fig)


def plot_causal_alignments(masks: Mapping[str, np.ndarray], query_labels: Sequence[str],
                           key_labels: Sequence[str]) -> Figure:
    """Boolean ``(L, S)`` masks stacked one above the other, with 1 (may attend) and 0 in the cells.

    Parameters
    ----------
    masks : mapping of str to array_like of bool, shape (L, S)
        Title of each panel and its mask (``True`` = may attend).
    query_labels : sequence of str
        ``L`` labels of the rows (the queries).
    key_labels : sequence of str
        ``S`` labels of the columns (the keys).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If there is no mask or a mask is not ``(len(query_labels), len(key_labels))``.

    Examples
    --------
    >>> import numpy as np
    >>> fig = plot_causal_alignments({"top-left": np.tri(2, 3, dtype=bool)}, ["0", "1"], ["0", "1", "2"])
    >>> [t.get_text() for t in fig.axes[0].texts]
    ['1', '0', '0', '1', '1', '0']
    """
    if not masks:
        raise ValueError("need at least one mask")
    L, S = len(query_labels), len(key_labels)
    cell = min(0.62, 3.6 / S)  # inches per cell
    fig, axes = subplots(len(masks), 1, figsize=(cell * S + 1.4, len(masks) * (cell * L + 1.2)), squeeze=False)
    for ax, (title, mask) in zip(axes[:, 0], masks.items()):
        m = np.asarray(mask, dtype=bool)
        if m.shape != (L, S):
            raise ValueError(f"mask {title!r} must have shape ({L}, {S}), got {m.shape}")
        ax.imshow(m, cmap=MASK_CMAP, vmin=0, vmax=1, interpolation="nearest")
        for i in range(L):
            for j in range(S):
                ax.text(j, i, "1" if m[i, j] else "0", ha="center", va="center",
                        color="white" if m[i, j] else "0.35")
        ax.set_xticks(np.arange(-0.5, S, 1), minor=True)
        ax.set_yticks(np.arange(-0.5, L, 1), minor=True)
        ax.grid(True, which="minor", color="white", lw=1.5)
        ax.tick_params(which="both", length=0)
        ax.set_xticks(range(S), labels=list(key_labels))
        ax.set_yticks(range(L), labels=list(query_labels))
        ax.spines[:].set_visible(False)
        ax.set_title(title.replace(": ", ":\n", 1), color=OKABE_ITO[7])  # "what: which call", two lines: it fits
        ax.set_xlabel("key: position in the text")
        ax.set_ylabel("query\nposition")
    return finish(fig)


__all__ = ["plot_causal_alignments", "plot_weight_table"]
