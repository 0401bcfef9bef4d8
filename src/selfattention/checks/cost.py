"""Checkers of the two counting exercises of book/the-cost-of-full-context.md, "The cost of full context"."""

from __future__ import annotations

import numbers

import numpy as np

from .. import cost
from .._validate import check_positive_int
from ..sparse import sliding_window_mask
from ._compare import Diagnoses, Feedback

SCORE_MEMORY = Diagnoses("check_score_memory", "Right: {heads} heads of {n:,}² scores at {per} bytes each take "
                         "{bytes:,} bytes, {shown}.", {
    "not-count": "n_bytes should be a whole number of bytes, got {value!r}.",
    "one-head": "That is one head: the layer has {heads} heads, each with its own table of scores.",
    "float32": "That is float32, 4 bytes a score: {dtype} takes {per}.",
    "float64": "That is float64, 8 bytes a score: {dtype} takes {per}.",
    "scores-not-bytes": "That counts scores, not bytes: each {dtype} score takes {per} bytes.",
    "no-square": "A head holds n × n scores, one per pair of tokens, not n.",
    "bits": "That is bits: a byte holds 8 of them.",
    "gib": "That is the size in GiB; give it in bytes, as cost.score_bytes does.",
    "gb": "That is the size in GB (10⁹ bytes); give it in bytes, as cost.score_bytes does.",
    "causal-half": "That counts only the scores a causal mask keeps; the question asks for the whole table.",
    "value": "{got:,} bytes is not it: n² scores per head, each of {per} bytes, times {heads} heads.",
}, generic=())

WINDOW_COUNT = Diagnoses("check_window_count", "Right: the window keeps {count:,} scores, {short:,} fewer than "
                         "the rule of thumb n(w + 1).", {
    "not-count": "count should be a whole number of scores, got {value!r}.",
    "rule-of-thumb": "That is the rule of thumb n(w + 1). The first {w} tokens have fewer than {w} tokens "
                     "before them, so their windows are shorter.",
    "no-self": "That leaves out the token itself: each token reads itself and up to {w} earlier tokens.",
    "w-in-all": "That reads w as all the tokens of a window. Here a token reads itself and w more: up to "
                "{w_plus} in all.",
    "full-causal": "That is the full causal mask: the window keeps only the last {w_plus} tokens of each row.",
    "both-sides": "That is a window on both sides. The causal window looks back only.",
    "value": "{got:,} is not it: count the True entries of the mask, int(mask.sum()).",
}, generic=())


def _count(value):
    """``value`` as an int if it is a whole number (an int, or a float with no fraction), else None."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    if isinstance(value, numbers.Integral):
        return int(value)
    return int(value) if np.isfinite(value) and float(value).is_integer() else None


def check_score_memory(n_bytes, n: int = 32_768, heads: int = 32, dtype="bf16") -> Feedback:
    """Check the reader's memory of one layer's scores: ``n² × bytes per score × heads``.

    Parameters
    ----------
    n_bytes : int
        The reader's answer, in bytes.
    n : int, default 32768
        Tokens in the text (queries and keys).
    heads : int, default 32
        Heads of the layer.
    dtype : str, default "bf16"
        The number format (see :func:`~selfattention.cost.dtype_bytes`).

    Returns
    -------
    Feedback
        ``ok`` is True if ``n_bytes`` is right; otherwise the message names
        the likely slip: one head only, another number format, scores
        instead of bytes, n instead of n², bits, GiB or GB instead of bytes,
        or the causal half. Booleans and counts are compared exactly.

    Raises
    ------
    TypeError, ValueError
        As :func:`~selfattention.cost.score_bytes`; a wrong ``n_bytes`` is
        not an error.

    Examples
    --------
    >>> from selfattention import cost
    >>> print(check_score_memory(cost.score_bytes(32_768, "bf16", heads=32)))
    ✓ Right: 32 heads of 32,768² scores at 2 bytes each take 68,719,476,736 bytes, 64.0 GiB.
    >>> print(check_score_memory(cost.score_bytes(32_768, "bf16")))
    ✗ That is one head: the layer has 32 heads, each with its own table of scores.
    """
    n, heads = check_positive_int(n, "n"), check_positive_int(heads, "heads")
    expected = cost.score_bytes(n, dtype, heads=heads)
    per = cost.dtype_bytes(dtype)
    words = {"heads": heads, "per": per, "dtype": dtype}
    got = _count(n_bytes)
    if got == expected:
        return SCORE_MEMORY.right(n=n, bytes=expected, shown=cost.format_bytes(expected), **words)
    if got is None:
        value = n_bytes.item() if isinstance(n_bytes, np.ndarray) and n_bytes.ndim == 0 else n_bytes
        if isinstance(value, numbers.Real) and not isinstance(value, bool) and np.isfinite(value):
            if abs(value - expected / 2**30) <= 0.05:
                return SCORE_MEMORY.wrong("gib")
            if abs(value - expected / 1e9) <= 0.05:
                return SCORE_MEMORY.wrong("gb")
        return SCORE_MEMORY.wrong("not-count", value=n_bytes)
    slips = [
        (cost.score_bytes(n, dtype), "one-head"),
        (cost.score_bytes(n, "float32", heads=heads) if per != 4 else None, "float32"),
        (cost.score_bytes(n, "float64", heads=heads) if per != 8 else None, "float64"),
        (cost.score_count(n) * heads if per != 1 else None, "scores-not-bytes"),
        (n * per * heads, "no-square"),
        (expected * 8, "bits"),
        (round(expected / 2**30) if expected % 2**30 == 0 else None, "gib"),
        (n * (n + 1) // 2 * per * heads, "causal-half"),
    ]
    for value, slip in slips:
        if value is not None and got == value:
            return SCORE_MEMORY.wrong(slip, **words)
    return SCORE_MEMORY.wrong("value", got=got, **words)


def check_window_count(count, n: int = 1000, w: int = 100) -> Feedback:
    """Check the reader's count of the scores a causal sliding window keeps.

    The right answer is the number of ``True`` entries of
    ``sliding_window_mask(n, w)``: token ``i`` reads itself and up to ``w``
    earlier tokens, ``min(i, w) + 1`` in all, so the total is
    ``n (w + 1) - w (w + 1) / 2`` when ``n > w``.

    Parameters
    ----------
    count : int
        The reader's count.
    n : int, default 1000
        Tokens in the text.
    w : int, default 100
        Earlier tokens each token may read.

    Returns
    -------
    Feedback
        ``ok`` is True if ``count`` is right; otherwise the message names
        the likely slip: the rule of thumb ``n (w + 1)``, the token itself
        left out, ``w`` read as the whole window, the full causal mask, or a
        window on both sides. Booleans and counts are compared exactly.

    Raises
    ------
    TypeError, ValueError
        As :func:`~selfattention.sliding_window_mask`; a wrong ``count`` is
        not an error.

    Examples
    --------
    >>> print(check_window_count(95_950))
    ✓ Right: the window keeps 95,950 scores, 5,050 fewer than the rule of thumb n(w + 1).
    >>> print(check_window_count(1000 * 101))  # doctest: +NORMALIZE_WHITESPACE
    ✗ That is the rule of thumb n(w + 1). The first 100 tokens have fewer than 100 tokens
    before them, so their windows are shorter.
    """
    n = check_positive_int(n, "n")
    if isinstance(w, bool) or not isinstance(w, numbers.Integral) or w < 0:
        raise ValueError(f"w must be an integer >= 0, got {w!r}")
    expected = int(sliding_window_mask(n, w).sum())
    got = _count(count)
    if got is None:
        return WINDOW_COUNT.wrong("not-count", value=count)
    if got == expected:
        return WINDOW_COUNT.right(count=expected, short=n * (w + 1) - expected)
    i = np.arange(n)
    slips = [
        (n * (w + 1), "rule-of-thumb"),
        (int(np.minimum(i, w).sum()), "no-self"),
        (int(np.minimum(i + 1, w).sum()), "w-in-all"),
        (n * (n + 1) // 2, "full-causal"),
        (int(sliding_window_mask(n, w, causal=False).sum()), "both-sides"),
    ]
    for value, slip in slips:
        if got == value:
            return WINDOW_COUNT.wrong(slip, w=w, w_plus=w + 1)
    return WINDOW_COUNT.wrong("value", got=got)
