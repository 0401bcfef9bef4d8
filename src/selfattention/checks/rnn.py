"""Checker of the reader's recurrent loop (book/why-not-left-to-right.md)."""

from __future__ import annotations

import numpy as np

from ..rnn import _check_w, _check_x, rnn_states
from ._compare import Diagnoses, Feedback, compare, tolerance, wrong_value

RNN_STATES = Diagnoses("check_rnn_states", "Right: one summary per word, and every value matches.", {
    "only-last": "Keep the summary after every word, not only the last.",
    "no-tanh": "These are the sums before tanh: apply np.tanh at every step.",
    "not-carried": "Each summary ignores the one before it: add w * h to the word before tanh.",
    "w-on-word": "You multiplied the word by w: w scales the summary carried over, h = np.tanh(w * h + x_t).",
    "tanh-inside": "tanh squashes only the summary carried over: apply it to the whole sum, "
                   "h = np.tanh(w * h + x_t).",
    "later-wrong": "The first summary is right, but row {t} is wrong{where}: {got} where {expected} was "
                   "expected. Carry h from one word to the next (h = np.tanh(w * h + x_t)).",
    "first-wrong": "The first summary, row 0, is wrong{where}: {got} where {expected} was expected. Start from "
                   "h = 0, so h after the first word is np.tanh(x[0]).",
}, generic=("not-numbers", "shape", "not-finite", "float32-inside", "rounded"))


def _loop(x: np.ndarray, step) -> np.ndarray:
    """The summaries of a loop whose update is ``h = step(h, x_t)``, from ``h = 0``: (T, ...)."""
    out = np.empty(x.shape)
    h = np.zeros(x.shape[1:])
    for t in range(x.shape[0]):
        h = step(h, x[t])
        out[t] = h
    return out


def _row(got: np.ndarray, expected: np.ndarray, t: int, eps: float) -> dict:
    """The fields of a message about summary ``t``: its worst value, and its column if it has several."""
    values = wrong_value(got[t], expected[t], eps)
    values["where"] = values["where"].replace("position", "column")
    return {"t": t, **values}


def check_rnn_states(states, x, w: float) -> Feedback:
    """Check the reader's loop: the summary after each word, for the words ``x`` and weight ``w``.

    Parameters
    ----------
    states : array_like
        What the reader computed: one summary per word.
    x : array_like, shape (T,) or (T, d)
        The words (T, the number of time steps, is the L of other chapters).
    w : float
        The weight.

    Returns
    -------
    Feedback
        ``ok`` is True if ``states`` equals :func:`~selfattention.rnn_states`;
        otherwise the message says what looks wrong (a missing ``tanh``, only
        the last summary, a summary that is not carried over, ``w`` on the
        word instead of on ``h``, ``tanh`` of ``h`` alone, rounded numbers, or
        the first row that is wrong). A value counts as right within 100 eps
        (abs(expected) + the largest abs(expected)), eps being the machine
        epsilon of the answer: float32's for float32 arrays (as torch's
        .numpy() gives), float64's otherwise; a float16 answer is judged with
        float16's rounding (10 of its eps), and an expected inf only by the
        same inf.

    Raises
    ------
    TypeError, ValueError
        If ``x`` or ``w`` is invalid (a wrong ``states`` is not an error).

    Examples
    --------
    >>> import numpy as np
    >>> from selfattention import rnn_states
    >>> x = [1.0, 0.0, 0.0]
    >>> print(check_rnn_states(rnn_states(x, 0.5), x, 0.5))
    ✓ Right: one summary per word, and every value matches.
    >>> print(check_rnn_states(rnn_states(x, 0.5).astype(np.float32), x, 0.5))
    ✓ Right: one summary per word, and every value matches.
    >>> print(check_rnn_states(rnn_states(x, 0.5)[-1], x, 0.5))  # doctest: +NORMALIZE_WHITESPACE
    ✗ states has shape () but should be (3,): one summary per word.
    Keep the summary after every word, not only the last.
    """
    x = _check_x(x).astype(np.float64)
    w = _check_w(w)
    expected = rnn_states(x, w)

    def later(got, eps):
        off = np.abs(got - expected) > tolerance(expected, eps)          # the whole array's tolerance
        t = int(np.argmax(off.reshape(len(got), -1).any(axis=1)))       # the first row outside it
        return RNN_STATES.wrong("first-wrong" if t == 0 else "later-wrong", **_row(got, expected, t, eps))

    return compare(states, expected, RNN_STATES, name="states", layout="one summary per word.",
                   slips=[(_loop(x, lambda h, x_t: w * h + x_t), "no-tanh", {}),
                          (np.tanh(x), "not-carried", {}),
                          (_loop(x, lambda h, x_t: np.tanh(h + w * x_t)), "w-on-word", {}),
                          (_loop(x, lambda h, x_t: w * np.tanh(h) + x_t), "tanh-inside", {})],
                   shape_tips={expected.shape[1:]: "only-last"}, fallback=later)
