"""The path from words to the next word through a stack of layers (chapter "What comes next").

A diagram, drawn by code: tokens, their static embeddings, ``N`` layers
(each one masked multi-head attention and an MLP, each added back to its
input by a residual connection, with a layer norm before it), then a
score for every word of the vocabulary and a softmax. It shows the layout
of a decoder such as GPT-2; it holds no computed numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure
from matplotlib.patches import Circle, FancyBboxPatch

from ..style import OKABE_ITO
from .base import finish, subplots

#: Fill colours: light tints, so that black text stays readable (Okabe–Ito hues).
TINTS = {"words": "#e8f1f8", "attention": "#fbe9c8", "mlp": "#d7efe6", "out": "#f3e0ec", "layer": "#f6f6f6"}


def plot_transformer_path(tokens: Sequence[str], *, next_word: str = "?") -> Figure:
    """Diagram of a decoder: embeddings, ``N`` stacked layers, next-word scores.

    Parameters
    ----------
    tokens : sequence of str
        The words read so far, drawn along the top (two to six short words).
    next_word : str, default "?", keyword-only
        What the bottom box predicts.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If there are fewer than two or more than six tokens.

    Examples
    --------
    >>> fig = plot_transformer_path(["the", "cat", "sat"])
    >>> any("masked multi-head attention" in t.get_text() for t in fig.axes[0].texts)
    True
    """
    tokens = [str(t) for t in tokens]
    if not 2 <= len(tokens) <= 6:
        raise ValueError(f"give two to six tokens, got {len(tokens)}")
    fig, ax = subplots(figsize=(4.9, 8.6))
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 17.6)
    ax.axis("off")

    def box(y, h, text, fill, *, x=1.0, w=8.0, size=13, weight="normal"):
        ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.02,rounding_size=0.25",
                                    facecolor=fill, edgecolor="0.25", lw=1.1, zorder=2))
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=size, weight=weight,
                zorder=3, linespacing=1.25)

    def arrow(y0, y1, x=5.0):
        ax.annotate("", xy=(x, y1), xytext=(x, y0), zorder=1,
                    arrowprops=dict(arrowstyle="-|>", color="0.2", lw=1.3, shrinkA=0, shrinkB=0))

    # The words read so far, one small box each.
    n = len(tokens)
    gap = 8.0 / n
    for i, t in enumerate(tokens):
        box(16.4, 0.9, t, TINTS["words"], x=1.0 + i * gap + 0.08, w=gap - 0.16, size=12)
    ax.text(5.0, 17.45, "the words read so far", ha="center", va="bottom", fontsize=12, color="0.3")
    arrow(16.4, 15.7)
    box(13.9, 1.8, "static embeddings: one row\nof a table per token, plus\none for its position",
        TINTS["words"], size=12)
    arrow(13.9, 13.2)

    # One layer, repeated N times: the frame.
    ax.add_patch(FancyBboxPatch((0.25, 5.0), 9.5, 8.0, boxstyle="round,pad=0.02,rounding_size=0.3",
                                facecolor=TINTS["layer"], edgecolor=OKABE_ITO[0], lw=1.6, ls="--", zorder=0))
    ax.text(0.55, 12.65, "one layer, stacked N times", ha="left", va="center", fontsize=13,
            weight="bold", color=OKABE_ITO[0])
    box(10.2, 1.5, "layer norm, then\nmasked multi-head attention", TINTS["attention"], x=1.6, w=6.8)
    plus(ax, 5.0, 9.35)
    box(6.6, 1.5, "layer norm, then MLP\n(the same small network\nfor every token)", TINTS["mlp"], x=1.6, w=6.8)
    plus(ax, 5.0, 5.75)
    arrow(12.35, 11.7)
    arrow(10.2, 9.7)
    arrow(9.0, 8.1)
    arrow(6.6, 6.1)
    # Residual connections: each block's input goes round it and is added to its output.
    for top, bottom in ((12.0, 9.35), (8.6, 5.75)):
        ax.plot([5.0, 8.9, 8.9], [top, top, bottom], color=OKABE_ITO[5], lw=1.6, zorder=1)
        ax.annotate("", xy=(5.35, bottom), xytext=(8.9, bottom), zorder=1,
                    arrowprops=dict(arrowstyle="-|>", color=OKABE_ITO[5], lw=1.6, shrinkA=0, shrinkB=0))
    ax.text(9.45, 8.9, "residual: add the input back", rotation=90, ha="center", va="center",
            fontsize=12, color=OKABE_ITO[5])
    arrow(5.4, 4.4)

    box(2.7, 1.7, "final layer norm, then a score for\nevery word of the vocabulary,\nand softmax",
        TINTS["out"], size=12)
    arrow(2.7, 1.7)
    box(0.3, 1.4, f"the next word: {next_word}", TINTS["out"], size=12, weight="bold")
    return finish(fig)


def plus(ax, x: float, y: float) -> None:
    """A circled plus: the residual sum."""
    ax.add_patch(Circle((x, y), 0.35, facecolor="white", edgecolor="0.25", lw=1.1, zorder=2))
    ax.text(x, y, "+", ha="center", va="center", fontsize=15, zorder=3)


__all__ = ["plot_transformer_path"]
