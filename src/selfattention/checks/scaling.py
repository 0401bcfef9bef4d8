"""Checker of one row of scaled scores (book/why-divide-by-sqrt-dk.md)."""

from __future__ import annotations

import numpy as np

from .._validate import as_float_array
from ..scaling import scaling_example
from ..softmax import softmax
from ._compare import Diagnoses, Feedback, compare

SCALED_ROW = Diagnoses("check_scaled_row", "Right: one scaled score per key, and every value matches.", {
    "no-scale": "The scores are {root:g} times too large: you forgot to divide by sqrt(d_k) = sqrt({d_k}) = {root:g}.",
    "by-d_k": "You divided by d_k = {d_k}; divide by its square root, {root:g}. The scores are now {root:g} "
              "times too small.",
    "times-root": "You multiplied by sqrt(d_k) = {root:g}; divide by it instead.",
    "by-sqrt-S": "You divided by the square root of the number of keys, {S}; divide by the square root of "
                 "d_k = {d_k}, the numbers per key.",
    "weights": "Those are the weights, softmax of the scaled scores: the exercise asks for the scores before "
               "softmax.",
    "raw-weights": "Those are the weights of the unscaled scores: divide by sqrt(d_k) and stop before softmax.",
})


def check_scaled_row(row, q=None, k=None) -> Feedback:
    """Check the reader's row of scaled scores: one query against every key.

    The right answer is ``k @ q / sqrt(d_k)``: one score per key, each the
    dot product divided by the square root of the number of numbers per
    query, ``d_k``.

    Parameters
    ----------
    row : array_like
        What the reader computed.
    q : array_like, shape (d_k,), optional
        The query; with ``k``, defaults to :func:`~selfattention.scaling_example`.
    k : array_like, shape (S, d_k), optional
        The keys, one per row.

    Returns
    -------
    Feedback
        ``ok`` is True if ``row`` is right; otherwise the message names the
        likely slip: no division, a division by ``d_k``, a multiplication by
        ``sqrt(d_k)``, a division by the square root of the number of keys, the
        weights instead of the scores, rounded numbers, or the shape. A value
        counts as right within 100 eps (abs(expected) + the largest
        abs(expected)), eps being the machine epsilon of the answer: float32's
        for float32 arrays (as torch's .numpy() gives), float64's otherwise; a
        float16 answer is judged with float16's rounding (10 of its eps), and
        an expected inf only by the same inf.

    Raises
    ------
    TypeError, ValueError
        If ``q`` or ``k`` is malformed (only one of them given, wrong
        shapes, not finite real numbers); a wrong ``row`` is not an error.

    Examples
    --------
    >>> import numpy as np
    >>> q, K = scaling_example()
    >>> print(check_scaled_row(K @ q / np.sqrt(64)))
    ✓ Right: one scaled score per key, and every value matches.
    >>> print(check_scaled_row(K.astype(np.float32) @ q.astype(np.float32) / np.float32(8)))
    ✓ Right: one scaled score per key, and every value matches.
    >>> print(check_scaled_row(K @ q))
    ✗ The scores are 8 times too large: you forgot to divide by sqrt(d_k) = sqrt(64) = 8.
    """
    if (q is None) != (k is None):
        raise ValueError("give both q and k, or neither (then the exercise's own are used)")
    if q is None:
        q, k = scaling_example()
    q = as_float_array(q, "q").astype(np.float64)
    k = as_float_array(k, "k").astype(np.float64)
    if q.ndim != 1:
        raise ValueError(f"q must be one query, shape (d_k,), got {q.shape}")
    if k.ndim != 2 or k.shape[1] != q.shape[0]:
        raise ValueError(f"k must have shape (S, d_k) with d_k = {q.shape[0]} like q, got {k.shape}")
    n, d_k = k.shape
    root = np.sqrt(d_k)
    raw = k @ q                      # (S,)
    expected = raw / root            # (S,)
    sizes = {"root": root, "d_k": d_k}
    return compare(
        row, expected, SCALED_ROW, name="row", layout="one score per key, k @ q.",
        slips=[(raw, "no-scale", sizes),
               (raw / d_k, "by-d_k", sizes),
               (raw * root, "times-root", sizes),
               (raw / np.sqrt(n), "by-sqrt-S", {"S": n, "d_k": d_k}),
               (softmax(expected), "weights", {}),
               (softmax(raw), "raw-weights", {})],
    )
