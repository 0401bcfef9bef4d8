"""The standard normal distribution's Φ and φ, fast: for the float64 GELU and the writer's training.

GELU is ``x Φ(x)`` (:func:`~selfattention.gelu`), and its slope, which the
backward pass needs, is ``Φ(x) + x φ(x)``:

* ``φ(x) = exp(-x²/2) / sqrt(2π)``, the density: one call of :func:`numpy.exp`;
* ``Φ(x) = erfc(-x / sqrt(2)) / 2``, the distribution function. NumPy has no
  ``erf``, and the book's :func:`~selfattention.bert.layers.erfc` calls
  ``math.erfc`` once per value: exact, but about 0.3 µs each, and one
  training step of the writer takes GELU of millions of values.

:func:`normal_cdf` is as exact and about ten times faster. It keeps, for
every point ``x0`` of a grid of step ``1/32`` from -10 to 10, the Taylor
series of Φ around ``x0`` up to the power 7: ``Φ(x0)`` from ``math.erfc``,
and the derivatives ``Φ^(m+1)(x0) = (-1)^m He_m(x0) φ(x0)``, with ``He_m``
the (probabilists') Hermite polynomials, ``He_{m+1} = x He_m - m He_{m-1}``.
A value ``x`` is at most ``1/64`` from its grid point, so the first term left
out is below ``(1/64)^8 / 8!`` times the largest ``|He_7 φ|`` (14.2), about 1e-18: the result equals
``math.erfc(-x / sqrt(2)) / 2`` to within rounding (2e-16; a test holds it).
Beyond ±10, Φ(±10) is used: it is within 1e-23 of Φ(x).

Examples
--------
Φ equals ``math.erfc(-x / sqrt(2)) / 2`` to rounding:

>>> import numpy as np
>>> x = np.linspace(-6, 6, 13)
>>> exact = [0.5 * math.erfc(-v / math.sqrt(2.0)) for v in x]
>>> bool(np.allclose(normal_cdf(x), exact, rtol=0, atol=2.3e-16))
True
"""

from __future__ import annotations

import math

import numpy as np

from .._validate import as_float_array

#: The grid of expansion points: from ``-_EDGE`` to ``_EDGE`` in steps of ``1 / _PER_UNIT``.
_EDGE = 10.0
_PER_UNIT = 32
#: Highest power of ``(x - x0)`` kept.
_DEGREE = 7
#: Values computed at a time.
_CHUNK = 1 << 15


def _taylor_table() -> np.ndarray:
    """``(_DEGREE + 1, points)``: column ``j`` holds ``Φ^(m)(x0_j) / m!`` for ``m = 0 .. _DEGREE``."""
    x0 = np.linspace(-_EDGE, _EDGE, int(2 * _EDGE * _PER_UNIT) + 1)  # (points,)
    pdf = np.exp(-0.5 * x0 * x0) / math.sqrt(2.0 * math.pi)  # (points,)
    table = np.empty((_DEGREE + 1, x0.size))
    table[0] = [0.5 * math.erfc(-v / math.sqrt(2.0)) for v in x0]
    he_prev, he = np.zeros_like(x0), np.ones_like(x0)  # He_{-1} = 0, He_0 = 1
    for m in range(_DEGREE):  # Φ^(m+1) = φ^(m) = (-1)^m He_m φ
        table[m + 1] = (-1) ** m * he * pdf / math.factorial(m + 1)
        he_prev, he = he, x0 * he - m * he_prev
    return table


_TABLE = _taylor_table()


def normal_cdf(x) -> np.ndarray:
    """Φ(x), the probability that a standard normal number is below ``x``.

    Vectorised and exact to rounding: within 2e-16 of
    ``math.erfc(-x / sqrt(2)) / 2`` (see the module's note on how).

    Parameters
    ----------
    x : array_like
        Real numbers.

    Returns
    -------
    numpy.ndarray
        Φ(x), float64, same shape.

    Raises
    ------
    TypeError
        If ``x`` is not real numeric.
    ValueError
        If ``x`` contains NaN or inf.

    Examples
    --------
    >>> normal_cdf([-1.0, 0.0, 1.0, 1.96]).round(4)
    array([0.1587, 0.5   , 0.8413, 0.975 ])
    """
    x = as_float_array(x, "x").astype(np.float64, copy=False)
    flat, out = x.reshape(-1), np.empty(x.size)
    for start in range(0, x.size, _CHUNK):  # in pieces that stay in the processor's cache
        inside = np.clip(flat[start:start + _CHUNK], -_EDGE, _EDGE)  # (chunk,)
        j = np.rint((inside + _EDGE) * _PER_UNIT).astype(np.intp)  # (chunk,) the nearest grid point
        dx = inside - (j / _PER_UNIT - _EDGE)  # (chunk,) |dx| <= 1/64
        piece = out[start:start + _CHUNK]  # a view: filled in place
        np.take(_TABLE[_DEGREE], j, out=piece)  # Horner's rule, from the highest power down
        for m in range(_DEGREE - 1, -1, -1):
            piece *= dx
            piece += np.take(_TABLE[m], j)
    return out.reshape(x.shape)


def normal_pdf(x) -> np.ndarray:
    """φ(x) = exp(-x²/2) / sqrt(2π), the slope of :func:`normal_cdf`.

    Parameters
    ----------
    x : array_like
        Real numbers.

    Returns
    -------
    numpy.ndarray
        φ(x), float64, same shape.

    Raises
    ------
    TypeError
        If ``x`` is not real numeric.
    ValueError
        If ``x`` contains NaN or inf.

    Examples
    --------
    >>> normal_pdf([0.0, 1.0]).round(4)
    array([0.3989, 0.242 ])
    """
    x = as_float_array(x, "x").astype(np.float64, copy=False)
    return np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
