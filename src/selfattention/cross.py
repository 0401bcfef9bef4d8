"""Cross-attention: the queries come from one sequence, the keys and values from another.

A decoder writing a translation reads the encoder's words this way: each
word it writes makes a query, and every word of the source makes a key and
a value. The maths is the attention of :func:`~selfattention.scaled_dot_product_attention`;
only the rows that feed it change. The weights are ``(L_q, L_kv)``: one row
per word that looks, one column per word of the other sequence.
"""

from __future__ import annotations

import numpy as np

from ._validate import as_float_array, check_ndim
from .attention import scaled_dot_product_attention

#: The English sentence the encoder reads in the worked example.
SOURCE = ("the", "cat", "is", "sleeping")

#: The German words the decoder writes in the worked example.
TARGET = ("die", "Katze", "schläft")


def cat_is_sleeping() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The worked example: "the cat is sleeping" becomes "die Katze schläft".

    Every number is made up, two per word, and small enough to follow by
    hand; a trained translator learns its own. The encoder's four English
    words are the four directions of a compass, and they serve as their own
    keys and values (``W_K = W_V = I``). The decoder's states, one per German
    word it writes, live in a space of their own: ``W_Q``, a quarter turn,
    carries them to the keys they should match.

    Returns
    -------
    x_q : numpy.ndarray, shape (3, 2)
        The decoder's state as it writes each word of :data:`~selfattention.TARGET`.
    x_kv : numpy.ndarray, shape (4, 2)
        The encoder's output for each word of :data:`~selfattention.SOURCE`.
    w_q, w_k, w_v : numpy.ndarray, shape (2, 2)
        Query, key and value matrices.

    Examples
    --------
    >>> x_q, x_kv, w_q, w_k, w_v = cat_is_sleeping()
    >>> x_q @ w_q   # the queries: die, Katze, schläft
    array([[ 2.,  0.],
           [ 0.,  2.],
           [-2., -2.]])
    >>> x_kv @ w_k  # the keys: the, cat, is, sleeping
    array([[ 2.,  0.],
           [ 0.,  2.],
           [-2.,  0.],
           [ 0., -2.]])
    """
    x_q = np.array([[0.0, 2.0],      # die
                    [-2.0, 0.0],     # Katze
                    [2.0, -2.0]])    # schläft          (L_q = 3, d_model = 2)
    x_kv = np.array([[2.0, 0.0],     # the
                     [0.0, 2.0],     # cat
                     [-2.0, 0.0],    # is
                     [0.0, -2.0]])   # sleeping         (L_kv = 4, d_model = 2)
    w_q = np.array([[0.0, -1.0],
                    [1.0, 0.0]])     # a quarter turn: (d_model, d_k)
    w_k = np.eye(2)                  # (d_model, d_k)
    w_v = np.eye(2)                  # (d_model, d_v)
    return x_q, x_kv, w_q, w_k, w_v


def cross_attention(x_q, x_kv, w_q, w_k, w_v, *, mask=None, scale=None, return_weights=False):
    """One cross-attention head: queries from ``x_q``, keys and values from ``x_kv``.

    Computes ``Q = x_q W_Q``, ``K = x_kv W_K`` and ``V = x_kv W_V``, then
    ``softmax(Q K^T / sqrt(d_k)) V`` with :func:`~selfattention.scaled_dot_product_attention`.
    With ``x_kv = x_q`` it is the self-attention head
    :func:`~selfattention.attention_head`.

    Parameters
    ----------
    x_q : array_like, shape (..., L_q, d_q)
        The sequence that looks: one row per word that makes a query.
    x_kv : array_like, shape (..., L_kv, d_kv)
        The sequence looked at: one row per word that makes a key and a value.
    w_q : array_like, shape (d_q, d_k)
        Query matrix.
    w_k : array_like, shape (d_kv, d_k)
        Key matrix.
    w_v : array_like, shape (d_kv, d_v)
        Value matrix.
    mask : array_like, optional, keyword-only
        As in :func:`~selfattention.scaled_dot_product_attention`, broadcastable to
        ``(..., L_q, L_kv)``: for example ``False`` on the padding of the
        source.
    scale : float, optional, keyword-only
        Multiplies the scores; defaults to ``1 / sqrt(d_k)``.
    return_weights : bool, default False, keyword-only
        Also return the attention weights.

    Returns
    -------
    out : numpy.ndarray, shape (..., L_q, d_v)
        One row per word of ``x_q``: a weighted average of the values of
        ``x_kv``.
    weights : numpy.ndarray, shape (..., L_q, L_kv)
        Only if ``return_weights``. Row ``i`` says how much word ``i`` of
        ``x_q`` takes from each word of ``x_kv``.

    Raises
    ------
    TypeError
        If an input is not real and numeric.
    ValueError
        If ``x_q`` or ``x_kv`` has fewer than 2 dimensions, a matrix is not
        2-D, a matrix's row count does not match its sequence's width,
        ``w_q`` and ``w_k`` make different ``d_k``, an input has NaN or inf,
        or ``mask`` does not broadcast to ``(..., L_q, L_kv)``.

    Examples
    --------
    Three German words read four English ones: the weights are (3, 4).

    >>> x_q, x_kv, w_q, w_k, w_v = cat_is_sleeping()
    >>> out, weights = cross_attention(x_q, x_kv, w_q, w_k, w_v, return_weights=True)
    >>> weights.shape, out.shape
    ((3, 4), (3, 2))
    >>> weights.round(3)
    array([[0.892, 0.053, 0.003, 0.053],
           [0.053, 0.892, 0.053, 0.003],
           [0.002, 0.002, 0.498, 0.498]])
    """
    x_q = as_float_array(x_q, "x_q")
    x_kv = as_float_array(x_kv, "x_kv")
    check_ndim(x_q, "x_q", 2, "(..., L_q, d_q)")
    check_ndim(x_kv, "x_kv", 2, "(..., L_kv, d_kv)")
    mats = {}
    for name, w, x, side in (("w_q", w_q, x_q, "x_q"), ("w_k", w_k, x_kv, "x_kv"), ("w_v", w_v, x_kv, "x_kv")):
        w = as_float_array(w, name)
        if w.ndim != 2 or w.shape[0] != x.shape[-1]:
            raise ValueError(f"{name} must have shape ({x.shape[-1]}, d): one row per number of {side} "
                             f"{x.shape}, got {w.shape}")
        mats[name] = w
    if mats["w_q"].shape[1] != mats["w_k"].shape[1]:
        raise ValueError(f"w_q and w_k must make queries and keys of the same size d_k, "
                         f"got w_q: {mats['w_q'].shape}, w_k: {mats['w_k'].shape}")
    q = x_q @ mats["w_q"]    # (..., L_q, d_k)
    k = x_kv @ mats["w_k"]   # (..., L_kv, d_k)
    v = x_kv @ mats["w_v"]   # (..., L_kv, d_v)
    return scaled_dot_product_attention(q, k, v, mask=mask, scale=scale, return_weights=return_weights)


__all__ = ["SOURCE", "TARGET", "cat_is_sleeping", "cross_attention"]
