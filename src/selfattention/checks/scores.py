"""Checkers of a table of scores: words against words (book/weighted-average.md), queries against keys
(book/queries-keys-values.md)."""

from __future__ import annotations

import numpy as np

from .._validate import as_float_array
from ..attention import attention_scores
from ..examples import three_words
from ..head import project_qkv
from ._compare import Diagnoses, Feedback, compare

SCORES = Diagnoses("check_scores", "Right: scores has shape {shape} and every value matches.", {
    "no-scale": "The values are too large by a factor of {ratio:.2f}: did you forget to divide by "
                "sqrt(d_k) = sqrt({d_k})?",
    "by-d_k": "You divided by d_k = {d_k}; divide by its square root instead.",
    "X.T@X": "Did you write X.T @ X instead of X @ X.T?",
    "X*X": "Did you write X * X (element by element) instead of X @ X.T?",
})

HEAD_SCORES = Diagnoses("check_head_scores", "Right: scores has shape {shape} and every value matches.", {
    "no-scale": "The values are too large by a factor of {ratio:.2f}: did you forget to divide by "
                "sqrt(d_k) = sqrt({d_k})?",
    "K@Q.T": "Rows and columns are swapped: you wrote K @ Q.T. Row a must hold a's query against every key: "
             "Q @ K.T.",
    "Q@Q.T": "You compared queries with queries (Q @ Q.T): a score is a query against a key.",
    "Q@Q.T=X@X.T": "You compared queries with queries (Q @ Q.T), or the raw words (X @ X.T), which are the same "
                   "here since W_Q = I: a score is a query against a key, Q @ K.T with K = X @ W_K.",
    "K@K.T": "You compared keys with keys (K @ K.T): a score is a query against a key.",
    "raw-words": "These are the scores of the raw words, X @ X.T: project them first, Q = X @ W_Q and "
                 "K = X @ W_K.",
    "by-d_k": "You divided by d_k = {d_k}; divide by its square root instead.",
    "by-sqrt-d_model": "You divided by sqrt({d_model}), the square root of d_model, the length of a word. "
                       "Divide by sqrt(d_k) = sqrt({d_k}), the length of a query and a key: d_k = Q.shape[-1].",
    "Q.T@K": "Did you write Q.T @ K instead of Q @ K.T?",
})


def check_scores(scores, x=None) -> Feedback:
    """Check the reader's line ``scores = ...`` for the words ``x``.

    The right answer is ``x @ x.T / sqrt(d_k)``: one row and one column per
    word, scaled by the square root of the number of numbers per word.

    Parameters
    ----------
    scores : array_like
        What the reader computed.
    x : array_like, shape (L, d_k), optional
        The words; defaults to the running example (cat, dog, car).

    Returns
    -------
    Feedback
        ``ok`` is True if ``scores`` is right; the message says what is wrong
        otherwise (shape, a missing scale, a transposed product, rounded
        numbers...). A value counts as right within 100 eps (abs(expected) + the
        largest abs(expected)), eps being the machine epsilon of the answer:
        float32's for float32 arrays (as torch's .numpy() gives), float64's
        otherwise; a float16 answer is judged with float16's rounding (10 of its
        eps), and an expected inf only by the same inf.

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
    >>> print(check_scores((X @ X.T / np.sqrt(2)).astype(np.float32)))
    ✓ Right: scores has shape (3, 3) and every value matches.
    >>> print(check_scores(X @ X.T))
    ✗ The values are too large by a factor of 1.41: did you forget to divide by sqrt(d_k) = sqrt(2)?
    >>> print(check_scores(X.T @ X / np.sqrt(2)))  # doctest: +NORMALIZE_WHITESPACE
    ✗ scores has shape (2, 2) but should be (3, 3): one row and one column per word.
    Did you write X.T @ X instead of X @ X.T?
    """
    x = three_words() if x is None else as_float_array(x, "x")
    if x.ndim != 2:
        raise ValueError(f"x must have shape (L, d_k), got {x.shape}")
    x = x.astype(np.float64)
    d_k = x.shape[1]
    expected = attention_scores(x, x)  # (L, L)
    ratio = np.sqrt(d_k)
    return compare(
        scores, expected, SCORES, name="scores", layout="one row and one column per word.",
        right={"shape": expected.shape},
        slips=[(expected * ratio, "no-scale", {"ratio": ratio, "d_k": d_k}),
               (expected / ratio, "by-d_k", {"d_k": d_k})],
        shape_tips={x.shape: "X*X", (d_k, d_k): "X.T@X"},
    )


def check_head_scores(scores, x=None, w_q=None, w_k=None) -> Feedback:
    """Check the reader's line ``scores = ...`` of one head: queries against keys.

    The right answer is ``Q @ K.T / sqrt(d_k)`` with ``Q = x @ w_q`` and
    ``K = x @ w_k``: row ``a``, column ``b`` is ``a``'s query · ``b``'s key.

    Parameters
    ----------
    scores : array_like
        What the reader computed.
    x : array_like, shape (L, d_model), optional
        The words; defaults to the running example (cat, dog, car).
    w_q, w_k : array_like, shape (d_model, d_k), optional
        Query and key matrices; default to ``W_Q = I`` and the "one-way
        keys" ``W_K = [[0, 0], [1, 0]]`` of the chapter.

    Returns
    -------
    Feedback
        ``ok`` is True if ``scores`` is right; otherwise the message names
        the likely slip: the shape, keys against queries (``K @ Q.T``), a
        query or key used twice, the raw words instead of the projections
        (told apart from queries used twice only when ``w_q`` is not the
        identity), a missing scale, a division by ``d_k`` or, when ``w_q``
        changes the width, by ``sqrt(d_model)``, or rounded numbers. A value counts as right
        within 100 eps (abs(expected) + the largest abs(expected)), eps being the
        machine epsilon of the answer: float32's for float32 arrays (as torch's
        .numpy() gives), float64's otherwise; a float16 answer is judged with
        float16's rounding (10 of its eps), and an expected inf only by the same inf.

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
    >>> print(check_head_scores(X @ X.T / np.sqrt(2)))  # doctest: +NORMALIZE_WHITESPACE
    ✗ You compared queries with queries (Q @ Q.T), or the raw words (X @ X.T), which are the same here
    since W_Q = I: a score is a query against a key, Q @ K.T with K = X @ W_K.
    """
    x = three_words() if x is None else as_float_array(x, "x")
    if x.ndim != 2:
        raise ValueError(f"x must have shape (L, d_model), got {x.shape}")
    d_model = x.shape[1]
    w_q = np.eye(d_model) if w_q is None else w_q
    w_k = [[0.0, 0.0], [1.0, 0.0]] if w_k is None else w_k  # "one-way keys": key = [y, 0]
    q, k, _ = project_qkv(x, w_q, w_k, w_q)  # (L, d_k) each
    q, k = q.astype(np.float64), k.astype(np.float64)
    d_k = q.shape[1]
    root = np.sqrt(d_k)
    expected = q @ k.T / root  # (L, L)
    queries_twice = q @ q.T / root  # (L, L)
    raw_words = x @ x.T / np.sqrt(d_model)  # (L, L)
    # With W_Q = I the queries are the words: one answer is both slips, and the message names both.
    same = queries_twice.shape == raw_words.shape and np.array_equal(queries_twice, raw_words)
    return compare(
        scores, expected, HEAD_SCORES, name="scores", layout="one row per query, one column per key.",
        right={"shape": expected.shape},
        slips=[(expected * root, "no-scale", {"ratio": root, "d_k": d_k}),
               (expected.T, "K@Q.T", {}),
               (queries_twice if same else None, "Q@Q.T=X@X.T", {}),
               (queries_twice, "Q@Q.T", {}),
               (k @ k.T / root, "K@K.T", {}),
               (raw_words, "raw-words", {}),
               (expected / root, "by-d_k", {"d_k": d_k}),
               (expected * root / np.sqrt(d_model) if d_model != d_k else None, "by-sqrt-d_model",
                {"d_model": d_model, "d_k": d_k})],
        shape_tips={(d_k, d_k): "Q.T@K"},
    )
