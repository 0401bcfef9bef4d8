"""Scaled dot-product attention and the causal mask."""

from __future__ import annotations

import numpy as np

from ._validate import (
    as_float_array,
    broadcast_shape,
    check_flag,
    check_mask,
    check_ndim,
    check_positive_int,
    check_scale,
)
from .softmax import softmax_in_place


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
        raise ValueError(
            f"the scores q @ k.T * scale overflow {q.dtype} (largest |q| = {np.abs(q).max():.3g}, "
            f"|k| = {np.abs(k).max():.3g}, scale = {scale:.3g}): make q, k or scale smaller"
        )
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
    scores = attention_scores(q, k, scale=scale)  # (..., L, S)
    if bias is not None:
        with np.errstate(over="ignore"):  # -1e300 in float32 is -inf: still "blocked"
            scores = scores + bias.astype(scores.dtype)
    if allowed is not None:
        scores = np.where(allowed, scores, -np.inf)
    weights = softmax_in_place(scores, axis=-1)  # (..., L, S), in the scores' memory
    out = weights @ v  # (..., L, d_v)
    return (out, weights) if return_weights else out


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
    return allowed, (None if bias is None else bias.astype(np.float64))
