"""What the writer must beat: unigram, bigram and trigram models of the same text, in bits per character.

An *n-gram* model guesses the next character from the ``n - 1`` before it
alone, with probabilities counted in the training text. A context seen
rarely, or never, needs *smoothing*; two are here:

* ``"add-one"`` (Laplace): ``P(c | h) = (C(h c) + 1) / (C(h) + V)``, as if
  every character had been seen once more after every context. Simple, but
  with ``V`` about 110 characters and a small corpus it gives far too much to
  the characters never seen after a context: on the book's held-out text its
  trigram spends about 0.3 bits per character more than Witten-Bell's.
* ``"witten-bell"`` (the default; Witten and Bell, 1991), interpolated: a
  context followed by ``T(h)`` different characters in ``C(h)`` counts keeps
  ``C(h) / (C(h) + T(h))`` for what it saw and gives the rest to the model one
  order lower: ``P(c | h) = (C(h c) + T(h) P(c | h')) / (C(h) + T(h))``,
  with ``h'`` the context without its oldest character. A context never seen
  falls back to ``P(c | h')``. The unigram is add-one, so no character, not
  even the unknown one, has probability 0. It has no setting to tune.

Bits per character is the mean of ``-log2 P(next character)``: a model that
knows nothing of the text spends ``log2 V`` bits (about 6.8), a perfect one 0.
:func:`bits_per_character` measures the writer the same way.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._validate import check_positive_int
from .model import WriterSizes, check_writer_params, writer_forward

#: The smoothings :func:`ngram_model` knows.
SMOOTHINGS = ("witten-bell", "add-one")
#: The most entries a table of counts may have (``vocab ** order``): 80 MB of float64.
MAX_ENTRIES = 10_000_000


class NgramModel(NamedTuple):
    """An n-gram model: ``probs[h_1, ..., h_{n-1}, c]`` is ``P(c | h)``; each last axis sums to 1."""

    order: int
    smoothing: str
    probs: np.ndarray

    @property
    def vocab(self) -> int:
        """Number of characters."""
        return self.probs.shape[-1]


def _check_ids(ids, vocab: int, name: str = "ids") -> np.ndarray:
    arr = np.asarray(ids)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must be integer character ids, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size and (arr.min() < 0 or arr.max() >= vocab):
        raise ValueError(f"{name} must be 0 to {vocab - 1} (vocab={vocab}), got {arr.min()} to {arr.max()}")
    return arr.astype(np.int64)


def ngram_counts(ids, order: int, vocab: int) -> np.ndarray:
    """How often each run of ``order`` characters occurs: ``counts[c_1, ..., c_order]``.

    Parameters
    ----------
    ids : array_like of int, shape (n,)
    order : int
    vocab : int

    Returns
    -------
    numpy.ndarray of int64, shape (vocab,) * order

    Raises
    ------
    TypeError, ValueError
        If ``order`` or ``vocab`` is not a positive integer, ``ids`` is not
        a 1-D sequence of ids below ``vocab``, or the table would have more
        than :data:`MAX_ENTRIES` entries (a trigram of 215 characters).

    Examples
    --------
    "abab": the pairs ab, ba, ab.

    >>> ngram_counts([0, 1, 0, 1], 2, 2).tolist()
    [[0, 2], [1, 0]]
    """
    order, vocab = check_positive_int(order, "order"), check_positive_int(vocab, "vocab")
    if vocab ** order > MAX_ENTRIES:
        raise ValueError(f"order={order} with vocab={vocab} needs a table of {vocab ** order:,} entries, "
                         f"more than {MAX_ENTRIES:,}; use a lower order")
    ids = _check_ids(ids, vocab)
    runs = ids.size - order + 1
    flat = np.zeros(max(runs, 0), dtype=np.int64)
    for j in range(order):  # the run starting at i, as one number in base vocab
        flat = flat * vocab + ids[j:j + runs]
    return np.bincount(flat, minlength=vocab ** order).reshape((vocab,) * order)


def ngram_model(ids, order: int, vocab: int, *, smoothing: str = "witten-bell") -> NgramModel:
    """An n-gram model of the character ids ``ids``, smoothed (see the module's note).

    Parameters
    ----------
    ids : array_like of int, shape (n,)
        The training text, as ids.
    order : int
        1 (unigram), 2 (bigram), 3 (trigram) or more.
    vocab : int
        Number of characters (the tokenizer's ``vocab``).
    smoothing : {"witten-bell", "add-one"}, keyword-only

    Returns
    -------
    NgramModel

    Raises
    ------
    TypeError, ValueError
        As :func:`ngram_counts`, or if ``smoothing`` is unknown.

    Examples
    --------
    In "abab", b always follows a; add-one still leaves a share for a:

    >>> ngram_model([0, 1, 0, 1], 2, 2, smoothing="add-one").probs[0].tolist()
    [0.25, 0.75]
    >>> ngram_model([0, 1, 0, 1], 2, 2).probs[0].round(3).tolist()
    [0.167, 0.833]
    """
    if smoothing not in SMOOTHINGS:
        raise ValueError(f"smoothing must be one of {SMOOTHINGS}, got {smoothing!r}")
    order = check_positive_int(order, "order")
    counts = ngram_counts(ids, order, vocab).astype(np.float64)       # (V,) * order
    if order == 1 or smoothing == "add-one":
        return NgramModel(order, smoothing, (counts + 1) / (counts.sum(axis=-1, keepdims=True) + vocab))
    lower = ngram_model(ids, order - 1, vocab, smoothing=smoothing).probs   # (V,) * (order - 1)
    seen = counts.sum(axis=-1, keepdims=True)                          # (V,) * (order - 1) + (1,): C(h)
    kinds = (counts > 0).sum(axis=-1, keepdims=True)                   # T(h)
    backoff = np.broadcast_to(lower[None], counts.shape)               # P(c | h'), h' without h_1
    with np.errstate(invalid="ignore", divide="ignore"):
        probs = np.where(seen > 0, (counts + kinds * backoff) / (seen + kinds), backoff)
    return NgramModel(order, smoothing, probs)


def ngram_bits_per_character(model: NgramModel, ids) -> float:
    """Mean ``-log2 P(c_t | the order - 1 characters before it)`` over the text ``ids``.

    The first ``order - 1`` characters, which lack a full context, are not
    scored (2 of a held-out text of thousands, for a trigram).

    Parameters
    ----------
    model : NgramModel
    ids : array_like of int, shape (n,)
        At least ``order`` ids.

    Returns
    -------
    float

    Raises
    ------
    TypeError
        If ``model`` is not an NgramModel or the ids are not integers.
    ValueError
        If ``ids`` is too short or holds an id outside the vocabulary.

    Examples
    --------
    A unigram of two equally common characters spends one bit on each:

    >>> round(ngram_bits_per_character(ngram_model([0, 1], 1, 2), [0, 1, 1, 0]), 6)
    1.0
    """
    if not isinstance(model, NgramModel):
        raise TypeError(f"model must be an NgramModel (from ngram_model), got {type(model).__name__}")
    ids = _check_ids(ids, model.vocab)
    if ids.size < model.order:
        raise ValueError(f"ids must hold at least order={model.order} ids, got {ids.size}")
    runs = ids.size - model.order + 1
    index = tuple(ids[j:j + runs] for j in range(model.order))         # (runs,) each
    return float(-np.log2(model.probs[index]).mean())


def held_out_bits(train_ids, ids, order: int, vocab: int) -> float:
    """:func:`ngram_bits_per_character` of the Witten-Bell n-gram of ``train_ids``, for any order.

    The tables of :func:`ngram_model` hold ``vocab ** order`` numbers, too
    many past a trigram of a hundred characters. This function keeps only
    the runs of characters that occur in ``train_ids`` (sorted, and found by
    binary search) and only the probability of each character of ``ids``
    that came next, built up from the add-one unigram, one order at a time,
    by the same rule: ``P(c | h) = (C(h c) + T(h) P(c | h')) / (C(h) + T(h))``,
    or ``P(c | h')`` for a context never seen. Up to a trigram it gives the
    numbers of :func:`ngram_model` (a test holds it).

    Parameters
    ----------
    train_ids : array_like of int, shape (m,)
        The training text, as ids.
    ids : array_like of int, shape (n,)
        The text to score, at least ``order`` ids; its first ``order - 1``
        are read, not scored.
    order : int
        1 to 8.
    vocab : int

    Returns
    -------
    float

    Raises
    ------
    TypeError, ValueError
        If an argument has the wrong type or value, or ``ids`` is too short.

    Examples
    --------
    >>> train, text = [0, 1, 2, 0, 1, 2, 0, 1], [0, 1, 2, 0]
    >>> a = held_out_bits(train, text, 2, 3)
    >>> bool(np.isclose(a, ngram_bits_per_character(ngram_model(train, 2, 3), text)))
    True
    """
    order, vocab = check_positive_int(order, "order"), check_positive_int(vocab, "vocab")
    if order > 8:
        raise ValueError(f"order must be 1 to 8, got {order}")
    train, ids = _check_ids(train_ids, vocab, "train_ids"), _check_ids(ids, vocab)
    if ids.size < order:
        raise ValueError(f"ids must hold at least order={order} ids, got {ids.size}")
    runs = ids.size - order + 1
    target = ids[order - 1:]                                           # (runs,) the characters scored
    p = (np.bincount(train, minlength=vocab)[target] + 1) / (train.size + vocab)   # (runs,) add-one unigram
    for k in range(2, order + 1):
        seen, held = _runs(train, k, vocab), _runs(ids[order - k:], k, vocab)[:runs]   # run keys, base vocab
        pairs, c_hc = np.unique(seen, return_counts=True)              # each run h c and C(h c)
        contexts, c_h = np.unique(seen // vocab, return_counts=True)   # each h and C(h)
        t_h = np.unique(pairs // vocab, return_counts=True)[1]         # T(h), in the order of contexts
        C_hc, C_h, T_h = _lookup(pairs, c_hc, held), _lookup(contexts, c_h, held // vocab), \
            _lookup(contexts, t_h, held // vocab)
        p = np.where(C_h > 0, (C_hc + T_h * p) / np.maximum(C_h + T_h, 1), p)
    return float(-np.log2(p).mean())


def _runs(ids: np.ndarray, k: int, vocab: int) -> np.ndarray:
    """Each run of ``k`` characters of ``ids`` as one number in base ``vocab``: (n - k + 1,)."""
    n = ids.size - k + 1
    key = np.zeros(max(n, 0), dtype=np.int64)
    for j in range(k):
        key = key * vocab + ids[j:j + n]
    return key


def _lookup(keys: np.ndarray, values: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """``values`` at each of ``wanted`` in the sorted ``keys``; 0 where it is not there."""
    at = np.minimum(np.searchsorted(keys, wanted), keys.size - 1)
    return np.where(keys[at] == wanted, values[at], 0)


def bits_by_context(params, ids, sizes: WriterSizes, *, batch: int = 32) -> np.ndarray:
    """The writer's mean bits for the guesses made after ``t`` characters of context, for each ``t``.

    The text is cut into windows as in :func:`bits_per_character` (only the
    full ones); the guess at position ``t`` of a window has read the ``t + 1``
    characters from its start, so it had ``t`` characters before the one it
    reads last.

    Parameters
    ----------
    params : dict of str to array_like
    ids : array_like of int, shape (n,)
        At least ``n_positions + 1`` ids.
    sizes : WriterSizes
    batch : int, default 32, keyword-only

    Returns
    -------
    numpy.ndarray, shape (n_positions,)
        Entry ``t``: the mean ``-log2 P`` of the guesses with ``t``
        characters before the one last read.

    Raises
    ------
    TypeError, ValueError
        If ``ids`` is shorter than one window, or as :func:`bits_per_character`.

    Examples
    --------
    >>> from selfattention.writer.model import WriterSizes, init_writer
    >>> sizes = WriterSizes(vocab=16, n_positions=8, d_model=16, heads=2, layers=1, d_ff=32)
    >>> bits_by_context(init_writer(sizes, 0), np.arange(40) % 16, sizes).shape
    (8,)
    """
    params = check_writer_params(params, sizes)
    ids = _check_ids(ids, sizes.vocab)
    batch = check_positive_int(batch, "batch")
    n = sizes.n_positions
    starts = np.arange(0, ids.size - n, n)                             # (windows,) the full ones
    if starts.size == 0:
        raise ValueError(f"ids must hold at least n_positions + 1 = {n + 1} ids, got {ids.size}")
    total = np.zeros(n)
    for i in range(0, starts.size, batch):
        windows = ids[starts[i:i + batch, None] + np.arange(n + 1)]    # (b, n + 1)
        total += _window_nats(params, windows, sizes).sum(axis=0)
    return total / starts.size / math.log(2)


def bits_per_character(params, ids, sizes: WriterSizes, *, batch: int = 32) -> float:
    """The writer's mean ``-log2 P(next character)`` over a text, read in windows of its context.

    The text is cut into windows of ``n_positions + 1`` characters that
    overlap by one, as in training: each window's first ``n_positions`` are
    read and its last ``n_positions`` guessed, so every character but the
    first is scored once, with between 0 and ``n_positions - 1`` characters
    of context (the last window may be shorter).

    Parameters
    ----------
    params : dict of str to array_like
    ids : array_like of int, shape (n,)
        At least 2 ids.
    sizes : WriterSizes
    batch : int, default 32, keyword-only
        Windows per forward pass (memory, not the result).

    Returns
    -------
    float

    Raises
    ------
    TypeError, ValueError
        If ``ids`` is not a 1-D sequence of at least 2 ids of the vocabulary,
        or as :func:`~selfattention.writer.model.writer_forward`.

    Examples
    --------
    An untrained writer spends about ``log2 vocab`` bits on each character:

    >>> from selfattention.writer.model import WriterSizes, init_writer
    >>> sizes = WriterSizes(vocab=16, n_positions=8, d_model=16, heads=2, layers=1, d_ff=32)
    >>> round(bits_per_character(init_writer(sizes, 0), np.arange(40) % 16, sizes), 1)
    4.0
    """
    params = check_writer_params(params, sizes)
    ids = _check_ids(ids, sizes.vocab)
    batch = check_positive_int(batch, "batch")
    if ids.size < 2:
        raise ValueError(f"ids must hold at least 2 ids (one read, one guessed), got {ids.size}")
    n = sizes.n_positions
    starts = np.arange(0, ids.size - 1, n)                             # (windows,)
    full = starts[starts + n + 1 <= ids.size]
    total = 0.0
    for i in range(0, full.size, batch):
        windows = ids[full[i:i + batch, None] + np.arange(n + 1)]      # (b, n + 1)
        total += _nats(params, windows, sizes)
    if full.size < starts.size:                                        # the last, shorter window
        total += _nats(params, ids[None, starts[-1]:], sizes)
    return total / (ids.size - 1) / math.log(2)


def _nats(params, windows: np.ndarray, sizes: WriterSizes) -> float:
    """The summed ``-ln P`` of the last ``n`` characters of each ``(b, n + 1)`` window."""
    return float(_window_nats(params, windows, sizes).sum())


def _window_nats(params, windows: np.ndarray, sizes: WriterSizes) -> np.ndarray:
    """``-ln P`` of each of the last ``n`` characters of each ``(b, n + 1)`` window: (b, n)."""
    logits, _ = writer_forward(params, windows[:, :-1], sizes)         # (b, n, vocab)
    return _next_nats(logits, windows[:, 1:])


def _next_nats(logits, targets) -> np.ndarray:
    """``-ln P(target)`` at each position, from the logits: a log-softmax, stable for large logits.

    Parameters
    ----------
    logits : numpy.ndarray, shape (..., vocab)
    targets : numpy.ndarray of int, shape (...)
        The id that came next at each position.

    Returns
    -------
    numpy.ndarray, shape (...)

    Examples
    --------
    Two even logits: each costs ln 2.

    >>> bool(np.isclose(_next_nats(np.zeros((1, 2)), np.array([1]))[0], np.log(2)))
    True
    """
    z = logits - logits.max(axis=-1, keepdims=True)                    # (..., vocab)
    log_p = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    return -np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]
