"""Scaled dot-product attention and the causal mask.

Plain attention makes the whole ``(L, S)`` table of scores, turns each row
into softmax weights, and averages the values with them. Each row needs
only its own scores, so the table is filled a block of rows at a time:
the rows of one block are still in the CPU's cache while their softmax
and their share of ``weights @ v`` are computed, and large inputs spread
the blocks over every core (:mod:`selfattention._threads`). The table
itself is kept whole, as plain attention does: its memory grows like
``L * S``.
"""

from __future__ import annotations

import numpy as np

from . import _threads
from ._validate import (
    as_float_array,
    broadcast_shape,
    check_flag,
    check_mask,
    check_ndim,
    check_positive_int,
    check_scale,
)

#: Query rows per block of the score table (one task for one thread).
QUERY_ROWS = 128
# If every score of a row lies within +-FIXED_SHIFT_LIMIT, exp(score) neither
# overflows nor underflows, and softmax may skip subtracting the row's maximum
# (softmax does not change when a whole row moves by the same amount).
FIXED_SHIFT_LIMIT = 30.0


def causal_mask(L: int, S: int | None = None) -> np.ndarray:
    """Boolean mask that lets query ``i`` see keys ``0..i`` only.

    ``True`` means "may attend". When ``L != S`` the mask is aligned to the
    top-left corner, as in PyTorch: query ``i`` sees keys ``j <= i``.

    Parameters
    ----------
    L : int
        Number of queries (rows).
    S : int, optional
        Number of keys (columns); defaults to ``L``.

    Returns
    -------
    numpy.ndarray
        Boolean array of shape ``(L, S)``, lower-triangular.

    Raises
    ------
    TypeError, ValueError
        If ``L`` or ``S`` is not a positive integer.

    Examples
    --------
    >>> causal_mask(3).astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [1, 1, 1]])
    >>> causal_mask(2, 4).astype(int)
    array([[1, 0, 0, 0],
           [1, 1, 0, 0]])
    """
    L = check_positive_int(L, "L")
    S = L if S is None else check_positive_int(S, "S")
    return np.tri(L, S, k=0, dtype=bool)  # (L, S)


def attention_scores(q, k, *, scale=None) -> np.ndarray:
    """Scaled scores ``q @ k.T * scale``: how much each query matches each key.

    Parameters
    ----------
    q : array_like, shape (..., L, d_k)
        Queries, one row per word that looks.
    k : array_like, shape (..., S, d_k)
        Keys, one row per word that is looked at.
    scale : float, optional, keyword-only
        Defaults to ``1 / sqrt(d_k)``.

    Returns
    -------
    numpy.ndarray, shape (..., L, S)
        Row ``i``, column ``j``: how much word ``i`` matches word ``j``.

    Raises
    ------
    TypeError
        If an input is not numeric, or ``scale`` is not a number.
    ValueError
        If a shape is wrong, ``d_k`` differs or is 0, ``S`` is 0, an input
        has NaN or inf, or the scores overflow the dtype.

    Examples
    --------
    The three words cat, dog and car, each their own query and key:

    >>> x = [[2, 0], [1, 1], [0, 2]]
    >>> attention_scores(x, x).round(2)
    array([[2.83, 1.41, 0.  ],
           [1.41, 1.41, 1.41],
           [0.  , 1.41, 2.83]])
    """
    q, k, _ = _check_qkv(q, k, None)
    scale = check_scale(scale, q.shape[-1])
    with np.errstate(over="ignore", invalid="ignore"):
        scores = q @ np.swapaxes(k, -1, -2)  # (..., L, S)
        scores *= q.dtype.type(scale)  # in place: the table is the big array
    if scores.size and not (np.isfinite(scores.max()) and np.isfinite(scores.min())):
        raise ValueError(_overflow_text(q, k, scale))
    return scores


def scaled_dot_product_attention(
    q, k, v, *, mask=None, causal: bool = False, scale=None, return_weights: bool = False
):
    """Attention: ``softmax(q @ k.T * scale) @ v``, with optional masks.

    Semantics follow :func:`torch.nn.functional.scaled_dot_product_attention`:
    the default scale is ``1/sqrt(d_k)``; a boolean ``mask`` has ``True`` where
    a query may attend; a float ``mask`` is added to the scores; ``causal``
    aligns the lower triangle to the top-left corner when ``L != S``. Unlike
    PyTorch, ``mask`` and ``causal`` may be combined (both must allow a
    key). A query whose keys are all masked gets weights 0 and output 0,
    never NaN.

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
        If an input is not real and numeric, ``mask`` is neither boolean nor
        float (a 0/1 integer mask is refused: it would be added, not block),
        or ``causal`` or ``return_weights`` is not a bool.
    ValueError
        If a shape is wrong, ``d_k`` of q and k differ, ``S`` of k and v
        differ, ``mask`` does not broadcast to ``(..., L, S)``, an input
        contains NaN or inf, ``d_k`` or ``S`` is 0, or the scores overflow.

    Notes
    -----
    The ``(..., L, S)`` table of weights is made whole, as the formula
    says, but it is filled a block of ``QUERY_ROWS`` rows at a time, and
    large inputs spread the blocks over the cores. Where a bound on the
    scores (``|q . k| <= |q| |k|``) shows that ``exp(score)`` can neither
    overflow nor underflow, the softmax skips subtracting each row's
    maximum: the answer is the same up to rounding.

    Examples
    --------
    The book's running example: cat, dog and car attend to each other.

    >>> x = [[2, 0], [1, 1], [0, 2]]
    >>> out, weights = scaled_dot_product_attention(x, x, x, return_weights=True)
    >>> weights.round(3)
    array([[0.768, 0.187, 0.045],
           [0.333, 0.333, 0.333],
           [0.045, 0.187, 0.768]])
    >>> out.round(2)
    array([[1.72, 0.28],
           [1.  , 1.  ],
           [0.28, 1.72]])

    With a causal mask the cat sees only itself:

    >>> scaled_dot_product_attention(x, x, x, causal=True).round(2)
    array([[2.  , 0.  ],
           [1.5 , 0.5 ],
           [0.28, 1.72]])
    """
    q, k, v = _check_qkv(q, k, v)
    causal = check_flag(causal, "causal")
    return_weights = check_flag(return_weights, "return_weights")
    L, S = q.shape[-2], k.shape[-2]
    allowed, bias = _combine_masks(mask, causal, L, S, q.shape[:-2], k.shape[:-2])
    scale = q.dtype.type(check_scale(scale, q.shape[-1]))
    masks = [m.shape[:-2] for m in (allowed, bias) if m is not None]
    w_batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], *masks)  # the weights' batch shape
    batch = np.broadcast_shapes(w_batch, v.shape[:-2])
    weights = np.empty(w_batch + (L, S), q.dtype)  # (..., L, S): every score at once
    out = np.empty(batch + (L, v.shape[-1]), q.dtype)  # (..., L, d_v)
    if weights.size == 0:  # no queries (L = 0): nothing to compute
        return (out, weights) if return_weights else out
    overflow, fixed = _score_checks(q, k, v, scale, bias is not None)
    threads = _threads.default_threads()
    if weights.size < _threads.MIN_PARALLEL_SCORES or batch != w_batch:
        # Small (or v adds batch dimensions): the whole batch at once, in this thread.
        tasks = [((), r0, min(r0 + QUERY_ROWS, L)) for r0 in range(0, L, QUERY_ROWS)]
        threads = 1
    else:
        q, k, v = (np.broadcast_to(x, batch + x.shape[-2:]) for x in (q, k, v))  # views, no copies
        allowed, bias = (None if m is None else np.broadcast_to(m, batch + (L, S)) for m in (allowed, bias))
        if fixed is not None:
            fixed = np.broadcast_to(fixed, batch + (L,))
        tasks = [(i, r0, min(r0 + QUERY_ROWS, L)) for i in np.ndindex(*batch) for r0 in range(0, L, QUERY_ROWS)]

    def run(task, small_blas):
        i, r0, r1 = task
        rows = slice(r0, r1)
        _attention_rows(
            q[i][..., rows, :], k[i], v[i],
            None if allowed is None else allowed[i][..., rows, :],
            None if bias is None else bias[i][..., rows, :],
            scale, weights[i][..., rows, :], out[i][..., rows, :],
            fixed is not None and bool(fixed[i][..., rows].all()),
            overflow, return_weights, small_blas,
        )

    _threads.run_tasks(run, tasks, threads)
    return (out, weights) if return_weights else out


def _attention_rows(q, k, v, allowed, bias, scale, s, out, fixed, overflow, normalise, small_blas):
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
    matmul = _threads.matmul_small if small_blas and s.ndim == 2 else _threads.matmul_whole
    _masked_scores(matmul, q * scale, np.swapaxes(k, -1, -2), s, overflow, bias, allowed)  # (..., R, S)
    if not fixed:
        peak = np.max(s, axis=-1, keepdims=True)  # (..., R, 1); NaN and +inf show up here
        if not (peak < np.inf).all():
            raise ValueError(f"softmax: x contains NaN or +inf; shape {s.shape}")
        peak[peak == -np.inf] = 0  # all -inf rows: shift by 0
        s -= peak
    np.exp(s, out=s)  # exp(-inf) = 0: blocked keys get weight 0
    total = np.sum(s, axis=-1, keepdims=True)  # (..., R, 1)
    matmul(s, v, out)  # (..., R, d_v)
    np.divide(out, total, out=out, where=total > 0)  # divide R*d_v outputs, not R*S weights
    if normalise:
        np.divide(s, total, out=s, where=total > 0)  # all-blocked rows stay 0


def _masked_scores(matmul, q, k_t, s, overflow, bias, allowed) -> None:
    """Write the masked scores ``q @ k_t`` of one tile into ``s`` (plain and blockwise).

    ``q`` is already scaled. ``overflow`` is the message to raise if a score
    is not finite (None: they cannot overflow); ``bias`` is added and
    ``allowed`` (boolean) blocks with ``-inf``; either may be None.
    """
    with np.errstate(over="ignore"):  # an overflow is caught just below, as a ValueError
        matmul(q, k_t, s)
    if overflow is not None and not np.isfinite(s).all():
        raise ValueError(overflow)
    if bias is not None:
        with np.errstate(over="ignore"):  # -1e300 in float32 is -inf: still "blocked"
            np.add(s, bias, out=s, casting="same_kind")
    if allowed is not None:
        np.copyto(s, -np.inf, where=~allowed)


def _score_checks(q, k, v, scale, has_bias: bool):
    """``(overflow, fixed)``: :func:`_overflow_message` and :func:`fixed_shift_rows`.

    ``fixed`` is None with a float mask (it may move scores anywhere). If
    every row is fixed, no score can overflow and the overflow check is
    skipped.
    """
    fixed = None if has_bias else fixed_shift_rows(q, k, v, scale)  # (..., L) or None
    if fixed is not None and fixed.all():
        return None, fixed
    return _overflow_message(q, k, scale), fixed


def _overflow_message(q, k, scale) -> str | None:
    """The error message if some score ``q . k * scale`` might overflow, else None.

    Uses ``|q . k| <= d_k * max|q| * max|k|``, so None means no score can overflow.
    """
    largest = _abs_max(q) * _abs_max(k) * q.shape[-1] * abs(float(scale))
    return None if largest <= float(np.finfo(q.dtype).max) / 4 else _overflow_text(q, k, scale)


def _overflow_text(q, k, scale) -> str:
    return (
        f"the scores q @ k.T * scale overflow {q.dtype} (largest |q| = {_abs_max(q):.3g}, "
        f"|k| = {_abs_max(k):.3g}, scale = {float(scale):.3g}): make q, k or scale smaller"
    )


def fixed_shift_rows(q, k, v, scale) -> np.ndarray | None:
    """Which query rows may skip subtracting their maximum before ``exp``.

    By Cauchy-Schwarz every score of row ``i`` lies within
    ``|q_i| * max_j |k_j| * |scale|``. Where that bound is at most
    ``FIXED_SHIFT_LIMIT``, ``exp(score)`` is a normal float and a sum of
    ``S`` of them times a value cannot overflow, so softmax may use the
    shift 0 (any common shift gives the same softmax).

    Parameters
    ----------
    q : numpy.ndarray, shape (..., L, d_k)
        Queries (float32 or float64).
    k : numpy.ndarray, shape (..., S, d_k)
        Keys, same dtype.
    v : numpy.ndarray, shape (..., S, d_v)
        Values, same dtype.
    scale : float
        The factor applied to the scores.

    Returns
    -------
    numpy.ndarray of bool, shape (..., L), or None
        True where a row may skip the shift; None if the values are so
        large that the weighted sums themselves could overflow.

    Examples
    --------
    >>> q = np.array([[1.0, 0.0], [100.0, 0.0]])
    >>> k = np.array([[2.0, 0.0], [0.0, 2.0]])
    >>> fixed_shift_rows(q, k, k, 0.5).tolist()  # bounds 1 and 100
    [True, False]
    """
    S = k.shape[-2]
    if S * _abs_max(v) * np.exp(FIXED_SHIFT_LIMIT) > float(np.finfo(q.dtype).max) / 4:
        return None  # the weighted sums themselves could overflow
    with np.errstate(over="ignore", invalid="ignore"):  # huge inputs: inf, so not fixed
        q_sq = np.einsum("...i,...i->...", q, q)  # (..., L) squared norms (inf if huge: not fixed)
        k_sq = np.einsum("...i,...i->...", k, k).max(axis=-1, keepdims=True)  # (..., 1)
        return q_sq * k_sq * float(scale) ** 2 <= FIXED_SHIFT_LIMIT**2


def _abs_max(x) -> float:
    """Largest absolute value in ``x`` (0 if empty), as a Python float."""
    if x.size == 0:
        return 0.0
    return max(float(np.max(x)), -float(np.min(x)))


def _check_qkv(q, k, v):
    """Validate q, k and (if given) v; return them as float arrays of one dtype."""
    q = as_float_array(q, "q")
    k = as_float_array(k, "k")
    check_ndim(q, "q", 2, "(..., L, d_k)")
    check_ndim(k, "k", 2, "(..., S, d_k)")
    if q.shape[-1] == 0:
        raise ValueError(f"q and k need d_k >= 1 numbers per row, got d_k=0 (q: {q.shape})")
    if k.shape[-2] == 0:
        raise ValueError(f"k has S=0 rows: there is no key to attend to (k: {k.shape})")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"k has d_k={k.shape[-1]} but q has d_k={q.shape[-1]} "
            f"(q: {q.shape}, k: {k.shape})"
        )
    batch = broadcast_shape(q.shape[:-2], k.shape[:-2], "leading (batch, head) dimensions of q and k")
    arrays = [q, k]
    if v is not None:
        v = as_float_array(v, "v")
        check_ndim(v, "v", 2, "(..., S, d_v)")
        if v.shape[-2] != k.shape[-2]:
            raise ValueError(
                f"v has S={v.shape[-2]} rows but k has S={k.shape[-2]} "
                f"(k: {k.shape}, v: {v.shape})"
            )
        broadcast_shape(batch, v.shape[:-2], "leading (batch, head) dimensions of q, k and v")
        arrays.append(v)
    dtype = np.result_type(*arrays)
    arrays = [a.astype(dtype, copy=False) for a in arrays]
    return arrays[0], arrays[1], (arrays[2] if v is not None else None)


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
