"""An induction circuit wired by hand: two heads whose queries and keys the reader writes.

The exercise "Wire it by hand" (after the exercises of Elhage et al., 2021):
a two-layer attention-only model whose residual stream is made of one-hot
blocks, small enough to read every number. The reader writes the query and
key matrices of a previous-token head (layer 0) and of an induction head
(layer 1); everything else is fixed here. The model reads the same
sequences as the trained model of :mod:`selfattention.induction`
(:data:`V` = 52 symbols, :data:`N` = 32 positions), so both take the same
classic test.

The residual stream
-------------------
Each position's stream is :data:`D` = 136 numbers, three one-hot blocks::

    [ symbol s (V = 52) | position i (N = 32) | previous symbol (V = 52) ]
      SYMBOL              POSITION              PREVIOUS

The embedding writes the first two blocks; the third is empty until layer 0
writes it. :func:`sym`, :func:`pos` and :func:`prev` give the row of one
symbol or position in the stream, and the slices :data:`SYMBOL`,
:data:`POSITION` and :data:`PREVIOUS` the rows of a whole block.

The two layers
--------------
Both heads are causal, and both score ``q @ k.T * SHARPNESS``, with
``q = x @ W_Q`` and ``k = x @ W_K``: a one-hot that matches another scores 1,
which :data:`SHARPNESS` (20) turns into about e^20 times the weight of a key
that scores 0. So the reader writes 1s, and a head that matches one key puts
all its weight there.

* Layer 0 reads the embedding with the reader's ``W_Q0`` and ``W_K0``. Its
  value and output are fixed: it copies the SYMBOL block of the position it
  attends to into the PREVIOUS block of its own position.
* Layer 1 reads the stream that layer 0 wrote, with the reader's ``W_Q1`` and
  ``W_K1``. Its value and output are fixed too: it copies the SYMBOL block of
  the position it attends to into the logits, times :data:`SHARPNESS` (the
  unembedding reads what it copied as its guess for the next symbol).

``W_Q`` and ``W_K`` are (D, d_head) matrices, one row per number of the stream.
With d_head = D (the starter's square matrices) a query and a key are written
in the stream's own coordinates: ``W_Q0[pos(i), pos(i - 1)] = 1`` says
"position i asks for position i - 1", ``W_K0[pos(j), pos(j)] = 1`` says
"position j answers to its own position". Any d_head works, as long as a
layer's two matrices have the same.

Unlike the trained model (whose positions enter layer 0's queries and keys
only), the stream here carries the position to layer 1 too; the classic test
draws its repeats at every length and offset, so no wiring by position alone
can pass it.

The classic test
----------------
:func:`classic_test` gives the model the classic test of Olsson et al.
(2022), as :func:`selfattention.induction.task.classic_batch` draws it:
random symbols in which ``k`` of them are repeated at once, for every ``k``
from 4 to N / 2 and every offset that fits. It reports the layer-1 head's
induction score (its mean weight, over the queries ``t`` of the second repeat,
on ``t - k + 1``, the position after the earlier occurrence of the current
symbol), the layer-0 head's previous-token score (its mean weight on
``i - 1``) and the loss ratio (the second repeat's loss over the first's).

A head that matches one symbol cannot score 1: among 52 symbols the current
one also stands, by chance, before other keys, which share the weight.
:func:`matching_ceiling` is what such a head scores at best (about 0.86 on
this test); the checker compares the reader's score with it.

Position 0 has no previous symbol: layer 0's head there can only look at
position 0 itself, so its PREVIOUS block holds its own symbol, and a later
query of that symbol also matches key 0 (the reference loses about 1% of
its score to it).

Examples
--------
The exercise: start from zeros, fill in the four matrices, and check.

>>> import numpy as np
>>> import selfattention as sa
>>> from selfattention.wiring import D, N, V, POSITION, PREVIOUS, SYMBOL
>>> W_Q0, W_K0, W_Q1, W_K1 = (np.zeros((D, D)) for _ in range(4))
>>> W_Q0[POSITION, POSITION] = np.eye(N, k=-1)   # layer 0: position i asks for position i - 1 ...
>>> W_K0[POSITION, POSITION] = np.eye(N)         # ... and position j answers to its own position
>>> W_Q1[SYMBOL, SYMBOL] = np.eye(V)             # layer 1: symbol s asks for s ...
>>> W_K1[PREVIOUS, SYMBOL] = np.eye(V)           # ... in the previous symbol of each key
>>> print(sa.check_wiring(W_Q0, W_K0, W_Q1, W_K1))  # doctest: +ELLIPSIS
✓ Right: the induction head scores 0.857 on the classic test, ...

A first attempt whose induction key reads the current symbol:

>>> W_K1 = np.zeros((D, D))
>>> W_K1[SYMBOL, SYMBOL] = np.eye(V)             # the key offers its own symbol
>>> print(sa.check_wiring(W_Q0, W_K0, W_Q1, W_K1))  # doctest: +ELLIPSIS
✗ Your induction head finds the earlier occurrence of the current symbol itself ...
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from numbers import Integral

import numpy as np

from ._validate import as_float_array, check_positive_int
from .attention import scaled_dot_product_attention

#: How many symbols (the trained model's ``VOCAB``: ``A`` to ``Z``, then ``a`` to ``z``).
V = 52
#: How many positions a sequence has at most (the trained model's ``N_POSITIONS``).
N = 32
#: The rows of the stream's first block: the current symbol, one-hot.
SYMBOL = slice(0, V)
#: The rows of the second block: the position, one-hot.
POSITION = slice(V, V + N)
#: The rows of the third block: the previous symbol, one-hot, which layer 0 writes.
PREVIOUS = slice(V + N, 2 * V + N)
#: The length of the stream: V + N + V.
D = 2 * V + N
#: The factor of every score, and of the logits: a match of two one-hots (1) against none (0) is e^20 to 1.
SHARPNESS = 20.0
#: The reader's four matrices, in the order the checker takes them.
NAMES = ("W_Q0", "W_K0", "W_Q1", "W_K1")
#: The classic test's default: random sequences per (k, offset) cell.
CLASSIC_SEQUENCES = 2
#: The classic test's default seed (the research code's).
CLASSIC_SEED = 2022


def _index(value, top: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be a whole number from 0 to {top - 1}, got {value!r}")
    if not 0 <= value < top:
        raise ValueError(f"{name} must be a whole number from 0 to {top - 1}, got {value}")
    return int(value)


def sym(s: int) -> int:
    """The row of symbol ``s`` in the SYMBOL block of the stream.

    Parameters
    ----------
    s : int
        A symbol, 0 to ``V - 1`` (``A`` is 0, ``z`` is 51).

    Returns
    -------
    int

    Raises
    ------
    TypeError, ValueError
        If ``s`` is not a whole number from 0 to 51.

    Examples
    --------
    >>> sym(0), sym(51)
    (0, 51)
    """
    return SYMBOL.start + _index(s, V, "s")


def pos(i: int) -> int:
    """The row of position ``i`` in the POSITION block of the stream.

    Parameters
    ----------
    i : int
        A position, 0 to ``N - 1``.

    Returns
    -------
    int

    Raises
    ------
    TypeError, ValueError
        If ``i`` is not a whole number from 0 to 31.

    Examples
    --------
    >>> pos(0), pos(31)
    (52, 83)
    """
    return POSITION.start + _index(i, N, "i")


def prev(s: int) -> int:
    """The row of symbol ``s`` in the PREVIOUS block: "the symbol before me is s", once layer 0 wrote it.

    Parameters
    ----------
    s : int
        A symbol, 0 to ``V - 1``.

    Returns
    -------
    int

    Raises
    ------
    TypeError, ValueError
        If ``s`` is not a whole number from 0 to 51.

    Examples
    --------
    >>> prev(0), prev(51)
    (84, 135)
    """
    return PREVIOUS.start + _index(s, V, "s")


def check_wiring_weights(weights) -> dict[str, np.ndarray]:
    """The four matrices as float64, or an error that names the one at fault.

    Parameters
    ----------
    weights : mapping of str to array_like
        ``W_Q0``, ``W_K0``, ``W_Q1`` and ``W_K1``, each (D, d_head), the two
        of a layer with the same d_head.

    Returns
    -------
    dict of str to numpy.ndarray

    Raises
    ------
    TypeError
        If ``weights`` is not a mapping or a matrix is not real numbers.
    ValueError
        If a matrix is missing, has the wrong shape, or holds NaN or inf.

    Examples
    --------
    >>> W = check_wiring_weights({name: np.zeros((D, 4), np.float32) for name in NAMES})
    >>> W["W_Q1"].dtype, W["W_Q1"].shape
    (dtype('float64'), (136, 4))
    >>> check_wiring_weights({**W, "W_K1": np.zeros((V, V))})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: W_K1 must have shape (136, d_head), one row per number of the stream ..., got (52, 52)
    """
    if not isinstance(weights, Mapping):
        raise TypeError(f"weights must be a dict of {', '.join(NAMES)}, got {type(weights).__name__}")
    missing = [name for name in NAMES if name not in weights]
    if missing:
        raise ValueError(f"weights must have {', '.join(NAMES)}; missing {', '.join(missing)}")
    out = {}
    for name in NAMES:
        W = as_float_array(weights[name], name).astype(np.float64)
        if W.ndim != 2 or W.shape[0] != D or W.shape[1] < 1:
            raise ValueError(f"{name} must have shape ({D}, d_head), one row per number of the stream "
                             f"(symbol 0-{V - 1}, position {V}-{V + N - 1}, previous symbol {V + N}-{D - 1}), "
                             f"got {W.shape}")
        out[name] = W
    for layer in (0, 1):
        q, k = out[f"W_Q{layer}"], out[f"W_K{layer}"]
        if q.shape != k.shape:
            raise ValueError(f"W_K{layer} has d_head={k.shape[1]} but W_Q{layer} has d_head={q.shape[1]}: a query "
                             f"and a key must have the same length (W_Q{layer}: {q.shape}, W_K{layer}: {k.shape})")
    return out


def embed(tokens) -> np.ndarray:
    """The stream before layer 0: the one-hot symbol and the one-hot position; PREVIOUS is empty.

    Parameters
    ----------
    tokens : array_like of int, shape (..., n)
        Symbols 0 to ``V - 1``, ``n`` at most ``N``.

    Returns
    -------
    numpy.ndarray, shape (..., n, D)

    Raises
    ------
    TypeError, ValueError
        If ``tokens`` are not whole numbers from 0 to 51, or there are
        more than 32 of them in a row.

    Examples
    --------
    >>> x = embed([2, 0])
    >>> np.flatnonzero(x[1]).tolist(), [sym(0), pos(1)]
    ([0, 53], [0, 53])
    """
    tokens = np.asarray(tokens)
    if tokens.dtype == bool or not np.issubdtype(tokens.dtype, np.integer):
        raise TypeError(f"tokens must be whole numbers (symbols 0 to {V - 1}), got dtype {tokens.dtype}")
    if tokens.ndim < 1 or not 1 <= tokens.shape[-1] <= N:
        raise ValueError(f"tokens must have shape (..., n) with 1 <= n <= {N}, got {tokens.shape}")
    if tokens.min() < 0 or tokens.max() >= V:
        raise ValueError(f"tokens must be symbols 0 to {V - 1}, got {tokens.min()} to {tokens.max()}")
    n = tokens.shape[-1]
    x = np.zeros((*tokens.shape, D))                                    # (..., n, D)
    x[..., SYMBOL] = np.eye(V)[tokens]                                  # (..., n, V)
    x[..., POSITION] = np.eye(N)[:n]                                    # (n, N), the same in every row
    return x


def copy_head(x: np.ndarray, W_Q: np.ndarray, W_K: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One causal head whose value is the SYMBOL block: what it copies, and its weights.

    ``softmax(SHARPNESS * q @ k.T)`` with the causal mask, ``q = x @ W_Q``,
    ``k = x @ W_K``; the output is the weights times each key's one-hot symbol.

    Parameters
    ----------
    x : numpy.ndarray, shape (..., n, D)
        The stream the head reads.
    W_Q, W_K : numpy.ndarray, shape (D, d_head)

    Returns
    -------
    copied : numpy.ndarray, shape (..., n, V)
        The symbols each position copies, weighted.
    weights : numpy.ndarray, shape (..., n, n)

    Examples
    --------
    >>> W = wired_weights()
    >>> copied, weights = copy_head(embed([2, 0, 1]), W["W_Q0"], W["W_K0"])
    >>> weights.round(3).tolist()
    [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    >>> copied.argmax(axis=-1).tolist()    # the symbol before each (the first has none: its own)
    [2, 2, 0]
    """
    q, k = x @ W_Q, x @ W_K                                             # (..., n, d_head) each
    return scaled_dot_product_attention(q, k, x[..., SYMBOL], causal=True, scale=SHARPNESS,
                                        return_weights=True)            # (..., n, V), (..., n, n)


def wired_forward(weights, tokens) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """The hand-wired model: logits for the next symbol, and each layer's attention weights.

    Parameters
    ----------
    weights : mapping of str to array_like
        ``W_Q0``, ``W_K0``, ``W_Q1``, ``W_K1``, each (D, d_head).
    tokens : array_like of int, shape (..., n)
        Symbols 0 to ``V - 1``, ``n`` at most ``N``.

    Returns
    -------
    logits : numpy.ndarray, shape (..., n, V)
        Row ``t`` scores the symbol at ``t + 1``.
    weights : tuple of two numpy.ndarray, shape (..., n, n)
        Layer 0's head, then layer 1's (rows: the position that looks).

    Raises
    ------
    TypeError, ValueError
        If a matrix or the tokens are not what they should be (see
        :func:`check_wiring_weights` and :func:`embed`).

    Examples
    --------
    After ``D A B C A``, the induction head of :func:`wired_weights` looks at
    position 2 (the ``B`` that followed the earlier ``A``) and guesses ``B``:

    >>> logits, (w0, w1) = wired_forward(wired_weights(), [3, 0, 1, 2, 0])
    >>> int(w1[4].argmax()), int(logits[4].argmax())
    (2, 1)
    """
    W = check_wiring_weights(weights)
    x = embed(tokens)                                                   # (..., n, D)
    previous, w0 = copy_head(x, W["W_Q0"], W["W_K0"])                   # (..., n, V), (..., n, n)
    x = x.copy()
    x[..., PREVIOUS] = previous                                         # layer 0 writes the previous symbol
    copied, w1 = copy_head(x, W["W_Q1"], W["W_K1"])                     # (..., n, V), (..., n, n)
    return SHARPNESS * copied, (w0, w1)


def wired_weights() -> dict[str, np.ndarray]:
    """The reference answer: a previous-token head in layer 0, an induction head in layer 1.

    Layer 0: the query of position ``i`` is position ``i - 1``, the key of
    position ``j`` is ``j``, so ``i`` looks at ``i - 1``. Layer 1: the query of
    a position holding ``s`` is ``s``, the key of position ``j`` is its
    previous symbol, so ``t`` looks at every position that followed an
    earlier ``s``.

    Returns
    -------
    dict of str to numpy.ndarray, each shape (D, D)

    Examples
    --------
    >>> W = wired_weights()
    >>> W["W_Q0"][pos(5), pos(4)], W["W_K1"][prev(7), sym(7)]
    (np.float64(1.0), np.float64(1.0))
    """
    W_Q0, W_K0, W_Q1, W_K1 = (np.zeros((D, D)) for _ in NAMES)
    W_Q0[POSITION, POSITION] = np.eye(N, k=-1)   # position i asks for position i - 1
    W_K0[POSITION, POSITION] = np.eye(N)         # position j answers to its own position
    W_Q1[SYMBOL, SYMBOL] = np.eye(V)             # symbol s asks for s ...
    W_K1[PREVIOUS, SYMBOL] = np.eye(V)           # ... in the previous symbol of each key
    return dict(zip(NAMES, (W_Q0, W_K0, W_Q1, W_K1)))


@functools.lru_cache(maxsize=4)
def _classic_sequences(ks: tuple, n_sequences: int, seed: int):
    from .induction.task import Batch, classic_batch  # lazy: the trained model's package, loaded when used
    rng = np.random.default_rng(seed)
    parts = [classic_batch(k, offset, n_sequences, rng, N, V) for k in ks for offset in range(N - 2 * k + 1)]
    return Batch(*(np.concatenate(field) for field in zip(*parts)))


def classic_sequences(ks=None, n_sequences: int = CLASSIC_SEQUENCES, seed: int = CLASSIC_SEED):
    """The classic test's sequences: for each ``k`` in ``ks`` and each offset that fits, ``n_sequences``.

    Drawn by :func:`selfattention.induction.task.classic_batch`, one
    generator for all, in the order of ``k`` then offset.

    Parameters
    ----------
    ks : iterable of int, optional
        The repeats' lengths; by default 4 to ``N // 2`` (4 to 16).
    n_sequences : int, default 2
        Sequences per (k, offset).
    seed : int, default 2022

    Returns
    -------
    selfattention.induction.task.Batch
        ``tokens`` (B, N), and the masks ``first``, ``second`` and the
        ``key`` ``t - k + 1`` of each query of the second repeat.

    Raises
    ------
    TypeError, ValueError
        If a ``k`` does not fit twice in 32 positions or a count is not positive.

    Examples
    --------
    >>> batch = classic_sequences(ks=[16], n_sequences=2)
    >>> batch.tokens.shape, bool((batch.tokens[:, :16] == batch.tokens[:, 16:]).all())
    ((2, 32), True)
    """
    from .induction.task import CLASSIC_SHORTEST  # lazy: the trained model's package, loaded when used
    ks = tuple(range(CLASSIC_SHORTEST, N // 2 + 1)) if ks is None else tuple(ks)
    if not ks:
        raise ValueError("ks must hold at least one repeat length")
    for k in ks:
        if check_positive_int(k, "ks") < 2 or 2 * k > N:
            raise ValueError(f"ks must be lengths from 2 to {N // 2} (a repeat of k fits twice in {N}), got {k}")
    if isinstance(seed, bool) or not isinstance(seed, Integral) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0, got {seed!r}")
    return _classic_sequences(tuple(int(k) for k in ks), check_positive_int(n_sequences, "n_sequences"), int(seed))


def matching_ceiling(batch) -> float:
    """The best induction score of a head that matches one symbol: its weight split over every look-alike.

    For a query ``t`` of the second repeat, every key ``j >= 1`` whose
    previous symbol equals the current one (``tokens[j - 1] == tokens[t]``)
    looks the same to such a head: the right key ``t - k + 1`` and any chance
    repeat. Spread evenly over them, the right one gets ``1 / count``; this
    is the mean of that over the queries.

    Parameters
    ----------
    batch : selfattention.induction.task.Batch

    Returns
    -------
    float

    Examples
    --------
    >>> round(matching_ceiling(classic_sequences()), 2)
    0.86
    """
    tokens = np.asarray(batch.tokens)                                   # (B, n)
    b, t = np.nonzero(batch.second)                                     # the queries
    n = tokens.shape[-1]
    before = np.arange(1, n)[None, :] <= t[:, None]                     # (queries, n - 1): keys j = 1..t
    alike = (tokens[b, :-1] == tokens[b, t][:, None]) & before          # tokens[j - 1] == tokens[t]
    return float((1.0 / alike.sum(axis=1)).mean())


def classic_scores(batch, logits: np.ndarray, weights) -> dict[str, float]:
    """Where the two heads look on the classic test, and the two repeats' losses.

    Parameters
    ----------
    batch : selfattention.induction.task.Batch
        The classic test's sequences.
    logits : numpy.ndarray, shape (B, n, V)
    weights : (numpy.ndarray, numpy.ndarray), each shape (B, n, n)
        Layer 0's and layer 1's attention weights, as :func:`wired_forward` returns them.

    Returns
    -------
    dict of str to float
        Over the queries ``t`` of the second repeat, the layer-1 head's mean
        weight on ``t - k + 1`` (``"induction"``) and on ``t - k``, the earlier
        occurrence itself (``"earlier"``); over the positions ``i >= 1``, the layer-0 head's mean weight on
        ``i - 1`` (``"previous_token"``) and on ``i`` (``"current"``); the
        mean loss of the predictions in the first repeat (``"first"``) and in
        the second (``"second"``), their ``"ratio"`` (second / first), and
        the :func:`matching_ceiling`.

    Examples
    --------
    >>> batch = classic_sequences()
    >>> scores = classic_scores(batch, *wired_forward(wired_weights(), batch.tokens))
    >>> round(scores["previous_token"], 3), round(scores["earlier"], 2)
    (1.0, 0.01)
    """
    w0, w1 = weights
    tokens = np.asarray(batch.tokens)
    z = logits[..., :-1, :] - logits[..., :-1, :].max(axis=-1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))           # (B, n - 1, V)
    nll = -np.take_along_axis(log_p, tokens[:, 1:, None], axis=-1)[..., 0]   # (B, n - 1)
    b, t = np.nonzero(batch.second)
    j = batch.key[b, t]                                                 # t - k + 1
    i = np.arange(1, tokens.shape[-1])
    first, second = float(nll[batch.first].mean()), float(nll[batch.second].mean())
    return {"induction": float(w1[b, t, j].mean()), "earlier": float(w1[b, t, j - 1].mean()),
            "previous_token": float(w0[:, i, i - 1].mean()), "current": float(w0[:, i, i].mean()),
            "first": first, "second": second, "ratio": second / first, "ceiling": matching_ceiling(batch)}


def classic_test(weights, ks=None, n_sequences: int = CLASSIC_SEQUENCES, seed: int = CLASSIC_SEED) -> dict[str, float]:
    """The classic test of the hand-wired model: :func:`classic_scores` on :func:`classic_sequences`.

    Parameters
    ----------
    weights : mapping of str to array_like
        ``W_Q0``, ``W_K0``, ``W_Q1``, ``W_K1``.
    ks, n_sequences, seed
        As :func:`classic_sequences` takes them.

    Returns
    -------
    dict of str to float
        ``"induction"`` (layer 1's weight on ``t - k + 1``),
        ``"previous_token"`` (layer 0's weight on ``i - 1``), ``"ratio"``
        (the second repeat's loss over the first's) and the others of
        :func:`classic_scores`.

    Raises
    ------
    TypeError, ValueError
        If a matrix is not (D, d_head) real numbers, or the test's sizes are wrong.

    Examples
    --------
    >>> scores = classic_test(wired_weights())
    >>> round(scores["induction"], 3), round(scores["previous_token"], 3), bool(scores["ratio"] < 0.1)
    (0.857, 1.0, True)
    """
    batch = classic_sequences(ks, n_sequences, seed)
    logits, weights_ = wired_forward(weights, batch.tokens)
    return classic_scores(batch, logits, weights_)


__all__ = [
    "CLASSIC_SEED",
    "CLASSIC_SEQUENCES",
    "D",
    "N",
    "NAMES",
    "POSITION",
    "PREVIOUS",
    "SHARPNESS",
    "SYMBOL",
    "V",
    "check_wiring_weights",
    "classic_scores",
    "classic_sequences",
    "classic_test",
    "copy_head",
    "embed",
    "matching_ceiling",
    "pos",
    "prev",
    "sym",
    "wired_forward",
    "wired_weights",
]
