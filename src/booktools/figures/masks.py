"""Attention masks as grids of allowed and blocked scores (chapters "Causal masking" and "The cost of full context")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle

from ..style import MAX_WIDTH_IN, OKABE_ITO
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


def plot_mask_and_weights(mask, weights, tokens: Sequence[str]) -> Figure:
    """A causal mask beside the weights it leaves, for a short sentence (chapter "Causal masking").

    Left: the mask, blue where a token may read, pale grey where it may
    not. Right: the attention weights after masking, each written in its
    cell; a blocked cell shows its weight, exactly 0, on the same pale grey.

    Parameters
    ----------
    mask : array_like of bool, shape (n, n)
        ``True`` where the row's token may read the column's token.
    weights : array_like, shape (n, n)
        The weights after masking (rows sum to 1, or are all 0).
    tokens : sequence of str
        The ``n`` tokens: the rows' and the columns' labels.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``mask`` or ``weights`` is not ``(n, n)`` with ``n = len(tokens)``,
        or a blocked cell has a weight that is not 0.

    Examples
    --------
    >>> import numpy as np
    >>> fig = plot_mask_and_weights(np.tri(2, dtype=bool), [[1.0, 0.0], [0.4, 0.6]], ["a", "b"])
    >>> [ax.get_title() for ax in fig.axes]
    ['the causal mask', 'the weights after it']
    """
    m = np.asarray(mask, dtype=bool)
    w = np.asarray(weights, dtype=float)
    n = len(tokens)
    if m.shape != (n, n) or w.shape != (n, n):
        raise ValueError(f"mask and weights must have shape ({n}, {n}), got {m.shape} and {w.shape}")
    if (w[~m] != 0).any():
        raise ValueError("a blocked cell has a non-zero weight: the weights do not follow the mask")
    side = min((MAX_WIDTH_IN - 0.9) / 2, 0.5 * n + 0.5)  # one panel, in inches: the pair fits a phone
    fig, (left, right) = subplots(1, 2, figsize=(2 * side + 0.9, side + 0.9))
    left.imshow(m, cmap=MASK_CMAP, vmin=0, vmax=1, interpolation="nearest")
    for i in range(n):
        for j in range(n):
            left.text(j, i, "reads" if m[i, j] else "no", ha="center", va="center", fontsize=12,
                      color="white" if m[i, j] else "black")
    shade = np.where(m, w, np.nan)  # blocked cells: the figure's pale grey, not a colour of the scale
    right.imshow(np.zeros_like(w), cmap=MASK_CMAP, vmin=0, vmax=1, interpolation="nearest")
    right.imshow(shade, cmap="Blues", vmin=0, vmax=1.4, interpolation="nearest")
    for i in range(n):
        for j in range(n):
            right.text(j, i, f"{w[i, j]:.2f}" if m[i, j] else "0", ha="center", va="center", fontsize=12,
                       color="white" if m[i, j] and w[i, j] > 0.8 else "black")
    for ax, title in ((left, "the causal mask"), (right, "the weights after it")):
        ax.set_xticks(range(n), labels=list(tokens))
        ax.set_yticks(range(n), labels=list(tokens))
        ax.set_xticks(np.arange(-0.5, n, 1), minor=True)
        ax.set_yticks(np.arange(-0.5, n, 1), minor=True)
        ax.grid(True, which="minor", color="white", lw=1.5)
        ax.tick_params(which="both", length=0)
        ax.xaxis.set_ticks_position("top")
        ax.xaxis.set_label_position("top")
        ax.set_xlabel("token it reads")
        ax.set_title(title)
        ax.spines[:].set_visible(False)
    left.set_ylabel("token that reads")
    return finish(fig)
