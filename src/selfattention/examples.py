"""The book's running example: three words in two dimensions."""

from __future__ import annotations

import numpy as np

#: The three words of the running example, in order.
WORDS = ("cat", "dog", "car")


def three_words() -> np.ndarray:
    """The running example: cat = [2, 0], dog = [1, 1], car = [0, 2].

    Returns
    -------
    numpy.ndarray, shape (3, 2)
        One row per word of :data:`WORDS`, a fresh float64 array each call.

    Examples
    --------
    >>> three_words()
    array([[2., 0.],
           [1., 1.],
           [0., 2.]])
    """
    return np.array([[2.0, 0.0], [1.0, 1.0], [0.0, 2.0]])  # (3, 2)
