"""The layers of a BERT encoder: the error function, GELU, LayerNorm, dense layers and heads.

Small pure functions named after their maths; each works on any number of
leading (batch) dimensions and keeps float32 as float32.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .._validate import as_float_array, check_ndim
from ..fast.normal import normal_cdf

# NumPy has no erf. In float64, the standard library's, applied to each value (exact, but one Python
# call per value). In float32, where that exactness is not needed and the model's forward pass calls
# gelu on a million values (the explorer's 128 tokens), a vectorised fit of erfc (Press et al.,
# Numerical Recipes, 2nd ed., section 6.2, "erfcc"): relative error below 1.2e-7 for every x, about
# one float32 rounding.
_ERF = np.frompyfunc(math.erf, 1, 1)
_ERFC = np.frompyfunc(math.erfc, 1, 1)
_ERFC_COEFFS = (-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398,
                1.48851587, -0.82215223, 0.17087277)


def _erfc_fit(x: np.ndarray) -> np.ndarray:
    """Numerical Recipes' erfcc in float64: ``t exp(-z**2 + P(t))``, ``t = 1 / (1 + z/2)``, ``z = |x|``."""
    z = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    poly = np.zeros_like(t)
    for c in reversed(_ERFC_COEFFS[1:]):  # Horner: P(t) = c0 + t (c1 + t (c2 + ...))
        poly = (poly + c) * t
    tail = t * np.exp(-z * z + poly + _ERFC_COEFFS[0])
    return np.where(x >= 0, tail, 2.0 - tail)


def _elementwise(exact, x, fit) -> np.ndarray:
    """``exact`` of each value of a float64 ``x``; ``fit`` (vectorised, computed in float64) of a float32
    ``x``, returned in float32."""
    x = as_float_array(x, "x")
    if x.dtype == np.float64:
        return np.asarray(exact(x), dtype=np.float64)  # same shape, 0-d too
    return fit(x.astype(np.float64)).astype(x.dtype, copy=False)


def erfc(x) -> np.ndarray:
    """Complementary error function ``erfc(x) = 1 - erf(x)``, vectorised.

    NumPy has no ``erfc``; this applies the standard library's
    ``math.erfc`` to each value in float64, so a float64 result is as
    exact as the platform's C library (within an ulp or two). A float32
    input gets Numerical Recipes' vectorised fit ``erfcc`` instead, within
    1.2e-7 of the exact value relative to it, about one float32 rounding:
    one Python call per value would make the model's float32 forward pass
    slow. Both keep full relative accuracy where ``1 - erf(x)`` would lose
    it, for large ``x``.

    Parameters
    ----------
    x : array_like
        Real numbers.

    Returns
    -------
    numpy.ndarray
        ``erfc(x)``, same shape; float32 stays float32, anything else
        becomes float64.

    Raises
    ------
    TypeError
        If ``x`` is not real numeric.
    ValueError
        If ``x`` contains NaN or inf.

    Examples
    --------
    >>> import math
    >>> erfc([0.0, 1.0, -1.0]).round(7)
    array([1.       , 0.1572992, 1.8427008])
    >>> bool(erfc(5.0) == math.erfc(5.0))
    True
    """
    return _elementwise(_ERFC, x, _erfc_fit)


def erf(x) -> np.ndarray:
    """The error function ``erf(x) = 2/sqrt(pi) * integral_0^x exp(-t**2) dt``, vectorised.

    NumPy has no ``erf``; this applies the standard library's
    ``math.erf`` to each value in float64 (as exact as the platform's C
    library). A float32 input gets ``1 - erfc(|x|)`` from the float32 path of
    :func:`~selfattention.bert.layers.erfc`, with the sign of ``x``: within
    1e-7 of the exact value.

    Parameters
    ----------
    x : array_like
        Real numbers.

    Returns
    -------
    numpy.ndarray
        ``erf(x)``, same shape; float32 stays float32, anything else becomes
        float64.

    Raises
    ------
    TypeError
        If ``x`` is not real numeric.
    ValueError
        If ``x`` contains NaN or inf.

    Examples
    --------
    >>> import math
    >>> erf([-3.0, -0.5, 0.0, 0.5, 3.0]).round(6)
    array([-0.999978, -0.5205  ,  0.      ,  0.5205  ,  0.999978])
    >>> bool(erf(0.3) == math.erf(0.3))
    True
    """
    return _elementwise(_ERF, x, lambda xd: np.copysign(np.maximum(1.0 - _erfc_fit(np.abs(xd)), 0.0), xd))


#: Below this, gelu's float64 Phi comes from math.erfc per value (the table's relative error grows there).
_TABLE_FROM = -2.0


def gelu(x) -> np.ndarray:
    """Exact GELU: ``x * Phi(x)``, with ``Phi`` the standard normal CDF.

    ``Phi(x) = (1 + erf(x / sqrt(2))) / 2 = erfc(-x / sqrt(2)) / 2``; the
    second form keeps full relative accuracy for negative ``x`` too. This is
    BERT's ``hidden_act="gelu"`` (not the tanh approximation), PyTorch's
    ``F.gelu``. In float64, ``Phi`` comes from
    :func:`selfattention.fast.normal.normal_cdf` (fast enough to train
    with; within 1e-15 of ``math.erfc(-x / sqrt(2)) / 2``, relatively, for
    ``x >= -2``) and from :func:`~selfattention.bert.layers.erfc` below
    that, so a float64 result is exact to rounding. A float32 one uses
    erfc's float32 fit, within about one float32 rounding.

    Parameters
    ----------
    x : array_like
        Real numbers.

    Returns
    -------
    numpy.ndarray
        ``gelu(x)``, same shape; float32 stays float32, anything else
        becomes float64.

    Raises
    ------
    TypeError
        If ``x`` is not real numeric.
    ValueError
        If ``x`` contains NaN or inf.

    Examples
    --------
    Large positive inputs pass, large negative ones are silenced:

    >>> gelu([-3.0, -1.0, 0.0, 1.0, 3.0]).round(4)
    array([-0.004 , -0.1587,  0.    ,  0.8413,  2.996 ])
    """
    x = as_float_array(x, "x")
    xd = x.astype(np.float64, copy=False)
    if x.dtype == np.float64:
        phi = normal_cdf(xd)                     # Phi(x), within 2.3e-16 of math.erfc(-x / sqrt(2)) / 2
        tail = xd < _TABLE_FROM                  # far left, Phi is tiny: exact per value keeps every digit
        phi[tail] = 0.5 * erfc(-xd[tail] / math.sqrt(2.0))
        return xd * phi
    return (0.5 * xd * _erfc_fit(-xd / math.sqrt(2.0))).astype(x.dtype, copy=False)


def layer_norm(x, gamma, beta, *, eps: float = 1e-12) -> np.ndarray:
    """LayerNorm: give each row mean 0 and variance 1, then scale and shift.

    ``(x - mean) / sqrt(var + eps) * gamma + beta`` over the last axis, with
    the biased variance (divide by ``d``), as in PyTorch.

    Parameters
    ----------
    x : array_like, shape (..., d)
        Rows to normalise.
    gamma, beta : array_like, shape (d,)
        Learned scale and shift.
    eps : float, default 1e-12, keyword-only
        Added to the variance.

    Returns
    -------
    numpy.ndarray, shape (..., d)
        In the dtype of ``x`` (float32 stays float32).

    Raises
    ------
    TypeError
        If an input is not numeric.
    ValueError
        If ``gamma`` or ``beta`` is not ``(d,)``, ``eps`` is not positive,
        or ``x`` has NaN or inf.

    Examples
    --------
    >>> layer_norm([[1.0, 2.0, 3.0]], [1, 1, 1], [0, 0, 0]).round(4)
    array([[-1.2247,  0.    ,  1.2247]])
    """
    x = as_float_array(x, "x")
    check_ndim(x, "x", 1, "(..., d)")
    d = x.shape[-1]
    gamma = _param(gamma, "gamma", (d,), x)
    beta = _param(beta, "beta", (d,), x)
    if not (isinstance(eps, numbers.Real) and eps > 0):
        raise ValueError(f"eps must be a positive number, got {eps!r}")
    mean = x.mean(axis=-1, keepdims=True)  # (..., 1)
    centred = x - mean  # (..., d)
    var = np.mean(centred * centred, axis=-1, keepdims=True)  # (..., 1)
    return centred / np.sqrt(var + x.dtype.type(eps)) * gamma + beta


def linear(x, weight, bias) -> np.ndarray:
    """A dense layer in PyTorch's layout: ``x @ weight.T + bias``.

    Parameters
    ----------
    x : array_like, shape (..., d_in)
        Inputs, one row per token.
    weight : array_like, shape (d_out, d_in)
        One row per output feature.
    bias : array_like, shape (d_out,)
        Added to every row.

    Returns
    -------
    numpy.ndarray, shape (..., d_out)

    Raises
    ------
    TypeError
        If an input is not numeric.
    ValueError
        If the shapes do not fit together, or ``x`` has NaN or inf.

    Examples
    --------
    >>> linear([[1.0, 2.0]], [[1, 0], [1, 1], [0, 3]], [0, 0, 10])
    array([[ 1.,  3., 16.]])
    """
    x = as_float_array(x, "x")
    check_ndim(x, "x", 1, "(..., d_in)")
    w = np.asarray(weight)
    if w.ndim != 2 or w.shape[1] != x.shape[-1]:
        raise ValueError(
            f"weight must have shape (d_out, d_in) with d_in={x.shape[-1]} to match "
            f"x {x.shape}, got {w.shape}"
        )
    w = _param(w, "weight", w.shape, x)
    b = _param(bias, "bias", (w.shape[0],), x)
    return x @ w.T + b  # (..., d_out)


def _param(p, name: str, shape: tuple, x: np.ndarray) -> np.ndarray:
    """A parameter as a real array of ``shape`` in the dtype of ``x`` (no finiteness scan)."""
    arr = np.asarray(p)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_):
        raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"{name} must be real, got dtype {arr.dtype}")
    if arr.shape != shape:
        raise ValueError(f"{name} must have shape {shape} to match x {x.shape}, got {arr.shape}")
    return arr.astype(x.dtype, copy=False)


__all__ = ["erf", "erfc", "gelu", "layer_norm", "linear"]
