"""Cost against the number of tokens, on log-log axes with fitted slopes.

Chapter "The cost of full context": time and memory of plain and blockwise
attention, and the count of scores that each mask keeps.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

import selfattention as sa

from ..formatting import fmt
from ..style import OKABE_ITO
from .base import finish, subplots

_MIB = 2**20
_MARKERS = ("o", "s", "^", "D")


def plot_measurements(plain: Sequence, blockwise: Sequence, *, labels=("plain", "blockwise")) -> Figure:
    """Time and peak extra memory against ``n`` on log-log axes, with fitted slopes.

    Time on top, memory below, on the same axis of ``n``.

    Parameters
    ----------
    plain, blockwise : sequence of Measurement
        Rows of :func:`selfattention.cost.measure` for the same sizes.
    labels : pair of str, keyword-only
        Legend names of the two functions.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If the two measurements are not for the same sizes, or there are
        fewer than two sizes.

    Examples
    --------
    >>> from selfattention.cost import Measurement
    >>> a = [Measurement(n, n * n * 1e-9, n * n * 4) for n in (256, 512, 1024)]
    >>> b = [Measurement(n, n * n * 2e-9, n * 4096) for n in (256, 512, 1024)]
    >>> len(plot_measurements(a, b).axes)
    2
    """
    ns = [r.n for r in plain]
    if ns != [r.n for r in blockwise] or len(ns) < 2:
        raise ValueError(f"need the same sizes (at least two) for both, got {ns} and {[r.n for r in blockwise]}")
    fig, (ax_t, ax_m) = subplots(2, 1, figsize=(4.8, 7.0), sharex=True)
    # The two functions' times are often close: large hollow squares under small filled circles keep
    # both visible where they overlap.
    for rows, label, colour, marker, style in (
            (blockwise, labels[1], OKABE_ITO[5], "s", dict(ms=9, markerfacecolor="none", markeredgewidth=1.6)),
            (plain, labels[0], OKABE_ITO[0], "o", dict(ms=5.5))):
        ms = [r.seconds * 1e3 for r in rows]
        mib = [max(r.peak_bytes, 1) / _MIB for r in rows]
        p_t = _fit_line(ax_t, ns, ms, colour)
        p_m = _fit_line(ax_m, ns, mib, colour)
        ax_t.plot(ns, ms, marker, color=colour, label=f"{label}: slope {fmt(p_t, 2)}", **style)
        ax_m.plot(ns, mib, marker, color=colour, label=f"{label}: slope {fmt(p_m, 2)}", **style)
    for ax, title, unit in ((ax_t, "time of one call", "milliseconds"),
                            (ax_m, "peak extra memory", "MiB")):
        _loglog_axes(ax, ns)
        ax.set_title(title)
        ax.set_ylabel(unit)
        handles, names = ax.get_legend_handles_labels()
        ax.legend(handles[::-1], names[::-1], loc="upper left", frameon=True, framealpha=1)   # plain first
    ax_t.tick_params(labelbottom=True)   # sharex hides them; the top panel keeps its own labels
    return finish(fig)


def plot_mask_costs(ns: Sequence[int], counts: Mapping[str, Sequence[int]]) -> Figure:
    """Number of scores against ``n`` for several masks, on log-log axes, with slopes.

    Parameters
    ----------
    ns : sequence of int
        The sizes.
    counts : mapping of str to sequence of int
        Label of each mask and its count of kept scores at each size.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If a list of counts does not have one entry per size.

    Examples
    --------
    >>> fig = plot_mask_costs([64, 128, 256], {"full": [64**2, 128**2, 256**2]})
    >>> len(fig.axes)
    1
    """
    fig, ax = subplots(figsize=(4.8, 4.0))
    for k, (label, values) in enumerate(counts.items()):
        if len(values) != len(ns):
            raise ValueError(f"{label!r}: {len(values)} counts for {len(ns)} sizes")
        colour = OKABE_ITO[[0, 2, 5, 3][k % 4]]
        p = _fit_line(ax, ns, values, colour)
        ax.plot(ns, values, _MARKERS[k % 4], color=colour, ms=6, label=f"{label}: slope {fmt(p, 2)}")
    _loglog_axes(ax, ns)
    ax.set_ylabel("scores kept per head")
    ax.legend(loc="upper left", bbox_to_anchor=(0, -0.2), frameon=False)  # below the axes: no data hidden
    return finish(fig)


def _loglog_axes(ax, ns) -> None:
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(list(ns))
    ax.set_xticklabels([str(n) for n in ns])
    ax.minorticks_off()
    ax.set_xlabel("tokens n")
    ax.grid(True, which="major", color="0.9", lw=0.6)


def _fit_line(ax, ns, values, colour) -> float:
    """Draw the least-squares line through (log n, log value); return its slope."""
    p = sa.cost.loglog_slope(ns, values)
    x = np.asarray(ns, dtype=float)
    y = np.asarray(values, dtype=float)
    c = np.exp(np.mean(np.log(y) - p * np.log(x)))
    ax.plot(x, c * x**p, "--", color=colour, lw=1.2, alpha=0.8)
    return p
