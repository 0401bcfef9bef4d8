"""Softmax: turn a row of scores into weights that are never negative and sum to 1.

:func:`~selfattention.scaled_dot_product_attention` calls
:func:`softmax` on its table of scores. The fast layer
(:mod:`selfattention.fast`) does the same steps inside its own loops.
"""

from __future__ import annotations

import numpy as np


def softmax(x, axis: int = -1) -> np.ndarray:
    """Turn scores into weights: exponentiate, then divide by the total.

    The maximum of each slice is subtracted first, so large scores do not
    overflow. ``-inf`` means "blocked" and gets weight exactly 0. A slice
    that is entirely ``-inf`` (nothing to look at) gets all zeros, never NaN.

    Parameters
    ----------
    x : array_like
        Scores, any shape; real numbers or ``-inf``.
    axis : int, default -1
        The axis along which the weights sum to 1.

    Returns
    -------
    numpy.ndarray
        Weights of the same shape as ``x``; float32 stays float32, anything
        else becomes float64. Each slice sums to 1, or is all 0 if it was
        all ``-inf``.

    Raises
    ------
    TypeError
        If ``x`` is not real and numeric, or ``axis`` is not an integer.
    ValueError
        If ``x`` is a scalar, contains NaN or ``+inf``, or ``axis`` is out
        of range.

    Examples
    --------
    The cat's scaled scores from the book's running example:

    >>> import numpy as np
    >>> softmax(np.array([4.0, 2.0, 0.0]) / np.sqrt(2)).round(3)
    array([0.768, 0.187, 0.045])

    Equal scores share the weight equally:

    >>> softmax([1.0, 1.0, 1.0]).round(3)
    array([0.333, 0.333, 0.333])

    A blocked score gets weight 0; a fully blocked row gets all zeros:

    >>> softmax([[0.0, -np.inf], [-np.inf, -np.inf]])
    array([[1., 0.],
           [0., 0.]])
    """
    arr = np.asarray(x)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_):
        raise TypeError(f"softmax: x must be numeric, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"softmax: x must be real, got dtype {arr.dtype}")
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"softmax: axis must be an integer, got {axis!r}")
    if arr.ndim == 0:
        raise ValueError("softmax: x must have at least 1 dimension, got a scalar")
    if not -arr.ndim <= axis < arr.ndim:
        raise ValueError(f"softmax: axis {axis} is out of range for shape {arr.shape}")
    arr = arr.astype(np.float32 if arr.dtype == np.float32 else np.float64)  # a copy we own
    peak = np.max(arr, axis=axis, keepdims=True)  # the largest score of each slice; NaN and +inf show up here
    if np.isnan(peak).any() or np.isposinf(peak).any():
        raise ValueError(f"softmax: x contains NaN or +inf; shape {arr.shape}")
    peak[np.isneginf(peak)] = 0  # an all -inf slice: shift by 0
    arr -= peak  # now every score is <= 0, so exp(score) <= 1 cannot overflow
    np.exp(arr, out=arr)  # exp(-inf) = 0: blocked entries get weight 0
    total = np.sum(arr, axis=axis, keepdims=True)
    np.divide(arr, total, out=arr, where=total > 0)  # all-blocked slices stay 0
    return arr


__all__ = ["softmax"]
