"""Figures of the chapter "Attention in a real model". Each returns a Figure.

The numbers come from :func:`selfattention.minilm.encode`; these functions
only draw them, in the book's style (opaque white background, the
colour-blind-safe viridis map for weights from 0 to 1, Okabe–Ito colours
for points).
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from .style import CMAP, OKABE_ITO, use_book_style


def plot_referent_heads(first, second, *, sentences: Sequence[str], targets: Sequence[str],
                        highlight: Sequence[tuple[int, int]] = (),
                        against: Sequence[tuple[int, int]] = (), source: str = "it") -> Figure:
    """Every head's weight from ``source`` to two targets, for two sentences.

    One panel per sentence. Each head is a point: across, the weight on
    ``targets[0]``; up, the weight on ``targets[1]``. Points above the
    dashed diagonal give more weight to the second target. Marked heads are
    drawn larger and labelled (diamonds for ``highlight``, squares for
    ``against``), and their move from the first sentence to the second is
    drawn as an arrow in the second panel.

    Parameters
    ----------
    first, second : array_like, shape (layers, heads, 2)
        Weights from ``source`` to the two targets, from
        :func:`selfattention.bert.attention_from_to`.
    sentences : sequence of str, keyword-only
        Two short panel titles, e.g. ``("... too tired", "... too wide")``.
    targets : sequence of str, keyword-only
        The two target tokens (axis labels).
    highlight : sequence of (int, int), keyword-only
        ``(layer, head)`` pairs to mark as switching the expected way.
    against : sequence of (int, int), keyword-only
        ``(layer, head)`` pairs to mark as switching the other way.
    source : str, default "it", keyword-only
        The token that looks (axis labels).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If the arrays differ in shape or are not ``(layers, heads, 2)``, or
        a highlighted head is out of range.

    Examples
    --------
    >>> w = np.full((2, 3, 2), 0.1)
    >>> fig = plot_referent_heads(w, w, sentences=["a", "b"], targets=["x", "y"],
    ...                           highlight=[(1, 2)], against=[(0, 0)])
    >>> [ax.get_title() for ax in fig.axes]
    ['a', 'b']
    """
    a = np.asarray(first, dtype=float)
    b = np.asarray(second, dtype=float)
    if a.shape != b.shape or a.ndim != 3 or a.shape[-1] != 2:
        raise ValueError(f"first and second must both be (layers, heads, 2), got {a.shape} and {b.shape}")
    if len(sentences) != 2 or len(targets) != 2:
        raise ValueError("give two sentence titles and two targets")
    layers, heads = a.shape[:2]
    marks = [(lh, "D", OKABE_ITO[5], "switches as expected") for lh in highlight]
    marks += [(lh, "s", OKABE_ITO[3], "switches the other way") for lh in against]
    for (layer, head), *_ in marks:
        if not (0 <= layer < layers and 0 <= head < heads):
            raise ValueError(f"highlighted head ({layer}, {head}) is outside {layers} x {heads}")
    use_book_style()
    top = max(float(a.max()), float(b.max())) * 1.08 + 0.02
    fig, axes = plt.subplots(1, 2, figsize=(8.4, 4.5), sharex=True, sharey=True)
    for ax, w, title in zip(axes, (a, b), sentences):
        ax.plot([0, top], [0, top], "--", color="0.55", lw=1, zorder=1)
        ax.scatter(w[..., 0].ravel(), w[..., 1].ravel(), s=22, color=OKABE_ITO[0], alpha=0.75,
                   edgecolors="white", linewidths=0.5, zorder=2, label="one head")
        seen = set()
        for (layer, head), marker, colour, meaning in marks:
            x, y = w[layer, head]
            ax.scatter([x], [y], s=95, marker=marker, color=colour, edgecolors="black",
                       linewidths=0.8, zorder=4, label=None if meaning in seen else meaning)
            seen.add(meaning)
            ax.annotate(f"{layer}, {head}", (x, y), xytext=(7, 5), textcoords="offset points",
                        fontsize=8.5, zorder=5)
        ax.set_xlim(0, top)
        ax.set_ylim(0, top)
        ax.set_aspect("equal")
        ax.set_title(title)
        ax.set_xlabel(f'weight "{source}" → "{targets[0]}"')
        ax.grid(True, color="0.92", lw=0.6)
        ax.text(top * 0.04, top * 0.93, f'prefers "{targets[1]}"', fontsize=8.5, color="0.35", va="top")
        ax.text(top * 0.96, top * 0.05, f'prefers "{targets[0]}"', fontsize=8.5, color="0.35",
                ha="right")
    axes[0].set_ylabel(f'weight "{source}" → "{targets[1]}"')
    for (layer, head), *_ in marks:
        axes[1].annotate("", xy=tuple(b[layer, head]), xytext=tuple(a[layer, head]),
                         arrowprops=dict(arrowstyle="-|>", color="0.25", lw=1.1, shrinkA=4, shrinkB=6),
                         zorder=3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=9, frameon=False,
               title="marked heads are labelled layer, head (counting from 0)", title_fontsize=9)
    fig.tight_layout(rect=(0, 0.13, 1, 1))
    plt.close(fig)
    return fig


def plot_layer_means(attentions, tokens: Sequence[str], *, columns: int = 3) -> Figure:
    """One heatmap per layer: the attention weights averaged over the layer's heads.

    Rows are the tokens that look, columns the tokens looked at; the colour
    scale is viridis from 0 to 1 with one shared, labelled colour bar.

    Parameters
    ----------
    attentions : array_like, shape (layers, heads, L, L)
        Attention weights, as from :func:`selfattention.minilm.encode`.
    tokens : sequence of str
        The ``L`` tokens.
    columns : int, default 3, keyword-only
        Heatmaps per row of the figure.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``attentions`` is not ``(layers, heads, L, L)`` with
        ``L = len(tokens)``.

    Examples
    --------
    >>> fig = plot_layer_means(np.full((2, 3, 4, 4), 0.25), ["[CLS]", "a", "b", "[SEP]"], columns=2)
    >>> [ax.get_title() for ax in fig.axes[:2]]
    ['layer 0', 'layer 1']
    """
    a = np.asarray(attentions, dtype=float)
    L = len(tokens)
    if a.ndim != 4 or a.shape[-2:] != (L, L):
        raise ValueError(f"attentions must have shape (layers, heads, {L}, {L}), got {a.shape}")
    use_book_style()
    layers = a.shape[0]
    rows = -(-layers // columns)
    mean = a.mean(axis=1)  # (layers, L, L): average over heads
    side = 0.18 * L + 1.1
    fig, axes = plt.subplots(rows, columns, figsize=(columns * side + 1.2, rows * side + 0.5),
                             squeeze=False, layout="constrained")
    image = None
    for k, ax in enumerate(axes.flat):
        if k >= layers:
            ax.axis("off")
            continue
        image = ax.imshow(mean[k], cmap=CMAP, vmin=0.0, vmax=1.0)
        ax.set_title(f"layer {k}")
        ax.set_xticks(range(L), labels=list(tokens), rotation=90, fontsize=7)
        ax.set_yticks(range(L), labels=list(tokens), fontsize=7)
        ax.tick_params(length=0)
        if k % columns:
            ax.tick_params(labelleft=False)
        if k < layers - columns:
            ax.tick_params(labelbottom=False)
        ax.spines[:].set_visible(False)
    bar = fig.colorbar(image, ax=axes, fraction=0.025, pad=0.02, ticks=[0, 0.25, 0.5, 0.75, 1])
    bar.set_label("weight (0 to 1), averaged over heads")
    fig.supylabel("token that looks (query)", fontsize=10)
    fig.supxlabel("token looked at (key)", fontsize=10)
    plt.close(fig)
    return fig


def _finish(fig: Figure) -> Figure:
    """Lay out and close ``fig``: the page shows it once, as the cell's result."""
    fig.tight_layout()
    plt.close(fig)
    return fig


__all__ = ["plot_layer_means", "plot_referent_heads"]
