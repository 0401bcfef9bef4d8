"""Writing one token at a time: the scores each step computes, and the time per token.

Chapter "One word at a time": with a KV cache, the step that reads ``t``
tokens (and picks token ``t + 1``) scores one query against ``t`` keys;
without it, the whole causal table of ``t`` tokens is recomputed.
:func:`plot_step_scores` counts them; :func:`plot_time_per_token` shows
what the book's machine measured, on log-log axes with fitted slopes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator

import selfattention as sa

from ..formatting import fmt
from ..style import OKABE_ITO
from .base import finish, subplots
from .cost import _fit_line


def plot_step_scores(t: int) -> Figure:
    """The causal table of ``t`` tokens twice: the cells one step computes with and without the cache.

    The step reads ``t`` tokens, at positions 0 to ``t - 1``, and picks
    token ``t + 1``, which has no row yet. Left, with the cache: only the
    last row (the newest query against all ``t`` keys, its own included)
    is computed; the rows above are kept. Right, without it: every cell on
    and below the diagonal is computed again. The axes number positions
    from 0, as the rest of the book does.

    Parameters
    ----------
    t : int
        The number of tokens the step reads (2 to 10).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``t`` is not an integer from 2 to 10.

    Examples
    --------
    >>> len(plot_step_scores(6).axes)
    2
    """
    if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not 2 <= t <= 10:
        raise ValueError(f"t must be an integer from 2 to 10, got {t!r}")
    mask = sa.causal_mask(t)  # (t, t)
    fig, axes = subplots(1, 2, figsize=(4.8, 3.4))
    for ax, cache in zip(axes, (True, False)):
        image = np.ones((t, t, 3))  # white: a score that does not exist (the future)
        image[mask] = (0.85, 0.85, 0.85)  # grey: a score that exists but is not computed now
        computed = np.zeros_like(mask)
        if cache:
            computed[-1] = mask[-1]
        else:
            computed = mask
        image[computed] = (0.0, 0.447, 0.698)  # OKABE_ITO blue: computed at this step
        ax.imshow(image, interpolation="nearest")
        ax.set_xticks(range(t))
        ax.set_xticklabels([str(j) for j in range(t)])
        ax.set_yticks(range(t))
        ax.set_yticklabels([str(i) for i in range(t)])
        ax.set_xlabel("key position")
        ax.set_ylabel("query position")
        count = sa.scores_per_step(t, cache=cache)
        ax.set_title(f"{'with' if cache else 'without'} cache:\n{count} scores")
        ax.set_xticks(np.arange(-0.5, t), minor=True)
        ax.set_yticks(np.arange(-0.5, t), minor=True)
        ax.grid(True, which="minor", color="white", lw=1.0)
        ax.tick_params(which="minor", length=0)
    return finish(fig)


def plot_time_per_token(with_cache: tuple[Sequence[int], Sequence[float]],
                        without: tuple[Sequence[int], Sequence[float]]) -> Figure:
    """Time to write one token against the context length, with and without the cache, log-log.

    Parameters
    ----------
    with_cache, without : pair of sequences
        The context lengths and the best time of one token at each, in
        seconds (at least two lengths each).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If a series has fewer than two lengths, or a length without a time.

    Examples
    --------
    >>> fig = plot_time_per_token(([512, 1024, 2048], [1e-3, 2e-3, 4e-3]), ([128, 256], [1e-2, 4e-2]))
    >>> len(fig.axes)
    1
    """
    fig, ax = subplots(figsize=(4.8, 4.2))
    ticks = []
    for (ns, secs), label, colour, marker in ((with_cache, "with the cache", OKABE_ITO[0], "o"),
                                              (without, "recompute everything", OKABE_ITO[5], "s")):
        if len(ns) < 2 or len(ns) != len(secs):
            raise ValueError(f"{label}: need at least two lengths, each with its time; got {len(ns)} and {len(secs)}")
        ms = [s * 1e3 for s in secs]
        p = _fit_line(ax, ns, ms, colour)
        ax.plot(ns, ms, marker, color=colour, ms=6, label=f"{label}: slope {fmt(p, 2)}")
        ticks.extend(ns)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ticks = sorted(set(ticks))
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(n) if n < 1000 else f"{n // 1024}k" for n in ticks])
    ax.minorticks_off()
    # Whole decades at both ends, and labelled ticks at 1, 2 and 5 of each: every point has a labelled
    # tick near it, so the gap between the two lines can be read off the axis.
    all_ms = [s * 1e3 for _, secs in (with_cache, without) for s in secs]
    ax.set_ylim(10.0 ** np.floor(np.log10(min(all_ms))), 10.0 ** np.ceil(np.log10(max(all_ms))))
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xlabel("context length n (tokens)")
    ax.set_ylabel("milliseconds per token")
    ax.grid(True, which="major", color="0.9", lw=0.6)
    ax.legend(loc="upper left", bbox_to_anchor=(0, -0.22), frameon=False)  # below the axes: no data hidden
    return finish(fig)
