"""The copying task: random symbols in which one random segment appears twice.

A sequence of :data:`N_POSITIONS` symbols is some random symbols (the
*filler*), then a random *segment* of ``m`` symbols, then the same segment
again. Every symbol is drawn uniformly from the :data:`VOCAB` symbols, so
nothing predicts the filler or the segment's first copy. The second copy can
be predicted only by copying: the symbol after an earlier occurrence of the
current symbol comes next. The segment's length ``m`` varies from sequence to
sequence, so the distance between the copies does too.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._validate import check_positive_int

#: The symbols, one letter each (the model sees their numbers 0 to 15).
SYMBOLS = "ABCDEFGHIJKLMNOP"
#: How many symbols there are.
VOCAB = len(SYMBOLS)
#: How many positions a sequence has.
N_POSITIONS = 24
#: The shortest and the longest segment.
SEGMENT_LENGTHS = (4, 10)


class Batch(NamedTuple):
    """Sequences of the copying task, and where their two copies stand."""

    #: (B, N_POSITIONS) integers: the symbols.
    tokens: np.ndarray
    #: (B,) position of the first copy's first symbol.
    starts: np.ndarray
    #: (B,) length ``m`` of the segment; the second copy starts at ``starts + m``.
    lengths: np.ndarray


def copying_batch(n_sequences: int, rng: np.random.Generator) -> Batch:
    """Draw ``n_sequences`` sequences of the copying task.

    Parameters
    ----------
    n_sequences : int
        How many sequences.
    rng : numpy.random.Generator
        Where the randomness comes from (seeded by the caller).

    Returns
    -------
    Batch

    Raises
    ------
    TypeError, ValueError
        If ``n_sequences`` is not a positive integer, or ``rng`` is not a
        NumPy Generator.

    Examples
    --------
    >>> batch = copying_batch(2, np.random.default_rng(0))
    >>> batch.tokens.shape
    (2, 24)
    >>> s, m = batch.starts[0], batch.lengths[0]
    >>> bool((batch.tokens[0, s:s + m] == batch.tokens[0, s + m:s + 2 * m]).all())
    True
    """
    n_sequences = check_positive_int(n_sequences, "n_sequences")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    low, high = SEGMENT_LENGTHS
    tokens = np.empty((n_sequences, N_POSITIONS), dtype=np.int64)
    starts = np.empty(n_sequences, dtype=np.int64)
    lengths = np.empty(n_sequences, dtype=np.int64)
    for b in range(n_sequences):
        m = int(rng.integers(low, high + 1))
        filler = rng.integers(0, VOCAB, N_POSITIONS - 2 * m)
        segment = rng.integers(0, VOCAB, m)
        tokens[b] = np.concatenate([filler, segment, segment])
        starts[b], lengths[b] = N_POSITIONS - 2 * m, m
    return Batch(tokens, starts, lengths)


def copy_positions(batch: Batch) -> tuple[np.ndarray, np.ndarray]:
    """Which predictions fall in each copy, as two (B, n - 1) boolean masks.

    Position ``t`` predicts the symbol at ``t + 1``. A prediction is in the
    *first copy* when both ``t`` and ``t + 1`` are in it, and in the *second
    copy* likewise: ``m - 1`` predictions each. The second copy's first symbol
    is left out of both: nothing before it tells which symbol it is.

    Examples
    --------
    >>> first, second = copy_positions(copying_batch(3, np.random.default_rng(1)))
    >>> first.shape, bool((first.sum(axis=1) == second.sum(axis=1)).all())
    ((3, 23), True)
    """
    t = np.arange(N_POSITIONS - 1)[None, :]          # (1, n - 1)
    s, m = batch.starts[:, None], batch.lengths[:, None]
    first = (t >= s) & (t < s + m - 1)               # (B, n - 1)
    second = (t >= s + m) & (t < s + 2 * m - 1)      # (B, n - 1)
    return first, second


def symbols_to_tokens(text: str) -> np.ndarray:
    """Symbols as the model's integers: ``"ABA"`` is ``[0, 1, 0]``.

    Spaces are ignored and lower case counts as upper case.

    Raises
    ------
    TypeError
        If ``text`` is not a string.
    ValueError
        If a character is not one of :data:`SYMBOLS`, or there are none or
        more than :data:`N_POSITIONS`.

    Examples
    --------
    >>> symbols_to_tokens("ab c").tolist()
    [0, 1, 2]
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    letters = text.replace(" ", "").upper()
    bad = sorted({c for c in letters if c not in SYMBOLS})
    if bad:
        raise ValueError(f"only the symbols {SYMBOLS[0]} to {SYMBOLS[-1]} are allowed, got {''.join(bad)!r}")
    if not 1 <= len(letters) <= N_POSITIONS:
        raise ValueError(f"give 1 to {N_POSITIONS} symbols, got {len(letters)}")
    return np.array([SYMBOLS.index(c) for c in letters], dtype=np.int64)


def tokens_to_symbols(tokens) -> str:
    """The model's integers as symbols: ``[0, 1, 0]`` is ``"ABA"``.

    Examples
    --------
    >>> tokens_to_symbols([0, 1, 15])
    'ABP'
    """
    return "".join(SYMBOLS[int(t)] for t in np.asarray(tokens).ravel())
