"""Writing one token at a time: a tiny causal decoder, its KV cache, and what the cache costs.

The chapter "One word at a time" uses these parts:

* :func:`~selfattention.tiny_decoder`: a causal decoder with fixed, seeded weights and no
  training: embeddings and positions, ``layers`` blocks of causal
  multi-head attention (with :func:`~selfattention.split_heads` and
  :func:`~selfattention.concat_heads`), each with a residual and a small
  MLP, then an output projection to one score (logit) per token of the
  vocabulary;
* :func:`~selfattention.decoder_forward`: one full causal pass over a whole sequence,
  recomputing every key and value;
* :class:`~selfattention.KVCache`: the keys and values of every layer kept from earlier
  steps, shape ``(layers, 2, kv_heads, n, d_head)``, either growing up to
  a capacity or a ring buffer of the last ``window + 1`` positions;
* :func:`~selfattention.decode_step`: feed new tokens (one, or a chunk) against a cache;
  the queries are the last ``L`` of ``S`` positions, so the causal mask is
  aligned to the bottom-right corner;
* :func:`~selfattention.generate`: greedy generation, with or without the cache;
* :func:`~selfattention.grouped_query_attention`: several query heads share one key/value
  head (multi-query attention when ``kv_heads = 1``);
* :func:`~selfattention.kv_cache_bytes` and :data:`~selfattention.generation.PUBLISHED`: the memory formula
  ``2 * layers * kv_heads * d_head * n * bytes`` and three published
  configurations;
* :func:`~selfattention.scores_per_step`: how many scores the step that reads ``t``
  tokens (and picks token ``t + 1``) computes, with and without the cache.

Matrices multiply from the right (``x @ w_q``), as in the rest of the package.

Examples
--------
Decoding with a cache gives the logits of the full causal pass:

>>> import numpy as np
>>> model = tiny_decoder()
>>> tokens = [1, 5, 2, 7]
>>> cache = KVCache.for_model(model, capacity=8)
>>> steps = np.vstack([decode_step(model, [t], cache) for t in tokens])  # (4, vocab)
>>> bool(np.allclose(steps, decoder_forward(model, tokens)))
True
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np

from ._validate import as_float_array, broadcast_shape, check_flag, check_grouped_mask, check_positive_int
from .attention import scaled_dot_product_attention
from .bert import gelu
from .causal_alignment import causal_mask_bottom_right
from .cost import best_time, dtype_bytes
from .multihead import concat_heads, split_heads
from .positions import sinusoidal_positions
from .sparse import sliding_window_mask

#: The tiny decoder's vocabulary: token id ``i`` is the word ``VOCAB[i]``.
VOCAB = ("the", "cat", "dog", "car", "sat", "ran", "on", "mat", "is", "red", "a", ".")


class Block(NamedTuple):
    """The weights of one decoder block.

    ``w_q`` and ``w_o`` are ``(d_model, d_model)``; ``w_k`` and ``w_v`` are
    ``(d_model, kv_heads * d_head)``; the MLP is ``w_1`` ``(d_model, d_ff)``
    then ``w_2`` ``(d_ff, d_model)``.
    """

    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray
    w_o: np.ndarray
    w_1: np.ndarray
    w_2: np.ndarray


class TinyDecoder(NamedTuple):
    """A tiny causal decoder: what :func:`tiny_decoder` returns.

    ``embed`` is ``(vocab, d_model)``, ``blocks`` one ``Block`` per
    layer, ``w_out`` ``(d_model, vocab)``; ``h`` query heads share
    ``kv_heads`` key/value heads.
    """

    embed: np.ndarray
    blocks: tuple
    w_out: np.ndarray
    h: int
    kv_heads: int

    @property
    def vocab(self) -> int:
        """Number of tokens the model knows."""
        return self.embed.shape[0]

    @property
    def d_model(self) -> int:
        """Length of a token's vector."""
        return self.embed.shape[1]

    @property
    def d_head(self) -> int:
        """Length of one head's query, key and value: ``d_model / h``."""
        return self.d_model // self.h

    @property
    def layers(self) -> int:
        """Number of blocks."""
        return len(self.blocks)


def _check_heads(h, kv_heads, d_model) -> tuple[int, int]:
    h = check_positive_int(h, "h")
    kv_heads = h if kv_heads is None else check_positive_int(kv_heads, "kv_heads")
    if d_model % h:
        raise ValueError(f"h={h} does not divide d_model={d_model}")
    if d_model % 2:
        raise ValueError(f"d_model={d_model} is odd: the sinusoidal positions fill it in (sin, cos) pairs")
    if h % kv_heads:
        raise ValueError(f"kv_heads={kv_heads} does not divide the h={h} query heads: "
                         "each key/value head serves h / kv_heads of them")
    return h, kv_heads


def tiny_decoder(*, vocab: int = 12, d_model: int = 16, h: int = 4, kv_heads: int | None = None,
                 layers: int = 2, d_ff: int = 32, seed: int = 15) -> TinyDecoder:
    """A tiny causal decoder with fixed random weights (seeded, never trained).

    Every matrix is drawn from a normal distribution and divided by the
    square root of its number of rows, so that the numbers stay near 1
    from layer to layer.

    Parameters
    ----------
    vocab : int, default 12, keyword-only
        Number of tokens; the default 12 are the words of :data:`~selfattention.generation.VOCAB`.
    d_model : int, default 16, keyword-only
        Length of a token's vector.
    h : int, default 4, keyword-only
        Number of query heads; must divide ``d_model``.
    kv_heads : int, optional, keyword-only
        Number of key/value heads; must divide ``h``. Defaults to ``h``
        (multi-head attention); 1 is multi-query attention.
    layers : int, default 2, keyword-only
        Number of blocks.
    d_ff : int, default 32, keyword-only
        Width of the MLP's hidden layer.
    seed : int, default 15, keyword-only
        Seed of the random weights.

    Returns
    -------
    TinyDecoder

    Raises
    ------
    TypeError
        If a size is not an integer.
    ValueError
        If a size is not positive, ``d_model`` is odd, ``h`` does not divide
        ``d_model`` or ``kv_heads`` does not divide ``h``.

    Examples
    --------
    >>> model = tiny_decoder()
    >>> model.layers, model.h, model.kv_heads, model.d_head, model.vocab
    (2, 4, 4, 4, 12)
    >>> tiny_decoder(h=4, kv_heads=3)
    Traceback (most recent call last):
    ...
    ValueError: kv_heads=3 does not divide the h=4 query heads: each key/value head serves h / kv_heads of them
    """
    vocab, d_model, layers, d_ff = (check_positive_int(n, name) for n, name in
                                    ((vocab, "vocab"), (d_model, "d_model"), (layers, "layers"), (d_ff, "d_ff")))
    h, kv_heads = _check_heads(h, kv_heads, d_model)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an integer, got {seed!r}")
    rng = np.random.default_rng(seed)
    d_kv = kv_heads * (d_model // h)

    def matrix(rows, cols):
        return rng.standard_normal((rows, cols)) / np.sqrt(rows)

    blocks = tuple(Block(matrix(d_model, d_model), matrix(d_model, d_kv), matrix(d_model, d_kv),
                         matrix(d_model, d_model), matrix(d_model, d_ff), matrix(d_ff, d_model))
                   for _ in range(layers))
    return TinyDecoder(rng.standard_normal((vocab, d_model)), blocks, matrix(d_model, vocab), h, kv_heads)


def _check_model(model) -> TinyDecoder:
    if not isinstance(model, TinyDecoder):
        raise TypeError(f"model must be a TinyDecoder (from tiny_decoder), got {type(model).__name__}")
    return model


def _check_tokens(tokens, vocab: int) -> np.ndarray:
    arr = np.asarray(tokens)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"tokens must be a non-empty 1-D sequence of token ids, got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise TypeError(f"tokens must be integers (token ids), got dtype {arr.dtype}")
    if arr.min() < 0 or arr.max() >= vocab:
        raise ValueError(f"tokens must be ids in 0..{vocab - 1}, got {arr.min()}..{arr.max()}")
    return arr.astype(np.int64)


def grouped_query_attention(q, k, v, *, mask=None, causal: bool = False, scale=None):
    """Attention where groups of query heads share one key/value head.

    ``q`` has ``h`` heads and ``k``, ``v`` have ``kv_heads``; query head
    ``i`` reads key/value head ``i // (h / kv_heads)``. With
    ``kv_heads = h`` this is multi-head attention; with ``kv_heads = 1``
    it is multi-query attention. The result equals multi-head attention
    with each key/value head repeated ``h / kv_heads`` times, but the keys
    and values are never copied.

    Parameters
    ----------
    q : array_like, shape (..., h, L, d_head)
        Queries of every head.
    k, v : array_like, shape (..., kv_heads, S, d_head)
        Keys and values of every key/value head.
    mask, causal, scale
        As in :func:`~selfattention.scaled_dot_product_attention`; the
        mask broadcasts to ``(..., h, L, S)``, one per query head.

    Returns
    -------
    numpy.ndarray, shape (..., h, L, d_head)

    Raises
    ------
    TypeError
        If an input is not numeric.
    ValueError
        If an input has fewer than 3 dimensions, ``kv_heads`` does not
        divide ``h``, ``k`` and ``v`` differ in shape, or as in
        :func:`~selfattention.scaled_dot_product_attention`.

    Examples
    --------
    Four query heads share two key/value heads; it equals repeating them:

    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.standard_normal((4, 3, 2)), rng.standard_normal((2, 5, 2)), rng.standard_normal((2, 5, 2))
    >>> out = grouped_query_attention(q, k, v)
    >>> out.shape
    (4, 3, 2)
    >>> from selfattention import scaled_dot_product_attention
    >>> bool(np.allclose(out, scaled_dot_product_attention(q, np.repeat(k, 2, axis=0), np.repeat(v, 2, axis=0))))
    True
    """
    q, k, v = as_float_array(q, "q"), as_float_array(k, "k"), as_float_array(v, "v")
    for name, a in (("q", q), ("k", k), ("v", v)):
        if a.ndim < 3:
            raise ValueError(f"{name} must have shape (..., heads, rows, d_head), got {a.shape}")
    if k.shape != v.shape:
        raise ValueError(f"k and v must have the same shape, got k: {k.shape}, v: {v.shape}")
    h, kv_heads = q.shape[-3], k.shape[-3]
    if h % kv_heads:
        raise ValueError(f"kv_heads={kv_heads} does not divide the h={h} query heads "
                         f"(q: {q.shape}, k: {k.shape})")
    group = h // kv_heads
    *lead, _, L, d_head = q.shape
    batch = broadcast_shape(q.shape[:-3], k.shape[:-3], "leading dimensions of q and k")
    mask = check_grouped_mask(mask, L, k.shape[-2], batch, h, kv_heads)  # (..., kv_heads, group, L, S) or fewer
    grouped = q.reshape(*lead, kv_heads, group, L, d_head)  # (..., kv_heads, group, L, d_head)
    out = scaled_dot_product_attention(grouped, k[..., None, :, :], v[..., None, :, :],  # K, V shared by a group
                                       mask=mask, causal=causal, scale=scale)  # (..., kv_heads, group, L, d_head)
    return out.reshape(*lead, h, L, out.shape[-1])  # (..., h, L, d_head)


def _mlp(x, block: Block) -> np.ndarray:
    return gelu(x @ block.w_1) @ block.w_2  # (L, d_model)


def decoder_forward(model: TinyDecoder, tokens, *, causal: bool = True, window: int | None = None) -> np.ndarray:
    """One full pass over the whole sequence: recompute every key and value.

    Each block repeats each key/value head ``h / kv_heads`` times and calls
    :func:`~selfattention.scaled_dot_product_attention` on the
    ``(h, n, d_head)`` slices of :func:`~selfattention.split_heads`.

    Parameters
    ----------
    model : TinyDecoder
        From :func:`tiny_decoder`.
    tokens : sequence of int, length n
        Token ids.
    causal : bool, default True, keyword-only
        Let each token see only itself and the tokens before it. Without
        it, every token sees every other, and a cache is no longer exact.
    window : int, optional, keyword-only
        Use the banded causal mask
        :func:`~selfattention.sliding_window_mask` ``(n, window)``: each
        token sees itself and the ``window`` tokens before it.

    Returns
    -------
    numpy.ndarray, shape (n, vocab)
        The logits: one score per token of the vocabulary, for the token
        that comes after each position.

    Raises
    ------
    TypeError
        If ``model`` is not a TinyDecoder, the tokens are not integers or
        ``causal`` is not a bool.
    ValueError
        If the tokens are empty or outside the vocabulary, or ``window``
        is given with ``causal=False``.

    Examples
    --------
    >>> model = tiny_decoder()
    >>> logits = decoder_forward(model, [0, 1, 4])     # the cat sat
    >>> logits.shape, VOCAB[logits[-1].argmax()]
    ((3, 12), 'on')
    """
    model = _check_model(model)
    tokens = _check_tokens(tokens, model.vocab)
    causal = check_flag(causal, "causal")
    n = len(tokens)
    if window is not None:
        if not causal:
            raise ValueError("window needs causal=True: the sliding window is a banded causal mask")
        mask = sliding_window_mask(n, window)  # (n, n)
    else:
        mask = causal_mask_bottom_right(n) if causal else None  # (n, n); L = S, so any causal mask
    group = model.h // model.kv_heads
    x = model.embed[tokens] + sinusoidal_positions(n, model.d_model)  # (n, d_model)
    for block in model.blocks:
        q = split_heads(x @ block.w_q, model.h)  # (h, n, d_head)
        k = np.repeat(split_heads(x @ block.w_k, model.kv_heads), group, axis=0)  # (h, n, d_head)
        v = np.repeat(split_heads(x @ block.w_v, model.kv_heads), group, axis=0)  # (h, n, d_head)
        heads = scaled_dot_product_attention(q, k, v, mask=mask)  # (h, n, d_head)
        x = x + concat_heads(heads) @ block.w_o  # (n, d_model)
        x = x + _mlp(x, block)  # (n, d_model)
    return x @ model.w_out  # (n, vocab)


class KVCache:
    """The keys and values of every layer, kept from earlier steps.

    :attr:`array` has shape ``(layers, 2, kv_heads, n, d_head)``: for each
    layer, the keys (index 0) and the values (index 1) of each key/value
    head, one row per position kept. Its memory is
    :func:`kv_cache_bytes` ``(layers, kv_heads, d_head, n, dtype)``.

    Without ``window`` the cache keeps every position, up to ``capacity``.
    With ``window`` it is a ring buffer of ``window + 1`` slots: position
    ``p`` is written to slot ``p % (window + 1)``, over the position
    ``window + 1`` before it, which no later token may read under the
    banded mask :func:`~selfattention.sliding_window_mask`.

    Parameters
    ----------
    layers, kv_heads, d_head : int
        The model's sizes.
    capacity : int, optional
        How many positions a full cache can hold; needed without ``window``.
    window : int, optional, keyword-only
        Keep only the last ``window + 1`` positions (a token and the
        ``window`` before it).
    dtype : {numpy.float64, numpy.float32}, keyword-only
        The cache's numbers.

    Raises
    ------
    TypeError
        If a size is not an integer, or ``dtype`` is not float32 or float64.
    ValueError
        If a size is not positive, ``window`` is negative, or neither
        ``capacity`` nor ``window`` is given.

    Examples
    --------
    >>> cache = KVCache(2, 4, 4, capacity=16)
    >>> cache.array.shape, cache.length
    ((2, 2, 4, 0, 4), 0)
    >>> ring = KVCache(2, 4, 4, window=3)
    >>> ring.slots
    4
    """

    def __init__(self, layers: int, kv_heads: int, d_head: int, capacity: int | None = None, *,
                 window: int | None = None, dtype=np.float64) -> None:
        layers, kv_heads, d_head = (check_positive_int(n, name) for n, name in
                                    ((layers, "layers"), (kv_heads, "kv_heads"), (d_head, "d_head")))
        if window is not None:
            if isinstance(window, bool) or not isinstance(window, numbers.Integral):
                raise TypeError(f"window must be an integer >= 0, got {window!r}")
            if window < 0:
                raise ValueError(f"window must be an integer >= 0, got {window}")
            slots = int(window) + 1
        elif capacity is None:
            raise ValueError("give the capacity of a full cache, or a window for a ring buffer")
        else:
            slots = check_positive_int(capacity, "capacity")
        if np.dtype(dtype) not in (np.float32, np.float64):
            raise TypeError(f"dtype must be float32 or float64, got {np.dtype(dtype)}")
        self.window = None if window is None else int(window)
        self.slots = slots
        self.length = 0
        self._buffer = np.zeros((layers, 2, kv_heads, slots, d_head), dtype=dtype)
        self._positions = np.full(slots, -1, dtype=np.int64)

    @classmethod
    def for_model(cls, model: TinyDecoder, capacity: int | None = None, *, window: int | None = None,
                  dtype=np.float64) -> KVCache:
        """An empty cache that fits ``model``.

        Examples
        --------
        >>> KVCache.for_model(tiny_decoder(kv_heads=2), capacity=10).array.shape
        (2, 2, 2, 0, 4)
        """
        model = _check_model(model)
        return cls(model.layers, model.kv_heads, model.d_head, capacity, window=window, dtype=dtype)

    @property
    def shape(self) -> tuple:
        """``(layers, 2, kv_heads, slots, d_head)``: the shape of the whole buffer."""
        return self._buffer.shape

    @property
    def dtype(self) -> np.dtype:
        """The dtype of the kept keys and values."""
        return self._buffer.dtype

    @property
    def n(self) -> int:
        """How many positions are kept: ``min(length, slots)``."""
        return min(self.length, self.slots)

    @property
    def array(self) -> np.ndarray:
        """The kept keys and values, ``(layers, 2, kv_heads, n, d_head)``, in slot order (a view)."""
        return self._buffer[..., : self.n, :]

    @property
    def positions(self) -> np.ndarray:
        """The position of the text held in each kept slot, ``(n,)``."""
        return self._positions[: self.n].copy()

    def __repr__(self) -> str:
        kind = f"window={self.window}" if self.window is not None else f"capacity={self.slots}"
        return f"KVCache(array shape {self.array.shape}, length={self.length}, {kind}, dtype={self.dtype})"


def _check_cache(cache, model: TinyDecoder, L: int) -> KVCache:
    if not isinstance(cache, KVCache):
        raise TypeError(f"cache must be a KVCache, got {type(cache).__name__}")
    need = (model.layers, 2, model.kv_heads, model.d_head)
    have = cache.shape[:3] + cache.shape[4:]
    if have != need:
        raise ValueError(f"cache has shape {cache.shape} but the model needs (layers, 2, kv_heads, n, d_head) "
                         f"= ({need[0]}, 2, {need[2]}, n, {need[3]})")
    if cache.dtype not in (np.float32, np.float64):
        raise TypeError(f"cache must hold float32 or float64, got {cache.dtype}")
    if cache.window is None and cache.length + L > cache.slots:
        raise ValueError(f"the cache holds {cache.slots} positions; {cache.length} are used, "
                         f"so {L} more do not fit")
    if cache.window is not None and L > cache.slots:
        raise ValueError(f"a step of {L} tokens is past the window: the ring buffer has {cache.slots} slots "
                         f"(window={cache.window}); feed at most {cache.slots} tokens at a time")
    return cache


def decode_step(model: TinyDecoder, tokens, cache: KVCache) -> np.ndarray:
    """Feed new tokens against a cache: compute only their rows, and keep their keys and values.

    The ``L`` new tokens are the last ``L`` of ``S = kept + L`` positions.
    In each layer their keys and values are appended to the kept ones
    first, then their queries attend to all ``S`` of them under the
    bottom-right causal mask
    :func:`~selfattention.causal_mask_bottom_right` ``(L, S)`` (with a
    window, under the banded mask of the true positions). ``L = 1`` is one
    decode step; an empty cache and the whole prompt is the prefill.
    The cache is updated in place.

    Parameters
    ----------
    model : TinyDecoder
        From :func:`tiny_decoder`.
    tokens : sequence of int, length L
        The new token ids.
    cache : KVCache
        The cache of earlier steps (see :meth:`KVCache.for_model`).

    Returns
    -------
    numpy.ndarray, shape (L, vocab)
        The logits of the new positions.

    Raises
    ------
    TypeError
        If ``model`` or ``cache`` has the wrong type, the cache holds
        neither float32 nor float64, or the tokens are not integers.
    ValueError
        If the cache's shape does not fit the model, the new tokens do not
        fit in a full cache, or more tokens come at once than a ring
        buffer has slots (a step past the window).

    Examples
    --------
    Prefill a prompt of three tokens, then one decode step:

    >>> model = tiny_decoder()
    >>> cache = KVCache.for_model(model, capacity=8)
    >>> decode_step(model, [1, 5, 2], cache).shape, cache.array.shape
    ((3, 12), (2, 2, 4, 3, 4))
    >>> last = decode_step(model, [6], cache)
    >>> bool(np.allclose(last, decoder_forward(model, [1, 5, 2, 6])[-1:]))
    True
    """
    model = _check_model(model)
    tokens = _check_tokens(tokens, model.vocab)
    L = len(tokens)
    cache = _check_cache(cache, model, L)
    start = cache.length
    new_pos = np.arange(start, start + L)  # (L,) the true positions of the new tokens
    kept = cache.n
    old_pos = cache._positions[:kept]  # (kept,)
    key_pos = np.concatenate([old_pos, new_pos])  # (S,)
    if cache.window is None:
        mask = causal_mask_bottom_right(L, kept + L)  # (L, S): the new rows are the last L
    else:
        back = new_pos[:, None] - key_pos[None, :]  # (L, S): how far back each key lies
        mask = (back >= 0) & (back <= cache.window)  # (L, S): the band, at true positions
    slots = (new_pos % cache.slots) if cache.window is not None else new_pos  # where the new rows go
    dtype = cache.dtype
    x = model.embed[tokens] + sinusoidal_positions(L, model.d_model, start=start)  # (L, d_model)
    for layer, block in enumerate(model.blocks):
        q = split_heads(x @ block.w_q, model.h)  # (h, L, d_head)
        k_new = split_heads(x @ block.w_k, model.kv_heads).astype(dtype)  # (kv_heads, L, d_head)
        v_new = split_heads(x @ block.w_v, model.kv_heads).astype(dtype)  # (kv_heads, L, d_head)
        k = np.concatenate([cache._buffer[layer, 0, :, :kept], k_new], axis=1)  # (kv_heads, S, d_head)
        v = np.concatenate([cache._buffer[layer, 1, :, :kept], v_new], axis=1)  # (kv_heads, S, d_head)
        heads = grouped_query_attention(q, k, v, mask=mask)  # (h, L, d_head)
        cache._buffer[layer, 0][:, slots] = k_new  # keep the new keys
        cache._buffer[layer, 1][:, slots] = v_new  # and values
        x = x + concat_heads(heads) @ block.w_o  # (L, d_model)
        x = x + _mlp(x, block)  # (L, d_model)
    cache._positions[slots] = new_pos
    cache.length = start + L
    return x @ model.w_out  # (L, vocab)


def generate(model: TinyDecoder, prompt, steps: int, *, cache: bool = True, window: int | None = None,
             dtype=np.float64) -> list[int]:
    """Greedy generation: append the most likely next token, ``steps`` times.

    With ``cache`` the prompt is one prefill and each new token one
    :func:`decode_step`; without it, every step reruns
    :func:`decoder_forward` on the whole sequence and keeps its last row.
    Both give the same tokens.

    Parameters
    ----------
    model : TinyDecoder
        From :func:`tiny_decoder`.
    prompt : sequence of int
        The token ids to start from.
    steps : int
        How many tokens to add.
    cache : bool, default True, keyword-only
        Keep the keys and values instead of recomputing them.
    window : int, optional, keyword-only
        Sliding window: each token sees itself and the ``window`` before
        it (a ring-buffer cache with ``cache=True``).
    dtype : {numpy.float64, numpy.float32}, keyword-only
        The cache's numbers.

    Returns
    -------
    list of int
        The prompt followed by the ``steps`` new tokens.

    Raises
    ------
    TypeError, ValueError
        As in :func:`decoder_forward` and :func:`decode_step`, or if
        ``steps`` is not a positive integer.

    Examples
    --------
    >>> model = tiny_decoder()
    >>> tokens = generate(model, [0, 1, 4], 2)   # the cat sat
    >>> tokens, " ".join(VOCAB[t] for t in tokens)
    ([0, 1, 4, 6, 7], 'the cat sat on mat')
    >>> generate(model, [0, 1, 4], 2, cache=False)
    [0, 1, 4, 6, 7]
    """
    model = _check_model(model)
    out = [int(t) for t in _check_tokens(prompt, model.vocab)]
    steps = check_positive_int(steps, "steps")
    cache = check_flag(cache, "cache")
    if not cache:
        for _ in range(steps):
            out.append(int(decoder_forward(model, out, window=window)[-1].argmax()))
        return out
    kv = KVCache.for_model(model, len(out) + steps, window=window, dtype=dtype)
    chunk = len(out) if window is None else kv.slots
    for i in range(0, len(out), chunk):  # the prefill, in chunks that fit the ring buffer
        logits = decode_step(model, out[i:i + chunk], kv)
    for _ in range(steps):
        out.append(int(logits[-1].argmax()))
        if len(out) - len(prompt) < steps:
            logits = decode_step(model, out[-1:], kv)
    return out


def kv_cache_bytes(layers: int, kv_heads: int, d_head: int, n: int, dtype="bf16", *, batch: int = 1) -> int:
    """Bytes of a KV cache: ``2 * layers * kv_heads * d_head * n * bytes`` (times ``batch``).

    The 2 counts the keys and the values; each layer keeps ``kv_heads``
    heads of ``n`` rows of ``d_head`` numbers.

    Parameters
    ----------
    layers, kv_heads, d_head : int
        The model's sizes.
    n : int
        Number of positions kept (the context length).
    dtype : str or numpy dtype, default "bf16"
        As in :func:`~selfattention.cost.dtype_bytes`.
    batch : int, default 1, keyword-only
        Number of sequences served at once.

    Returns
    -------
    int

    Raises
    ------
    TypeError, ValueError
        If a size is not a positive integer or ``dtype`` is unknown.

    Examples
    --------
    Llama 2 7B (32 layers, 32 key/value heads of 128 numbers) at 4096
    tokens in bf16, then Mistral 7B with 8 key/value heads:

    >>> from selfattention.cost import format_bytes
    >>> format_bytes(kv_cache_bytes(32, 32, 128, 4096)), format_bytes(kv_cache_bytes(32, 8, 128, 4096))
    ('2.0 GiB', '512.0 MiB')
    """
    layers, kv_heads, d_head, n, batch = (check_positive_int(v, name) for v, name in
                                          ((layers, "layers"), (kv_heads, "kv_heads"), (d_head, "d_head"),
                                           (n, "n"), (batch, "batch")))
    return 2 * layers * kv_heads * d_head * n * dtype_bytes(dtype) * batch


class Config(NamedTuple):
    """A published model's sizes, for :func:`kv_cache_bytes` and the work of one step.

    ``params`` is the model's real number of parameters and ``named`` the
    count its paper names it by (GPT-2 small's "117M" is a miscount of its
    124M). ``d_ff`` is the width of the MLP and ``mlp`` its number of
    ``(d_model, d_ff)`` matrices: 2 for GPT-2's, 3 for the gated MLP of
    Llama 2 and Mistral. ``context`` is the length the model was trained
    on. ``window`` is how many positions its cache keeps: Mistral 7B's
    rolling buffer holds the last 4096, so a decode step reads the new
    token and the 4095 before it; ``None`` keeps every position.

    Examples
    --------
    >>> c = PUBLISHED["Llama 2 7B"]
    >>> c.d_model, c.matrix_flops()
    (4096, 404750336)
    >>> PUBLISHED["Mistral 7B"].kept(131072)
    4096
    """

    layers: int
    heads: int
    kv_heads: int
    d_head: int
    d_ff: int
    mlp: int
    params: int
    named: str = ""
    context: int | None = None
    window: int | None = None

    @classmethod
    def for_model(cls, model: TinyDecoder) -> Config:
        """The sizes of a tiny decoder, its parameters counted from its matrices.

        Examples
        --------
        >>> c = Config.for_model(tiny_decoder())
        >>> c.layers, c.heads, c.d_head, c.d_ff, c.mlp, c.params
        (2, 4, 4, 32, 2, 4480)
        """
        model = _check_model(model)
        params = model.embed.size + model.w_out.size + sum(w.size for block in model.blocks for w in block)
        return cls(layers=model.layers, heads=model.h, kv_heads=model.kv_heads, d_head=model.d_head,
                   d_ff=model.blocks[0].w_1.shape[1], mlp=2, params=int(params), named="tiny")

    @property
    def d_model(self) -> int:
        """Length of a token's vector: ``heads * d_head``."""
        return self.heads * self.d_head

    def kept(self, n: int) -> int:
        """How many of ``n`` positions the cache keeps: all, or at most ``window``."""
        n = check_positive_int(n, "n")
        return n if self.window is None else min(n, self.window)

    def matrix_flops(self) -> int:
        """Operations of one layer's matrices for one token, 2 per multiply-add.

        The four projections (``W_Q`` and ``W_O`` are ``(d_model, d_model)``,
        ``W_K`` and ``W_V`` ``(d_model, kv_heads * d_head)``) and the
        ``mlp`` matrices of the MLP. They cost the same for every token,
        whatever the context.
        """
        d, d_kv = self.d_model, self.kv_heads * self.d_head
        return 2 * (2 * d * d + 2 * d * d_kv + self.mlp * d * self.d_ff)

    def step_flops(self, n: int, *, cache: bool = True) -> tuple[int, int]:
        """Operations of one layer at the step that reads ``n`` tokens: ``(matrices, attention)``.

        With the cache only the newest token goes through the matrices, and
        each head scores its one query against ``n`` keys; without it all
        ``n`` tokens go through them again, and each head computes the whole
        causal table. Each score costs ``2 * d_head`` operations and adding
        its value in as many again (:func:`~selfattention.cost.attention_flops`'s
        count). A window is ignored: every key is read.

        Examples
        --------
        >>> c = PUBLISHED["Llama 2 7B"]
        >>> m, a = c.step_flops(1024)
        >>> m == c.matrix_flops(), a == 4 * 1024 * c.d_model
        (True, True)
        """
        n = check_positive_int(n, "n")
        rows = 1 if check_flag(cache, "cache") else n
        return rows * self.matrix_flops(), self.heads * scores_per_step(n, cache=cache) * 2 * (2 * self.d_head)


#: Three published configurations: GPT-2 small (Radford et al. 2019),
#: Llama 2 7B (Touvron et al. 2023) and Mistral 7B (Jiang et al. 2023).
#: ``params`` are the real counts of the released weights (124,439,808,
#: 6,738,415,616 and 7,241,732,096; a test recomputes them from the shapes).
PUBLISHED = {
    "GPT-2 small": Config(layers=12, heads=12, kv_heads=12, d_head=64, params=124_439_808, named="117M",
                          d_ff=3072, mlp=2, context=1024),
    "Llama 2 7B": Config(layers=32, heads=32, kv_heads=32, d_head=128, params=6_738_415_616, named="7B",
                         d_ff=11008, mlp=3, context=4096),
    "Mistral 7B": Config(layers=32, heads=32, kv_heads=8, d_head=128, params=7_241_732_096, named="7B",
                         d_ff=14336, mlp=3, context=8192, window=4096),
}


def scores_per_step(t: int, *, cache: bool = True) -> int:
    """Scores one head computes in one layer at the step that reads ``t`` tokens.

    That step feeds token ``t`` (counting from one; it sits at position
    ``t - 1``), and its logits pick token ``t + 1``, which has no query or
    key yet. With the cache only the newest token's query is scored, against
    the ``t`` keys, its own included: ``t`` scores. Without it the whole
    causal table of the ``t`` tokens is recomputed: ``t (t + 1) / 2`` scores.

    Parameters
    ----------
    t : int
        How many tokens the step reads (the keys of its newest query).
    cache : bool, default True, keyword-only

    Returns
    -------
    int

    Raises
    ------
    TypeError, ValueError
        If ``t`` is not a positive integer or ``cache`` not a bool.

    Examples
    --------
    The step that reads 4 tokens, and so picks the 5th:

    >>> scores_per_step(4), scores_per_step(4, cache=False)
    (4, 10)

    Writing 100 tokens after a one-token prompt: the steps read 1 to 100 tokens.

    >>> sum(scores_per_step(t) for t in range(1, 101)), sum(scores_per_step(t, cache=False) for t in range(1, 101))
    (5050, 171700)
    """
    t = check_positive_int(t, "t")
    return t if check_flag(cache, "cache") else t * (t + 1) // 2


def decode_example(seed: int = 1):
    """The exercise's inputs: a cache of 3 positions and 2 new tokens, one head of 4 numbers.

    Returns
    -------
    q_new : numpy.ndarray, shape (2, 4)
        The queries of the 2 new tokens.
    k_new, v_new : numpy.ndarray, shape (2, 4)
        Their keys and values.
    k_cache, v_cache : numpy.ndarray, shape (3, 4)
        The keys and values kept from the 3 earlier tokens.

    Examples
    --------
    >>> [a.shape for a in decode_example()]
    [(2, 4), (2, 4), (2, 4), (3, 4), (3, 4)]
    """
    rng = np.random.default_rng(seed)
    q_new, k_new, v_new = rng.standard_normal((3, 2, 4))
    k_cache, v_cache = rng.standard_normal((2, 3, 4))
    return q_new, k_new, v_new, k_cache, v_cache


def time_per_token(model: TinyDecoder, n: int, *, cache: bool = True, repeat: int = 5, seed: int = 0) -> float:
    """Best time, in seconds, to write one token after ``n`` tokens of context.

    With ``cache`` one :func:`decode_step` runs against a cache of ``n``
    positions (filled with random keys and values: their numbers do not
    change the time); without it, :func:`decoder_forward` reruns the whole
    sequence of ``n + 1`` tokens. The best of ``repeat`` calls is kept, the
    least disturbed by other programs, and NumPy runs on one thread.

    Parameters
    ----------
    model : TinyDecoder
        From :func:`tiny_decoder`.
    n : int
        The context length.
    cache : bool, default True, keyword-only
    repeat : int, default 5, keyword-only
        Timed calls; the best is kept.
    seed : int, default 0, keyword-only
        Seed of the random tokens and cache.

    Returns
    -------
    float

    Raises
    ------
    TypeError, ValueError
        If ``n`` or ``repeat`` is not a positive integer, or as in
        :func:`decode_step`.

    Examples
    --------
    >>> model = tiny_decoder()
    >>> 0 < time_per_token(model, 64, repeat=2) < 1
    True
    """
    from threadpoolctl import threadpool_limits

    model = _check_model(model)
    n = check_positive_int(n, "n")
    rng = np.random.default_rng(seed)
    tokens = rng.integers(0, model.vocab, n + 1)  # (n + 1,)
    if not check_flag(cache, "cache"):
        with threadpool_limits(limits=1):  # one thread: the machine's other programs disturb it less
            return best_time(decoder_forward, model, tokens, repeat=repeat)
    kv = KVCache.for_model(model, capacity=n + 1)
    kv._buffer[...] = rng.standard_normal(kv.shape)  # n random positions, and room for one more
    kv._positions[:] = np.arange(n + 1)

    def one_step():
        kv.length = n  # the same step each time
        decode_step(model, tokens[-1:], kv)

    with threadpool_limits(limits=1):
        return best_time(one_step, repeat=repeat)
