"""Attention masks as grids of allowed and blocked scores (chapter "The cost of full context")."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle

from ..style import OKABE_ITO
from .base import finish, subplots

#: Blocked cells pale grey, allowed cells blue: readable in grey scale too.
MASK_CMAP = ListedColormap(["#EEEEEE", OKABE_ITO[0]])


def plot_masks(masks: Mapping[str, np.ndarray], *, row: int | None = None,
               blocked: Mapping[str, int] | None = None) -> Figure:
    """Draw boolean attention masks, two per row; optionally outline one query's row.

    A free panel, if there is one, holds the key to the colours and marks;
    with one mask alone there is no key.

    Parameters
    ----------
    masks : mapping of str to array_like of bool, shape (n, n)
        Title of each panel and its mask (``True`` = may attend).
    row : int, optional, keyword-only
        A query whose row is outlined in every panel.
    blocked : mapping of str to int, optional, keyword-only
        For some panels, a key of ``row`` to mark with a cross (a key that
        query can no longer read).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If there is no mask or a mask is not 2-D.

    Examples
    --------
    >>> import numpy as np
    >>> fig = plot_masks({"causal": np.tri(6, dtype=bool)}, row=4, blocked={"causal": 5})
    >>> len(fig.axes)
    1
    """
    if not masks:
        raise ValueError("need at least one mask")
    columns = 1 if len(masks) == 1 else 2
    rows = -(-len(masks) // columns)
    fig, axes = subplots(rows, columns, figsize=(2.45 * columns, 3.0 * rows), squeeze=False)
    for ax, (title, mask) in zip(axes.flat, masks.items()):
        m = np.asarray(mask, dtype=bool)
        if m.ndim != 2:
            raise ValueError(f"mask {title!r} must be 2-D, got shape {m.shape}")
        L, S = m.shape
        ax.imshow(m, cmap=MASK_CMAP, vmin=0, vmax=1, interpolation="nearest")
        ax.set_xticks(np.arange(-0.5, S, 1), minor=True)
        ax.set_yticks(np.arange(-0.5, L, 1), minor=True)
        ax.grid(True, which="minor", color="white", lw=0.8)
        ax.tick_params(which="minor", length=0)
        ticks = [t for t in range(0, max(L, S), 4)]
        ax.set_xticks([t for t in ticks if t < S])
        ax.set_yticks([t for t in ticks if t < L])
        ax.set_xlabel("key (looked at)")
        ax.set_ylabel("query (looks)")
        ax.set_title(f"{title}\n{int(m.sum())} of {L * S} scores")
        if row is not None:
            ax.add_patch(Rectangle((-0.5, row - 0.5), S, 1, fill=False, ec=OKABE_ITO[5], lw=2, zorder=5))
            if blocked and title in blocked:
                ax.plot(blocked[title], row, "x", color=OKABE_ITO[5], ms=8, mew=2.2)
        for side in ("top", "right"):
            ax.spines[side].set_visible(True)
    for k, ax in enumerate(axes.flat):
        if k == len(masks):  # the first free slot holds the key
            ax.axis("off")
            ax.legend(handles=_key(row is not None, bool(blocked)), loc="center", frameon=False,
                      handlelength=1.2)
        elif k > len(masks):
            fig.delaxes(ax)
    return finish(fig)


def _key(row: bool, blocked: bool) -> list:
    """Legend entries: kept and dropped scores, the outlined row and the cross."""
    kept = Patch(facecolor=OKABE_ITO[0], label="score kept")
    dropped = Patch(facecolor="#EEEEEE", edgecolor="0.6", label="score dropped")
    handles = [kept, dropped]
    if row:
        handles.append(Patch(facecolor="none", edgecolor=OKABE_ITO[5], lw=2, label="the row\nof one query"))
    if blocked:
        handles.append(Line2D([], [], ls="none", marker="x", color=OKABE_ITO[5], ms=8, mew=2.2,
                              label="a key it can\nno longer read"))
    return handles
