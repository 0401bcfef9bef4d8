"""Figures of words as points in the plane (chapter "A weighted average"). Each returns a Figure."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from ..formatting import fmt
from ..style import WORD_COLOURS
from .base import finish, subplots

_MARKERS = ("o", "s", "^")


def _plane(ax, limit: float) -> None:
    ax.set_xlim(-0.3, limit)
    ax.set_ylim(-0.3, limit)
    ax.set_aspect("equal")
    ax.axhline(0, color="0.75", lw=0.8, zorder=0)
    ax.axvline(0, color="0.75", lw=0.8, zorder=0)
    ax.set_xlabel("first number")
    ax.set_ylabel("second number")
    ax.grid(True, color="0.92", lw=0.6)


def plot_words(x, words: Sequence[str]) -> Figure:
    """Draw each word as an arrow from the origin, labelled with its vector.

    Parameters
    ----------
    x : array_like, shape (n, 2)
        One 2-D vector per word.
    words : sequence of str
        One label per row of ``x``.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``x`` is not ``(n, 2)`` with one word per row.

    Examples
    --------
    >>> fig = plot_words([[2, 0], [1, 1], [0, 2]], ["cat", "dog", "car"])
    >>> len(fig.axes)
    1
    """
    x = _check_points(x, words)
    fig, ax = subplots(figsize=(4.2, 4.2))
    _plane(ax, max(2.6, float(x.max()) + 0.6))
    for i, (word, (a, b)) in enumerate(zip(words, x)):
        colour = WORD_COLOURS[i % len(WORD_COLOURS)]
        ax.annotate("", xy=(a, b), xytext=(0, 0),
                    arrowprops=dict(arrowstyle="-|>", color=colour, lw=2))
        ax.plot(a, b, _MARKERS[i % 3], color=colour, ms=9)
        ax.annotate(f"{word} [{fmt(a, 0)}, {fmt(b, 0)}]", (a, b), xytext=(6, 6),
                    textcoords="offset points", color="black")
    return finish(fig)


def plot_weighted_mix(x, weights, words: Sequence[str], i: int) -> Figure:
    """Draw word ``i``'s output as a weighted mix of all the words.

    Dashed segments, laid end to end, show each word's share
    ``weights[i, j] * x[j]``; they end at the output.

    Parameters
    ----------
    x : array_like, shape (n, 2)
        The words.
    weights : array_like, shape (n, n)
        Attention weights; row ``i`` is used.
    words : sequence of str
        Labels.
    i : int
        The word whose output is drawn.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If the shapes do not match or ``i`` is out of range.

    Examples
    --------
    >>> import numpy as np
    >>> fig = plot_weighted_mix([[2, 0], [1, 1], [0, 2]], np.full((3, 3), 1 / 3),
    ...                         ["cat", "dog", "car"], 0)
    >>> len(fig.axes)
    1
    """
    x = _check_points(x, words)
    n = len(words)
    w = np.asarray(weights, dtype=float)
    if w.shape != (n, n):
        raise ValueError(f"weights must have shape ({n}, {n}) to match x {x.shape}, got {w.shape}")
    if not 0 <= i < n:
        raise ValueError(f"i must be between 0 and {n - 1}, got {i}")
    out = w[i] @ x  # (2,)
    fig, ax = subplots(figsize=(4.6, 4.4))
    _plane(ax, max(2.6, float(x.max()) + 0.6))
    start = np.zeros(2)
    for j, word in enumerate(words):
        colour = WORD_COLOURS[j % len(WORD_COLOURS)]
        ax.plot(*x[j], _MARKERS[j % 3], color=colour, ms=9, alpha=0.45)
        ax.annotate(word, x[j], xytext=(6, 6), textcoords="offset points", color="0.3")
        end = start + w[i, j] * x[j]
        ax.plot([start[0], end[0]], [start[1], end[1]], "--", color=colour, lw=2.2, zorder=4,
                label=f"{fmt(w[i, j], 3)} × {word}")
        start = end
    # A hollow star under the pieces: a short last piece (car's 0.045 × [0, 2]) stays visible inside it.
    ax.plot(*out, "*", color="black", mfc="none", mew=1.2, ms=15, zorder=3, label=f"output of {words[i]}")
    ax.annotate(f"[{fmt(out[0], 2)}, {fmt(out[1], 2)}]", out, xytext=(-8, 10),
                textcoords="offset points", ha="right")
    ax.legend(loc="upper right", frameon=True, framealpha=1)
    return finish(fig)


def _check_points(x, words) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[1] != 2 or x.shape[0] != len(words):
        raise ValueError(f"x must have shape ({len(words)}, 2), one row per word; got {x.shape}")
    return x
