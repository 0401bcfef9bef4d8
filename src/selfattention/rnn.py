"""Reading left to right: the simplest recurrent network, and how fast it forgets.

A recurrent network (RNN) keeps one summary ``h`` and updates it once per
word, ``h_t = tanh(w h_{t-1} + x_t)``. Chapter "Why not read left to right?"
uses it to show two limits that attention removes:

* the summary has a fixed size, whatever the length of the sentence;
* a word's effect on the summary is multiplied by ``w`` times the slope of
  ``tanh`` (never above 1) at every later word, so it fades like ``w ** k``.

:func:`~selfattention.rnn_states` runs the network, :func:`~selfattention.fading` is the bound ``w ** k``,
:func:`~selfattention.effect_on_last` is the exact effect of each word on the last summary,
and :func:`~selfattention.check_rnn_states` (in :mod:`selfattention.checks`) checks a reader's own loop.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._validate import as_float_array


def _check_w(w) -> float:
    if isinstance(w, np.ndarray) and w.ndim == 0:
        w = w.item()
    if isinstance(w, bool) or not isinstance(w, numbers.Real):
        raise TypeError(f"w must be a real number, got {type(w).__name__}")
    if not np.isfinite(w):
        raise ValueError(f"w must be finite, got {w}")
    return float(w)


def _check_x(x) -> np.ndarray:
    x = as_float_array(x, "x")
    if x.ndim not in (1, 2) or x.shape[0] == 0:
        raise ValueError(f"x must have shape (T,) or (T, d) with at least one word, got {x.shape}")
    return x


def rnn_states(x, w: float, *, h0=None) -> np.ndarray:
    """Read the words one by one and return the summary after each: ``h_t = tanh(w h_{t-1} + x_t)``.

    Parameters
    ----------
    x : array_like, shape (T,) or (T, d)
        One row per word: a number, or ``d`` numbers.
    w : float
        The weight that carries the summary from one word to the next.
    h0 : array_like, optional, keyword-only
        The summary before the first word, shaped like one row of ``x``;
        zeros by default.

    Returns
    -------
    numpy.ndarray, shape like ``x``
        Row ``t`` is the summary after word ``t`` (counting from 0). The last
        row is all the network keeps of the sentence.

    Raises
    ------
    TypeError
        If ``x`` or ``h0`` is not numeric, or ``w`` is not a real number.
    ValueError
        If ``x`` is not (T,) or (T, d) with T >= 1, ``h0`` does not match one
        row of ``x``, or a value is NaN or infinite.

    Examples
    --------
    Three words of one number each; the summary is always one number:

    >>> rnn_states([1.0, 0.0, 0.0], 0.5).round(4)
    array([0.7616, 0.3634, 0.1797])
    """
    x = _check_x(x)
    w = _check_w(w)
    h = np.zeros(x.shape[1:]) if h0 is None else as_float_array(h0, "h0")
    if h.shape != x.shape[1:]:
        raise ValueError(f"h0 must have the shape of one word, {x.shape[1:]}, got {h.shape}")
    states = np.empty(x.shape)       # (T,) or (T, d)
    for t in range(x.shape[0]):
        h = np.tanh(w * h + x[t])    # () or (d,): the same size after every word
        states[t] = h
    return states


def fading(w: float, k) -> np.ndarray:
    """The most that a word's effect can keep after ``k`` later words: ``|w| ** k``.

    Each later word multiplies the effect by ``w`` and by the slope of
    ``tanh``, which is never above 1; without ``tanh`` the effect is exactly
    ``w ** k``.

    Parameters
    ----------
    w : float
        The weight of :func:`rnn_states`.
    k : int or array_like of int
        How many words come after the word, 0 or more.

    Returns
    -------
    numpy.ndarray
        ``|w| ** k``, float64, shaped like ``k``.

    Raises
    ------
    TypeError
        If ``w`` is not a real number or ``k`` holds non-integers.
    ValueError
        If ``k`` is negative.

    Examples
    --------
    >>> fading(0.5, [1, 2, 3, 5, 10, 50])
    array([5.0000000e-01, 2.5000000e-01, 1.2500000e-01, 3.1250000e-02,
           9.7656250e-04, 8.8817842e-16])
    """
    w = _check_w(w)
    k_arr = np.asarray(k)
    if k_arr.dtype == np.bool_ or not np.issubdtype(k_arr.dtype, np.integer):
        raise TypeError(f"k must be integers (a count of words), got dtype {k_arr.dtype}")
    if (k_arr < 0).any():
        raise ValueError(f"k must be 0 or more, got {k_arr.min()}")
    return np.abs(w) ** k_arr.astype(float)


def effect_on_last(x, w: float) -> np.ndarray:
    """How much the last summary moves per unit change of each word: ``d h_T / d x_j``.

    With ``a_t = w h_{t-1} + x_t`` and ``h_t = tanh(a_t)``, the chain rule
    gives ``d h_T / d x_j = (1 - h_j**2) * prod_{t=j+1}^{T} w (1 - h_t**2)``:
    one factor ``w`` times a slope of ``tanh`` per later word. Each slope is
    at most 1, so row ``j`` is at most ``|w| ** (T - j)`` (:func:`fading`).
    With ``d`` numbers per word the summary changes number by number, so
    each number of word ``j`` moves only the same number of ``h``.

    Parameters
    ----------
    x : array_like, shape (T,) or (T, d)
        The words, as in :func:`rnn_states` (which starts from zeros).
    w : float
        The weight.

    Returns
    -------
    numpy.ndarray, shape like ``x``
        Row ``j``: the derivative of the last summary with respect to word ``j``.

    Raises
    ------
    TypeError, ValueError
        As :func:`rnn_states`.

    Examples
    --------
    >>> effect = effect_on_last([0.1, 0.2, 0.3, 0.0], 0.5)
    >>> effect.round(4)
    array([0.094 , 0.19  , 0.4041, 0.9612])
    >>> bool((effect <= fading(0.5, [3, 2, 1, 0])).all())
    True
    """
    x = _check_x(x)
    w = _check_w(w)
    slope = 1.0 - rnn_states(x, w) ** 2          # (T, ...) slope of tanh at each word
    effect = np.empty(x.shape)
    carried = np.ones(x.shape[1:])               # () or (d,): product over the later words
    for j in range(x.shape[0] - 1, -1, -1):
        effect[j] = slope[j] * carried
        carried = carried * w * slope[j]
    return effect
