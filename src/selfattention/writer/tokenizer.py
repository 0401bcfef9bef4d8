"""A character-level tokenizer: one id per character of the corpus, and one for the rest.

The vocabulary is the sorted set of the corpus's characters, plus one
*unknown* symbol, ``"\\ufffd"`` (the replacement character, �), that stands
for every character the corpus does not have. So a reader may type any text:
a character the model never saw becomes the unknown id instead of an error.
Id ``i < len(chars)`` is ``chars[i]``; the unknown id is the last,
``len(chars)``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

#: The symbol of every character the corpus does not have.
UNKNOWN = "\ufffd"


@dataclass(frozen=True)
class CharTokenizer:
    """Characters to ids and back.

    Parameters
    ----------
    chars : str
        The known characters, sorted, each once; :meth:`from_corpus` makes it.

    Raises
    ------
    TypeError
        If ``chars`` is not a string.
    ValueError
        If ``chars`` is empty, not sorted, repeats a character or holds the
        unknown symbol.

    Examples
    --------
    >>> tok = CharTokenizer.from_corpus("the cat sat")
    >>> tok.chars, tok.vocab
    (' acehst', 8)
    >>> ids = tok.encode("cats!")
    >>> ids.tolist(), tok.decode(ids)
    ([2, 1, 6, 5, 7], 'cats�')
    """

    chars: str

    def __post_init__(self) -> None:
        if not isinstance(self.chars, str):
            raise TypeError(f"chars must be a str, got {type(self.chars).__name__}")
        if not self.chars:
            raise ValueError("chars must hold at least one character, got ''")
        if UNKNOWN in self.chars:
            raise ValueError(f"chars must not hold the unknown symbol {UNKNOWN!r} (U+FFFD)")
        if "".join(sorted(set(self.chars))) != self.chars:
            raise ValueError(f"chars must be sorted with each character once, got {self.chars[:40]!r}"
                             f"{'...' if len(self.chars) > 40 else ''}")
        object.__setattr__(self, "_ids", {c: i for i, c in enumerate(self.chars)})

    @classmethod
    def from_corpus(cls, corpus: str) -> CharTokenizer:
        """The tokenizer of a corpus: its sorted characters, each once.

        Parameters
        ----------
        corpus : str

        Returns
        -------
        CharTokenizer

        Raises
        ------
        TypeError
            If ``corpus`` is not a string.
        ValueError
            If ``corpus`` is empty or holds the unknown symbol.

        Examples
        --------
        >>> CharTokenizer.from_corpus("banana").chars
        'abn'
        """
        if not isinstance(corpus, str):
            raise TypeError(f"corpus must be a str, got {type(corpus).__name__}")
        if not corpus:
            raise ValueError("corpus must hold at least one character, got ''")
        if UNKNOWN in corpus:
            raise ValueError(f"corpus holds the unknown symbol {UNKNOWN!r} (U+FFFD) at index "
                             f"{corpus.index(UNKNOWN)}; remove it first")
        return cls("".join(sorted(set(corpus))))

    @property
    def vocab(self) -> int:
        """How many ids there are, one per known character and one for the unknown symbol."""
        return len(self.chars) + 1

    @property
    def unknown_id(self) -> int:
        """The id of every character the corpus does not have: the last."""
        return len(self.chars)

    def encode(self, text: str) -> np.ndarray:
        """The id of each character of ``text``; :attr:`unknown_id` for the ones not known.

        Parameters
        ----------
        text : str

        Returns
        -------
        numpy.ndarray of int64, shape (len(text),)

        Raises
        ------
        TypeError
            If ``text`` is not a string.

        Examples
        --------
        >>> CharTokenizer("ab").encode("abc").tolist()
        [0, 1, 2]
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        unknown = self.unknown_id
        ids = self._ids  # type: ignore[attr-defined]
        return np.fromiter((ids.get(c, unknown) for c in text), dtype=np.int64, count=len(text))

    def decode(self, ids) -> str:
        """The text of a sequence of ids; the unknown id is ``"\\ufffd"``.

        Parameters
        ----------
        ids : array_like of int, shape (n,)

        Returns
        -------
        str

        Raises
        ------
        TypeError
            If the ids are not integers.
        ValueError
            If ``ids`` is not one-dimensional or an id is outside ``0 .. vocab - 1``.

        Examples
        --------
        >>> CharTokenizer("ab").decode([1, 0, 2])
        'ba�'
        >>> CharTokenizer("ab").decode([3])
        Traceback (most recent call last):
        ...
        ValueError: ids must be 0 to 2 (vocab=3), got 3 at index 0
        """
        arr = np.asarray(ids)
        if arr.size == 0:
            return ""
        if arr.dtype == object or not np.issubdtype(arr.dtype, np.integer):
            if not all(isinstance(i, numbers.Integral) and not isinstance(i, bool) for i in np.ravel(arr)):
                raise TypeError(f"ids must be integers, got dtype {arr.dtype}")
            arr = arr.astype(np.int64)
        if arr.ndim != 1:
            raise ValueError(f"ids must be one-dimensional, got shape {arr.shape}")
        bad = np.flatnonzero((arr < 0) | (arr >= self.vocab))
        if bad.size:
            raise ValueError(f"ids must be 0 to {self.vocab - 1} (vocab={self.vocab}), "
                             f"got {arr[bad[0]]} at index {bad[0]}")
        table = self.chars + UNKNOWN
        return "".join(table[i] for i in arr.tolist())
