"""A model that writes: its training curve, and the distributions that sampling draws from.

The numbers come from :mod:`selfattention.writer` (the shipped training run,
the n-gram baselines and the trained model's next-character distributions);
this module only draws them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from ..style import OKABE_ITO
from .base import finish, subplots


def plot_training_curve(steps, loss, eval_steps, held_out, baselines: dict, *, window: int = 50) -> Figure:
    """The training loss (a moving mean) and the held-out loss, against the step, with the n-gram baselines.

    Parameters
    ----------
    steps : array_like of int, shape (s,)
        The training steps.
    loss : array_like, shape (s,)
        The training loss of each step, in bits per character.
    eval_steps, held_out : array_like, shape (e,)
        The steps of the held-out measurements and their bits per character.
    baselines : dict of str to float
        Each baseline's name and held-out bits per character, drawn as dashed lines.
    window : int, default 50, keyword-only
        Steps in the moving mean of the training loss.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``steps`` and ``loss``, or ``eval_steps`` and ``held_out``, differ in shape.

    Examples
    --------
    >>> fig = plot_training_curve(range(1, 101), np.linspace(6, 2, 100), [0, 50, 100], [6.8, 3, 2.5],
    ...                           {"trigram": 2.7}, window=10)
    >>> fig.axes[0].get_ylabel()
    'bits per character'
    """
    steps, loss = np.asarray(steps, dtype=float), np.asarray(loss, dtype=float)
    eval_steps, held_out = np.asarray(eval_steps, dtype=float), np.asarray(held_out, dtype=float)
    if steps.shape != loss.shape or eval_steps.shape != held_out.shape:
        raise ValueError(f"steps {steps.shape} and loss {loss.shape}, eval_steps {eval_steps.shape} and held_out "
                         f"{held_out.shape} must have matching shapes")
    mean = np.convolve(loss, np.ones(window) / window, mode="valid")            # (s - window + 1,)
    fig, ax = subplots(figsize=(4.4, 3.4))   # narrow: 11 px text on a phone
    ax.plot(steps[window - 1:], mean, color=OKABE_ITO[0], label=f"training (mean of {window} steps)")
    ax.plot(eval_steps, held_out, color=OKABE_ITO[5], marker="o", markersize=3.5, linestyle=(0, (5, 2)),
            label="held-out")
    for (name, bits), shade in zip(baselines.items(), np.linspace(0.2, 0.55, max(len(baselines), 1))):
        shade = f"{shade:.2f}"
        ax.axhline(bits, color=shade, linewidth=1, linestyle="--")
        lowest = bits == min(baselines.values())    # at the left, below its line: the curves are high there
        ax.annotate(f"{name} {bits:.2f}", (0 if lowest else 1, bits), xycoords=("axes fraction", "data"),
                    xytext=(4 if lowest else -2, -2 if lowest else 2), textcoords="offset points",
                    ha="left" if lowest else "right", va="top" if lowest else "bottom", fontsize="small", color="0.2")
    ax.set_ylim(0, max(held_out.max(), mean.max()) * 1.04)
    ax.set_xlim(0, steps[-1])
    ax.set_xlabel("training step")
    ax.set_ylabel("bits per character")
    ax.legend(loc="upper right", fontsize="small")
    return finish(fig)


def plot_distributions(chars: Sequence[str], panels: dict, *, shown: int = 10) -> Figure:
    """One next-character distribution per panel, one above the other, as bars over the most likely of the first.

    Parameters
    ----------
    chars : sequence of str
        The vocabulary, in id order.
    panels : dict of str to array_like, each shape (vocab,)
        A title and the distribution drawn from, in the order to draw them. The space is drawn as ␣
        and the newline as ↵.
    shown : int, default 10, keyword-only
        How many characters: the most likely ones of the first panel, in its order.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If a distribution's length is not the vocabulary's.

    Examples
    --------
    >>> p = np.array([0.5, 0.3, 0.2])
    >>> fig = plot_distributions("abc", {"plain": p, "top-k, k = 2": np.array([0.625, 0.375, 0])}, shown=3)
    >>> [ax.get_title(loc="left") for ax in fig.axes]
    ['plain', 'top-k, k = 2']
    """
    dists = {title: np.asarray(p, dtype=float) for title, p in panels.items()}
    for title, p in dists.items():
        if p.shape != (len(chars),):
            raise ValueError(f"the distribution of {title!r} has shape {p.shape}, not ({len(chars)},)")
    first = next(iter(dists.values()))
    order = np.argsort(-first, kind="stable")[:shown]                            # (shown,)
    labels = ["␣" if chars[i] == " " else ("↵" if chars[i] == "\n" else chars[i]) for i in order]   # one glyph each
    top = min(1.0, 1.15 * max(p[order].max() for p in dists.values()))
    fig, axes = subplots(len(dists), 1, figsize=(4.4, 1.7 * len(dists)), sharey=True, sharex=True)   # narrow: phones
    axes = np.atleast_1d(axes).reshape(-1)
    for ax, (title, p) in zip(axes, dists.items()):
        ax.bar(np.arange(len(order)), p[order], color=OKABE_ITO[4], edgecolor="0.2", linewidth=0.5)
        ax.set_xticks(np.arange(len(order)), labels)
        ax.set_title(title, fontsize="medium", loc="left")
        ax.set_ylim(0, top)
        ax.set_ylabel("probability")
    return finish(fig)
