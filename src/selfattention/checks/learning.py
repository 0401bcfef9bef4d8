"""Checker of one step of gradient descent by hand (book/learning-where-to-look.md)."""

from __future__ import annotations

import numpy as np

from ..learning import LEARNING_RATE, _learning_rate, _real, apple_sweet_gradient, apple_sweet_loss
from ._compare import Diagnoses, Feedback, compare

GRADIENT_STEP = Diagnoses("check_gradient_step", "Right: one step takes c from {c:g} to {right:.4f}.", {
    "not-numbers": "c_next should be one number, got {type}.",
    "shape": "c_next has shape {got} but should be {expected}: {layout}",
    "not-finite": "c_next should be a finite number.",
    "uphill": "That moves c up the gradient, which raises the loss: subtract learning_rate × gradient from c.",
    "gradient": "That is the gradient itself; the new c is c - learning_rate × gradient.",
    "step-alone": "That is the step alone; add it to the c you started from.",
    "no-learning-rate": "You left out the learning rate: multiply the gradient by it before subtracting.",
    "half-for-root": "Your gradient is -2 w (1 - w)^2, too small by sqrt(2): the chain rule brings in "
                     "1/sqrt(2), not 1/2, so -4 × (1/sqrt(2)) = -2 sqrt(2).",
    "no-root": "Your gradient is -4 w (1 - w)^2, too large by sqrt(2): you left out the 1/sqrt(2) of the "
               "score c / sqrt(2), which the chain rule brings in.",
    "s-unscaled": "Your weight w is sigmoid(c), without the 1/sqrt(2) of the score: sweet's score for apple is "
                  "c / sqrt(2), so w = 1 / (1 + exp(-c / sqrt(2))).",
    "s-unscaled-no-root": "You left the 1/sqrt(2) out of the score and out of the gradient. Sweet's weight on "
                          "apple is w = 1 / (1 + exp(-c / sqrt(2))), and the chain rule brings the 1/sqrt(2) "
                          "into the gradient, -2 sqrt(2) w (1 - w)^2.",
    "not-yet": "Not yet: you have c_next = {got}. From c = {c:g} the gradient is {g:.4f}; subtract "
               "learning_rate × gradient from c.",
}, generic=("float32-inside", "rounded"))


def check_gradient_step(c_next, c=1.0, learning_rate=LEARNING_RATE) -> Feedback:
    """Check the reader's ``c`` after one step of gradient descent from ``c``.

    Parameters
    ----------
    c_next : float
        What the reader computed.
    c : float, default 1.0
        Where the step starts.
    learning_rate : float, default :data:`~selfattention.learning.LEARNING_RATE`
        The learning rate of the step.

    Returns
    -------
    Feedback
        ``ok`` if ``c_next`` is right; otherwise what looks wrong: a step up
        the gradient, the gradient or the step alone, a step without the
        learning rate (told apart only when ``learning_rate`` is not 1), a
        gradient that leaves out the ``1/sqrt(2)`` of the score or takes it
        as ``1/2``, a weight ``s = sigmoid(c)`` that leaves it out of the
        score (with or without it in the gradient), or a rounded number. A value counts as right within 100 eps
        (abs(expected) + the largest abs(expected)), eps being the machine
        epsilon of the answer: float32's for float32 arrays (as torch's .numpy()
        gives), float64's otherwise; a float16 answer is judged with float16's
        rounding (10 of its eps), and an expected inf only by the same inf.

    Raises
    ------
    TypeError, ValueError
        As :func:`~selfattention.gradient_step` (a wrong ``c_next`` is not an error: the
        feedback says what is wrong).

    Examples
    --------
    >>> from selfattention import gradient_step
    >>> print(check_gradient_step(gradient_step(1.0)))
    ✓ Right: one step takes c from 1 to 1.2066.
    >>> g = apple_sweet_gradient(1.0)
    >>> print(check_gradient_step(1.0 + g))
    ✗ That moves c up the gradient, which raises the loss: subtract learning_rate × gradient from c.
    >>> print(check_gradient_step(1.0 - g, learning_rate=0.5))
    ✗ You left out the learning rate: multiply the gradient by it before subtracting.
    >>> w = apple_sweet_loss(1.0)["weight"]
    >>> print(check_gradient_step(1.0 + 4 * w * (1 - w) ** 2))  # doctest: +NORMALIZE_WHITESPACE
    ✗ Your gradient is -4 w (1 - w)^2, too large by sqrt(2): you left out the 1/sqrt(2) of the score
    c / sqrt(2), which the chain rule brings in.
    """
    c, lr = _real(c, "c"), _learning_rate(learning_rate)
    g = apple_sweet_gradient(c)
    right = c - lr * g
    s = apple_sweet_loss(c)["weight"]
    s0 = 1.0 / (1.0 + np.exp(-c))                                           # sigmoid(c): the score left unscaled

    def not_yet(got, eps):
        return GRADIENT_STEP.wrong("not-yet", got=f"{float(got):.6g}", c=c, g=g)

    return compare(
        c_next, np.float64(right), GRADIENT_STEP, name="c_next", layout="one number.",
        right={"c": c, "right": right},
        slips=[(c + lr * g, "uphill", {}),
               (g, "gradient", {}),
               (-lr * g, "step-alone", {}),
               (c - g, "no-learning-rate", {}),
               (c + lr * 2.0 * s * (1.0 - s) ** 2, "half-for-root", {}),   # -4 × 1/2: 1/2 for 1/sqrt(2)
               (c + lr * 4.0 * s * (1.0 - s) ** 2, "no-root", {}),         # -4: no 1/sqrt(2) at all
               (c + lr * 2.0 * np.sqrt(2.0) * s0 * (1.0 - s0) ** 2, "s-unscaled", {}),
               (c + lr * 4.0 * s0 * (1.0 - s0) ** 2, "s-unscaled-no-root", {})],
        fallback=not_yet,
    )
