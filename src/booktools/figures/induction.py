"""Two heads that learned to copy: the loss curve of the training run, and the two heads at work.

The numbers come from :mod:`selfattention.induction` (the shipped training
run and the trained model's forward pass); this module only draws them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from ..style import OKABE_ITO
from .base import finish, subplots
from .heatmaps import heatmap_grid


def plot_copy_losses(steps, first, second, *, log_vocab: float, drop_step: int) -> Figure:
    """The held-out loss inside each copy against the training step, with the step where it drops.

    Parameters
    ----------
    steps : array_like of int, shape (k,)
        The steps at which the loss was measured.
    first, second : array_like, shape (k,)
        The mean loss inside the first copy and inside the second.
    log_vocab : float, keyword-only
        ``log(VOCAB)``, the loss of a uniform guess, drawn as a dashed line.
    drop_step : int, keyword-only
        The step the chapter's rule finds, drawn as a dotted vertical line.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If the three arrays do not have the same length.

    Examples
    --------
    >>> fig = plot_copy_losses([0, 50, 100], [2.8, 2.8, 2.8], [2.8, 1.0, 0.2], log_vocab=2.77, drop_step=50)
    >>> [line.get_label() for line in fig.axes[0].get_lines()][:2]
    ['first copy', 'second copy']
    """
    steps, first, second = (np.asarray(a, dtype=float) for a in (steps, first, second))
    if not steps.shape == first.shape == second.shape or steps.ndim != 1:
        raise ValueError(f"steps, first and second must have one shape (k,), got {steps.shape}, "
                         f"{first.shape}, {second.shape}")
    fig, ax = subplots(figsize=(4.4, 3.1))   # narrow: its legend's text is still 11 px on a phone
    ax.plot(steps, first, color=OKABE_ITO[0], label="first copy")
    ax.plot(steps, second, color=OKABE_ITO[5], label="second copy", linestyle=(0, (6, 2)))
    ax.axhline(log_vocab, color="0.45", linewidth=1, linestyle="--", label="log 16 (a uniform guess)")
    ax.axvline(drop_step, color="0.2", linewidth=1, linestyle=":", label=f"the drop (step {drop_step})")
    ax.set_xlabel("training step")
    ax.set_ylabel("loss (held-out)")
    ax.set_ylim(0, max(first.max(), second.max()) * 1.08)
    ax.legend(loc="lower left", fontsize="small")
    return finish(fig)


def plot_two_heads(previous, induction, symbols: Sequence[str], titles: Sequence[str]) -> Figure:
    """The weights of the previous-token head and of the induction head on one sequence, one above the other.

    Parameters
    ----------
    previous, induction : array_like, shape (n, n)
        Each head's attention weights (rows: the position that looks).
    symbols : sequence of str
        The ``n`` symbols of the sequence.
    titles : sequence of str
        The two titles.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = plot_two_heads(np.eye(3), np.eye(3), "ABA", ["head 0.0", "head 1.0"])
    >>> [ax.get_title() for ax in fig.axes[:2]]
    ['head 0.0', 'head 1.0']
    """
    tables = np.stack([np.asarray(previous, dtype=float), np.asarray(induction, dtype=float)])
    # One heatmap a row: 24 positions need the page's whole width to keep every label legible.
    return heatmap_grid(tables, list(symbols), list(titles), columns=1, bar_label="attention weight (0 to 1)",
                        title_in=0.3, margin_in=1.0)


__all__ = ["plot_copy_losses", "plot_two_heads"]
