"""Checker of one decode step with a KV cache (book/one-word-at-a-time.md, "One word at a time")."""

from __future__ import annotations

import numpy as np

from .._validate import as_float_array
from ..attention import causal_mask, scaled_dot_product_attention
from ..causal_alignment import causal_mask_bottom_right
from ..generation import decode_example
from ..softmax import softmax
from ._compare import Diagnoses, Feedback, compare

DECODE_STEP = Diagnoses(
    "check_decode_step",
    "Right: out has shape {shape}, one row per new token, and every value matches.", {
        "before-append": "Your new tokens read only the cached keys: append k_new and v_new to the cache "
                         "first, so that each new token can also read itself.",
        "top-left": "That is the top-left causal mask: the new tokens are the last {L} of {S} positions, "
                    "so the mask must be aligned to the bottom-right corner, causal_mask_bottom_right({L}, {S}).",
        "no-mask": "Every new token reads every key, the new ones too: the first new token must not see the "
                   "token after it. Use causal_mask_bottom_right({L}, {S}).",
        "no-scale": "The weights are too sharp: did you forget to divide the scores by sqrt(d_k) = sqrt({d_k})?",
        "kv-swapped": "The keys and the values are swapped: score the queries against the keys, then "
                      "average the values.",
        "weights": "These are the weights, ({L}, {S}): multiply them by the values to get the output.",
        "columns": "Softmax ran down the columns (axis=0): each new token's row of weights must add up to 1. "
                   "Use softmax(scores, axis=-1).",
        "whole-table": "Softmax ran over the whole table at once, so the whole table adds up to 1. Run it "
                       "along each row, softmax(scores, axis=-1): each new token shares out its own attention.",
        "mask-after-softmax": "The mask came after softmax: the blocked keys were zeroed (or pushed down) in "
                              "the weights, so a row no longer adds up to 1. Mask the scores before softmax: "
                              "np.where(mask, scores, -np.inf).",
        "not-finite": "out contains NaN or inf. A -inf belongs in the scores, before softmax: added to the "
                      "weights after it, it turns the output into inf or NaN.",
    })


def check_decode_step(out, q_new=None, k_new=None, v_new=None, k_cache=None, v_cache=None) -> Feedback:
    """Check the reader's decode step: new tokens attend to the cache and to themselves.

    The right answer appends ``k_new`` and ``v_new`` to the cache, then
    computes ``softmax(q_new @ K.T / sqrt(d_k)) @ V`` under the bottom-right
    causal mask :func:`~selfattention.causal_mask_bottom_right` ``(L, S)``:
    the ``L`` new tokens are the last ``L`` of ``S`` positions.

    Parameters
    ----------
    out : array_like
        What the reader computed.
    q_new, k_new, v_new : array_like, shape (L, d_k), optional
        The new tokens' queries, keys and values; default: those of
        :func:`~selfattention.decode_example`.
    k_cache, v_cache : array_like, shape (S - L, d_k), optional
        The kept keys and values; default: the example's.

    Returns
    -------
    Feedback
        ``ok`` is True if ``out`` is right; otherwise the message names the likely
        slip: attending before appending the new keys, the top-left mask, no mask,
        a missing scale, keys and values swapped, softmax down the columns or
        over the whole table, the mask applied after softmax, the weights
        instead of the output, or rounded numbers. A value counts as right within 100 eps
        (abs(expected) + the largest abs(expected)), eps being the machine epsilon
        of the answer: float32's for float32 arrays (as torch's .numpy() gives),
        float64's otherwise; a float16 answer is judged with float16's rounding (10
        of its eps), and an expected inf only by the same inf.

    Raises
    ------
    TypeError, ValueError
        If an input other than ``out`` is malformed; a wrong ``out`` is not
        an error.

    Examples
    --------
    >>> import numpy as np
    >>> from selfattention import causal_mask_bottom_right, decode_example, scaled_dot_product_attention
    >>> q, k, v, k_cache, v_cache = decode_example()
    >>> K, V = np.vstack([k_cache, k]), np.vstack([v_cache, v])
    >>> print(check_decode_step(scaled_dot_product_attention(q, K, V, mask=causal_mask_bottom_right(2, 5))))
    ✓ Right: out has shape (2, 4), one row per new token, and every value matches.
    >>> print(check_decode_step(scaled_dot_product_attention(q, K, V, causal=True)))  # doctest: +NORMALIZE_WHITESPACE
    ✗ That is the top-left causal mask: the new tokens are the last 2 of 5 positions, so the mask must
    be aligned to the bottom-right corner, causal_mask_bottom_right(2, 5).
    """
    given = (q_new, k_new, v_new, k_cache, v_cache)
    example = decode_example()
    q, k, v, kc, vc = (np.asarray(ex if g is None else as_float_array(g, name), dtype=np.float64)
                       for g, ex, name in zip(given, example, ("q_new", "k_new", "v_new", "k_cache", "v_cache")))
    for name, a in (("q_new", q), ("k_new", k), ("v_new", v), ("k_cache", kc), ("v_cache", vc)):
        if a.ndim != 2:
            raise ValueError(f"{name} must have shape (rows, d_k), one row per token; got {a.shape}")
    if not (q.shape == k.shape == v.shape and kc.shape == vc.shape and kc.shape[1] == q.shape[1]):
        raise ValueError(f"q_new, k_new, v_new must share one shape (L, d_k) and the cache be (S - L, d_k); got "
                         f"{q.shape}, {k.shape}, {v.shape}, {kc.shape}, {vc.shape}")
    K, V = np.vstack([kc, k]), np.vstack([vc, v])  # (S, d_k): the cache, then the new rows
    L, S, d_k = q.shape[0], K.shape[0], q.shape[1]
    right = causal_mask_bottom_right(L, S)  # (L, S)
    expected = scaled_dot_product_attention(q, K, V, mask=right)  # (L, d_k)
    fields = {"L": L, "S": S}
    scores = q @ K.T / np.sqrt(d_k)                                 # (L, S)
    blocked = np.where(right, scores, -np.inf)                      # (L, S)
    free = softmax(scores)                                          # (L, S): no mask yet
    late = [free * right @ V]                                       # zeroed after softmax, not renormalised
    late += [(free + np.where(right, 0.0, big)) @ V for big in (-1e4, -1e9)]   # a finite mask added after
    return compare(
        out, expected, DECODE_STEP, name="out",
        layout=f"one row per new token ({L}), one column per number of a value ({V.shape[1]}).",
        right={"shape": expected.shape},
        slips=[(scaled_dot_product_attention(q, kc, vc), "before-append", {}),
               (scaled_dot_product_attention(q, K, V, mask=causal_mask(L, S)) if L > 1 else None, "top-left",
                fields),
               (scaled_dot_product_attention(q, K, V), "no-mask", fields),
               (scaled_dot_product_attention(q, K, V, mask=right, scale=1.0), "no-scale", {"d_k": d_k}),
               (scaled_dot_product_attention(q, V, K, mask=right) if V.shape == K.shape else None, "kv-swapped",
                {}),
               (softmax(blocked, axis=0) @ V if L > 1 else None, "columns", {}),
               (softmax(blocked.ravel()).reshape(blocked.shape) @ V if L > 1 else None, "whole-table", {}),
               *[(value, "mask-after-softmax", {}) for value in late]],
        shape_tips={(L, S): "weights"}, tip_fields=fields,
    )
