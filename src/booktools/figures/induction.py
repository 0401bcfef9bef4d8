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


def plot_phase_change(steps, repeated, first, induction, previous, *, log_vocab: float, stretch) -> Figure:
    """The training run's held-out curves: the two copies' losses above, the two named heads' scores below.

    Parameters
    ----------
    steps : array_like of int, shape (c,)
        The checkpoints' steps (the first may be 0; the axis is logarithmic, so it is left out).
    repeated, first : array_like, shape (c,)
        The held-out loss of the second copies' predictions and of the first copies'.
    induction, previous : array_like, shape (c,)
        The induction head's induction score and the previous-token head's previous-token score.
    log_vocab : float, keyword-only
        The loss of a uniform guess, drawn as a dashed line.
    stretch : (float, float), keyword-only
        The steep stretch the chapter's rule finds, shaded in both panels.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If the five arrays do not have one shape.

    Examples
    --------
    >>> fig = plot_phase_change([0, 10, 100, 1000], [4, 3.9, 1, 0.5], [4, 4, 4.1, 4.1], [0, 0.1, 0.6, 0.8],
    ...                         [0, 0.1, 0.7, 0.9], log_vocab=3.95, stretch=(50, 150))
    >>> [ax.get_ylabel() for ax in fig.axes]
    ['loss (held-out)', 'score (held-out)']
    """
    arrays = [np.asarray(a, dtype=float) for a in (steps, repeated, first, induction, previous)]
    if arrays[0].ndim != 1 or any(a.shape != arrays[0].shape for a in arrays):
        raise ValueError(f"steps, repeated, first, induction and previous must have one shape (c,), got "
                         f"{[a.shape for a in arrays]}")
    keep = arrays[0] > 0
    steps, repeated, first, induction, previous = (a[keep] for a in arrays)
    fig, (top, bottom) = subplots(2, 1, figsize=(4.4, 5.4), sharex=True)   # narrow: 11 px text on a phone
    for ax in (top, bottom):
        ax.axvspan(*stretch, color="0.88", zorder=0, label="steep stretch" if ax is top else None)
        ax.set_xscale("log")
    top.plot(steps, first, color=OKABE_ITO[0], label="first copy")
    top.plot(steps, repeated, color=OKABE_ITO[5], linestyle=(0, (6, 2)), label="repeated part")
    top.axhline(log_vocab, color="0.45", linewidth=1, linestyle="--", label="uniform guess")
    top.set_ylabel("loss (held-out)")
    top.set_ylim(0, max(first.max(), repeated.max()) * 1.08)
    top.legend(loc="lower left", fontsize="small")   # short labels: the box ends before the stretch
    bottom.plot(steps, induction, color=OKABE_ITO[2], label="induction head: induction score")
    bottom.plot(steps, previous, color=OKABE_ITO[3], linestyle=(0, (2, 1.5)),
                label="previous-token head: previous-token score")
    bottom.set_ylim(0, 1)
    bottom.set_ylabel("score (held-out)")
    bottom.set_xlabel("training step (logarithmic)")
    # Below the axes: inside, the legend would hide the curves, which fill the right half from 0.5 to 1.
    bottom.legend(loc="upper left", bbox_to_anchor=(-0.2, -0.3), fontsize="small", frameon=False)
    return finish(fig)


def plot_classic_table(ks, offsets, score, ratio, *, score_target: float, ratio_target: float) -> Figure:
    """The classic test, cell by cell: the induction head's score and the loss ratio, for each k and offset.

    Parameters
    ----------
    ks : array_like of int, shape (K,)
        The lengths of the repeated sequence.
    offsets : array_like of int, shape (O,)
        Where the first copy starts.
    score, ratio : array_like, shape (K, O)
        The induction score and the second copy's loss over the first's; NaN where a repeat does not fit.
    score_target, ratio_target : float, keyword-only
        The targets: cells that miss one get a dot.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> score = np.array([[0.7, 0.5], [0.8, np.nan]])
    >>> fig = plot_classic_table([4, 5], [0, 1], score, score / 4, score_target=0.6, ratio_target=0.25)
    >>> [ax.get_title() for ax in fig.axes[:2]]
    ['induction score', "repeated part's loss / first copy's"]
    """
    ks, offsets = np.asarray(ks), np.asarray(offsets)
    score, ratio = np.asarray(score, dtype=float), np.asarray(ratio, dtype=float)
    if score.shape != (len(ks), len(offsets)) or ratio.shape != score.shape:
        raise ValueError(f"score and ratio must have shape (len(ks), len(offsets)) = {(len(ks), len(offsets))}, "
                         f"got {score.shape} and {ratio.shape}")
    fig, axes = subplots(2, 1, figsize=(4.4, 5.6), layout="constrained")   # narrow: 11 px text on a phone
    panels = ((score, "induction score", (0, 1), score < score_target),
              (ratio, "repeated part's loss / first copy's", (0, 0.5), ratio > ratio_target))
    for ax, (table, title, limits, missed) in zip(axes, panels):
        image = ax.imshow(np.ma.masked_invalid(table), vmin=limits[0], vmax=limits[1], aspect="auto",
                          origin="lower", extent=(offsets[0] - 0.5, offsets[-1] + 0.5, ks[0] - 0.5, ks[-1] + 0.5))
        rows, columns = np.nonzero(missed & ~np.isnan(table))
        ax.plot(offsets[columns], ks[rows], "o", color="white", markeredgecolor="black", markersize=5,
                label="misses its target")
        ax.set_title(title)
        ax.set_ylabel("m: the repeat's length")
        ax.set_yticks(ks[::2] if len(ks) > 6 else ks)
        ax.set_facecolor("0.93")
        fig.colorbar(image, ax=ax, shrink=0.9)
        if len(rows):
            ax.legend(loc="upper right", fontsize="small")
    axes[-1].set_xlabel("offset: where the first copy starts")
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


__all__ = ["plot_classic_table", "plot_phase_change", "plot_two_heads"]
