"""Attention written out from the formula, without the package: the tests' yardstick.

It shares no code with ``selfattention``: the scores come from ``einsum``,
the masks are applied with ``np.where``, and the sums are taken in NumPy's
``longdouble`` (80-bit extended precision on x86, float64 elsewhere), so
that on x86 its own rounding is about 2000 times smaller than float64's
and a tight tolerance measures the package's error alone.
"""

from __future__ import annotations

import math

import numpy as np

WIDE = np.longdouble


def attend_f64(q, k, v, *, allowed=None, bias=None, scale=None):
    """``(out, weights)`` of attention, in float64.

    ``allowed`` (boolean, True = may attend) and ``bias`` (added to the
    scores; ``-inf`` blocks) broadcast to the scores ``(..., L, S)``. A
    query that may attend to no key gets weights 0 and output 0.
    """
    q, k, v = (np.asarray(a, dtype=WIDE) for a in (q, k, v))
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = np.einsum("...id,...jd->...ij", q, k) * WIDE(scale)  # (..., L, S)
    if bias is not None:
        scores = scores + np.asarray(bias, dtype=WIDE)
    keep = np.isfinite(scores)  # a -inf bias blocks
    if allowed is not None:
        keep = keep & np.asarray(allowed, dtype=bool)
    scores, keep = np.broadcast_arrays(scores, keep)
    top = np.max(np.where(keep, scores, -np.inf), axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)  # fully blocked rows
    e = np.where(keep, np.exp(np.where(keep, scores, top) - top), 0.0)
    total = e.sum(axis=-1, keepdims=True)
    weights = np.where(total > 0, e / np.where(total > 0, total, 1.0), 0.0)
    out = weights @ v  # (..., L, S) @ (..., S, d_v): matmul of longdouble is a plain loop, not BLAS
    return out.astype(np.float64), weights.astype(np.float64)
