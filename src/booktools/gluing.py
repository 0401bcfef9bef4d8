"""Glue computed numbers into a page's prose."""

from __future__ import annotations

import numbers

import numpy as np


def plain(value):
    """Turn a NumPy scalar into the Python number that prints cleanly.

    ``glue`` formats the ``repr`` of a value, and NumPy 2 writes
    ``np.float64(0.5)``, which a format such as ``:.3f`` cannot read.

    Examples
    --------
    >>> import numpy as np
    >>> plain(np.float64(0.5)), plain(np.int64(3)), plain(True)
    (0.5, 3, True)
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    raise TypeError(f"plain: expected a real number, got {type(value).__name__}")


def glue_numbers(**values) -> None:
    """Glue each keyword as a number, hidden, for ``{glue:text}`` roles.

    Examples
    --------
    In a page cell, then ``{glue:text}`w_cat_cat:.3f``` in the prose:

    >>> import numpy as np
    >>> glue_numbers(w_cat_cat=np.float64(0.768), d_k=np.int64(2))  # displays nothing
    """
    from myst_nb import glue

    for name, value in values.items():
        glue(name, plain(value), display=False)
