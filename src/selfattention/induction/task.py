"""The copying task: random letters in which segments are copied to random later places.

A training sequence is :data:`N_POSITIONS` letters drawn uniformly from the
:data:`VOCAB` symbols, then up to ``repeats`` segments are copied: a segment of
``k`` letters starting at ``s`` is written again starting at ``d = s + k + gap``.
Each segment's length, its place and the gap after it are random, so neither
the place of a copy nor the distance between the two copies tells the model
anything: only *content* finds the earlier copy. With probability
``p_adjacent`` the gap is 0 (the copy follows at once, as in the classic test).

A prediction (position ``t`` guessing the letter at ``t + 1``) is *in the
second copy* when ``t`` and ``t + 1`` both are. Its letter is determined by the
earlier copy, and the key an induction head should read is ``t - D + 1``, with
``D = d - s`` the distance between the copies. Predictions in the first copy are
marked too: their letters are random, so they are the baseline.

:func:`classic_batch` makes the test of Olsson et al. (2022): random letters in
which the ``k`` letters starting at ``offset`` are repeated at once;
:func:`classic_mix` draws a ``k`` and an offset for each sequence.
"""

from __future__ import annotations

from numbers import Integral
from typing import NamedTuple

import numpy as np

from .._validate import check_positive_int

#: The symbols: the 26 capital letters, then the 26 small ones (the model sees their numbers 0 to 51).
#: Case matters: ``a`` and ``A`` are two symbols. 52 symbols make a chance repeat in 32 random
#: letters half as likely as 26 would, so a repeated letter is better evidence of a copy.
SYMBOLS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
#: How many symbols there are.
VOCAB = len(SYMBOLS)
#: How many positions a sequence has (the model's context).
N_POSITIONS = 32
#: The shortest and the longest copied segment ``k`` of a training sequence.
SEGMENT_LENGTHS = (2, 16)
#: The classic test's shortest repeat (its longest is ``N_POSITIONS // 2``).
CLASSIC_SHORTEST = 4


class Task(NamedTuple):
    """How training sequences are drawn.

    Examples
    --------
    >>> TASK.n_positions, TASK.lengths, TASK.repeats
    (32, (2, 16), 3)
    """

    #: The alphabet, one character per symbol.
    symbols: str = SYMBOLS
    #: Letters in a sequence.
    n_positions: int = N_POSITIONS
    #: Shortest and longest segment ``k``.
    lengths: tuple = SEGMENT_LENGTHS
    #: Chance that a copy follows its segment at once (gap 0); otherwise the gap is uniform over what fits.
    p_adjacent: float = 0.5
    #: How many segments are copied, at most, in one sequence (they never overlap).
    repeats: int = 3


#: The book's task.
TASK = Task()


class Batch(NamedTuple):
    """Sequences, and which predictions are random (first copy) and which are determined (second copy)."""

    #: The symbols, integers of shape (B, n).
    tokens: np.ndarray
    #: Whether prediction ``t`` lies in a first copy (``t`` and ``t + 1`` in it), of shape (B, n - 1).
    first: np.ndarray
    #: Whether prediction ``t`` lies in a second copy (its letter is determined), of shape (B, n - 1).
    second: np.ndarray
    #: For a second-copy prediction ``t``, the key ``t - D + 1`` an induction head should read; else -1.
    #: Integers of shape (B, n - 1).
    key: np.ndarray


def _check_rng(rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng


def _mark(first, second, key, b, s, d, k):
    """Mark one copy of ``k`` letters from ``s`` to ``d`` in row ``b`` of the three masks, in place."""
    first[b, s:s + k - 1] = True
    second[b, d:d + k - 1] = True
    key[b, d:d + k - 1] = np.arange(d, d + k - 1) - (d - s) + 1


def copying_batch(n_sequences: int, rng: np.random.Generator, task: Task = TASK) -> Batch:
    """Draw ``n_sequences`` training sequences of ``task``.

    Parameters
    ----------
    n_sequences : int
        How many sequences.
    rng : numpy.random.Generator
        Where the randomness comes from (seeded by the caller).
    task : Task, optional
        The alphabet, length, segment lengths and copies; by default :data:`TASK`.

    Returns
    -------
    Batch

    Raises
    ------
    TypeError, ValueError
        If ``n_sequences`` is not a positive integer, ``rng`` is not a
        NumPy Generator, or the task's segments cannot fit twice.

    Examples
    --------
    >>> batch = copying_batch(2, np.random.default_rng(0))
    >>> batch.tokens.shape, batch.key.shape
    ((2, 32), (2, 31))
    >>> b, t = np.argwhere(batch.second)[0]
    >>> bool(batch.tokens[b, t + 1] == batch.tokens[b, batch.key[b, t]])   # the key holds the next letter
    True
    """
    n_sequences = check_positive_int(n_sequences, "n_sequences")
    _check_rng(rng)
    n, (low, high) = task.n_positions, task.lengths
    if not 2 <= low <= high or 2 * high > n:
        raise ValueError(f"segments of {low} to {high} letters cannot fit twice in {n} positions")
    tokens = rng.integers(0, len(task.symbols), (n_sequences, n))       # (B, n)
    first, second = np.zeros((n_sequences, n - 1), bool), np.zeros((n_sequences, n - 1), bool)
    key = np.full((n_sequences, n - 1), -1, dtype=np.int64)              # (B, n - 1)
    for b in range(n_sequences):
        used = np.zeros(n, bool)
        for _ in range(task.repeats):
            for _try in range(20):
                k = int(rng.integers(low, high + 1))
                gap = 0 if rng.random() < task.p_adjacent else int(rng.integers(0, n - 2 * k + 1))
                s = int(rng.integers(0, n - 2 * k - gap + 1))
                d = s + k + gap
                if not (used[s:s + k].any() or used[d:d + k].any()):
                    break
            else:
                continue
            used[s:s + k] = used[d:d + k] = True
            tokens[b, d:d + k] = tokens[b, s:s + k]
            _mark(first, second, key, b, s, d, k)
    return Batch(tokens.astype(np.int64), first, second, key)


def classic_batch(k: int, offset: int, n_sequences: int, rng: np.random.Generator,
                  n_positions: int = N_POSITIONS, vocab: int = VOCAB) -> Batch:
    """The classic test: random letters in which the ``k`` letters from ``offset`` are repeated at once.

    The first copy stands at ``offset`` to ``offset + k - 1``, the second right
    after it; random letters fill the positions before and after.

    Parameters
    ----------
    k : int
        The repeat's length, at least 2.
    offset : int
        Where the first copy starts, from 0.
    n_sequences : int
    rng : numpy.random.Generator
    n_positions, vocab : int, optional

    Returns
    -------
    Batch

    Raises
    ------
    TypeError, ValueError
        If a count is not a whole number, ``rng`` is not a Generator, or the
        two copies do not fit in ``n_positions``.

    Examples
    --------
    >>> b = classic_batch(4, 3, 1, np.random.default_rng(0))
    >>> bool((b.tokens[0, 3:7] == b.tokens[0, 7:11]).all()), np.flatnonzero(b.second[0]).tolist()
    (True, [7, 8, 9])
    >>> b.key[0, 7:10].tolist()        # query t reads key t - k + 1
    [4, 5, 6]
    """
    k, n_sequences = check_positive_int(k, "k"), check_positive_int(n_sequences, "n_sequences")
    n_positions, vocab = check_positive_int(n_positions, "n_positions"), check_positive_int(vocab, "vocab")
    if isinstance(offset, bool) or not isinstance(offset, Integral):
        raise TypeError(f"offset must be a whole number, got {offset!r}")
    _check_rng(rng)
    if k < 2 or offset < 0 or offset + 2 * k > n_positions:
        raise ValueError(f"a repeat of k={k} at offset={offset} does not fit in {n_positions} positions")
    tokens = rng.integers(0, vocab, (n_sequences, n_positions))          # (B, n)
    tokens[:, offset + k:offset + 2 * k] = tokens[:, offset:offset + k]
    first = np.zeros((n_sequences, n_positions - 1), bool)               # (B, n - 1)
    second = np.zeros((n_sequences, n_positions - 1), bool)
    key = np.full((n_sequences, n_positions - 1), -1, dtype=np.int64)
    for b in range(n_sequences):
        _mark(first, second, key, b, int(offset), int(offset) + k, k)
    return Batch(tokens.astype(np.int64), first, second, key)


def classic_mix(n_sequences: int, rng: np.random.Generator, n_positions: int = N_POSITIONS,
                vocab: int = VOCAB, lengths: tuple | None = None) -> Batch:
    """Classic-test sequences, each with its own random ``k`` and offset.

    ``k`` is uniform from :data:`CLASSIC_SHORTEST` to ``n_positions // 2``
    (or over ``lengths``), then the offset uniform over those that fit.

    Examples
    --------
    >>> b = classic_mix(5, np.random.default_rng(0))
    >>> b.tokens.shape, bool((b.second.sum(axis=1) >= 3).all())
    ((5, 32), True)
    """
    low, high = lengths if lengths is not None else (CLASSIC_SHORTEST, n_positions // 2)
    if not 2 <= low <= high or 2 * high > n_positions:
        raise ValueError(f"repeats of {low} to {high} letters cannot fit twice in {n_positions} positions")
    parts = []
    for _ in range(check_positive_int(n_sequences, "n_sequences")):
        k = int(_check_rng(rng).integers(low, high + 1))
        offset = int(rng.integers(0, n_positions - 2 * k + 1))
        parts.append(classic_batch(k, offset, 1, rng, n_positions, vocab))
    return Batch(*(np.concatenate(c) for c in zip(*parts)))


def symbols_to_tokens(text: str, symbols: str = SYMBOLS, n_positions: int = N_POSITIONS) -> np.ndarray:
    """Letters as the model's integers: ``"ABA"`` is ``[0, 1, 0]``; spaces are ignored, case matters.

    Raises
    ------
    TypeError
        If ``text`` is not a string.
    ValueError
        If a character is not one of ``symbols``, or there are none or more
        than ``n_positions``.

    Examples
    --------
    >>> symbols_to_tokens("AB Zaz").tolist()
    [0, 1, 25, 26, 51]
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    letters = text.replace(" ", "")
    bad = sorted({c for c in letters if c not in symbols})
    if bad:
        raise ValueError(f"only the symbols {symbols[0]} to {symbols[-1]} are allowed (case matters), "
                         f"got {''.join(bad)!r}")
    if not 1 <= len(letters) <= n_positions:
        raise ValueError(f"give 1 to {n_positions} symbols, got {len(letters)}")
    return np.array([symbols.index(c) for c in letters], dtype=np.int64)


def tokens_to_symbols(tokens, symbols: str = SYMBOLS) -> str:
    """The model's integers as letters: ``[0, 1, 25, 26]`` is ``"ABZa"``.

    Examples
    --------
    >>> tokens_to_symbols([0, 1, 25, 26])
    'ABZa'
    """
    return "".join(symbols[int(t)] for t in np.asarray(tokens).ravel())
