"""The weights of one attention head, recomputed from its stored scores.

The explorer lab (:mod:`booktools.labs.explorer`) and the command line
(``python -m booktools.show_attention``) both show ``softmax(scores / T)`` for
one head of one layer, or the mean of a layer's heads. This module is that
one computation.
"""

from __future__ import annotations

import numbers

import numpy as np

import selfattention as sa

#: The choice "average of the layer's heads".
MEAN = "mean"


def head_weights(scores, layer: int, head, *, temperature: float = 1.0) -> np.ndarray:
    """The ``(L, L)`` weights of one head, or the mean of a layer's heads.

    The weights are ``softmax(scores / temperature)``, computed in float64.
    For ``head="mean"`` they are the mean of the layer's per-head softmaxes
    at that temperature (not the softmax of mean scores).

    Parameters
    ----------
    scores : array_like, shape (layers, heads, L, L)
        Pre-softmax scores, as ``Encoding.scores`` from
        :func:`selfattention.minilm.encode` (or stored, shifted scores: a
        row's softmax does not change when one number is subtracted from
        the whole row).
    layer : int
        Layer, from 0.
    head : int or "mean"
        Head, from 0, or ``"mean"`` for the average of the layer's heads.
    temperature : float, default 1.0, keyword-only
        The softmax temperature ``T``: 1 is the model itself.

    Returns
    -------
    numpy.ndarray of float64, shape (L, L)
        Row ``i``: what token ``i`` takes from every token; it sums to 1.

    Raises
    ------
    ValueError
        If ``scores`` is not a finite real ``(layers, heads, L, L)`` array,
        ``layer`` or ``head`` is out of range, or ``temperature`` is not a
        positive finite number.

    Examples
    --------
    >>> s = np.array([[[[0.0, -np.log(3)], [0.0, 0.0]],
    ...                [[0.0, 0.0], [0.0, 0.0]]]])           # (1, 2, 2, 2)
    >>> head_weights(s, 0, 0).round(3)
    array([[0.75, 0.25],
           [0.5 , 0.5 ]])
    >>> head_weights(s, 0, "mean").round(3)
    array([[0.625, 0.375],
           [0.5  , 0.5  ]])
    >>> head_weights(s, 0, 0, temperature=0.5).round(3)
    array([[0.9, 0.1],
           [0.5, 0.5]])
    >>> head_weights(s, 0, 2)
    Traceback (most recent call last):
    ...
    ValueError: head must be 0..1 or 'mean', got 2
    """
    s = check_stored_scores(scores, "scores")
    layers, heads = s.shape[:2]
    if isinstance(layer, bool) or not isinstance(layer, numbers.Integral) or not 0 <= layer < layers:
        raise ValueError(f"layer must be 0..{layers - 1}, got {layer!r}")
    if head != MEAN and (
        isinstance(head, bool) or not isinstance(head, numbers.Integral) or not 0 <= head < heads
    ):
        raise ValueError(f"head must be 0..{heads - 1} or {MEAN!r}, got {head!r}")
    if (
        isinstance(temperature, bool)
        or not isinstance(temperature, numbers.Real)
        or not (np.isfinite(temperature) and temperature > 0)
    ):
        raise ValueError(f"temperature must be a positive number, got {temperature!r}")
    x = s[layer].astype(np.float64) / float(temperature)  # (heads, L, L)
    w = sa.softmax(x)  # (heads, L, L), each row sums to 1
    return w.mean(axis=0) if head == MEAN else w[int(head)]  # (L, L)


def check_stored_scores(scores, name: str) -> np.ndarray:
    """``scores`` as a finite real array of shape ``(layers, heads, L, L)``.

    Parameters
    ----------
    scores : array_like
        The array to check.
    name : str
        Its name in the error message.

    Returns
    -------
    numpy.ndarray
        ``scores`` as an array, in its own dtype.

    Raises
    ------
    ValueError
        If ``scores`` is not real, not 4-D with square last axes, empty, or
        holds NaN or inf.

    Examples
    --------
    >>> check_stored_scores(np.zeros((1, 1, 2, 2)), "scores").shape
    (1, 1, 2, 2)
    >>> check_stored_scores(np.zeros((2, 2)), "stored")
    Traceback (most recent call last):
    ...
    ValueError: stored must have shape (layers, heads, L, L), got (2, 2)
    """
    s = np.asarray(scores)
    if not np.issubdtype(s.dtype, np.number) or np.issubdtype(s.dtype, np.complexfloating):
        raise ValueError(f"{name} must be real numbers, got dtype {s.dtype}")
    if s.ndim != 4 or s.shape[-1] != s.shape[-2] or 0 in s.shape:
        raise ValueError(f"{name} must have shape (layers, heads, L, L), got {s.shape}")
    if not np.isfinite(s).all():
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return s
