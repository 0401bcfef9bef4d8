"""Scaled dot-product attention, as the formula says, and the causal mask.

This is the reference layer: the functions a reader meets in the chapters.
:func:`~selfattention.scaled_dot_product_attention` checks its inputs once, makes the whole
``(..., L, S)`` table of scores as :func:`~selfattention.attention_scores` does (both call
one private, unchecked helper), blocks the masked ones with
``-inf``, turns each row into weights with
:func:`~selfattention.softmax`, and averages the values with them:
``softmax(q @ k.T * scale) @ v``. It takes no shortcut and starts no
thread. The fast layer, :mod:`selfattention.fast`, computes the same
numbers (tested equal up to rounding) faster and in less memory.
"""

from __future__ import annotations

import numpy as np

from ._validate import (
    broadcast_shape,
    check_flag,
    check_mask,
    check_positive_int,
    check_qkv,
    check_scale,
    overflow_text,
)
from .softmax import softmax


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
    q, k, _ = check_qkv(q, k, None)
    return _scores(q, k, check_scale(scale, q.shape[-1]))  # (..., L, S)


def _scores(q: np.ndarray, k: np.ndarray, scale: float) -> np.ndarray:
    """``q @ k.T * scale`` for inputs already checked: both public functions call it.

    ``q`` and ``k`` are float arrays of one dtype, shapes ``(..., L, d_k)``
    and ``(..., S, d_k)``; ``scale`` is a float. The only check left is on
    the result: scores that overflow the dtype raise ValueError.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        scores = q @ np.swapaxes(k, -1, -2)  # (..., L, S)
        scores *= q.dtype.type(scale)  # in place: the table is the big array
    if scores.size and not (np.isfinite(scores.max()) and np.isfinite(scores.min())):
        raise ValueError(overflow_text(q, k, scale))
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
    Memory grows like ``L * S``: the table of scores is made whole (and
    :func:`~selfattention.softmax` makes a second one, the
    weights). :func:`selfattention.fast.scaled_dot_product_attention` gives
    the same numbers in one table, and
    :func:`selfattention.fast.blockwise_attention` without any.

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
    q, k, v = check_qkv(q, k, v)
    causal = check_flag(causal, "causal")
    return_weights = check_flag(return_weights, "return_weights")
    L, S = q.shape[-2], k.shape[-2]
    allowed, bias = check_mask(mask, L, S, broadcast_shape(q.shape[:-2], k.shape[:-2], "q and k"))
    scale = check_scale(scale, q.shape[-1])

    scores = _scores(q, k, scale)  # (..., L, S): the inputs were checked once, above
    if bias is not None:  # a float mask is added to the scores
        with np.errstate(over="ignore"):  # -1e300 becomes -inf in float32: still blocked
            scores = (scores + bias).astype(q.dtype)  # (..., L, S), batch dims of the mask too
    if allowed is not None:  # a boolean mask blocks a key where it is False
        scores = np.where(allowed, scores, -np.inf)  # (..., L, S), batch dims of the mask too
    if causal:  # query i sees keys 0..i only
        scores = np.where(causal_mask(L, S), scores, -np.inf)
    weights = softmax(scores)  # each row sums to 1, or is all 0 if every key is blocked
    out = weights @ v  # (..., L, S) @ (..., S, d_v) -> (..., L, d_v)
    return (out, weights) if return_weights else out


__all__ = ["attention_scores", "causal_mask", "scaled_dot_product_attention"]
