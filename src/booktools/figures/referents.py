"""Which word a pronoun looks at, head by head (chapter "Attention in a real model").

The numbers come from :func:`selfattention.minilm.encode`; this module only
draws them, in the book's style (Okabe–Ito colours, shapes as well as
colours for the marked heads).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from ..style import OKABE_ITO
from .base import finish, subplots


def plot_referent_heads(first, second, *, sentences: Sequence[str], targets: Sequence[str],
                        highlight: Sequence[tuple[int, int]] = (),
                        against: Sequence[tuple[int, int]] = (), source: str = "it") -> Figure:
    """Every head's weight from ``source`` to two targets, for two sentences.

    One panel per sentence, the second below the first. Each head is a point: across, the weight on
    ``targets[0]``; up, the weight on ``targets[1]``. Points above the
    dashed diagonal give more weight to the second target. Marked heads are
    drawn larger and labelled (diamonds for ``highlight``, squares for
    ``against``). In the second panel a hollow marker of the same shape and
    colour shows where each marked head was in the first sentence, and an
    arrow in its colour, curved, draws its move, so that two heads that swap
    places give two arcs, not one double arrow.

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
    top = max(float(a.max()), float(b.max())) * 1.08 + 0.02
    fig, axes = subplots(2, 1, figsize=(4.6, 9.4), sharex=True, sharey=True)
    for ax, w, title in zip(axes, (a, b), sentences):
        ax.plot([0, top], [0, top], "--", color="0.55", lw=1, zorder=1)
        ax.scatter(w[..., 0].ravel(), w[..., 1].ravel(), s=22, color=OKABE_ITO[0], alpha=0.75,
                   edgecolors="white", linewidths=0.5, zorder=2, label="one head")
        seen = set()
        for (layer, head), marker, colour, meaning in marks:
            x, y = w[layer, head]
            # The label goes above right of a head that sits above the other marked heads, below right
            # of one below them: the labels stay clear of each other and of the arrows between them.
            others = [w[lh][1] for lh, *_ in marks if lh != (layer, head)]
            offset = (9, -15) if others and y < np.mean(others) else (8, 6)
            ax.scatter([x], [y], s=95, marker=marker, color=colour, edgecolors="black",
                       linewidths=0.8, zorder=4, label=None if meaning in seen else meaning)
            seen.add(meaning)
            ax.annotate(f"{layer}, {head}", (x, y), xytext=offset, textcoords="offset points", zorder=6,
                        bbox=dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none", alpha=0.85))
        ax.set_xlim(0, top)
        ax.set_ylim(0, top)
        ax.set_aspect("equal")
        ax.set_title(title)
        ax.set_ylabel(f'weight "{source}" → "{targets[1]}"')
        ax.grid(True, color="0.92", lw=0.6)
        # The two sides of the diagonal, named away from the crowd of points near zero and from the
        # heads along the bottom edge.
        ax.text(top * 0.04, top * 0.96, f'prefers "{targets[1]}"', fontsize=12, color="0.3", va="top")
        ax.text(top * 0.96, top * 0.3, f'prefers "{targets[0]}"', fontsize=12, color="0.3", ha="right",
                va="center")
    axes[1].set_xlabel(f'weight "{source}" → "{targets[0]}"')
    axes[0].tick_params(labelbottom=True)
    for (layer, head), marker, colour, _ in marks:  # in the second panel: where each was, and its move
        axes[1].scatter(*a[layer, head], s=55, marker=marker, facecolors="none", edgecolors=colour,
                        linewidths=1.3, zorder=3)
        # Curved: two heads that swap places get two arcs, one on each side, not one double arrow.
        axes[1].annotate("", xy=tuple(b[layer, head]), xytext=tuple(a[layer, head]),
                         arrowprops=dict(arrowstyle="-|>", color=colour, lw=2.0, shrinkA=4, shrinkB=7,
                                         connectionstyle="arc3,rad=0.5"),
                         zorder=3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=1, frameon=False,
               title="marked heads: labelled layer, head\n(counting from 0)")
    return finish(fig, rect=(0, 0.13, 1, 1))


__all__ = ["plot_referent_heads"]
