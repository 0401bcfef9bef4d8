"""The similarity of a model's position vectors (chapter "Where each word stands").

The numbers come from :func:`selfattention.learned_positions` and
:func:`selfattention.positions.cosine_similarity`; this function only draws them.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ..style import CMAP, MAX_WIDTH_IN
from .base import finish, subplots


def plot_position_similarity(similarity, *, tick_every: int = 8) -> Figure:
    """Heatmap of an ``(L, L)`` table of cosine similarities between position vectors.

    Row ``m`` and column ``n`` hold the cosine of the angle between the
    vectors of positions ``m`` and ``n``. The colour runs from -1 to 1
    (viridis, colour-blind safe), with a labelled colour bar above.

    Parameters
    ----------
    similarity : array_like, shape (L, L)
        Values in [-1, 1].
    tick_every : int, default 8, keyword-only
        Label every ``tick_every``-th position.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``similarity`` is not square or holds values outside [-1, 1].

    Examples
    --------
    >>> fig = plot_position_similarity(np.eye(16))
    >>> fig.axes[0].get_xlabel()
    'position n'
    """
    s = np.asarray(similarity, dtype=np.float64)
    if s.ndim != 2 or s.shape[0] != s.shape[1]:
        raise ValueError(f"similarity must be a square (L, L) table, got shape {s.shape}")
    if np.abs(s).max() > 1 + 1e-9:
        raise ValueError("similarity must hold cosines, between -1 and 1")
    L = s.shape[0]
    side = min(MAX_WIDTH_IN - 1.0, 3.8)
    fig, ax = subplots(figsize=(side + 1.0, side + 1.6), layout="constrained")
    image = ax.imshow(s, cmap=CMAP, vmin=-1.0, vmax=1.0, interpolation="nearest")
    ticks = list(range(0, L, tick_every))
    ax.set_xticks(ticks, labels=[str(t) for t in ticks])
    ax.set_yticks(ticks, labels=[str(t) for t in ticks])
    ax.set_xlabel("position n")
    ax.set_ylabel("position m")
    bar = fig.colorbar(image, ax=ax, location="top", shrink=0.8, pad=0.02)
    bar.set_label("cosine similarity of the two position vectors")
    bar.set_ticks([-1, -0.5, 0, 0.5, 1])
    return finish(fig)
