"""Checker of a causal mask (book/causal-masking.md)."""

from __future__ import annotations

import numpy as np

from .._validate import check_positive_int
from ..attention import causal_mask
from ._compare import Diagnoses, Feedback, close

CAUSAL_MASK = Diagnoses("check_causal_mask", "Right: token i reads tokens 0 to i, itself included.", {
    "not-booleans": "mask should be a NumPy array of booleans, got {type}.",
    "shape": "mask has shape {got} but should be {expected}: one row per query, one column per key.",
    "float-pattern": "The pattern is right but the mask holds {dtype} numbers: make it boolean (dtype=bool). "
                     "A float mask would be added to the scores instead of blocking them.",
    "int-pattern": "The pattern is right but the mask holds {dtype} numbers: make it boolean (dtype=bool). "
                   "The package refuses an integer mask, which would be added instead of blocking.",
    "numbers": "mask holds {dtype} numbers: build it with dtype=bool (True = may read).",
    "no-diagonal": "The diagonal is blocked: a token may read itself (use k=0, not k=-1).",
    "upper": "That is the upper triangle: token 0 would read every later token, the future. Keep the lower "
             "triangle (np.tril).",
    "swapped": "True and False are swapped: in the package True means \"may read\", not \"blocked\".",
    "all-true": "Every token may read every token, the future too: that is no mask at all. Keep the lower "
                "triangle, diagonal included (np.tril).",
    "future": "Token {i} may read token {j}, which comes after it: the future. A causal mask is False everywhere "
              "above the diagonal (np.tril with k=0, not k={k}).",
    "future-cell": "Token {i} may read token {j}, which comes after it: the future. A causal mask is False "
                   "everywhere above the diagonal.",
    "cell": "Row {i}, column {j} is wrong: token {i} {verb} read token {j}.",
}, generic=())


def check_causal_mask(mask, n: int = 4) -> Feedback:
    """Check the reader's causal mask for ``n`` tokens (chapter "Causal masking").

    The right answer is a boolean ``(n, n)`` array, ``True`` on and below
    the diagonal: token ``i`` may read tokens ``0 .. i``, itself included,
    as :func:`~selfattention.causal_mask` gives.

    Parameters
    ----------
    mask : array_like
        What the reader built.
    n : int, default 4
        The number of tokens.

    Returns
    -------
    Feedback
        ``ok`` is True if ``mask`` is right; otherwise the message names the
        likely slip: the shape, 0/1 numbers instead of booleans, the upper
        triangle, a mask that lets a token read a later token (the future),
        no mask at all, a missing diagonal, or ``True`` meaning "blocked".
        Booleans and counts are compared exactly.

    Raises
    ------
    TypeError, ValueError
        If ``n`` is not a positive integer (a wrong ``mask`` is not an
        error: the feedback says what is wrong).

    Examples
    --------
    >>> import numpy as np
    >>> print(check_causal_mask(np.tril(np.ones((4, 4), dtype=bool))))
    ✓ Right: token i reads tokens 0 to i, itself included.
    >>> print(check_causal_mask(np.tril(np.ones((4, 4), dtype=bool), k=-1)))
    ✗ The diagonal is blocked: a token may read itself (use k=0, not k=-1).
    >>> print(check_causal_mask(np.tril(np.ones((4, 4)))))  # doctest: +NORMALIZE_WHITESPACE
    ✗ The pattern is right but the mask holds float64 numbers: make it boolean (dtype=bool).
    A float mask would be added to the scores instead of blocking them.
    """
    n = check_positive_int(n, "n")
    expected = causal_mask(n)  # (n, n)
    m = np.asarray(mask)
    if m.dtype == object or m.dtype.kind not in "biuf":
        return CAUSAL_MASK.wrong("not-booleans", type=type(mask).__name__)
    if m.shape != expected.shape:
        return CAUSAL_MASK.wrong("shape", got=m.shape, expected=expected.shape)
    if m.dtype != np.bool_:
        if close(m, expected, 0.0, exact=True):
            return CAUSAL_MASK.wrong("float-pattern" if m.dtype.kind == "f" else "int-pattern", dtype=m.dtype)
        return CAUSAL_MASK.wrong("numbers", dtype=m.dtype)
    if close(m, expected, 0.0, exact=True):
        return CAUSAL_MASK.right()
    slips = [(np.tri(n, k=-1, dtype=bool), "no-diagonal"), (expected.T, "upper"), (~expected, "swapped"),
             (np.ones((n, n), dtype=bool), "all-true")]
    for value, slip in slips:
        if close(m, value, 0.0, exact=True):
            return CAUSAL_MASK.wrong(slip)
    future = np.argwhere(m & ~expected)                       # (row, column) pairs above the diagonal
    if len(future) and np.all(m[expected]):                  # the past is right, some future is open
        i, j = (int(v) for v in future[0])
        for k in range(1, n):                                 # a whole band above the diagonal: np.tril(k=k)
            if close(m, np.tri(n, k=k, dtype=bool), 0.0, exact=True):
                return CAUSAL_MASK.wrong("future", i=i, j=j, k=k)
        return CAUSAL_MASK.wrong("future-cell", i=i, j=j)
    i, j = (int(v) for v in np.argwhere(m != expected)[0])
    return CAUSAL_MASK.wrong("cell", i=i, j=j, verb="may not" if m[i, j] else "may")
