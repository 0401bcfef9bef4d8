"""Checker of the reader's recurrent loop (chapter 2, "Why not read left to right?")."""

from __future__ import annotations

import numpy as np

from ..rnn import _check_w, _check_x, rnn_states
from ._compare import Diagnoses, Feedback, close, compare, wrong_value

RNN_STATES = Diagnoses("check_rnn_states", "Right: one summary per word, and every value matches.", {
    "only-last": "Keep the summary after every word, not only the last.",
    "no-tanh": "These are the sums before tanh: apply np.tanh at every step.",
    "not-carried": "Each summary ignores the one before it: add w * h to the word before tanh.",
    "later-wrong": "The first summary is right but a later one is wrong{where}: {got} where {expected} was "
                   "expected. Carry h from one word to the next (h = np.tanh(w * h + x_t)).",
    "first-wrong": "The first summary is wrong{where}: {got} where {expected} was expected. Start from h = 0, "
                   "so h after the first word is np.tanh(x[0]).",
}, generic=("not-numbers", "shape", "not-finite", "rounded"))


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
        the last summary, a summary that is not carried over, rounded
        numbers...). A value counts as right within 100 eps (abs(expected) +
        the largest abs(expected)), eps being the machine epsilon of the
        answer: float32's for float32 arrays (as torch's .numpy() gives),
        float64's otherwise; a float16 answer is judged with float16's rounding
        (10 of its eps), and an expected inf only by the same inf.

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
    linear = np.empty(x.shape)
    h = np.zeros(x.shape[1:])
    for t in range(x.shape[0]):
        h = w * h + x[t]
        linear[t] = h

    def later(got, eps):
        first = close(got[0], expected[0], eps)
        return RNN_STATES.wrong("later-wrong" if first else "first-wrong", **wrong_value(got, expected, eps))

    return compare(states, expected, RNN_STATES, name="states", layout="one summary per word.",
                   slips=[(linear, "no-tanh", {}), (np.tanh(x), "not-carried", {})],
                   shape_tips={expected.shape[1:]: "only-last"}, fallback=later)
