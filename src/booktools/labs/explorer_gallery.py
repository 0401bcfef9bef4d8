"""The explorer's gallery: its sentences, and their scores as the lab stores them.

The page runs all-MiniLM-L6-v2 on :data:`GALLERY` at build time and hands the
lab (:mod:`booktools.labs.explorer`) each sentence's tokens and pre-softmax
scores. The lab recomputes the weights from those scores for any layer,
head or temperature, so what it shows is exact for the scores it holds.

To keep the page light the scores are stored compactly:

1. every row has its largest score subtracted (softmax does not change when
   one number is subtracted from a whole row, and the values that matter
   end up near 0, where a small float is most precise);
2. the result is rounded to float16 and written as little-endian bytes in
   base64.
"""

from __future__ import annotations

import base64
import numbers
from collections.abc import Sequence

import numpy as np

from ..head_weights import check_stored_scores

#: The gallery: each sentence with the token whose row the lab shows first.
GALLERY = (
    ("The animal didn't cross the street because it was too wide.", "it"),
    ("The animal didn't cross the street because it was too tired.", "it"),
    ("We sat on the bank of the river.", "bank"),
    ("She deposited the money at the bank.", "bank"),
    ("The keys to the cabinet are on the table.", "are"),
    ("The cat sat on the mat.", "sat"),
    ("The cat chased the dog.", "chased"),
    ("I love cats.", "love"),
)

_DTYPE = np.dtype("<f2")  # little-endian float16, as the lab reads it


def compact_scores(scores) -> np.ndarray:
    """Scores as the lab stores them: each row minus its maximum, in float16.

    Parameters
    ----------
    scores : array_like, shape (layers, heads, L, L)
        Pre-softmax scores, as ``Encoding.scores`` from
        :func:`selfattention.minilm.encode`.

    Returns
    -------
    numpy.ndarray of float16, shape (layers, heads, L, L)
        Every row's largest entry is 0 and the others are negative.

    Raises
    ------
    ValueError
        If ``scores`` is not 4-D with square last two axes, is empty, or
        holds NaN or inf.

    Examples
    --------
    >>> s = np.array([[[[1.0, 3.0], [2.0, 2.0]]]])   # (1, 1, 2, 2)
    >>> compact_scores(s)
    array([[[[-2.,  0.],
             [ 0.,  0.]]]], dtype=float16)
    >>> compact_scores(np.zeros((2, 2)))
    Traceback (most recent call last):
    ...
    ValueError: scores must have shape (layers, heads, L, L), got (2, 2)
    """
    s = check_stored_scores(scores, "scores")
    shifted = s - s.max(axis=-1, keepdims=True)  # (layers, heads, L, L), row max 0
    return shifted.astype(np.float16)


def encode_scores(stored) -> str:
    """The stored scores as base64 text: little-endian float16, C order.

    Parameters
    ----------
    stored : array_like, shape (layers, heads, L, L)
        Scores from :func:`compact_scores` (any float is rounded to float16).

    Returns
    -------
    str
        Base64 of ``2 * stored.size`` bytes.

    Raises
    ------
    ValueError
        As :func:`compact_scores`.

    Examples
    --------
    >>> encode_scores(np.zeros((1, 1, 1, 1)))
    'AAA='
    >>> text = encode_scores(np.array([[[[-2.0, 0.0], [0.0, -0.5]]]]))
    >>> decode_scores(text, (1, 1, 2, 2))[0, 0]
    array([[-2. ,  0. ],
           [ 0. , -0.5]], dtype=float16)
    """
    s = check_stored_scores(stored, "stored")
    return base64.b64encode(s.astype(_DTYPE).tobytes(order="C")).decode("ascii")


def decode_scores(text: str, shape: Sequence[int]) -> np.ndarray:
    """Read scores written by :func:`encode_scores`.

    Parameters
    ----------
    text : str
        Base64 text.
    shape : sequence of int
        ``(layers, heads, L, L)``.

    Returns
    -------
    numpy.ndarray of float16
        The stored scores, in ``shape``.

    Raises
    ------
    ValueError
        If ``text`` is not base64 or does not hold ``prod(shape)`` numbers.

    Examples
    --------
    >>> decode_scores("AAA=", (1, 1, 1, 1))
    array([[[[0.]]]], dtype=float16)
    >>> decode_scores("AAA=", (1, 1, 2, 2))
    Traceback (most recent call last):
    ...
    ValueError: the text holds 1 float16 numbers but shape (1, 1, 2, 2) needs 4
    """
    try:
        raw = base64.b64decode(text, validate=True)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"scores text is not valid base64: {exc}") from None
    shape = tuple(int(n) for n in shape)
    need = int(np.prod(shape))
    if len(raw) != 2 * need:
        raise ValueError(
            f"the text holds {len(raw) // 2} float16 numbers but shape {shape} needs {need}"
        )
    return np.frombuffer(raw, dtype=_DTYPE).reshape(shape).astype(np.float16)


def gallery_entry(sentence: str, tokens: Sequence[str], scores, *, focus) -> dict:
    """One sentence of the lab's gallery: text, tokens, first row and stored scores.

    Parameters
    ----------
    sentence : str
        The sentence, as typed.
    tokens : sequence of str
        Its ``L`` tokens, ``[CLS]`` to ``[SEP]``.
    scores : array_like, shape (layers, heads, L, L)
        Its pre-softmax scores.
    focus : str or int, keyword-only
        The token whose row the lab shows while no token is pointed at: a
        token that occurs once, or a position.

    Returns
    -------
    dict
        ``text``, ``tokens``, ``focus`` (a position), ``shape`` and
        ``scores`` (base64 from :func:`encode_scores` of
        :func:`compact_scores`).

    Raises
    ------
    ValueError
        If the scores do not match the tokens, or ``focus`` is not found
        exactly once or is out of range.

    Examples
    --------
    >>> e = gallery_entry("Hi.", ["[CLS]", "hi", ".", "[SEP]"], np.zeros((1, 2, 4, 4)), focus="hi")
    >>> e["focus"], e["shape"], len(e["scores"])
    (1, [1, 2, 4, 4], 88)
    >>> gallery_entry("Hi.", ["[CLS]", "hi", "[SEP]"], np.zeros((1, 2, 4, 4)), focus=0)
    Traceback (most recent call last):
    ...
    ValueError: scores of shape (1, 2, 4, 4) do not match 3 tokens
    """
    if not isinstance(sentence, str) or not sentence.strip():
        raise ValueError(f"sentence must be a non-empty string, got {sentence!r}")
    tokens = [str(t) for t in tokens]
    stored = compact_scores(scores)
    if stored.shape[-1] != len(tokens):
        raise ValueError(f"scores of shape {stored.shape} do not match {len(tokens)} tokens")
    return {
        "text": sentence,
        "tokens": tokens,
        "focus": _position(tokens, focus),
        "shape": list(stored.shape),
        "scores": encode_scores(stored),
    }


# ---------------------------------------------------------------------------
# Private helpers
# ---------------------------------------------------------------------------


def _position(tokens: list[str], token) -> int:
    """Position of ``token`` (a string found once, or an index) in ``tokens``."""
    if isinstance(token, str):
        hits = [i for i, t in enumerate(tokens) if t == token]
        if len(hits) != 1:
            raise ValueError(f"focus {token!r} must occur once in {tokens}, found {len(hits)}")
        return hits[0]
    if isinstance(token, bool) or not isinstance(token, numbers.Integral) or not 0 <= token < len(tokens):
        raise ValueError(f"focus must be a token or a position 0..{len(tokens) - 1}, got {token!r}")
    return int(token)


__all__ = ["GALLERY", "compact_scores", "decode_scores", "encode_scores", "gallery_entry"]
