"""Numbers after "at most", "over", "under" and "about": rounded so the sentence stays true.

A sentence such as "the weights change by at most 1.4e-04" is false when the
change is 1.446e-04: rounding to the nearest gives a bound that is too small.
The rule of the book is:

- after "at most", "under", "below", "less than", "within", "up to": round
  **up**, so the printed number is at least the true one;
- after "over", "above", "more than", "at least": round **down**, so the
  printed number is at most the true one;
- after "about": round to the nearest.

"About" has a meaning that can fail: "about ``text``" holds when the value
rounds to the text shown, that is, when it is within half a unit of the
last digit shown. "About 6" holds for 5.58 (but not 5.4), "about 0.77" for
0.768, "about 1.4e-04" for 1.446e-04. In a whole number without a decimal
point, trailing zeros are not digits shown: "about 137,000" means within
500 of it.

:func:`bound` formats a number by that rule, and :func:`glue_bound` glues the
text for a ``{glue:text}`` role. The prose then uses the role without a format
spec, e.g. ``at most {glue:text}`shift_change```; a test of the book checks
that every number after such a word is glued this way.
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, Decimal

#: The words after which a number is a bound, and the way each rounds.
UP = ("at most", "under", "below", "less than", "fewer than", "within", "up to", "no more than")
DOWN = ("over", "above", "more than", "at least")
NEAREST = ("about",)
_ROUNDING = {**{w: ROUND_CEILING for w in UP}, **{w: ROUND_FLOOR for w in DOWN},
             **{w: ROUND_HALF_EVEN for w in NEAREST}}


def bound(value: float, word: str, *, decimals: int | None = None, digits: int | None = None,
          grouping: bool = False) -> str:
    """Format ``value`` for the prose after ``word``, rounded so the sentence is true.

    Give exactly one of ``decimals`` (fixed point) or ``digits`` (scientific
    notation with that many significant digits, like ``:.1e`` for 2 digits).

    Parameters
    ----------
    value : float
        The number, as computed.
    word : str
        The words before it: one of :data:`UP`, :data:`DOWN` or :data:`NEAREST`.
    decimals : int, optional
        Digits after the point, fixed notation (0 or more).
    digits : int, optional
        Significant digits, scientific notation (1 or more).
    grouping : bool, default False
        Separate thousands with commas (fixed notation only).

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If ``word`` is unknown, ``value`` is not finite, or the format
        arguments are missing, both given or out of range.

    Examples
    --------
    >>> bound(1.446e-4, "at most", digits=2)
    '1.5e-04'
    >>> bound(1.446e-4, "about", digits=2)
    '1.4e-04'
    >>> bound(16.384, "over", decimals=1), bound(16.384, "about", decimals=1)
    ('16.3', '16.4')
    >>> bound(136755, "under", decimals=-3, grouping=True)
    '137,000'
    >>> bound(0.0, "at most", digits=2)
    '0'
    """
    if word not in _ROUNDING:
        raise ValueError(f"unknown bound word {word!r}; use one of {sorted(_ROUNDING)}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"cannot bound {value}: not finite")
    if (decimals is None) == (digits is None):
        raise ValueError("give exactly one of decimals= or digits=")
    rounding = _ROUNDING[word]
    exact = Decimal(repr(value))   # the shortest decimal that reads back as this float
    if digits is not None:
        if digits < 1:
            raise ValueError(f"digits must be >= 1, got {digits}")
        if grouping:
            raise ValueError("grouping applies to fixed notation only")
        if value == 0:
            return "0"
        exponent = math.floor(math.log10(abs(value)))
        mantissa = (exact.scaleb(-exponent)).quantize(Decimal(1).scaleb(1 - digits), rounding=rounding)
        if abs(mantissa) >= 10:          # 9.96 rounded up to 10.0: renormalise
            exponent += 1
            mantissa = (exact.scaleb(-exponent)).quantize(Decimal(1).scaleb(1 - digits), rounding=rounding)
        return f"{mantissa:.{digits - 1}f}e{exponent:+03d}"
    step = Decimal(1).scaleb(-decimals)
    rounded = exact.quantize(step, rounding=rounding) if decimals >= 0 else \
        (exact / step).quantize(Decimal(1), rounding=rounding) * step
    shown = max(decimals, 0)
    text = f"{rounded:,.{shown}f}" if grouping else f"{rounded:.{shown}f}"
    return text.lstrip("-") if float(rounded) == 0 else text


def unit_of(text: str) -> Decimal:
    """The unit of the last digit shown in ``text``: ``"0.77"`` -> 0.01, ``"6"`` -> 1, ``"1.4e-04"`` -> 1e-05.

    In a whole number written without a decimal point or an exponent,
    trailing zeros are not digits shown: ``"137,000"`` -> 1000 (and
    ``"0"`` -> 1).

    Examples
    --------
    >>> [float(unit_of(t)) for t in ("0.77", "6", "1.4e-04", "137,000", "0", "2.50")]
    [0.01, 1.0, 1e-05, 1000.0, 1.0, 0.01]
    """
    plain = text.replace(",", "").strip()
    number = Decimal(plain)
    exponent = number.as_tuple().exponent
    if not any(c in plain for c in ".eE"):
        digits = plain.lstrip("+-")
        exponent = len(digits) - len(digits.rstrip("0")) if digits.strip("0") else 0
    return Decimal(1).scaleb(exponent)


def holds(text: str, value: float, word: str) -> bool:
    """Whether the sentence "``value`` is ``word`` ``text``" is true.

    After "at most" and the other words of :data:`UP`, ``value`` must not
    exceed the number shown; after :data:`DOWN`, not be below it. After
    "about", ``value`` must round to the text: be within half a unit of
    its last digit shown (see :func:`unit_of`).

    Examples
    --------
    >>> holds("1.4e-04", 1.446e-4, "at most"), holds("1.5e-04", 1.446e-4, "at most")
    (False, True)
    >>> holds("16.4", 16.384, "over")
    False
    >>> holds("6", 5.58, "about"), holds("0.77", 0.768, "about"), holds("999", 1.0, "about")
    (True, True, False)
    """
    shown = float(text.replace(",", ""))
    if word in UP:
        return value <= shown
    if word in DOWN:
        return value >= shown
    if word in NEAREST:
        half = float(unit_of(text)) / 2
        return abs(value - shown) <= half * (1 + 1e-9) + 1e-15 * abs(shown)
    raise ValueError(f"unknown bound word {word!r}")


def glue_bound(name: str, value: float, word: str, **fmt) -> None:
    """Glue ``bound(value, word, **fmt)`` as text under ``name``.

    Use it in a page cell, then write ``{word} {glue:text}`name``` in the
    prose, with no format spec: the text is already rounded the safe way.

    Examples
    --------
    >>> glue_bound("shift_change", 1.446e-4, "at most", digits=2)   # displays nothing
    """
    from myst_nb import glue

    text = bound(value, word, **fmt)
    assert holds(text, value, word), (name, value, word, text)
    glue(name, text, display=False)
