"""Blockwise attention: exact softmax attention that never holds all n*n scores.

Plain attention builds the whole ``(L, S)`` score matrix, then takes its
softmax. Here the keys and values are walked in blocks of ``block_size``.
Each query keeps three running numbers while it reads the blocks: the
largest score seen so far (``run_max``), the sum of ``exp(score - run_max)``
(``run_sum``) and the matching weighted sum of values (``acc``). A column
of ones appended to the values makes one matrix product give both sums:
``run_sum`` is the last column of ``acc``. When a
block brings a larger score, the old sums are multiplied by
``exp(old_max - new_max)``, so they stay exactly what they would have been
with the new maximum. At the end ``acc / run_sum`` is the softmax-weighted
average: the same numbers as plain attention, up to rounding. This is the
"online softmax" of FlashAttention.

Memory: one tile of ``query_block_size * block_size`` scores per thread,
plus the ``(L, d_v)`` output and the values with their column of ones --
it grows like ``n * block``, not ``n**2``.

When the scores are known to be small: a bound on them
(``|q . k| <= |q| |k|``) may show that ``exp(score)`` can neither
overflow nor underflow. Softmax does not change when every score of a row
moves by the same amount, so the shift may then be 0 for good: there is no
running maximum to keep and nothing to rescale, and each block is one
matrix product, one ``exp`` and one more matrix product. The result is
the same softmax, up to rounding.

Speed: query blocks are independent, so they are spread over the
threads of :mod:`selfattention.fast.threads`, with NumPy's BLAS held to one
thread per block.

:func:`selfattention.online_softmax_trace` does the same
sums slowly, for one head, and keeps every intermediate value: it is the
version to read.
"""

from __future__ import annotations

import numpy as np

from .._validate import broadcast_shape, check_flag, check_mask, check_positive_int, check_qkv, check_scale
from .scores import masked_scores, score_checks
from .threads import SERIAL_MNK, choose_threads, matmul_small, matmul_whole, run_tasks

#: Keys per block (the step of the online softmax).
DEFAULT_BLOCK_SIZE = 1024
#: Queries per block (one task for one thread).
DEFAULT_QUERY_BLOCK_SIZE = 256


def blockwise_attention(
    q,
    k,
    v,
    *,
    mask=None,
    causal: bool = False,
    scale=None,
    block_size: int = DEFAULT_BLOCK_SIZE,
    query_block_size: int = DEFAULT_QUERY_BLOCK_SIZE,
    num_threads: int | None = None,
    fixed_shift: bool = True,
    limit_blas: bool = True,
):
    """Exact attention computed block by block with an online softmax.

    Gives the same result as the reference
    :func:`~selfattention.scaled_dot_product_attention` (up to
    floating-point rounding) with the same arguments, but walks the keys and
    values in blocks of ``block_size``, keeping a running maximum and a
    running sum per query. Extra memory is one ``(query_block_size,
    block_size)`` tile of scores per thread plus the output, so it grows
    like ``n * block`` instead of ``n**2``.

    With ``causal=True``, key blocks that lie entirely after a query block
    are skipped, which halves the work for ``L == S``. Key blocks that a
    boolean ``mask`` blocks completely are skipped too. Query blocks are
    spread over ``num_threads`` threads; NumPy releases the GIL inside
    its matrix products and ufuncs, so they run on separate cores.

    Parameters
    ----------
    q : array_like, shape (..., L, d_k)
        Queries.
    k : array_like, shape (..., S, d_k)
        Keys.
    v : array_like, shape (..., S, d_v)
        Values.
    mask : array_like, optional, keyword-only
        Boolean (``True`` = may attend) or float (added to the scores; use
        ``-inf`` to block), broadcastable to ``(..., L, S)``. It is read
        one block at a time and never copied whole.
    causal : bool, default False, keyword-only
        Block keys after the query (top-left aligned when ``L != S``).
    scale : float, optional, keyword-only
        Multiplies the scores; defaults to ``1 / sqrt(d_k)``.
    block_size : int, default 1024, keyword-only
        Keys (and values) per block: the step of the online softmax. If
        NumPy's BLAS cannot be held to one thread while several threads
        run, smaller blocks are used so that every matrix product stays on
        its own core.
    query_block_size : int, default 256, keyword-only
        Queries per block; each query block is one task for one thread.
    num_threads : int, optional, keyword-only
        Threads to use. By default as many as NumPy's BLAS may use (so
        ``OPENBLAS_NUM_THREADS=1`` means one), at most the number of CPUs
        and 8, and one for small inputs.
    fixed_shift : bool, default True, keyword-only
        Let rows whose scores are bounded skip the running maximum
        (:func:`~selfattention.fast.scores.fixed_shift_rows`).
    limit_blas : bool, default True, keyword-only
        While several threads run, hold NumPy's BLAS to one thread with
        threadpoolctl; if False (or if that is not possible), smaller
        blocks are used so that every matrix product stays on one core.

    Returns
    -------
    numpy.ndarray, shape (..., L, d_v)
        Each row is the softmax-weighted average of the rows of ``v``; a
        query whose keys are all masked gets 0. float32 inputs give a
        float32 result, anything else float64.

    Raises
    ------
    TypeError
        If an input is not numeric, ``mask`` is neither boolean nor float,
        ``causal``, ``fixed_shift`` or ``limit_blas`` is not a bool, or a
        size or ``scale`` has the wrong type.
    ValueError
        If a shape is wrong (``k`` without rows, ``d_k = 0``), ``d_k`` of q
        and k differ, ``S`` of k and v differ, ``mask`` does not broadcast
        to ``(..., L, S)``, an input or a float mask holds NaN or ``+inf``,
        a size is not positive, or the scores overflow to ``+inf``.

    Examples
    --------
    The book's running example gives the same numbers as plain attention:

    >>> import numpy as np
    >>> from selfattention.attention import scaled_dot_product_attention
    >>> x = [[2, 0], [1, 1], [0, 2]]
    >>> blockwise_attention(x, x, x, block_size=2).round(2)
    array([[1.72, 0.28],
           [1.  , 1.  ],
           [0.28, 1.72]])
    >>> blockwise_attention(x, x, x, causal=True, block_size=1).round(2)
    array([[2.  , 0.  ],
           [1.5 , 0.5 ],
           [0.28, 1.72]])

    On longer inputs it agrees with the plain function:

    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.standard_normal((3, 2, 300, 16))  # 2 heads, 300 words
    >>> out = blockwise_attention(q, k, v, causal=True, block_size=64)
    >>> out.shape
    (2, 300, 16)
    >>> bool(np.allclose(out, scaled_dot_product_attention(q, k, v, causal=True)))
    True
    """
    q, k, v = check_qkv(q, k, v)
    causal = check_flag(causal, "causal")
    fixed_shift = check_flag(fixed_shift, "fixed_shift")
    limit_blas = check_flag(limit_blas, "limit_blas")
    L, S = q.shape[-2], k.shape[-2]
    block_size = check_positive_int(block_size, "block_size")
    query_block_size = check_positive_int(query_block_size, "query_block_size")
    scale = check_scale(scale, q.shape[-1])
    allowed, bias = check_mask(mask, L, S, broadcast_shape(q.shape[:-2], k.shape[:-2], "q and k"))
    mask_batch = () if mask is None else np.shape(allowed if bias is None else bias)[:-2]  # may add dims
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], mask_batch)
    dtype = q.dtype
    out = np.zeros(batch + (L, v.shape[-1]), dtype=dtype)  # (..., L, d_v)
    num_threads = choose_threads(num_threads, int(np.prod(batch, dtype=np.int64)) * L * S)  # scores in all
    if out.size == 0:
        return out  # no queries (L = 0) or d_v = 0: nothing to compute

    scores_shape = batch + (L, S)
    q = np.broadcast_to(q, batch + q.shape[-2:])  # views, no copies
    k = np.broadcast_to(k, batch + k.shape[-2:])
    overflow, fixed = score_checks(q, k, v, scale, has_bias=bias is not None, fixed_shift=fixed_shift)
    v = np.broadcast_to(_with_ones(v), batch + (S, v.shape[-1] + 1))  # (..., S, d_v + 1)
    if allowed is not None:
        allowed = np.broadcast_to(allowed, batch + (L, S))
    if bias is not None:
        bias = np.broadcast_to(bias, batch + (L, S))

    tasks = []
    for idx in np.ndindex(*batch):
        for r0 in range(0, L, query_block_size):
            r1 = min(r0 + query_block_size, L)
            tasks.append((idx, r0, r1))
    if causal:
        tasks.sort(key=lambda t: -t[2])  # longest first: better balance

    def run(task, small_blas):
        idx, r0, r1 = task
        step = block_size
        if small_blas:  # keep each product on one core: at most 16 rows x step keys
            step = max(1, min(block_size, SERIAL_MNK // (16 * max(q.shape[-1], v.shape[-1]))))
        _attend_rows(
            q[idx], k[idx], v[idx],
            None if allowed is None else allowed[idx],
            None if bias is None else bias[idx],
            dtype.type(scale), out[idx], rows=(r0, r1), causal=causal, block_size=step,
            small_blas=small_blas, overflow=overflow, scores_shape=scores_shape,
            fixed=fixed is not None and bool(fixed[idx][r0:r1].all()),
        )

    run_tasks(run, tasks, num_threads, limit_blas=limit_blas)
    return out


def _attend_rows(
    q, k, v, allowed, bias, scale, out, *, rows, causal, block_size, small_blas, overflow, scores_shape, fixed
):
    """Online softmax over key blocks for query rows ``rows = (r0, r1)`` of one batch slice.

    ``q`` (L, d_k); ``k`` (S, d_k); ``v`` (S, d_v);
    ``allowed`` and ``bias`` are (L, S) views or None; rows ``r0:r1`` of
    ``out`` (L, d_v) are written. ``small_blas`` cuts the matrix products
    into pieces that BLAS runs on the calling thread. ``scale`` multiplies
    the queries (once, instead of every score). ``overflow`` is the
    message to raise if a score is not finite (None: they cannot overflow);
    ``scores_shape`` is only for error messages. ``fixed`` says that every
    score of these rows is small enough to use shift 0 (no running maximum).
    """
    r0, r1 = rows
    dtype = q.dtype
    matmul = matmul_small if small_blas else matmul_whole
    rows = r1 - r0
    q_blk = q[r0:r1] * scale  # (R, d_k) scaled queries: cheaper than scaling R*S scores
    # (R, d_v + 1): running sums of weight * value and, in the last column, of the weights
    acc = np.zeros((rows, v.shape[1]), dtype)
    pv = np.empty_like(acc)  # (R, d_v + 1)
    run_max = np.full(rows, -np.inf, dtype)  # (R,) largest score so far
    new_max = np.empty(rows, dtype)  # (R,)
    blocks = _key_blocks(r0, r1, k.shape[0], block_size, causal)
    buf = np.empty(rows * max((c1 - c0 for c0, c1 in blocks), default=0), dtype)  # the only score buffer
    inf = dtype.type(np.inf)
    for c0, c1 in blocks:
        if allowed is not None:
            keep = allowed[r0:r1, c0:c1]  # (R, b)
            if not keep.any():
                continue  # the mask blocks this whole block
        s = buf[: rows * (c1 - c0)].reshape(rows, c1 - c0)  # (R, b), contiguous
        masked_scores(  # (R, b) scaled, masked scores
            matmul, q_blk, k[c0:c1].T, s, overflow,
            None if bias is None else bias[r0:r1, c0:c1], None if allowed is None else keep,
        )
        if causal and c1 - 1 > r0:  # a diagonal block: hide keys after each query
            np.copyto(s, -inf, where=_after_diagonal(rows, c1 - c0, r0 - c0))
        if fixed:  # shift 0 for good: the weights are exp(score), nothing to rescale
            np.exp(s, out=s)  # (R, b)
            matmul(s, v[c0:c1], pv)  # (R, d_v + 1)
            acc += pv
            continue
        np.max(s, axis=1, out=new_max)  # (R,)
        if not (new_max < inf).all():  # max propagates NaN and +inf (a float mask added too much)
            raise ValueError(f"softmax: x contains NaN or +inf; shape {scores_shape}")
        np.maximum(new_max, run_max, out=new_max)
        shift = np.where(new_max == -inf, 0, new_max).astype(dtype, copy=False)  # (R,) finite
        alpha = np.exp(run_max - shift)  # (R,) rescales the old sums; 0 if there were none
        np.subtract(s, shift[:, None], out=s)
        np.exp(s, out=s)  # (R, b) weights, not yet divided by their sum
        matmul(s, v[c0:c1], pv)  # (R, d_v + 1)
        acc *= alpha[:, None]  # the old sums, rescaled to the new max
        acc += pv
        run_max, new_max = new_max, run_max
    total = acc[:, -1:]  # (R, 1) the softmax denominators
    np.divide(acc[:, :-1], total, out=out[r0:r1], where=total > 0)  # fully masked rows stay 0


def _with_ones(v) -> np.ndarray:
    """``v`` (..., S, d_v) with a column of ones appended: (..., S, d_v + 1).

    ``weights @ _with_ones(v)`` gives the weighted sum of the values and, in
    its last column, the sum of the weights, in one matrix product.
    """
    v1 = np.empty(v.shape[:-1] + (v.shape[-1] + 1,), v.dtype)
    v1[..., :-1] = v
    v1[..., -1] = 1
    return v1


def _key_blocks(r0: int, r1: int, S: int, block_size: int, causal: bool) -> list:
    """The ``(c0, c1)`` key ranges that query rows ``r0:r1`` must read.

    With ``causal`` the keys from ``r1`` on are masked for every one of
    these queries (top-left alignment), so those blocks are skipped.
    """
    end = min(S, r1) if causal else S
    return [(c0, min(c0 + block_size, end)) for c0 in range(0, end, block_size)]


def _after_diagonal(rows: int, cols: int, offset: int) -> np.ndarray:
    """Boolean (rows, cols): True where key ``c`` comes after query ``r + offset``."""
    return ~np.tri(rows, cols, k=offset, dtype=bool)  # (rows, cols)


__all__ = ["DEFAULT_BLOCK_SIZE", "DEFAULT_QUERY_BLOCK_SIZE", "blockwise_attention"]
