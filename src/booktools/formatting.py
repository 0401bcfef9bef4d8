"""One number format for the whole book: tables, prose and labs agree.

The labs' JavaScript (``_static/sa/format.js``) mirrors :func:`fmt` and
:func:`format_count`, so a number reads the same in a table, in the prose
and in a lab.
"""

from __future__ import annotations

import math

#: Decimals shown for each kind of quantity, shared by tables and labs.
DECIMALS = {"x": 2, "scores": 2, "weights": 3, "output": 2}


def fmt(value: float, decimals: int) -> str:
    """Format a number with a fixed count of decimals, never showing ``-0``.

    The labs' JavaScript uses the same rule (``toFixed`` and the same
    negative-zero fix), so a number reads the same in a table and a lab.

    Parameters
    ----------
    value : float
        The number.
    decimals : int
        Digits after the point (0 or more).

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If ``decimals`` is negative or ``value`` is not finite.

    Examples
    --------
    >>> fmt(0.76805, 3)
    '0.768'
    >>> fmt(-0.0001, 2)
    '0.00'
    >>> fmt(2, 0)
    '2'
    """
    if decimals < 0:
        raise ValueError(f"decimals must be >= 0, got {decimals}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"cannot format {value}: not finite")
    text = f"{value:.{decimals}f}"
    if float(text) == 0:
        text = text.lstrip("-")
    return text


def format_count(count: int) -> str:
    """A whole number with commas between thousands, as in the book's prose.

    Parameters
    ----------
    count : int
        A non-negative whole number.

    Returns
    -------
    str

    Raises
    ------
    TypeError
        If ``count`` is not an integer.
    ValueError
        If ``count`` is negative.

    Examples
    --------
    >>> format_count(4096), format_count(16_384_000_000), format_count(16)
    ('4,096', '16,384,000,000', '16')
    """
    if isinstance(count, bool) or not isinstance(count, int):
        raise TypeError(f"count must be an int, got {count!r}")
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count}")
    return f"{count:,}"
