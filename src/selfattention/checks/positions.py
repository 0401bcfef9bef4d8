"""Checker of RoPE for one vector (book/where-each-word-stands.md)."""

from __future__ import annotations

import numbers

import numpy as np

from .._validate import as_float_array
from ..positions import BASE, _check_even, rope, rope_rotate_half
from ._compare import Diagnoses, Feedback, compare

#: The exercise's vector and its position.
ROPE_X = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
ROPE_POSITION = 3

ROPE_ONE = Diagnoses(
    "check_rope", "Right: every pair (2i, 2i + 1) of the {d} numbers is turned by {m} theta_i, and every "
                  "value matches.", {
        "rotate-half": "That is the \"rotate half\" layout (GPT-NeoX, Llama in transformers): you paired number i "
                       "with number i + d/2. The paper, and this package, pair numbers 2i and 2i + 1.",
        "mixed-angles": "You paired 2i with 2i + 1, as the paper does, but laid out the angles for \"rotate "
                        "half\", theta_0 ... theta_(d/2 - 1) twice over (np.tile, torch.cat((freqs, freqs))), so "
                        "the two numbers of a pair turn by different angles. Interleaved pairs need each angle "
                        "twice in a row: np.repeat(m * theta, 2).",
        "mixed-pairs": "You paired number i with number i + d/2 (\"rotate half\") but laid out the angles for "
                       "interleaved pairs, each twice in a row (np.repeat), so the two numbers of a pair turn by "
                       "different angles. The paper, and this package, pair 2i with 2i + 1, both turned by "
                       "m theta_i.",
        "no-pairing": "Each number was only scaled by cos(m theta_i): a rotation mixes each number with its "
                      "partner, y[2i] = x[2i] cos - x[2i + 1] sin and y[2i + 1] = x[2i] sin + x[2i + 1] cos.",
        "base": "The frequencies come from the wrong base ({base:g}): theta_i = 10000 ** (-2i / d).",
        "no-2": "The frequencies use the exponent -i / d (the same as base 100): with pairs it is -2i / d, "
                "i counting the pairs, and the base is 10000.",
        "position+1": "You turned by (m + 1) theta_i: the word at position {m} turns by {m} theta_i, and the "
                      "first word, at position 0, does not turn at all.",
        "backwards": "You turned the other way, by -m theta_i: check the signs of the sines.",
        "one-row": "Return one vector of {d} numbers: take row 0 of your result (it came out as one row).",
    })


def check_rope(answer, x=None, position=None) -> Feedback:
    """Check the reader's RoPE of one vector ``x`` at ``position``.

    The right answer is ``rope(x, [position])[0]``: pair ``i``, the numbers
    ``(2i, 2i + 1)``, turned by ``position * theta_i`` with
    ``theta_i = 10000 ** (-2i / d)``.

    Parameters
    ----------
    answer : array_like
        What the reader computed.
    x : array_like, shape (d,), optional
        The vector, ``d`` even; defaults to ``[1, 2, 3, 4, 5, 6]``.
    position : int, optional
        Its position, 0 or more; defaults to 3.

    Returns
    -------
    Feedback
        ``ok`` is True if ``answer`` is right; otherwise the message names the
        likely slip: the "rotate half" layout, the two layouts mixed (the
        pairs of one with the angles of the other), no pairing (each number only
        scaled), the wrong base or exponent, a turn by ``position + 1`` or
        backwards, rounded numbers, or the shape. A value counts as right within
        100 eps (abs(expected) + the largest abs(expected)), eps being the
        machine epsilon of the answer: float32's for float32 arrays (as torch's
        .numpy() gives), float64's otherwise; a float16 answer is judged with
        float16's rounding (10 of its eps), and an expected inf only by the same
        inf.

    Raises
    ------
    TypeError, ValueError
        If ``x`` is not one finite vector of an even number of numbers, or
        ``position`` is not a whole number 0 or more; a wrong ``answer`` is
        not an error.

    Examples
    --------
    >>> import numpy as np
    >>> from selfattention import rope, rope_rotate_half
    >>> x = np.arange(1.0, 7.0)
    >>> print(check_rope(rope(x, [3])[0]))
    ✓ Right: every pair (2i, 2i + 1) of the 6 numbers is turned by 3 theta_i, and every value matches.
    >>> print(check_rope(rope(x, [4])[0]))  # doctest: +NORMALIZE_WHITESPACE
    ✗ You turned by (m + 1) theta_i: the word at position 3 turns by 3 theta_i, and the first word,
    at position 0, does not turn at all.
    """
    x = np.array(ROPE_X) if x is None else as_float_array(x, "x").astype(np.float64)
    if x.ndim != 1:
        raise ValueError(f"x must be one vector, shape (d,), got {x.shape}")
    d = _check_even(x.shape[0], "d")
    m = ROPE_POSITION if position is None else position
    if isinstance(m, bool) or not isinstance(m, numbers.Integral) or m < 0:
        raise ValueError(f"position must be a whole number 0 or more, got {m!r}")
    m = int(m)
    expected = rope(x, [m])[0]                                          # (d,)
    pairs = np.arange(0, d, 2)
    theta = BASE ** (-pairs / d)                                        # (d/2,)
    scaled = x * np.repeat(np.cos(m * theta), 2)                        # no partner: (d,)
    no_two = x.copy()
    angle = m * BASE ** (-np.arange(d // 2) / d)
    no_two[0::2] = x[0::2] * np.cos(angle) - x[1::2] * np.sin(angle)
    no_two[1::2] = x[0::2] * np.sin(angle) + x[1::2] * np.cos(angle)
    angles_paired, angles_halves = np.repeat(m * theta, 2), np.tile(m * theta, 2)     # (d,) each
    every_two = np.stack([-x[1::2], x[0::2]], axis=-1).reshape(d)      # partner of 2i is 2i + 1: (d,)
    halves = np.concatenate([-x[d // 2:], x[:d // 2]])                  # partner of i is i + d/2: (d,)
    mixed_angles = x * np.cos(angles_halves) + every_two * np.sin(angles_halves)
    mixed_pairs = x * np.cos(angles_paired) + halves * np.sin(angles_paired)
    slips = [(rope_rotate_half(x, [m])[0] if d > 2 else None, "rotate-half", {}),
             (mixed_angles if d > 2 and m else None, "mixed-angles", {}),
             (mixed_pairs if d > 2 and m else None, "mixed-pairs", {}),
             (scaled if m else None, "no-pairing", {}),
             (no_two if m and d > 2 else None, "no-2", {}),
             (rope(x, [m + 1])[0], "position+1", {"m": m})]
    backwards = np.empty_like(x)                                        # turned by -m theta_i: (d,)
    backwards[0::2] = x[0::2] * np.cos(m * theta) + x[1::2] * np.sin(m * theta)
    backwards[1::2] = -x[0::2] * np.sin(m * theta) + x[1::2] * np.cos(m * theta)
    slips.append((backwards if m else None, "backwards", {}))
    if d > 2 and m:
        slips += [(rope(x, [m], base=b)[0], "base", {"base": b}) for b in (10.0, 1000.0, 1e5, 5e5, 1e6)]
    return compare(
        answer, expected, ROPE_ONE, name="answer", layout=f"one vector of {d} numbers, like x.",
        right={"d": d, "m": m}, slips=slips, shape_tips={(1, d): "one-row"}, tip_fields={"d": d},
    )
