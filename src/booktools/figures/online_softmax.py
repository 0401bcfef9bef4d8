"""The online softmax, block by block (chapter "The cost of full context")."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from ..formatting import fmt
from ..style import OKABE_ITO
from .base import finish, subplots

_MARKERS = ("o", "s", "^", "D")


def plot_online_softmax(steps: Sequence, scores, final, *, query: int = 0) -> Figure:
    """The online softmax for one query: running max, running sum, partial output.

    Three panels, one below the other, one point per block of keys: (a) the scores with the
    block boundaries and the running max ``m`` after each block; (b) the
    running sum ``ℓ`` (``run_sum``) as a stacked bar, the old sum after its
    rescaling by ``exp(m_old - m_new)`` below and the new block's sum on top;
    (c) the partial output ``a / ℓ`` (``partial``, with ``a`` the running
    output ``acc``) after each block, which ends on the output of plain
    attention (dashed). The labels use the chapter's symbols.

    Parameters
    ----------
    steps : sequence of OnlineSoftmaxStep
        From :func:`selfattention.online_softmax_trace`.
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
    fig, (ax_s, ax_l, ax_o) = subplots(3, 1, figsize=(4.8, 10.0))

    # (a) scores and the running max
    keys = np.arange(scores.shape[1])
    for st in steps:
        if st.block % 2:
            ax_s.axvspan(st.start - 0.5, st.stop - 0.5, color="0.93", zorder=0)
        ax_s.hlines(st.run_max[i], st.start - 0.5, st.stop - 0.5, color=OKABE_ITO[5], lw=2.4, zorder=3)
    ax_s.plot(keys, scores[i], "o", color=OKABE_ITO[0], ms=4, zorder=2)
    ax_s.set_xlabel("key (blocks shaded in turn)")
    ax_s.set_title("(a) scores (dots), running max m")

    # (b) the running sum: what is kept of the old sum, plus the new block
    old = np.array([0.0] + [st.run_sum[i] for st in steps[:-1]])  # l before each block
    kept = old * np.array([st.rescale[i] for st in steps])  # l_old * exp(m_old - m_new)
    new = np.array([st.run_sum[i] for st in steps]) - kept  # what the block itself added
    ax_l.bar(blocks, kept, color=OKABE_ITO[4], label="old ℓ, rescaled")
    ax_l.bar(blocks, new, bottom=kept, color=OKABE_ITO[1], label="this block")
    top = (kept + new).max()
    for k, (b, st) in enumerate(zip(blocks, steps)):   # the factor over every bar: ×0 over the first
        factor = "0" if st.rescale[i] == 0 else fmt(st.rescale[i], 2)
        ax_l.annotate(f"×{factor}", (b, kept[k] + new[k]), xytext=(0, 3),
                      textcoords="offset points", ha="center")
    ax_l.set_ylim(0, top * 1.4)   # room for the factors and the legend, one line of two entries
    ax_l.set_xticks(blocks)
    ax_l.set_xlabel("after block")
    ax_l.set_title("(b) running sum ℓ")
    ax_l.legend(loc="upper left", ncol=2, frameon=True, framealpha=1)

    # (c) the partial output converges to plain attention's
    partial = np.array([st.partial[i] for st in steps])  # (blocks, d_v)
    for c in range(partial.shape[1]):
        colour = OKABE_ITO[(2, 3, 6, 7)[c % 4]]
        ax_o.plot(blocks, partial[:, c], _MARKERS[c % 4] + "-", color=colour, ms=5, label=f"(a / ℓ)[{c}]")
        ax_o.axhline(final[i, c], color=colour, ls="--", lw=1)
    ax_o.set_xticks(blocks)
    ax_o.set_xlabel("after block")
    ax_o.set_title("(c) partial output a / ℓ")
    ax_o.legend(loc="best", frameon=True, framealpha=1)
    for ax in (ax_s, ax_l, ax_o):
        ax.grid(True, axis="y", color="0.92", lw=0.6)
    return finish(fig)
