"""How far back a reader can see (chapter "Why not read left to right?"). Each returns a Figure.

* :func:`plot_fading`: a word's effect against its distance from the reader,
  for a recurrent network and for attention, on a log scale.
* :func:`plot_position_accuracy`: the digit-reversal experiment, the share of
  digits right against how many digits were read after each one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from ..style import OKABE_ITO
from .base import finish, subplots

_STYLES = (("o", "-"), ("s", "--"), ("^", "-"), ("D", ":"))


def _check_curve(distance: np.ndarray, values, name: str) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    if values.shape != distance.shape:
        raise ValueError(f"{name} must have one value per distance {distance.shape}, got {values.shape}")
    return values


def plot_fading(distance, rnn_bound, attention, *, rnn_measured=None, w: float = 0.5) -> Figure:
    """A word's effect on the last word against how far back it stands, on a log scale.

    Parameters
    ----------
    distance : array_like of int, shape (m,)
        How many words before the last one the word stands (its count of later words): 1, 2, 3...
    rnn_bound : array_like, shape (m,)
        ``w ** k``: the recurrent network's effect without ``tanh``, and its
        upper bound with it.
    attention : array_like, shape (m,)
        The weight attention gives the word at each distance.
    rnn_measured : array_like, shape (m,), optional, keyword-only
        The exact effect with ``tanh`` for one sentence, drawn as dots.
    w : float, keyword-only
        Only for the legend.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If the curves do not have one value per distance.

    Examples
    --------
    >>> k = np.arange(1, 11)
    >>> fig = plot_fading(k, 0.5 ** k, np.full(10, 0.2), rnn_measured=0.4 ** k)
    >>> len(fig.axes[0].lines)
    3
    """
    distance = np.asarray(distance)
    if distance.ndim != 1 or distance.size == 0:
        raise ValueError(f"distance must be a non-empty 1-D array, got shape {distance.shape}")
    rnn_bound = _check_curve(distance, rnn_bound, "rnn_bound")
    attention = _check_curve(distance, attention, "attention")
    fig, ax = subplots(figsize=(4.9, 4.6))
    ax.semilogy(distance, attention, "-", color=OKABE_ITO[2], lw=2.4, label="attention: one step")
    ax.semilogy(distance, rnn_bound, "--", color=OKABE_ITO[0], lw=2.2, label=f"RNN: ${w:g}^k$")
    if rnn_measured is not None:
        rnn_measured = _check_curve(distance, rnn_measured, "rnn_measured")
        ax.semilogy(distance, rnn_measured, "o", color=OKABE_ITO[5], ms=4, label="RNN with tanh, one sentence")
    ax.set_xlabel("words before the last one (k)")
    ax.set_ylabel("effect on the last word")
    ax.set_xlim(0, distance.max() + 1)
    ax.grid(True, which="major", color="0.9", lw=0.6)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)   # below: no curve hidden
    return finish(fig)


def plot_position_accuracy(curves: Mapping[str, Sequence[float]], *, chance: float = 0.1) -> Figure:
    """Share of digits right at each output position, for each model.

    Output position ``i`` writes the digit that had ``i`` digits read after
    it, so the horizontal axis is the same distance as in :func:`plot_fading`.

    Parameters
    ----------
    curves : dict of str to array_like
        One curve per model: the share right at each position, all of one length.
    chance : float, keyword-only
        The share a blind guess gets right, drawn as a dotted line.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If there is no curve or the curves differ in length.

    Examples
    --------
    >>> fig = plot_position_accuracy({"summary": [1.0, 0.5, 0.1], "attention": [1.0, 1.0, 1.0]})
    >>> len(fig.axes[0].lines)
    3
    """
    if not curves:
        raise ValueError("curves must hold at least one model")
    arrays = {label: np.asarray(v, dtype=float) for label, v in curves.items()}
    lengths = {a.shape for a in arrays.values()}
    if len(lengths) != 1 or len(next(iter(lengths))) != 1:
        raise ValueError(f"every curve must be 1-D and of one length, got shapes {sorted(lengths)}")
    fig, ax = subplots(figsize=(4.9, 3.5))
    for i, (label, acc) in enumerate(arrays.items()):
        marker, line = _STYLES[i % len(_STYLES)]
        colour = (OKABE_ITO[0], OKABE_ITO[1], OKABE_ITO[2], OKABE_ITO[3])[i % 4]
        ax.plot(np.arange(acc.size), acc, marker=marker, ls=line, color=colour, ms=5, lw=1.8, label=label)
    ax.axhline(chance, color="0.4", ls=":", lw=1.4, label="blind guess")
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("digits read after this one")
    ax.set_ylabel("share right")
    ax.grid(True, color="0.9", lw=0.6)
    ax.legend(loc="center right", frameon=True, framealpha=0.95)
    return finish(fig)
