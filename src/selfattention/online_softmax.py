"""The online softmax, traced block by block: a teaching version.

:func:`~selfattention.fast.blockwise_attention` is the fast version;
this module does the same sums slowly and keeps every intermediate value,
so a page can print and draw them. Keys and values are read in blocks.
After each block, every query holds two numbers and one vector:

* the running max ``m``: the largest score seen so far;
* the running sum ``l`` (the chapter's ℓ): the sum of ``exp(score - m)``
  over the keys seen;
* the running output ``acc`` (the chapter's ``a``), a vector of ``d_v``
  numbers: the weighted sum of the values, with the same weights.

Before the first block ``m`` is ``-inf``, so the first factor
``exp(m_old - m_new)`` is 0: there is no old sum yet.

When a block brings a larger score, the old ``l`` and ``acc`` were summed
with the old max, so both are multiplied by ``exp(m_old - m_new)``. After
the last block ``acc / l`` is exactly the softmax-weighted average.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._validate import check_positive_int, check_qkv, check_scale


class OnlineSoftmaxStep(NamedTuple):
    """The state of the online softmax after one block of keys.

    Every array has one entry (or row) per query.
    """

    #: Index of the block (0 for the first).
    block: int
    #: The block's keys are ``start`` .. ``stop - 1``.
    start: int
    stop: int
    #: (L,) largest score inside this block.
    block_max: np.ndarray
    #: (L,) running max ``m`` before this block (``-inf`` before the first).
    old_max: np.ndarray
    #: (L,) running max ``m`` after this block.
    run_max: np.ndarray
    #: (L,) ``exp(m_old - m_new)``: what the old sums are multiplied by (0 for the first block).
    rescale: np.ndarray
    #: (L,) running sum ``l`` after this block: sum of ``exp(score - m)``.
    run_sum: np.ndarray
    #: (L, d_v) running weighted sum of the values, ``sum exp(score - m) * v``.
    acc: np.ndarray
    #: (L, d_v) ``acc / l``: the output if the keys stopped after this block.
    partial: np.ndarray


def online_softmax_trace(q, k, v, *, block_size: int, scale=None) -> list[OnlineSoftmaxStep]:
    """Run the online softmax over blocks of keys and record its state after each.

    Parameters
    ----------
    q : array_like, shape (L, d_k)
        Queries.
    k : array_like, shape (S, d_k)
        Keys.
    v : array_like, shape (S, d_v)
        Values.
    block_size : int, keyword-only
        Keys per block; the last block may be shorter.
    scale : float, optional, keyword-only
        Multiplies the scores; defaults to ``1 / sqrt(d_k)``.

    Returns
    -------
    list of OnlineSoftmaxStep
        One step per block, in order. The last step's ``partial`` is the
        attention output, equal to
        :func:`~selfattention.scaled_dot_product_attention` up to
        rounding.

    Raises
    ------
    TypeError
        If an input is not numeric, or ``block_size`` or ``scale`` has the
        wrong type.
    ValueError
        If ``q``, ``k`` or ``v`` is not 2-D, the shapes do not match, an
        input contains NaN or inf, ``block_size`` is not positive, or there
        are no keys.

    Examples
    --------
    The cat of the running example reads cat, dog and car one key at a time:

    >>> x = [[2, 0], [1, 1], [0, 2]]
    >>> steps = online_softmax_trace(x[:1], x, x, block_size=1)
    >>> [float(s.run_max[0].round(2)) for s in steps]     # cat's own score is the largest
    [2.83, 2.83, 2.83]
    >>> [float(s.run_sum[0].round(3)) for s in steps]
    [1.0, 1.243, 1.302]
    >>> steps[-1].partial.round(2)                          # the attention output
    array([[1.72, 0.28]])

    Read backwards (car, dog, cat), the max grows at every key and the old
    sums are scaled down each time:

    >>> back = online_softmax_trace(x[:1], x[::-1], x[::-1], block_size=1)
    >>> [float(s.rescale[0].round(3)) for s in back]
    [0.0, 0.243, 0.243]
    >>> back[-1].partial.round(2)
    array([[1.72, 0.28]])
    """
    q, k, v = check_qkv(q, k, v)
    for name, arr in (("q", q), ("k", k), ("v", v)):
        if arr.ndim != 2:
            raise ValueError(f"{name} must be 2-D, one row per word; got shape {arr.shape}")
    block_size = check_positive_int(block_size, "block_size")
    scale = check_scale(scale, q.shape[-1])
    L, S = q.shape[0], k.shape[0]  # S >= 1: check_qkv refuses an empty k
    q, k, v = (a.astype(np.float64) for a in (q, k, v))  # teaching: float64 throughout

    run_max = np.full(L, -np.inf)  # (L,) m
    run_sum = np.zeros(L)  # (L,) l
    acc = np.zeros((L, v.shape[1]))  # (L, d_v)
    steps = []
    for b, start in enumerate(range(0, S, block_size)):
        stop = min(start + block_size, S)
        s = q @ k[start:stop].T * scale  # (L, b) scores of this block only
        block_max = s.max(axis=1)  # (L,)
        new_max = np.maximum(run_max, block_max)  # (L,)
        rescale = np.exp(run_max - new_max)  # (L,) 0 for the first block: exp(-inf)
        e = np.exp(s - new_max[:, None])  # (L, b) every entry <= 1
        run_sum = run_sum * rescale + e.sum(axis=1)  # (L,)
        acc = acc * rescale[:, None] + e @ v[start:stop]  # (L, d_v)
        steps.append(OnlineSoftmaxStep(
            block=b, start=start, stop=stop, block_max=block_max, old_max=run_max,
            run_max=new_max, rescale=rescale, run_sum=run_sum, acc=acc,
            partial=acc / run_sum[:, None],
        ))
        run_max = new_max
    return steps


__all__ = ["OnlineSoftmaxStep", "online_softmax_trace"]
