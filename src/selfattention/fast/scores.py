"""The scores of one tile, and what a bound on them allows.

Both fast functions compute their scores a tile at a time with
:func:`masked_scores`. Before they start, :func:`score_checks` looks at a
bound on the scores: ``|q . k| <= |q| |k|`` (Cauchy-Schwarz).

* Where the bound shows that every score of a query row lies within
  ``+-FIXED_SHIFT_LIMIT``, ``exp(score)`` can neither overflow nor
  underflow, so softmax may skip subtracting the row's maximum: softmax
  does not change when a whole row moves by the same amount, and the shift
  0 is as good as any (:func:`fixed_shift_rows`).
* Where no score can overflow the dtype, the check for ``inf`` scores is
  skipped.
"""

from __future__ import annotations

import numpy as np

from .._validate import abs_max, overflow_text

#: If every score of a row lies within +-FIXED_SHIFT_LIMIT, ``exp(score)``
#: lies between ``exp(-30) ~ 9e-14`` and ``exp(30) ~ 1e13``: far from the
#: limits of float32 (``1e-38`` to ``3e38``), so softmax may use the shift 0.
FIXED_SHIFT_LIMIT = 30.0


def fixed_shift_rows(q, k, v, scale, *, limit: float = FIXED_SHIFT_LIMIT) -> np.ndarray | None:
    """Which query rows may skip subtracting their maximum before ``exp``.

    By Cauchy-Schwarz every score of row ``i`` lies within
    ``|q_i| * max_j |k_j| * |scale|``. Where that bound is at most
    ``limit``, ``exp(score)`` is a normal float and a sum of ``S`` of them
    times a value cannot overflow, so softmax may use the shift 0 (any
    common shift gives the same softmax).

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
    limit : float, default ``FIXED_SHIFT_LIMIT``, keyword-only
        The largest bound that may use the shift 0.

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
    if S * abs_max(v) * np.exp(limit) > float(np.finfo(q.dtype).max) / 4:
        return None  # the weighted sums themselves could overflow
    with np.errstate(over="ignore", invalid="ignore"):  # huge inputs: inf, so not fixed
        q_sq = np.einsum("...i,...i->...", q, q)  # (..., L) squared norms
        k_sq = np.einsum("...i,...i->...", k, k).max(axis=-1, keepdims=True)  # (..., 1)
        return q_sq * k_sq * float(scale) ** 2 <= limit**2  # (..., L)


def score_checks(q, k, v, scale, *, has_bias: bool, fixed_shift: bool = True):
    """``(overflow, fixed)``: what the fast functions need to know before they start.

    ``overflow`` is the error message to raise if a score turns out not
    finite, or None if no score can overflow. ``fixed`` is
    :func:`fixed_shift_rows`, or None with a float mask (it may move scores
    anywhere) or with ``fixed_shift=False``. If every row is fixed, no
    score can overflow and ``overflow`` is None.

    Examples
    --------
    >>> x = np.eye(2)
    >>> score_checks(x, x, x, 1.0, has_bias=False)
    (None, array([ True,  True]))
    >>> score_checks(x, x, x, 1.0, has_bias=False, fixed_shift=False)
    (None, None)
    """
    fixed = fixed_shift_rows(q, k, v, scale) if fixed_shift and not has_bias else None  # (..., L) or None
    if fixed is not None and fixed.all():
        return None, fixed
    return overflow_message(q, k, scale), fixed


def overflow_message(q, k, scale) -> str | None:
    """The error message if some score ``q . k * scale`` might overflow, else None.

    Uses ``|q . k| <= d_k * max|q| * max|k|``, so None means no score can overflow.

    Examples
    --------
    >>> x = np.ones((2, 2))
    >>> print(overflow_message(x, x, 1.0))
    None
    >>> overflow_message(x * 1e200, x * 1e200, 1.0)[:44]
    'the scores q @ k.T * scale overflow float64 '
    """
    largest = abs_max(q) * abs_max(k) * q.shape[-1] * abs(float(scale))
    return None if largest <= float(np.finfo(q.dtype).max) / 4 else overflow_text(q, k, scale)


def masked_scores(matmul, q, k_t, s, overflow, bias, allowed) -> None:
    """Write the masked scores ``q @ k_t`` of one tile into ``s``.

    Parameters
    ----------
    matmul : callable
        ``matmul(a, b, out)``, from :mod:`selfattention.fast.threads`.
    q : numpy.ndarray, shape (..., R, d_k)
        Queries, already multiplied by the scale.
    k_t : numpy.ndarray, shape (..., d_k, C)
        Keys, transposed.
    s : numpy.ndarray, shape (..., R, C)
        Receives the scores.
    overflow : str or None
        The message to raise if a score is not finite (None: they cannot
        overflow).
    bias : numpy.ndarray, shape (..., R, C), or None
        A float mask, added.
    allowed : numpy.ndarray of bool, shape (..., R, C), or None
        A boolean mask: ``-inf`` where it is False.

    Examples
    --------
    >>> from selfattention.fast.threads import matmul_whole
    >>> s = np.empty((1, 2))
    >>> masked_scores(matmul_whole, np.ones((1, 2)), np.eye(2), s, None, None, np.array([[True, False]]))
    >>> s
    array([[  1., -inf]])
    """
    with np.errstate(over="ignore"):  # an overflow is caught just below, as a ValueError
        matmul(q, k_t, s)  # (..., R, d_k) @ (..., d_k, C) -> (..., R, C)
    if overflow is not None and not np.isfinite(s).all():
        raise ValueError(overflow)
    if bias is not None:
        with np.errstate(over="ignore"):  # -1e300 in float32 is -inf: still "blocked"
            np.add(s, bias, out=s, casting="same_kind")
    if allowed is not None:
        np.copyto(s, -np.inf, where=~allowed)


__all__ = ["FIXED_SHIFT_LIMIT", "fixed_shift_rows"]
