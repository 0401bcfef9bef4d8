"""One attention head: project X to queries, keys and values, then attend."""

from __future__ import annotations

from ._validate import as_float_array, check_ndim
from .attention import scaled_dot_product_attention


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
