"""An induction head wired by hand beside the trained one, on the same classic-test sequence.

The hand-wired weights come from :func:`selfattention.wiring.wired_forward`,
the trained ones from the forward pass of :mod:`selfattention.induction`;
this module only draws them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from ..style import CMAP, MAX_WIDTH_IN
from .base import finish, subplots

#: Every how many positions an axis is labelled: 32 symbols a panel cannot all be 12 pt labels.
TICK_EVERY = 8


def plot_wired_and_trained(hand_weights, trained_weights, symbols: Sequence[str], titles: Sequence[str]) -> Figure:
    """Two induction heads' attention on one sequence, side by side: wired by hand, and trained.

    Rows are the positions that look (queries), columns the positions looked
    at (keys), on one colour scale from 0 to 1. The axes are labelled with
    positions every ``TICK_EVERY``; the sequence itself is written above,
    one symbol per position, since 32 labels cannot fit a half-page panel.

    Parameters
    ----------
    hand_weights, trained_weights : array_like, shape (n, n)
        Each head's attention weights on the sequence.
    symbols : sequence of str
        The ``n`` symbols of the sequence (a string works).
    titles : sequence of str
        The two panels' titles.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If a table is not (n, n) with ``n = len(symbols)``, or there are not two titles.

    Examples
    --------
    >>> fig = plot_wired_and_trained(np.eye(4), np.eye(4), "ABAB", ["by hand", "trained"])
    >>> type(fig).__name__, [ax.get_title() for ax in fig.axes[:2]]
    ('Figure', ['by hand', 'trained'])
    """
    n = len(symbols)
    tables = [np.asarray(w, dtype=np.float64) for w in (hand_weights, trained_weights)]
    for name, w in zip(("hand_weights", "trained_weights"), tables):
        if w.shape != (n, n):
            raise ValueError(f"{name} must have shape (n, n) = ({n}, {n}) for {n} symbols, got {w.shape}")
    if len(titles) != 2:
        raise ValueError(f"titles must be two strings, one per panel, got {len(titles)}")
    fig, axes = subplots(1, 2, figsize=(MAX_WIDTH_IN, 3.7), sharey=True, layout="constrained")
    image = None
    for ax, w, title in zip(axes, tables, titles):
        image = ax.imshow(w, cmap=CMAP, vmin=0.0, vmax=1.0)
        ax.set_title(title)
        ax.set_xticks(range(0, n, TICK_EVERY))
        ax.set_yticks(range(0, n, TICK_EVERY))
        ax.spines[:].set_visible(False)
    axes[0].set_ylabel("query position")
    fig.supxlabel("key position")
    # On the right: above the panels, the bar's ends would sit where the panels' titles are.
    bar = fig.colorbar(image, ax=axes, location="right", fraction=0.05, pad=0.02, aspect=20,
                       ticks=[0, 0.5, 1])
    bar.set_label("attention weight")
    fig.suptitle("".join(symbols), fontfamily="monospace")
    return finish(fig)


__all__ = ["plot_wired_and_trained"]
