"""Rows of a real model's embedding table, drawn as strips (chapter "Words are islands")."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from .base import finish, subplots


def plot_embedding_rows(rows, labels: Sequence[str]) -> Figure:
    """Draw each vector as a strip of coloured cells, one cell per number.

    Equal vectors give equal strips. The colour scale is symmetric around 0
    (a diverging, colour-blind-safe map) and shared by all the strips.

    Parameters
    ----------
    rows : array_like, shape (n, d)
        One vector per strip (``n`` from 1 to 6).
    labels : sequence of str
        One label per strip, written on its left.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``rows`` is not 2-D with one label per row, has more than 6 rows,
        or holds no finite non-zero number.

    Examples
    --------
    >>> fig = plot_embedding_rows([[0.1, -0.2, 0.3], [0.1, -0.2, 0.3]], ["a", "b"])
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['a', 'b']
    """
    rows = np.asarray(rows, dtype=float)
    if rows.ndim != 2 or rows.shape[0] != len(labels) or not 1 <= rows.shape[0] <= 6:
        raise ValueError(f"rows must have shape (n, d) with 1 <= n <= 6 and one label per row, "
                         f"got {rows.shape} and {len(labels)} labels")
    if not np.isfinite(rows).all() or not np.abs(rows).max() > 0:
        raise ValueError("rows must hold finite numbers, not all 0")
    n, d = rows.shape
    limit = float(np.abs(rows).max())
    fig, ax = subplots(figsize=(4.6, 0.55 * n + 1.5), layout="constrained")
    image = ax.imshow(rows, aspect="auto", cmap="PuOr", vmin=-limit, vmax=limit, interpolation="nearest")
    ax.set_yticks(range(n), labels)
    ticks = sorted({0, d // 2, d - 1})
    ax.set_xticks(ticks, [str(t) for t in ticks])
    ax.set_xlabel(f"number in the vector (0 to {d - 1})", loc="right")  # ends with the strips, inside the figure
    for y in np.arange(n - 1) + 0.5:
        ax.axhline(y, color="white", lw=3)
    ax.tick_params(axis="y", length=0)
    bar = fig.colorbar(image, ax=ax, orientation="horizontal", location="top", fraction=0.25, aspect=30)
    bar.set_label("value")
    return finish(fig)
