"""Checkers for the book's code exercises: they say what is right or wrong."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import as_float_array
from .attention import attention_scores
from .examples import three_words


@dataclass(frozen=True)
class Feedback:
    """The verdict of a checker: ``ok`` and a message written for the reader.

    Examples
    --------
    >>> verdict = Feedback(False, "scores has shape (2, 2) but should be (3, 3).")
    >>> bool(verdict), str(verdict)
    (False, '✗ scores has shape (2, 2) but should be (3, 3).')
    """

    ok: bool
    message: str

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        return ("✓ " if self.ok else "✗ ") + self.message

    def _repr_markdown_(self) -> str:
        return str(self)


def check_scores(scores, x=None) -> Feedback:
    """Check the reader's line ``scores = ...`` for the words ``x``.

    The right answer is ``x @ x.T / sqrt(d_k)``: one row and one column per
    word, scaled by the square root of the number of numbers per word.

    Parameters
    ----------
    scores : array_like
        What the reader computed.
    x : array_like, shape (n, d_k), optional
        The words; defaults to the running example (cat, dog, car).

    Returns
    -------
    Feedback
        ``ok`` is True if ``scores`` is right to 1e-9; the message says what
        is wrong otherwise (shape, a missing scale, a transposed product...).

    Raises
    ------
    TypeError, ValueError
        If ``x`` is not a 2-D array of finite real numbers (a wrong
        ``scores`` is not an error: the feedback says what is wrong).

    Examples
    --------
    >>> import numpy as np
    >>> X = three_words()
    >>> print(check_scores(X @ X.T / np.sqrt(2)))
    ✓ Right: scores has shape (3, 3) and every value matches.
    >>> print(check_scores(X @ X.T))
    ✗ The values are too large by a factor of 1.41: did you forget to divide by sqrt(d_k) = sqrt(2)?
    >>> print(check_scores(X.T @ X / np.sqrt(2)))  # doctest: +NORMALIZE_WHITESPACE
    ✗ scores has shape (2, 2) but should be (3, 3): one row and one column per word.
    Did you write X.T @ X instead of X @ X.T?
    """
    x = three_words() if x is None else as_float_array(x, "x")
    if x.ndim != 2:
        raise ValueError(f"x must have shape (n, d_k), got {x.shape}")
    n, d_k = x.shape
    expected = attention_scores(x, x)  # (n, n)
    try:
        got = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        return Feedback(False, f"scores should be a NumPy array of numbers, got {type(scores).__name__}.")
    if got.shape != expected.shape:
        tip = ""
        if got.shape == (d_k, d_k):
            tip = " Did you write X.T @ X instead of X @ X.T?"
        elif got.shape == x.shape:
            tip = " Did you write X * X (element by element) instead of X @ X.T?"
        return Feedback(False, f"scores has shape {got.shape} but should be {expected.shape}: "
                               f"one row and one column per word.{tip}")
    if not np.all(np.isfinite(got)):
        return Feedback(False, "scores contains NaN or inf.")
    if np.allclose(got, expected, rtol=0, atol=1e-9):
        return Feedback(True, f"Right: scores has shape {got.shape} and every value matches.")
    ratio = np.sqrt(d_k)
    if np.allclose(got, expected * ratio, atol=1e-9):
        return Feedback(False, f"The values are too large by a factor of {ratio:.2f}: "
                               f"did you forget to divide by sqrt(d_k) = sqrt({d_k})?")
    if np.allclose(got, expected / d_k * ratio, atol=1e-9):
        return Feedback(False, f"You divided by d_k = {d_k}; divide by its square root instead.")
    i, j = np.unravel_index(np.argmax(np.abs(got - expected)), got.shape)
    return Feedback(False, f"Wrong value at row {i}, column {j}: {got[i, j]:.4g} "
                           f"where {expected[i, j]:.4g} was expected.")


def check_blend(output, word: int = 2, x=None) -> Feedback:
    """Check the reader's three moves (look, score, blend) for one word of ``x``.

    The right answer is the word's output: the scores of ``x[word]`` with
    every word, ``x @ x[word] / sqrt(d_k)``, turned into shares by softmax,
    then the blend ``shares @ x``.

    Parameters
    ----------
    output : array_like
        What the reader computed: one vector of ``d_k`` numbers.
    word : int, default 2
        The row of ``x`` that looks (2 is car in the running example).
    x : array_like, shape (n, d_k), optional
        The words; defaults to the running example (cat, dog, car).

    Returns
    -------
    Feedback
        ``ok`` is True if ``output`` is right to 1e-9; the message names the
        likely mistake otherwise (the shares instead of the blend, a plain
        average, the scores used as shares, no scaling, another word).

    Raises
    ------
    TypeError, ValueError
        If ``x`` is not a 2-D array of finite real numbers or ``word`` is
        not one of its rows (a wrong ``output`` is not an error).

    Examples
    --------
    >>> import numpy as np
    >>> from selfattention import softmax
    >>> X = three_words()
    >>> car = X[2]
    >>> shares = softmax(X @ car / np.sqrt(2))
    >>> print(check_blend(shares @ X))
    ✓ Right: car's blend matches, to 1e-9.
    >>> print(check_blend(X.mean(axis=0)))  # doctest: +NORMALIZE_WHITESPACE
    ✗ That is the plain average of the words: every word got the same share.
    Use the shares softmax gives to car's scores.
    """
    from .softmax import softmax

    names = dict(enumerate(("cat", "dog", "car"))) if x is None else {}
    x = three_words() if x is None else as_float_array(x, "x")
    if x.ndim != 2:
        raise ValueError(f"x must have shape (n, d_k), got {x.shape}")
    n, d_k = x.shape
    if isinstance(word, bool) or not isinstance(word, (int, np.integer)) or not 0 <= word < n:
        raise ValueError(f"word must be a row of x, from 0 to {n - 1}, got {word!r}")
    name = names.get(int(word), f"word {word}")
    scores = attention_scores(x[word:word + 1], x)[0]          # (n,)
    shares = softmax(scores)                                  # (n,)
    expected = shares @ x                                     # (d_k,)
    try:
        got = np.asarray(output, dtype=float)
    except (TypeError, ValueError):
        return Feedback(False, f"output should be a NumPy array of numbers, got {type(output).__name__}.")
    if got.shape == (n,) and n != d_k and np.allclose(got, shares, atol=1e-9):
        return Feedback(False, f"Those are {name}'s shares, one per word. Blend the words with them: "
                               "shares @ X.")
    if got.shape != expected.shape:
        return Feedback(False, f"output has shape {got.shape} but should be {expected.shape}: "
                               f"one vector of {d_k} numbers, like a word.")
    if not np.all(np.isfinite(got)):
        return Feedback(False, "output contains NaN or inf.")
    if np.allclose(got, expected, rtol=0, atol=1e-9):
        return Feedback(True, f"Right: {name}'s blend matches, to 1e-9.")
    if np.allclose(got, x.mean(axis=0), atol=1e-9):
        return Feedback(False, "That is the plain average of the words: every word got the same share. "
                               f"Use the shares softmax gives to {name}'s scores.")
    if np.allclose(got, x[word], atol=1e-9):
        return Feedback(False, f"That is {name} itself: the blend mixes in every word, by its share.")
    if np.allclose(got, scores @ x, atol=1e-9):
        return Feedback(False, "You blended with the scores. Turn them into shares with softmax first, "
                               "so that they are positive and add up to 1.")
    if np.allclose(got, softmax(scores * np.sqrt(d_k)) @ x, atol=1e-9):
        return Feedback(False, f"The blend is too sharp: did you forget to divide the scores by "
                               f"sqrt(d_k) = sqrt({d_k})?")
    for other in range(n):
        if other != word and np.allclose(got, softmax(attention_scores(x[other:other + 1], x)[0]) @ x,
                                         atol=1e-9):
            return Feedback(False, f"That is {names.get(other, f'word {other}')}'s blend: "
                                   f"score with {name}'s vector, row {word} of X.")
    return Feedback(False, f"Not yet: got [{', '.join(f'{v:.4g}' for v in got)}] where "
                           f"[{', '.join(f'{v:.4g}' for v in expected)}] was expected.")


def check_head_scores(scores, x=None, w_q=None, w_k=None) -> Feedback:
    """Check the reader's line ``scores = ...`` of one head: queries against keys.

    The right answer is ``Q @ K.T / sqrt(d_k)`` with ``Q = x @ w_q`` and
    ``K = x @ w_k``: row ``a``, column ``b`` is ``a``'s query · ``b``'s key.

    Parameters
    ----------
    scores : array_like
        What the reader computed.
    x : array_like, shape (n, d_model), optional
        The words; defaults to the running example (cat, dog, car).
    w_q, w_k : array_like, shape (d_model, d_k), optional
        Query and key matrices; default to ``W_Q = I`` and the "one-way
        keys" ``W_K = [[0, 0], [1, 0]]`` of the chapter.

    Returns
    -------
    Feedback
        ``ok`` is True if ``scores`` is right to 1e-9; otherwise the
        message names the likely slip: the shape, keys against queries
        (``K @ Q.T``), a query or key used twice, the raw words instead of
        the projections, or a missing scale.

    Raises
    ------
    TypeError, ValueError
        If ``x``, ``w_q`` or ``w_k`` is malformed (as in
        :func:`~selfattention.project_qkv`); a wrong ``scores`` is not
        an error.

    Examples
    --------
    >>> import numpy as np
    >>> X = three_words()
    >>> Q, K = X @ np.eye(2), X @ np.array([[0.0, 0.0], [1.0, 0.0]])
    >>> print(check_head_scores(Q @ K.T / np.sqrt(2)))
    ✓ Right: scores has shape (3, 3) and every value matches.
    >>> print(check_head_scores(K @ Q.T / np.sqrt(2)))
    ✗ Rows and columns are swapped: you wrote K @ Q.T. Row a must hold a's query against every key: Q @ K.T.
    """
    from .head import project_qkv

    x = three_words() if x is None else as_float_array(x, "x")
    if x.ndim != 2:
        raise ValueError(f"x must have shape (n, d_model), got {x.shape}")
    d_model = x.shape[1]
    w_q = np.eye(d_model) if w_q is None else w_q
    w_k = [[0.0, 0.0], [1.0, 0.0]] if w_k is None else w_k  # "one-way keys": key = [y, 0]
    q, k, _ = project_qkv(x, w_q, w_k, w_q)  # (n, d_k) each
    d_k = q.shape[1]
    expected = q @ k.T / np.sqrt(d_k)  # (n, n)
    try:
        got = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        return Feedback(False, f"scores should be a NumPy array of numbers, got {type(scores).__name__}.")
    if got.shape != expected.shape:
        tip = " Did you write Q.T @ K instead of Q @ K.T?" if got.shape == (d_k, d_k) else ""
        return Feedback(False, f"scores has shape {got.shape} but should be {expected.shape}: "
                               f"one row per query, one column per key.{tip}")
    if not np.all(np.isfinite(got)):
        return Feedback(False, "scores contains NaN or inf.")

    def same(a):
        return np.allclose(got, a, rtol=0, atol=1e-9)

    if same(expected):
        return Feedback(True, f"Right: scores has shape {got.shape} and every value matches.")
    root = np.sqrt(d_k)
    slips = [
        (expected * root, f"The values are too large by a factor of {root:.2f}: "
                          f"did you forget to divide by sqrt(d_k) = sqrt({d_k})?"),
        (expected.T, "Rows and columns are swapped: you wrote K @ Q.T. Row a must hold a's query "
                     "against every key: Q @ K.T."),
        (q @ q.T / root, "You compared queries with queries (Q @ Q.T): a score is a query against a key."),
        (k @ k.T / root, "You compared keys with keys (K @ K.T): a score is a query against a key."),
        (x @ x.T / np.sqrt(d_model), "These are the scores of the raw words, X @ X.T: "
                                     "project them first, Q = X @ W_Q and K = X @ W_K."),
        (expected / root, f"You divided by d_k = {d_k}; divide by its square root instead."),
    ]
    for value, message in slips:
        if same(value):
            return Feedback(False, message)
    i, j = np.unravel_index(np.argmax(np.abs(got - expected)), got.shape)
    return Feedback(False, f"Wrong value at row {i}, column {j}: {got[i, j]:.4g} "
                           f"where {expected[i, j]:.4g} was expected.")
