"""Checker of queries cut into heads (book/several-heads.md, "Several heads")."""

from __future__ import annotations

import numpy as np

from .._validate import as_float_array
from ..multihead import split_heads
from ._compare import Diagnoses, Feedback, close, precision, read_answer, rounded_to, wrong_value

SPLIT_HEADS = Diagnoses(
    "check_split_heads",
    "Right: q_heads has shape {shape} and head {last} holds columns {first_col} to {last_col} of every word.", {
        "Q-itself": "That is Q itself, shape {shape}: cut each row into h = {h} slices of d_head = {d_head} "
                    "numbers.",
        "heads-middle": "Right numbers, but the heads are in the middle: shape {shape}. Move them to the front, "
                        "to {expected}, with .transpose(1, 0, 2).",
        "plain-reshape": "The shape {shape} is right but the numbers are not: a plain reshape to "
                         "(h, L, d_head) cuts across the words. Reshape to (L, h, d_head) first, then move the "
                         "heads to the front.",
        "dealt-out": "The columns were dealt out in turn (head 0 got columns 0, h, 2h, ...). Each head takes a "
                     "block of d_head columns side by side.",
        "head-wrong": "Head {i} is wrong{where}: {got} where {expected} was expected. It should hold columns "
                      "{first_col} to {last_col} of every word.",
    }, generic=("not-numbers", "shape", "not-finite", "rounded"))


def check_split_heads(q_heads, q=None, h: int = 2) -> Feedback:
    """Check the reader's line ``q_heads = ...``: the queries cut into ``h`` heads.

    The right answer gives head ``i`` the columns ``i * d_head`` to
    ``(i + 1) * d_head`` of every row, with ``d_head = d_model / h``, stacked
    head first: shape ``(h, L, d_head)``. In NumPy,
    ``q.reshape(L, h, d_head).transpose(1, 0, 2)``.

    Parameters
    ----------
    q_heads : array_like
        What the reader computed.
    q : array_like, shape (L, d_model), optional
        The queries; defaults to ``np.arange(12.0).reshape(3, 4)``: 3 words,
        ``d_model = 4``, whose numbers say where they came from.
    h : int, default 2
        Number of heads; must divide ``d_model``.

    Returns
    -------
    Feedback
        ``ok`` is True if ``q_heads`` is right; the message names the likely
        mistake otherwise (heads last, a reshape without the transpose, columns
        dealt out in turn, the rows cut instead of the columns, rounded numbers).
        A value counts as right within 100 eps (abs(expected) + the largest
        abs(expected)), eps being the machine epsilon of the answer: float32's for
        float32 arrays (as torch's .numpy() gives), float64's otherwise; a float16
        answer is judged with float16's rounding (10 of its eps), and an expected
        inf only by the same inf.

    Raises
    ------
    TypeError, ValueError
        If ``q`` is not a 2-D array of finite real numbers, or ``h`` does not
        divide its width (a wrong ``q_heads`` is not an error).

    Examples
    --------
    >>> import numpy as np
    >>> Q = np.arange(12.0).reshape(3, 4)
    >>> print(check_split_heads(Q.reshape(3, 2, 2).transpose(1, 0, 2)))
    ✓ Right: q_heads has shape (2, 3, 2) and head 1 holds columns 2 to 3 of every word.
    >>> print(check_split_heads(Q.reshape(2, 3, 2)))  # doctest: +NORMALIZE_WHITESPACE
    ✗ The shape (2, 3, 2) is right but the numbers are not: a plain reshape to (h, L, d_head) cuts
    across the words. Reshape to (L, h, d_head) first, then move the heads to the front.
    """
    q = np.arange(12.0).reshape(3, 4) if q is None else as_float_array(q, "q")
    if q.ndim != 2:
        raise ValueError(f"q must have shape (L, d_model), got {q.shape}")
    q = q.astype(np.float64)
    expected = split_heads(q, h)  # (h, L, d_head); checks that h divides d_model
    L, d_model = q.shape
    d_head = d_model // h
    got = read_answer(q_heads, "q_heads", SPLIT_HEADS)
    if isinstance(got, Feedback):
        return got
    eps = precision(got)
    if close(got, expected, eps):
        return SPLIT_HEADS.right(shape=expected.shape, last=h - 1, first_col=(h - 1) * d_head,
                                 last_col=h * d_head - 1)
    if close(got, q, eps):
        return SPLIT_HEADS.wrong("Q-itself", shape=q.shape, h=h, d_head=d_head)
    if close(got, q.reshape(L, h, d_head), eps):
        return SPLIT_HEADS.wrong("heads-middle", shape=got.shape, expected=expected.shape)
    if got.shape != expected.shape:
        return SPLIT_HEADS.wrong("shape", name="q_heads", got=got.shape, expected=expected.shape,
                                 layout="(h, L, d_head), one block per head.")
    if not np.all(np.isfinite(got)):
        return SPLIT_HEADS.wrong("not-finite", name="q_heads")
    if close(got, q.reshape(h, L, d_head), eps):
        return SPLIT_HEADS.wrong("plain-reshape", shape=got.shape)
    if close(got, q.reshape(L, d_head, h).transpose(2, 0, 1), eps):
        return SPLIT_HEADS.wrong("dealt-out")
    decimals = rounded_to(got, expected, eps)
    if decimals is not None:
        return SPLIT_HEADS.wrong("rounded", decimals=decimals)
    # A head outside the tolerance exists: the whole array's tolerance is at least each head's.
    i = next(i for i in range(h) if not close(got[i], expected[i], eps))
    return SPLIT_HEADS.wrong("head-wrong", i=i, first_col=i * d_head, last_col=(i + 1) * d_head - 1,
                             **wrong_value(got[i], expected[i], eps))
