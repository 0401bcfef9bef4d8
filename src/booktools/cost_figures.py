"""Figures and tables of the chapter "The cost of full context". Each figure function returns a Figure."""

from __future__ import annotations

import os
import platform
from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from selfattention.cost import loglog_slope

from .numbers import fmt
from .style import OKABE_ITO

_MIB = 2**20
_MARKERS = ("o", "s", "^", "D")
#: Blocked cells pale grey, allowed cells blue: readable in grey scale too.
MASK_CMAP = ListedColormap(["#EEEEEE", OKABE_ITO[0]])


class StrTable:
    """A numbered, captioned MyST table of cells that are already strings.

    :class:`~booktools.tables.MystTable` formats numbers with one count of
    decimals; this one takes text such as ``"61.0 GiB"`` or ``"4,096"``.

    Examples
    --------
    >>> print(StrTable([["16", "64"]], ["n²"], ["4", "8"], "Counts", "tbl-c", corner="n").markdown())
    :::{table} Counts
    :name: tbl-c
    :align: center
    <BLANKLINE>
    | n | 4 | 8 |
    |---|---:|---:|
    | **n²** | 16 | 64 |
    :::
    """

    def __init__(self, cells, row_labels: Sequence[str], col_labels: Sequence[str],
                 caption: str, name: str, corner: str = ""):
        cells = [[str(c) for c in row] for row in cells]
        if len(cells) != len(row_labels) or any(len(r) != len(col_labels) for r in cells):
            raise ValueError(
                f"cells must have {len(row_labels)} rows of {len(col_labels)} entries, "
                f"got {[len(r) for r in cells]}"
            )
        self.cells, self.rows, self.cols = cells, list(row_labels), list(col_labels)
        self.caption, self.name, self.corner = caption, name, corner

    def markdown(self) -> str:
        """The table as a MyST ``table`` directive."""
        lines = [f":::{{table}} {self.caption}", f":name: {self.name}", ":align: center", ""]
        lines.append("| " + " | ".join([self.corner, *self.cols]) + " |")
        lines.append("|---|" + "---:|" * len(self.cols))
        for label, row in zip(self.rows, self.cells):
            lines.append("| " + " | ".join([f"**{label}**", *row]) + " |")
        lines.append(":::")
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        return self.markdown()


def machine_info() -> dict:
    """What the measurements ran on: CPU model, core count, BLAS, NumPy, Python.

    The CPU model comes from ``/proc/cpuinfo`` when it exists (Linux), else
    from :func:`platform.processor`; the BLAS library from NumPy's build
    configuration (``numpy.show_config(mode="dicts")``).

    Returns
    -------
    dict
        ``cpu``, ``cores`` (:func:`os.cpu_count`), ``blas`` (name and
        version), ``numpy``, ``python`` and ``system``; every value a string
        except ``cores``.

    Examples
    --------
    >>> info = machine_info()
    >>> sorted(info)
    ['blas', 'cores', 'cpu', 'numpy', 'python', 'system']
    >>> info["cores"] >= 1
    True
    """
    cpu = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    cpu = " ".join(cpu.split()) or platform.processor() or platform.machine() or "unknown CPU"
    blas = "unknown BLAS"
    try:
        deps = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        blas = " ".join(str(deps.get(key, "")) for key in ("name", "version")).strip() or blas
    except (KeyError, TypeError, AttributeError):
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count() or 1,
        "blas": blas,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.machine()}".strip(),
    }


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
    p = loglog_slope(ns, values)
    x = np.asarray(ns, dtype=float)
    y = np.asarray(values, dtype=float)
    c = np.exp(np.mean(np.log(y) - p * np.log(x)))
    ax.plot(x, c * x**p, "--", color=colour, lw=1.2, alpha=0.8)
    return p


def plot_measurements(plain: Sequence, blockwise: Sequence, *, labels=("plain", "blockwise")) -> Figure:
    """Time and peak extra memory against ``n`` on log-log axes, with fitted slopes.

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
    fig, (ax_t, ax_m) = plt.subplots(1, 2, figsize=(8.4, 3.6))
    for rows, label, colour, marker in ((plain, labels[0], OKABE_ITO[0], "o"),
                                        (blockwise, labels[1], OKABE_ITO[5], "s")):
        ms = [r.seconds * 1e3 for r in rows]
        mib = [max(r.peak_bytes, 1) / _MIB for r in rows]
        p_t = _fit_line(ax_t, ns, ms, colour)
        p_m = _fit_line(ax_m, ns, mib, colour)
        ax_t.plot(ns, ms, marker, color=colour, ms=6, label=f"{label}: slope {fmt(p_t, 2)}")
        ax_m.plot(ns, mib, marker, color=colour, ms=6, label=f"{label}: slope {fmt(p_m, 2)}")
    for ax, title, unit in ((ax_t, "time of one call", "milliseconds"),
                            (ax_m, "peak extra memory", "MiB")):
        _loglog_axes(ax, ns)
        ax.set_title(title)
        ax.set_ylabel(unit)
        ax.legend(loc="upper left", fontsize=9, frameon=True, framealpha=1)
    return _finish(fig)


def plot_online_softmax(steps: Sequence, scores, final, *, query: int = 0) -> Figure:
    """The online softmax for one query: running max, running sum, partial output.

    Three panels, one point per block of keys: (a) the scores with the
    block boundaries and the running max ``m`` after each block; (b) the
    running sum ``l`` as a stacked bar, the old sum after its rescaling by
    ``exp(m_old - m_new)`` below and the new block's sum on top; (c) the
    partial output ``acc / l`` after each block, which ends on the output of
    plain attention (dashed).

    Parameters
    ----------
    steps : sequence of OnlineSoftmaxStep
        From :func:`selfattention.online_softmax.online_softmax_trace`.
    scores : array_like, shape (L, S)
        The full score matrix (only for drawing panel a).
    final : array_like, shape (L, d_v)
        The output of plain attention (only for drawing panel c).
    query : int, default 0, keyword-only
        The query to draw.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If there are no steps or the shapes do not match.

    Examples
    --------
    >>> import numpy as np
    >>> from selfattention.online_softmax import online_softmax_trace
    >>> from selfattention import scaled_dot_product_attention
    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.standard_normal((1, 2)), rng.standard_normal((8, 2)), rng.standard_normal((8, 2))
    >>> steps = online_softmax_trace(q, k, v, block_size=4)
    >>> fig = plot_online_softmax(steps, q @ k.T / np.sqrt(2), scaled_dot_product_attention(q, k, v))
    >>> len(fig.axes)
    3
    """
    if not steps:
        raise ValueError("need at least one step")
    scores = np.asarray(scores, dtype=float)
    final = np.asarray(final, dtype=float)
    if scores.ndim != 2 or scores.shape[1] != steps[-1].stop or final.shape[0] != scores.shape[0]:
        raise ValueError(f"scores {scores.shape} and final {final.shape} do not match the steps")
    i = query
    blocks = np.array([st.block for st in steps])  # numbered as the trace numbers them
    fig, (ax_s, ax_l, ax_o) = plt.subplots(1, 3, figsize=(9.0, 3.5))

    # (a) scores and the running max
    keys = np.arange(scores.shape[1])
    for st in steps:
        if st.block % 2:
            ax_s.axvspan(st.start - 0.5, st.stop - 0.5, color="0.93", zorder=0)
        ax_s.hlines(st.run_max[i], st.start - 0.5, st.stop - 0.5, color=OKABE_ITO[5], lw=2.4, zorder=3)
    ax_s.plot(keys, scores[i], "o", color=OKABE_ITO[0], ms=4, zorder=2)
    ax_s.set_xlabel("key (blocks shaded in turn)")
    ax_s.set_title("(a) scores (dots), running max m", fontsize=10.5)

    # (b) the running sum: what is kept of the old sum, plus the new block
    old = np.array([0.0] + [st.run_sum[i] for st in steps[:-1]])  # l before each block
    kept = old * np.array([st.rescale[i] for st in steps])  # l_old * exp(m_old - m_new)
    new = np.array([st.run_sum[i] for st in steps]) - kept  # what the block itself added
    ax_l.bar(blocks, kept, color=OKABE_ITO[4], label="old l, rescaled")
    ax_l.bar(blocks, new, bottom=kept, color=OKABE_ITO[1], label="this block")
    top = (kept + new).max()
    for k, (b, st) in enumerate(zip(blocks, steps)):
        if k > 0:
            ax_l.annotate(f"×{fmt(st.rescale[i], 2)}", (b, kept[k] + new[k]), xytext=(0, 3),
                          textcoords="offset points", ha="center", fontsize=8.5)
    ax_l.set_ylim(0, top * 1.45)
    ax_l.set_xticks(blocks)
    ax_l.set_xlabel("after block")
    ax_l.set_title("(b) running sum l", fontsize=10.5)
    ax_l.legend(loc="upper left", fontsize=8.5, frameon=True, framealpha=1)

    # (c) the partial output converges to plain attention's
    partial = np.array([st.partial[i] for st in steps])  # (blocks, d_v)
    for c in range(partial.shape[1]):
        colour = OKABE_ITO[(2, 3, 6, 7)[c % 4]]
        ax_o.plot(blocks, partial[:, c], _MARKERS[c % 4] + "-", color=colour, ms=5, label=f"output[{c}]")
        ax_o.axhline(final[i, c], color=colour, ls="--", lw=1)
    ax_o.set_xticks(blocks)
    ax_o.set_xlabel("after block")
    ax_o.set_title("(c) partial output acc / l", fontsize=10.5)
    ax_o.legend(loc="best", fontsize=8.5, frameon=True, framealpha=1)
    for ax in (ax_s, ax_l, ax_o):
        ax.grid(True, axis="y", color="0.92", lw=0.6)
    return _finish(fig)


def plot_masks(masks: Mapping[str, np.ndarray], *, row: int | None = None,
               blocked: Mapping[str, int] | None = None) -> Figure:
    """Draw boolean attention masks side by side; optionally outline one query's row.

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
    fig, axes = plt.subplots(1, len(masks), figsize=(3.0 * len(masks), 3.5), squeeze=False)
    for k, (ax, (title, mask)) in enumerate(zip(axes[0], masks.items())):
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
        if k == 0:
            ax.set_ylabel("query (looks)")
        ax.set_title(f"{title}\n{int(m.sum())} of {L * S} scores", fontsize=10.5)
        if row is not None:
            ax.add_patch(Rectangle((-0.5, row - 0.5), S, 1, fill=False, ec=OKABE_ITO[5], lw=2, zorder=5))
            if blocked and title in blocked:
                ax.plot(blocked[title], row, "x", color=OKABE_ITO[5], ms=8, mew=2.2)
        for side in ("top", "right"):
            ax.spines[side].set_visible(True)
    return _finish(fig)


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
    fig, ax = plt.subplots(figsize=(5.8, 3.9))
    for k, (label, values) in enumerate(counts.items()):
        if len(values) != len(ns):
            raise ValueError(f"{label!r}: {len(values)} counts for {len(ns)} sizes")
        colour = OKABE_ITO[[0, 2, 5, 3][k % 4]]
        p = _fit_line(ax, ns, values, colour)
        ax.plot(ns, values, _MARKERS[k % 4], color=colour, ms=6, label=f"{label}: slope {fmt(p, 2)}")
    _loglog_axes(ax, ns)
    ax.set_ylabel("scores kept per head")
    ax.legend(loc="upper left", fontsize=9, frameon=True, framealpha=1)
    return _finish(fig)


def _finish(fig: Figure) -> Figure:
    """Lay out and close ``fig``: the page shows it once, as the cell's result."""
    fig.tight_layout()
    plt.close(fig)
    return fig
