"""Plain attention, fast: the whole table of weights, filled a block of rows at a time.

The same answer as the reference
:func:`selfattention.scaled_dot_product_attention` (tested equal
up to rounding), computed for speed:

* each row needs only its own scores, so the table is filled a block of
  ``query_block_size`` rows at a time: the rows of one block are still in
  the CPU's cache while their softmax and their share of ``weights @ v``
  are computed;
* large inputs spread the blocks over the cores
  (:mod:`selfattention.fast.threads`);
* where a bound on the scores allows it, softmax skips subtracting each
  row's maximum (:func:`~selfattention.fast.scores.fixed_shift_rows`);
* the weights are computed in place, in one ``(..., L, S)`` table.

The table itself is kept whole, as plain attention does: its memory grows
like ``L * S``. :func:`~selfattention.fast.blockwise.blockwise_attention`
never holds it.
"""

from __future__ import annotations

import numpy as np

from .._validate import broadcast_shape, check_flag, check_mask, check_positive_int, check_qkv, check_scale
from ..attention import causal_mask
from .scores import masked_scores, score_checks
from .threads import choose_threads, matmul_small, matmul_whole, run_tasks

#: Query rows per block of the score table (one task for one thread).
QUERY_BLOCK_SIZE = 128


def scaled_dot_product_attention(
    q,
    k,
    v,
    *,
    mask=None,
    causal: bool = False,
    scale=None,
    return_weights: bool = False,
    query_block_size: int = QUERY_BLOCK_SIZE,
    num_threads: int | None = None,
    fixed_shift: bool = True,
    limit_blas: bool = True,
):
    """Attention ``softmax(q @ k.T * scale) @ v``, computed fast.

    Takes the arguments of the reference
    :func:`selfattention.scaled_dot_product_attention` and gives
    its numbers, up to rounding, with the same errors. The keyword
    arguments after ``return_weights`` choose how it is computed, never
    what.

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
        ``-inf`` to block), broadcastable to ``(..., L, S)``.
    causal : bool, default False, keyword-only
        Block keys after the query (top-left aligned).
    scale : float, optional, keyword-only
        Multiplies the scores; defaults to ``1 / sqrt(d_k)``.
    return_weights : bool, default False, keyword-only
        Also return the attention weights.
    query_block_size : int, default 128, keyword-only
        Query rows per block of the table: one task for one thread.
    num_threads : int, optional, keyword-only
        Threads to use. By default as many as NumPy's BLAS may use (so
        ``OPENBLAS_NUM_THREADS=1`` means one), at most the number of CPUs
        and 8, and one for small inputs. When ``v`` has batch dimensions
        the weights lack, the call runs in one thread.
    fixed_shift : bool, default True, keyword-only
        Let rows whose scores are bounded skip subtracting their maximum
        (:func:`~selfattention.fast.scores.fixed_shift_rows`).
    limit_blas : bool, default True, keyword-only
        While several threads run, hold NumPy's BLAS to one thread with
        threadpoolctl; if False (or if that is not possible), matrix
        products are cut small enough that BLAS keeps each on one thread.

    Returns
    -------
    out : numpy.ndarray, shape (..., L, d_v)
        Each row is a weighted average of the rows of ``v``.
    weights : numpy.ndarray, shape (..., L, S)
        Only if ``return_weights``. Each row sums to 1 (or is all 0 if
        every key of that query was masked).

    Raises
    ------
    TypeError
        As the reference; also if ``query_block_size`` or ``num_threads``
        is not an integer, or ``fixed_shift`` or ``limit_blas`` not a bool.
    ValueError
        As the reference; also if ``query_block_size`` or ``num_threads``
        is not positive.

    Examples
    --------
    >>> from selfattention import attention
    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.standard_normal((3, 2, 300, 16))  # 2 heads, 300 words
    >>> out = scaled_dot_product_attention(q, k, v, causal=True, query_block_size=64)
    >>> out.shape
    (2, 300, 16)
    >>> ref = attention.scaled_dot_product_attention(q, k, v, causal=True)
    >>> bool(np.abs(out - ref).max() < 1e-13)
    True
    """
    q, k, v = check_qkv(q, k, v)
    causal = check_flag(causal, "causal")
    return_weights = check_flag(return_weights, "return_weights")
    fixed_shift = check_flag(fixed_shift, "fixed_shift")
    limit_blas = check_flag(limit_blas, "limit_blas")
    query_block_size = check_positive_int(query_block_size, "query_block_size")
    L, S = q.shape[-2], k.shape[-2]
    allowed, bias = _combine_masks(mask, causal, L, S, q.shape[:-2], k.shape[:-2])
    scale = q.dtype.type(check_scale(scale, q.shape[-1]))
    masks = [m.shape[:-2] for m in (allowed, bias) if m is not None]
    w_batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], *masks)  # the weights' batch shape
    batch = np.broadcast_shapes(w_batch, v.shape[:-2])
    weights = np.empty(w_batch + (L, S), q.dtype)  # (..., L, S): every score at once
    out = np.empty(batch + (L, v.shape[-1]), q.dtype)  # (..., L, d_v)
    threads = choose_threads(num_threads, weights.size)
    if weights.size == 0:  # no queries (L = 0): nothing to compute
        return (out, weights) if return_weights else out
    overflow, fixed = score_checks(q, k, v, scale, has_bias=bias is not None, fixed_shift=fixed_shift)
    rows = [(r0, min(r0 + query_block_size, L)) for r0 in range(0, L, query_block_size)]
    if threads == 1 or batch != w_batch:
        # One thread (or v adds batch dimensions): each task is a block of rows of the whole batch.
        tasks = [((), r0, r1) for r0, r1 in rows]
        threads = 1
    else:
        q, k, v = (np.broadcast_to(x, batch + x.shape[-2:]) for x in (q, k, v))  # views, no copies
        allowed, bias = (None if m is None else np.broadcast_to(m, batch + (L, S)) for m in (allowed, bias))
        if fixed is not None:
            fixed = np.broadcast_to(fixed, batch + (L,))
        tasks = [(i, r0, r1) for i in np.ndindex(*batch) for r0, r1 in rows]

    def run(task, small_blas):
        i, r0, r1 = task
        block = slice(r0, r1)
        _attention_rows(
            q[i][..., block, :], k[i], v[i],
            _rows(allowed, i, block), _rows(bias, i, block),
            scale, weights[i][..., block, :], out[i][..., block, :],
            fixed=fixed is not None and bool(fixed[i][..., block].all()),
            overflow=overflow, normalise=return_weights, small_blas=small_blas,
        )

    run_tasks(run, tasks, threads, limit_blas=limit_blas)
    return (out, weights) if return_weights else out


def _attention_rows(q, k, v, allowed, bias, scale, s, out, *, fixed, overflow, normalise, small_blas):
    """Plain attention for one block of query rows, written into ``s`` and ``out``.

    ``q`` (..., R, d_k); ``k`` (..., S, d_k); ``v`` (..., S, d_v);
    ``allowed`` and ``bias`` (..., R, S) or None. ``s`` (..., R, S) receives
    the weights (divided by their row sums only if ``normalise``) and
    ``out`` (..., R, d_v) the result, which does not depend on
    ``normalise``. ``fixed`` skips the shift by the row maximum (the caller
    has checked it is safe); ``overflow`` is the message to raise if a score
    is not finite (None: they cannot overflow).
    """
    # matmul_small cuts 2-D products only; batched ones are small inputs in one thread anyway
    matmul = matmul_small if small_blas and s.ndim == 2 else matmul_whole
    masked_scores(matmul, q * scale, np.swapaxes(k, -1, -2), s, overflow, bias, allowed)  # (..., R, S)
    if not fixed:
        peak = np.max(s, axis=-1, keepdims=True)  # (..., R, 1); NaN and +inf show up here
        if not (peak < np.inf).all():
            raise ValueError(f"softmax: x contains NaN or +inf; shape {s.shape}")
        peak[peak == -np.inf] = 0  # all -inf rows: shift by 0
        s -= peak
    np.exp(s, out=s)  # exp(-inf) = 0: blocked keys get weight 0
    total = np.sum(s, axis=-1, keepdims=True)  # (..., R, 1)
    matmul(s, v, out)  # (..., R, S) @ (..., S, d_v) -> (..., R, d_v)
    np.divide(out, total, out=out, where=total > 0)  # divide R*d_v outputs, not R*S weights
    if normalise:
        np.divide(s, total, out=s, where=total > 0)  # all-blocked rows stay 0


def _rows(mask, i, block):
    """The rows ``block`` of batch entry ``i`` of a mask; a mask with one row serves every row."""
    if mask is None:
        return None
    return mask[i] if mask.shape[-2] == 1 else mask[i][..., block, :]  # (..., R, S) or (..., 1, S)


def _combine_masks(mask, causal, L, S, q_batch, k_batch):
    """Return (allowed, bias): a boolean keep-mask and an additive float mask."""
    batch = broadcast_shape(q_batch, k_batch, "q and k")
    allowed, bias = check_mask(mask, L, S, batch)
    if causal:
        allowed = causal_mask(L, S) if allowed is None else (causal_mask(L, S) & allowed)
    if bias is not None:
        bias = bias.astype(np.float64)
    # At least 2-D, so that rows can be sliced: (S,) -> (1, S), () -> (1, 1).
    return tuple(None if m is None else m.reshape((1,) * max(0, 2 - m.ndim) + m.shape) for m in (allowed, bias))


__all__ = ["QUERY_BLOCK_SIZE", "scaled_dot_product_attention"]
