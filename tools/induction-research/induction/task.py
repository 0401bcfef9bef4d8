"""The copying task: random letters in which segments are copied to random later places.

A sequence of ``n`` letters is drawn uniformly from the alphabet, then up to
``repeats`` segments are copied: a segment of ``k`` letters starting at ``s``
is written again starting at ``d = s + k + gap``. Each segment's length, its
place and the gap after it are random, so neither the place of a copy nor the
distance between the two copies tells the model anything: only *content*
finds the earlier copy. With probability ``p_adjacent`` the gap is 0 (the
copy follows at once, as in the classic test).

A prediction (position ``t`` guessing the letter at ``t + 1``) is *in the
second copy* when ``t`` and ``t + 1`` both are; its letter is determined by
the earlier copy, and the key an induction head should read is ``t - D + 1``
with ``D = d - s`` the distance between the copies. Predictions in the first
copy are marked too: their letters are random, so they are the baseline.

:func:`classic_batch` makes the test of Olsson et al. (2022): random letters
in which the ``k`` letters starting at ``offset`` are repeated at once.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from selfattention._validate import check_positive_int

#: The symbols: the 26 capital letters, then the 26 small ones (the model sees their numbers 0 to 51).
#: Case matters: ``a`` and ``A`` are two symbols. 52 symbols make a chance repeat in 32 random
#: letters half as likely as 26 would, so a repeated letter is better evidence of a copy.
SYMBOLS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


class Task(NamedTuple):
    """How training sequences are drawn.

    Examples
    --------
    >>> TASK.n_positions, TASK.lengths
    (32, (2, 16))
    """

    #: The alphabet, one character per symbol.
    symbols: str = SYMBOLS
    #: Letters in a sequence (the model's context).
    n_positions: int = 32
    #: Shortest and longest segment ``k``.
    lengths: tuple = (2, 16)
    #: Chance that a copy follows its segment at once (gap 0); otherwise the gap is uniform.
    p_adjacent: float = 0.5
    #: How many segments are copied, at most, in one sequence (they never overlap).
    repeats: int = 3


#: The task of the proposal.
TASK = Task()


class Batch(NamedTuple):
    """Sequences, and which predictions are random (first copy) and which are determined (second copy)."""

    #: (B, n) integers: the symbols.
    tokens: np.ndarray
    #: (B, n - 1) bool: prediction ``t`` lies in a first copy (``t`` and ``t + 1`` in it).
    first: np.ndarray
    #: (B, n - 1) bool: prediction ``t`` lies in a second copy; its letter is determined.
    second: np.ndarray
    #: (B, n - 1) int: for a second-copy prediction ``t``, the key ``t - D + 1`` an induction head should read; else -1.
    key: np.ndarray


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
    >>> bool(batch.tokens[b, t + 1] == batch.tokens[b, batch.key[b, t]])
    True
    """
    n_sequences = check_positive_int(n_sequences, "n_sequences")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    n, (low, high) = task.n_positions, task.lengths
    if not 2 <= low <= high or 2 * high > n:
        raise ValueError(f"segments of {low} to {high} letters cannot fit twice in {n} positions")
    tokens = rng.integers(0, len(task.symbols), (n_sequences, n))
    first, second = np.zeros((n_sequences, n - 1), bool), np.zeros((n_sequences, n - 1), bool)
    key = np.full((n_sequences, n - 1), -1, dtype=np.int64)
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
                  n_positions: int = TASK.n_positions, vocab: int = len(SYMBOLS)) -> Batch:
    """The classic test: random letters in which ``k`` letters from ``offset`` are repeated at once.

    The first copy stands at ``offset`` to ``offset + k - 1``, the second
    right after it; random letters fill the positions before and after.

    Examples
    --------
    >>> b = classic_batch(4, 3, 1, np.random.default_rng(0))
    >>> bool((b.tokens[0, 3:7] == b.tokens[0, 7:11]).all()), np.flatnonzero(b.second[0]).tolist()
    (True, [7, 8, 9])
    >>> b.key[0, 7:10].tolist()        # query t reads key t - k + 1
    [4, 5, 6]
    """
    k, n_sequences = check_positive_int(k, "k"), check_positive_int(n_sequences, "n_sequences")
    if k < 2 or offset < 0 or offset + 2 * k > n_positions:
        raise ValueError(f"a repeat of k={k} at offset={offset} does not fit in {n_positions} positions")
    tokens = rng.integers(0, vocab, (n_sequences, n_positions))
    tokens[:, offset + k:offset + 2 * k] = tokens[:, offset:offset + k]
    first, second = np.zeros((n_sequences, n_positions - 1), bool), np.zeros((n_sequences, n_positions - 1), bool)
    key = np.full((n_sequences, n_positions - 1), -1, dtype=np.int64)
    for b in range(n_sequences):
        _mark(first, second, key, b, offset, offset + k, k)
    return Batch(tokens.astype(np.int64), first, second, key)


def symbols_to_tokens(text: str, symbols: str = SYMBOLS, n_positions: int = TASK.n_positions) -> np.ndarray:
    """Letters as the model's integers: ``"ABA"`` is ``[0, 1, 0]``; spaces are ignored, case matters.

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
        raise ValueError(f"only the symbols {symbols[0]} to {symbols[-1]} are allowed, got {''.join(bad)!r}")
    if not 1 <= len(letters) <= n_positions:
        raise ValueError(f"give 1 to {n_positions} symbols, got {len(letters)}")
    return np.array([symbols.index(c) for c in letters], dtype=np.int64)


def tokens_to_symbols(tokens, symbols: str = SYMBOLS) -> str:
    """The model's integers as letters.

    Examples
    --------
    >>> tokens_to_symbols([0, 1, 25, 26])
    'ABZa'
    """
    return "".join(symbols[int(t)] for t in np.asarray(tokens).ravel())


def classic_mix(n_sequences: int, rng: np.random.Generator, n_positions: int = TASK.n_positions,
                vocab: int = len(SYMBOLS), lengths: tuple | None = None) -> Batch:
    """Classic-test sequences with a random ``k`` (4 to ``n // 2`` unless ``lengths``) and a random offset each.

    Examples
    --------
    >>> b = classic_mix(5, np.random.default_rng(0))
    >>> b.tokens.shape, bool((b.second.sum(axis=1) >= 3).all())
    ((5, 32), True)
    """
    low, high = lengths if lengths is not None else (4, n_positions // 2)
    parts = []
    for _ in range(check_positive_int(n_sequences, "n_sequences")):
        k = int(rng.integers(low, high + 1))
        offset = int(rng.integers(0, n_positions - 2 * k + 1))
        parts.append(classic_batch(k, offset, 1, rng, n_positions, vocab))
    return Batch(*(np.concatenate(c) for c in zip(*parts)))
