"""One attention head: project X to queries, keys and values, then attend."""

from __future__ import annotations

import numpy as np

from ._validate import as_float_array, check_ndim
from .attention import scaled_dot_product_attention
from .softmax import softmax


def project_qkv(x, w_q, w_k, w_v):
    """Make the three versions of every word: ``Q = X W_Q``, ``K = X W_K``, ``V = X W_V``.

    Parameters
    ----------
    x : array_like, shape (..., L, d_model)
        One row per word.
    w_q, w_k : array_like, shape (d_model, d_k)
        Query and key matrices.
    w_v : array_like, shape (d_model, d_v)
        Value matrix.

    Returns
    -------
    q, k : numpy.ndarray, shape (..., L, d_k)
    v : numpy.ndarray, shape (..., L, d_v)

    Raises
    ------
    TypeError
        If an input is not numeric.
    ValueError
        If a matrix is not 2-D, its row count is not ``d_model``, ``w_q``
        and ``w_k`` differ in shape, or an input has NaN or inf.

    Examples
    --------
    With identity matrices the three versions equal the words themselves:

    >>> import numpy as np
    >>> x = np.array([[2.0, 0.0], [1.0, 1.0], [0.0, 2.0]])
    >>> q, k, v = project_qkv(x, np.eye(2), np.eye(2), np.eye(2))
    >>> bool((q == x).all() and (k == x).all() and (v == x).all())
    True
    """
    x = as_float_array(x, "x")
    check_ndim(x, "x", 2, "(..., L, d_model)")
    d_model = x.shape[-1]
    mats = {}
    for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v)):
        w = as_float_array(w, name)
        if w.ndim != 2 or w.shape[0] != d_model:
            raise ValueError(
                f"{name} must have shape (d_model, d) with d_model={d_model} "
                f"to match x {x.shape}, got {w.shape}"
            )
        mats[name] = w
    if mats["w_q"].shape != mats["w_k"].shape:
        raise ValueError(
            f"w_q and w_k must have the same shape (d_model, d_k), "
            f"got w_q: {mats['w_q'].shape}, w_k: {mats['w_k'].shape}"
        )
    q = x @ mats["w_q"]  # (..., L, d_k)
    k = x @ mats["w_k"]  # (..., L, d_k)
    v = x @ mats["w_v"]  # (..., L, d_v)
    return q, k, v


def attention_head(x, w_q, w_k, w_v, *, mask=None, causal=False, scale=None, return_weights=False):
    """One self-attention head from the words ``x`` and three learned matrices.

    Computes ``softmax(Q K^T / sqrt(d_k)) V`` with ``Q, K, V`` from
    :func:`project_qkv`.

    Parameters
    ----------
    x : array_like, shape (..., L, d_model)
        One row per word.
    w_q, w_k : array_like, shape (d_model, d_k)
        Query and key matrices.
    w_v : array_like, shape (d_model, d_v)
        Value matrix.
    mask, causal, scale, return_weights
        As in :func:`scaled_dot_product_attention`.

    Returns
    -------
    out : numpy.ndarray, shape (..., L, d_v)
    weights : numpy.ndarray, shape (..., L, L)
        Only if ``return_weights``.

    Raises
    ------
    TypeError, ValueError
        As in :func:`project_qkv` and :func:`scaled_dot_product_attention`.

    Examples
    --------
    "One-way keys": each key becomes ``[y, 0]``, so the cat looks at the car
    but the car does not look back.

    >>> import numpy as np
    >>> x = [[2, 0], [1, 1], [0, 2]]
    >>> w_k = [[0, 0], [1, 0]]
    >>> _, weights = attention_head(x, np.eye(2), w_k, np.eye(2), return_weights=True)
    >>> weights.round(2)
    array([[0.05, 0.19, 0.77],
           [0.14, 0.28, 0.58],
           [0.33, 0.33, 0.33]])
    """
    q, k, v = project_qkv(x, w_q, w_k, w_v)
    return scaled_dot_product_attention(
        q, k, v, mask=mask, causal=causal, scale=scale, return_weights=return_weights
    )


def query_key_product(w_q, w_k):
    """The one matrix the scores depend on: ``W_Q W_K^T``.

    A score is ``q_a · k_b = x_a W_Q (x_b W_K)^T = x_a (W_Q W_K^T) x_b^T``,
    so two pairs of matrices with the same product give the same scores.
    If the product is symmetric, so is every table of scores.

    Parameters
    ----------
    w_q, w_k : array_like, shape (d_model, d_k)
        Query and key matrices.

    Returns
    -------
    numpy.ndarray, shape (d_model, d_model)

    Raises
    ------
    TypeError
        If an input is not numeric.
    ValueError
        If a matrix is not 2-D, the two shapes differ, or an input has NaN
        or inf.

    Examples
    --------
    "One-way keys" (``W_K = [[0, 0], [1, 0]]``) with ``W_Q = I``: the
    product is not symmetric, so neither are the scores.

    >>> import numpy as np
    >>> query_key_product(np.eye(2), [[0, 0], [1, 0]])
    array([[0., 1.],
           [0., 0.]])
    """
    w_q = as_float_array(w_q, "w_q")
    w_k = as_float_array(w_k, "w_k")
    if w_q.ndim != 2 or w_q.shape != w_k.shape:
        raise ValueError(
            f"w_q and w_k must be 2-D with the same shape (d_model, d_k), "
            f"got w_q: {w_q.shape}, w_k: {w_k.shape}"
        )
    return w_q @ w_k.T  # (d_model, d_k) @ (d_k, d_model) -> (d_model, d_model)


def head_trace(x, w_q, w_k, w_v):
    """Every intermediate table of one head, in the order the head computes them.

    The step-by-step trace of the chapter "Queries, keys and values":
    projections, raw scores, scaling, softmax and the weighted sum.

    Parameters
    ----------
    x : array_like, shape (L, d_model)
        One row per word.
    w_q, w_k : array_like, shape (d_model, d_k)
        Query and key matrices.
    w_v : array_like, shape (d_model, d_v)
        Value matrix.

    Returns
    -------
    dict of str to numpy.ndarray
        ``"q"``, ``"k"`` (L, d_k); ``"v"`` (L, d_v); ``"raw_scores"``
        ``Q K^T`` and ``"scores"`` ``Q K^T / sqrt(d_k)`` (L, L);
        ``"weights"`` (L, L), the softmax of each row of ``"scores"``;
        ``"output"`` ``weights V`` (L, d_v). The last two equal
        :func:`attention_head` with ``return_weights=True``.

    Raises
    ------
    TypeError, ValueError
        As in :func:`project_qkv`, or if ``x`` is not 2-D.

    Examples
    --------
    >>> from selfattention.examples import i_love_cats
    >>> t = head_trace(*i_love_cats())
    >>> t["raw_scores"]
    array([[0., 2., 0.],
           [4., 0., 2.],
           [0., 2., 0.]])
    >>> t["weights"].round(3)
    array([[0.164, 0.673, 0.164],
           [0.768, 0.045, 0.187],
           [0.164, 0.673, 0.164]])
    """
    x = as_float_array(x, "x")
    if x.ndim != 2:
        raise ValueError(f"x must have shape (L, d_model), one row per word; got {x.shape}")
    q, k, v = project_qkv(x, w_q, w_k, w_v)  # (L, d_k), (L, d_k), (L, d_v)
    raw_scores = q @ k.T  # (L, d_k) @ (d_k, L) -> (L, L)
    scores = raw_scores / np.sqrt(q.shape[-1])  # (L, L)
    weights = softmax(scores)  # (L, L), each row sums to 1
    output = weights @ v  # (L, L) @ (L, d_v) -> (L, d_v)
    return {"q": q, "k": k, "v": v, "raw_scores": raw_scores, "scores": scores,
            "weights": weights, "output": output}
