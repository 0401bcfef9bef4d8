"""Attention weights as heatmaps: one head, or each layer's mean over its heads.

Rows are the tokens that look (queries), columns the tokens looked at
(keys). The colour scale is viridis (colour-blind safe), with a labelled
colour bar. The numbers come from :func:`selfattention.minilm.encode`;
these functions only draw them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from ..style import CMAP, MAX_WIDTH_IN
from .base import finish, subplots

#: Height (and width) of one token's row in a heatmap, in inches: room for a 12 pt label.
ROW_IN = 0.2


def plot_attention(weights, tokens: Sequence[str], title: str = "") -> Figure:
    """Heatmap of one ``(L, L)`` attention matrix: rows look, columns are looked at.

    The colour runs from 0 to the matrix's largest weight; the colour bar
    sits above the heatmap, so the figure stays narrow enough for a phone.

    Parameters
    ----------
    weights : array_like, shape (L, L)
        Attention weights, rows summing to 1.
    tokens : sequence of str
        Labels of rows and columns.
    title : str, optional
        Figure title, above the colour bar.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``weights`` is not ``(L, L)`` with ``L = len(tokens)``.

    Examples
    --------
    >>> fig = plot_attention([[0.2, 0.8], [0.6, 0.4]], ["it", "cat"], "toy")
    >>> fig.get_suptitle()
    'toy'
    """
    w = np.asarray(weights, dtype=np.float64)
    L = len(tokens)
    if w.shape != (L, L):
        raise ValueError(f"weights must have shape (L, L) = ({L}, {L}), got {w.shape}")
    labels = 0.12 * max(len(t) for t in tokens) + 0.5  # room for the row labels and the axis title
    side = min(MAX_WIDTH_IN - labels, max(2.0, ROW_IN * L))
    fig, ax = subplots(figsize=(side + labels, side + labels + 1.2), layout="constrained")
    image = ax.imshow(w, cmap=CMAP, vmin=0.0, vmax=max(float(w.max()), 1e-9))
    _label_tokens(ax, tokens, rows=True, columns=True)
    ax.set_xlabel("token looked at (key)")
    ax.set_ylabel("token that looks (query)")
    if title:
        fig.suptitle(title)
    fig.colorbar(image, ax=ax, location="top", fraction=0.05, pad=0.02,
                 label="weight (0 to the largest of this table)")
    return finish(fig)


def plot_layer_means(attentions, tokens: Sequence[str], *, columns: int = 2) -> Figure:
    """One heatmap per layer: the attention weights averaged over the layer's heads.

    The heatmaps fill ``columns`` per row, top to bottom; tokens label the
    rows of the first column and the columns of the last row. The colour
    scale is viridis from 0 to 1, with one shared, labelled colour bar on
    top.

    Parameters
    ----------
    attentions : array_like, shape (layers, heads, L, L)
        Attention weights, as from :func:`selfattention.minilm.encode`.
    tokens : sequence of str
        The ``L`` tokens.
    columns : int, default 2, keyword-only
        Heatmaps per row of the figure.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``attentions`` is not ``(layers, heads, L, L)`` with
        ``L = len(tokens)``, or ``columns`` is not a positive integer.

    Examples
    --------
    >>> fig = plot_layer_means(np.full((3, 2, 4, 4), 0.25), ["[CLS]", "a", "b", "[SEP]"])
    >>> [ax.get_title() for ax in fig.axes[:3]]
    ['layer 0', 'layer 1', 'layer 2']
    """
    a = np.asarray(attentions, dtype=float)
    L = len(tokens)
    if a.ndim != 4 or a.shape[-2:] != (L, L):
        raise ValueError(f"attentions must have shape (layers, heads, {L}, {L}), got {a.shape}")
    if isinstance(columns, bool) or not isinstance(columns, int) or columns < 1:
        raise ValueError(f"columns must be a positive integer, got {columns!r}")
    mean = a.mean(axis=1)  # (layers, L, L): average over heads
    return heatmap_grid(mean, tokens, [f"layer {k}" for k in range(a.shape[0])], columns=columns,
                        bar_label="weight (0 to 1), averaged over heads", title_in=0.4, margin_in=1.2)


def heatmap_grid(tables, tokens: Sequence[str], titles: Sequence[str], *, columns: int, bar_label: str,
                 title_in: float, margin_in: float) -> Figure:
    """Tables of weights ``(n, L, L)`` as heatmaps, ``columns`` to a row, on one scale from 0 to 1.

    The shared layout of :func:`plot_layer_means` and
    :func:`booktools.figures.multihead.plot_heads`: tokens label the rows of
    the first column and the columns of the last row, one colour bar on top.
    ``title_in`` is the height kept above each heatmap for its title and
    ``margin_in`` the height of the bar and the axis titles, in inches.

    Examples
    --------
    >>> fig = heatmap_grid(np.full((3, 2, 2), 0.5), ["a", "b"], ["x", "y", "z"], columns=2,
    ...                    bar_label="weight", title_in=0.25, margin_in=0.9)
    >>> [ax.get_title() for ax in fig.axes[:3]]
    ['x', 'y', 'z']
    """
    n = len(tables)
    L = len(tokens)
    rows = -(-n // columns)
    labels = 0.12 * max(len(t) for t in tokens) + 0.5  # room for the row labels and the axis title
    width = min(MAX_WIDTH_IN, columns * max(1.2, ROW_IN * L) + labels)
    side = (width - labels) / columns - 0.1  # one heatmap
    fig, axes = subplots(rows, columns, figsize=(width, rows * (side + title_in) + labels + margin_in),
                         squeeze=False, sharex=True, sharey=True, layout="constrained")
    image = None
    for k, ax in enumerate(axes.flat):
        if k >= n:
            fig.delaxes(ax)
            continue
        image = ax.imshow(tables[k], cmap=CMAP, vmin=0.0, vmax=1.0)
        ax.set_title(titles[k])
        _label_tokens(ax, tokens, rows=k % columns == 0, columns=k >= n - columns)
    bar = fig.colorbar(image, ax=axes, location="top", fraction=0.04, pad=0.01, aspect=30,
                       ticks=[0, 0.25, 0.5, 0.75, 1])
    bar.set_label(bar_label)
    fig.supylabel("token that looks (query)")
    fig.supxlabel("token looked at (key)")
    return finish(fig)


def _label_tokens(ax, tokens: Sequence[str], *, rows: bool, columns: bool) -> None:
    """Tokens as tick labels: down the left if ``rows``, along the bottom if ``columns``."""
    L = len(tokens)
    ax.set_xticks(range(L), labels=list(tokens), rotation=90)
    ax.set_yticks(range(L), labels=list(tokens))
    ax.tick_params(length=0, labelleft=rows, labelbottom=columns)
    ax.spines[:].set_visible(False)


__all__ = ["heatmap_grid", "plot_attention", "plot_layer_means"]
