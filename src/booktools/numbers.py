"""One number format for the whole book: tables, prose and labs agree."""

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
