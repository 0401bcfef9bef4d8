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
        One row per word of :data:`~selfattention.WORDS`, a fresh float64 array each call.

    Examples
    --------
    >>> three_words()
    array([[2., 0.],
           [1., 1.],
           [0., 2.]])
    """
    return np.array([[2.0, 0.0], [1.0, 1.0], [0.0, 2.0]])  # (3, 2)


#: The words of the sentence traced step by step in "Queries, keys and values".
SENTENCE = ("I", "love", "cats")


def i_love_cats() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The traced sentence "I love cats": its words and one head's matrices.

    Three numbers per word, chosen by hand so that every step is small
    whole numbers until the softmax; a trained model learns its own. The
    matrices make queries and keys of two numbers (``d_k = 2``) and values
    of two numbers (``d_v = 2``).

    Returns
    -------
    x : numpy.ndarray, shape (3, 3)
        One row per word of :data:`~selfattention.SENTENCE`.
    w_q, w_k, w_v : numpy.ndarray, shape (3, 2)
        Query, key and value matrices.

    Examples
    --------
    >>> x, w_q, w_k, w_v = i_love_cats()
    >>> x
    array([[1., 0., 1.],
           [0., 2., 0.],
           [0., 0., 1.]])
    >>> x @ w_q   # the queries
    array([[1., 0.],
           [0., 2.],
           [1., 0.]])
    """
    x = np.array([[1.0, 0.0, 1.0],    # I
                  [0.0, 2.0, 0.0],    # love
                  [0.0, 0.0, 1.0]])   # cats          (3 words, d_model = 3)
    w_q = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]])   # (d_model, d_k)
    w_k = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])   # (d_model, d_k)
    w_v = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])   # (d_model, d_v)
    return x, w_q, w_k, w_v
