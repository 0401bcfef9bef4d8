"""Checker of cross-attention weights (book/self-and-cross-attention.md)."""

from __future__ import annotations

import numpy as np

from .._validate import as_float_array
from ..attention import causal_mask
from ..causal_alignment import causal_mask_bottom_right
from ..cross import cat_is_sleeping, cross_attention
from ..softmax import softmax
from ._compare import Diagnoses, Feedback, compare

CROSS_WEIGHTS = Diagnoses(
    "check_cross_weights",
    "Right: weights has shape {shape}, one row per query and one column per key, and every value matches.", {
        "columns": "Each column adds up to 1, not each row: apply softmax along the rows (axis=-1). Each word "
                   "that looks shares out its own attention.",
        "whole-table": "Softmax ran over the whole table at once, so the whole table adds up to 1. Run it "
                       "along each row, softmax(scores, axis=-1): each word that looks shares out its own "
                       "attention.",
        "scores": "These are the scores: turn each row into weights with softmax.",
        "no-scale": "The weights are too sharp: did you forget to divide the scores by sqrt(d_k) = sqrt({d_k})?",
        "projection": "Your queries or keys are not projected as they should be: Q = x_q @ W_Q and "
                      "K = x_kv @ W_K.",
        "causal": "That is a causal mask on cross-attention: the whole sentence looked at is known, so every "
                  "word that looks may read all of it. Use no mask.",
        "K@Q.T": "Did you write K @ Q.T instead of Q @ K.T?",
        "self-q": "That is the sequence that looks attending to itself: the keys come from x_kv.",
        "self-kv": "That is the sequence looked at attending to itself: the queries come from x_q.",
    })


def check_cross_weights(weights, x_q=None, x_kv=None, w_q=None, w_k=None) -> Feedback:
    """Check the reader's cross-attention weights: queries from ``x_q``, keys from ``x_kv``.

    The right answer is ``softmax(Q @ K.T / sqrt(d_k))`` with ``Q = x_q @ w_q``
    and ``K = x_kv @ w_k``, softmax along each row: shape ``(L, S)``.

    Parameters
    ----------
    weights : array_like
        What the reader computed.
    x_q : array_like, shape (L, d_q), optional
        The sequence that looks; defaults to the decoder of
        :func:`~selfattention.cat_is_sleeping` (die, Katze, schläft).
    x_kv : array_like, shape (S, d_kv), optional
        The sequence looked at; defaults to its encoder (the, cat, is, sleeping).
    w_q : array_like, shape (d_q, d_k), optional
        Query matrix; defaults to the example's.
    w_k : array_like, shape (d_kv, d_k), optional
        Key matrix; defaults to the example's.

    Returns
    -------
    Feedback
        ``ok`` is True if ``weights`` is right; otherwise the message names the
        likely slip: the table transposed (``K @ Q.T``), one sequence used for
        both sides, softmax down the columns or over the whole table, the
        scores instead of the weights, queries or keys not projected with
        their own matrix, a causal mask (cross-attention has none), a missing
        scale, or rounded numbers. A value
        counts as right within 100 eps (abs(expected) + the largest
        abs(expected)), eps being the machine epsilon of the answer: float32's
        for float32 arrays (as torch's .numpy() gives), float64's otherwise; a
        float16 answer is judged with float16's rounding (10 of its eps), and
        an expected inf only by the same inf.

    Raises
    ------
    TypeError, ValueError
        If ``x_q``, ``x_kv``, ``w_q`` or ``w_k`` is malformed (as in
        :func:`~selfattention.cross_attention`); a wrong ``weights``
        is not an error.

    Examples
    --------
    >>> import numpy as np
    >>> from selfattention import softmax
    >>> from selfattention.cross import cat_is_sleeping
    >>> x_q, x_kv, w_q, w_k, _ = cat_is_sleeping()
    >>> Q, K = x_q @ w_q, x_kv @ w_k
    >>> print(check_cross_weights(softmax(Q @ K.T / np.sqrt(2))))
    ✓ Right: weights has shape (3, 4), one row per query and one column per key, and every value matches.
    >>> print(check_cross_weights(softmax(K @ Q.T / np.sqrt(2))))  # doctest: +NORMALIZE_WHITESPACE
    ✗ weights has shape (4, 3) but should be (3, 4): one row per word of the sequence that looks
    (3), one column per word it reads (4). Did you write K @ Q.T instead of Q @ K.T?
    """
    ex_q, ex_kv, ex_wq, ex_wk, _ = cat_is_sleeping()
    x_q = ex_q if x_q is None else as_float_array(x_q, "x_q")
    x_kv = ex_kv if x_kv is None else as_float_array(x_kv, "x_kv")
    w_q = ex_wq if w_q is None else as_float_array(w_q, "w_q")
    w_k = ex_wk if w_k is None else as_float_array(w_k, "w_k")
    for name, x in (("x_q", x_q), ("x_kv", x_kv)):
        if x.ndim != 2:
            raise ValueError(f"{name} must have shape (L, d), one row per word; got {x.shape}")
    x_q, x_kv, w_q, w_k = (np.asarray(a, dtype=np.float64) for a in (x_q, x_kv, w_q, w_k))
    _, expected = cross_attention(x_q, x_kv, w_q, w_k, w_k, return_weights=True)  # (L, S)
    L, S = expected.shape
    q, k = x_q @ w_q, x_kv @ w_k  # (L, d_k), (S, d_k)
    d_k = q.shape[1]
    root = np.sqrt(d_k)
    scores = q @ k.T / root  # (L, S)
    projections = []  # W_Q left out; the keys projected with W_Q; neither projected
    if x_q.shape[1] == d_k:
        projections.append(softmax(x_q @ k.T / root))
    if x_kv.shape[1] == w_q.shape[0]:
        projections.append(softmax(q @ (x_kv @ w_q).T / root))
    if x_q.shape[1] == x_kv.shape[1]:
        projections.append(softmax(x_q @ x_kv.T / root))
    return compare(
        weights, expected, CROSS_WEIGHTS, name="weights",
        layout=f"one row per word of the sequence that looks ({L}), one column per word it reads ({S}).",
        right={"shape": expected.shape},
        slips=[(softmax(scores, axis=0), "columns", {}),
               (softmax(scores.ravel()).reshape(scores.shape), "whole-table", {}),
               (scores, "scores", {}),
               (softmax(scores * root), "no-scale", {"d_k": d_k}),
               *[(value, "projection", {}) for value in projections],
               *[(softmax(np.where(mask, scores, -np.inf)), "causal", {})
                 for mask in (causal_mask(L, S), causal_mask_bottom_right(L, S))]],
        shape_tips={(L, L): "self-q", (S, S): "self-kv", (S, L): "K@Q.T"},
    )
