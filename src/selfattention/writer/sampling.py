"""Choosing the next character: greedy, temperature, top-k and top-p, and writing with a KV cache.

Each rule turns one step's logits into a distribution and draws from it;
each returns both (a :class:`Draw`), so that the chapter can show what the
rule drew from:

* :func:`greedy_draw`: all the probability on the largest logit (the first,
  on a tie);
* :func:`temperature_draw`: ``softmax(logits / T)``, chapter 6's temperature
  applied to the vocabulary: ``T < 1`` sharpens, ``T > 1`` flattens;
* :func:`top_k_draw`: only the ``k`` most likely characters, renormalised;
* :func:`top_p_draw` (nucleus sampling, Holtzman et al. 2020): the fewest most
  likely characters whose probabilities add up to at least ``p``, renormalised.

:func:`next_distribution` combines them in the usual order (temperature,
then top-k, then top-p). :func:`draw_index` draws with one uniform number
``u`` from a :class:`numpy.random.Generator`: the first character whose
cumulative probability exceeds ``u``, so a draw can be redone anywhere from
``u`` alone.

:func:`write` writes ``steps`` characters after a prompt, with chapter 14's
:class:`~selfattention.KVCache` (:func:`writer_decode_step`) or without it
(a full pass each step); both give the same characters.
:func:`seconds_per_char` times one step of each.

The learned positions stop at ``n_positions``. Once the text is longer, the
writer reads only its last ``n_positions`` characters; then every kept
character moves to a new position at each step, its keys and values change,
and the cache must be refilled each step (a full pass): the cache saves
work only while the text fits in the context.
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np

from .._validate import as_float_array, check_flag, check_positive_int
from ..cost import best_time
from ..generation import KVCache
from ..softmax import softmax
from .model import WriterSizes, check_writer_params, check_writer_tokens, run_writer


class Draw(NamedTuple):
    """One step's choice: the distribution drawn from, ``probs`` (vocab,), and the ``token`` drawn."""

    probs: np.ndarray
    token: int


def _check_logits(logits) -> np.ndarray:
    arr = as_float_array(logits, "logits").astype(np.float64, copy=False)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"logits must be one step's scores, shape (vocab,), got shape {arr.shape}")
    return arr


def _check_rng(rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator (np.random.default_rng(seed)), "
                        f"got {type(rng).__name__}")
    return rng


def _check_temperature(temperature, *, zero: bool = False) -> float:
    if isinstance(temperature, bool) or not isinstance(temperature, numbers.Real):
        raise TypeError(f"temperature must be a number, got {temperature!r}")
    if not (np.isfinite(temperature) and (temperature > 0 or (zero and temperature == 0))):
        lowest = "0 (greedy) or more" if zero else "above 0 (for 0 use greedy_draw)"
        raise ValueError(f"temperature must be {lowest}, got {temperature}")
    return float(temperature)


def _order(probs: np.ndarray) -> np.ndarray:
    """Ids from the most likely to the least; on a tie the lower id first."""
    return np.argsort(-probs, kind="stable")                           # (vocab,)


def draw_index(probs, rng) -> int:
    """Draw an index from a distribution with one uniform number ``u = rng.random()``.

    The index is the first whose cumulative probability exceeds ``u`` times
    the total, so an index of probability 0 is never drawn.

    Parameters
    ----------
    probs : array_like, shape (vocab,)
        Probabilities, not negative, with a positive total.
    rng : numpy.random.Generator

    Returns
    -------
    int

    Raises
    ------
    TypeError
        If ``rng`` is not a Generator or ``probs`` not numeric.
    ValueError
        If ``probs`` is not 1-D, has a negative entry or a total of 0.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> [draw_index([0.5, 0.0, 0.5], rng) for _ in range(6)]
    [2, 0, 0, 0, 2, 2]
    """
    p = _check_logits(probs)
    rng = _check_rng(rng)
    if (p < 0).any() or p.sum() <= 0:
        raise ValueError(f"probs must be non-negative with a positive total, got min {p.min()}, total {p.sum()}")
    cumulative = np.cumsum(p)                                          # (vocab,)
    u = rng.random() * cumulative[-1]
    return int(min(np.searchsorted(cumulative, u, side="right"), p.size - 1))


def greedy_draw(logits) -> Draw:
    """Greedy: all the probability on the largest logit; the first of equal ones.

    Parameters
    ----------
    logits : array_like, shape (vocab,)

    Returns
    -------
    Draw

    Raises
    ------
    TypeError, ValueError
        If ``logits`` is not one real row without NaN or inf.

    Examples
    --------
    >>> greedy_draw([1.0, 3.0, 3.0, 0.0])
    Draw(probs=array([0., 1., 0., 0.]), token=1)
    """
    z = _check_logits(logits)
    token = int(np.argmax(z))
    probs = np.zeros_like(z)
    probs[token] = 1.0
    return Draw(probs, token)


def temperature_draw(logits, temperature: float, rng) -> Draw:
    """Sample from ``softmax(logits / temperature)``.

    Parameters
    ----------
    logits : array_like, shape (vocab,)
    temperature : float
        Above 0. Near 0 it nears greedy; at 1 it is the model's own
        distribution; large, it nears uniform.
    rng : numpy.random.Generator

    Returns
    -------
    Draw

    Raises
    ------
    TypeError, ValueError
        If an argument has the wrong type, or ``temperature`` is not above 0.

    Examples
    --------
    >>> d = temperature_draw([2.0, 1.0, 0.0], 0.5, np.random.default_rng(0))
    >>> d.probs.round(3), d.token
    (array([0.867, 0.117, 0.016]), 0)
    """
    z = _check_logits(logits)
    probs = softmax(z / _check_temperature(temperature))               # (vocab,)
    return Draw(probs, draw_index(probs, rng))


def _top_k(probs: np.ndarray, k: int) -> np.ndarray:
    kept = np.zeros_like(probs)
    best = _order(probs)[:k]                                           # (k,)
    kept[best] = probs[best]
    return kept / kept.sum()


def _top_p(probs: np.ndarray, p: float) -> np.ndarray:
    order = _order(probs)                                              # (vocab,)
    before = np.cumsum(probs[order]) - probs[order]                    # (vocab,) mass of the likelier ones
    kept = np.zeros_like(probs)
    chosen = order[before < p * probs.sum()]                           # the fewest that reach p
    kept[chosen] = probs[chosen]
    return kept / kept.sum()


def _check_top_k(k, vocab: int) -> int:
    k = check_positive_int(k, "top_k")
    if k > vocab:
        raise ValueError(f"top_k must be at most the vocabulary's {vocab}, got {k}")
    return k


def _check_top_p(p) -> float:
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise TypeError(f"top_p must be a number, got {p!r}")
    if not 0 < p <= 1:
        raise ValueError(f"top_p must be above 0 and at most 1, got {p}")
    return float(p)


def top_k_draw(logits, k: int, rng, *, temperature: float = 1.0) -> Draw:
    """Sample from the ``k`` most likely characters only, their probabilities renormalised.

    Parameters
    ----------
    logits : array_like, shape (vocab,)
    k : int
        From 1 (greedy) to ``vocab`` (plain sampling).
    rng : numpy.random.Generator
    temperature : float, default 1.0, keyword-only
        Applied first.

    Returns
    -------
    Draw

    Raises
    ------
    TypeError, ValueError
        If an argument has the wrong type, or ``k`` is not 1 to ``vocab``.

    Examples
    --------
    >>> d = top_k_draw(np.log([0.5, 0.3, 0.2]), 2, np.random.default_rng(0))
    >>> d.probs.round(3).tolist(), d.token
    ([0.625, 0.375, 0.0], 1)
    """
    z = _check_logits(logits)
    probs = _top_k(softmax(z / _check_temperature(temperature)), _check_top_k(k, z.size))
    return Draw(probs, draw_index(probs, rng))


def top_p_draw(logits, p: float, rng, *, temperature: float = 1.0) -> Draw:
    """Nucleus sampling: the fewest most likely characters whose probabilities reach ``p``, renormalised.

    Parameters
    ----------
    logits : array_like, shape (vocab,)
    p : float
        Above 0 and at most 1; 1 keeps every character.
    rng : numpy.random.Generator
    temperature : float, default 1.0, keyword-only
        Applied first.

    Returns
    -------
    Draw

    Raises
    ------
    TypeError, ValueError
        If an argument has the wrong type, or ``p`` is not in (0, 1].

    Examples
    --------
    0.5 alone does not reach 0.75; 0.5 and 0.3 do:

    >>> d = top_p_draw(np.log([0.5, 0.3, 0.2]), 0.75, np.random.default_rng(0))
    >>> d.probs.round(3).tolist(), d.token
    ([0.625, 0.375, 0.0], 1)
    """
    z = _check_logits(logits)
    probs = _top_p(softmax(z / _check_temperature(temperature)), _check_top_p(p))
    return Draw(probs, draw_index(probs, rng))


def next_distribution(logits, *, temperature: float = 1.0, top_k: int | None = None,
                      top_p: float | None = None) -> np.ndarray:
    """The distribution a step draws from: temperature, then top-k, then top-p.

    Parameters
    ----------
    logits : array_like, shape (vocab,)
    temperature : float, default 1.0, keyword-only
        0 means greedy (then ``top_k`` and ``top_p`` change nothing).
    top_k : int, optional, keyword-only
    top_p : float, optional, keyword-only

    Returns
    -------
    numpy.ndarray, shape (vocab,)

    Raises
    ------
    TypeError, ValueError
        As :func:`temperature_draw`, :func:`top_k_draw` and :func:`top_p_draw`.

    Examples
    --------
    >>> logits = np.log([0.5, 0.3, 0.15, 0.05])
    >>> next_distribution(logits, top_k=3).round(3).tolist()
    [0.526, 0.316, 0.158, 0.0]
    >>> next_distribution(logits, top_k=3, top_p=0.6).round(3).tolist()
    [0.625, 0.375, 0.0, 0.0]
    >>> next_distribution([1.0, 2.0], temperature=0).tolist()
    [0.0, 1.0]
    """
    z = _check_logits(logits)
    if _check_temperature(temperature, zero=True) == 0:
        return greedy_draw(z).probs
    probs = softmax(z / temperature)                                   # (vocab,)
    if top_k is not None:
        probs = _top_k(probs, _check_top_k(top_k, z.size))
    if top_p is not None:
        probs = _top_p(probs, _check_top_p(top_p))
    return probs


def _check_cache(cache, sizes: WriterSizes) -> KVCache:
    if not isinstance(cache, KVCache):
        raise TypeError(f"cache must be a KVCache (writer_cache(sizes)), got {type(cache).__name__}")
    need = (sizes.layers, 2, sizes.heads, sizes.n_positions, sizes.d_head)
    if cache.shape != need or cache.window is not None:
        raise ValueError(f"cache has shape {cache.shape} but the writer needs (layers, 2, heads, n_positions, "
                         f"d_head) = {need}, without a window")
    return cache


def writer_cache(sizes: WriterSizes, dtype=np.float64) -> KVCache:
    """An empty KV cache for the writer: room for ``n_positions`` positions in every layer.

    Parameters
    ----------
    sizes : WriterSizes
    dtype : {numpy.float64, numpy.float32}

    Returns
    -------
    KVCache
        Of shape ``(layers, 2, heads, n_positions, d_head)``.

    Examples
    --------
    >>> from selfattention.writer.model import WriterSizes
    >>> writer_cache(WriterSizes(vocab=10, n_positions=8, d_model=16, heads=2, layers=3, d_ff=32)).shape
    (3, 2, 2, 8, 8)
    """
    if not isinstance(sizes, WriterSizes):
        raise TypeError(f"sizes must be a WriterSizes, got {type(sizes).__name__}")
    return KVCache(sizes.layers, sizes.heads, sizes.d_head, sizes.n_positions, dtype=dtype)


def _decode(params: dict, tokens: np.ndarray, cache: KVCache, sizes: WriterSizes):
    start, n = cache.length, tokens.size
    past = cache._buffer[:, :, :, :start] if start else None          # (layers, 2, h, start, d_head)
    logits, trace = run_writer(params, tokens, sizes, past=past)       # (n, vocab)
    for layer, parts in enumerate(trace):                              # keep the new keys and values
        cache._buffer[layer, 0, :, start:start + n] = parts["k"]
        cache._buffer[layer, 1, :, start:start + n] = parts["v"]
    cache._positions[start:start + n] = np.arange(start, start + n)
    cache.length = start + n
    return logits, trace


def writer_decode_step(params, tokens, cache: KVCache, sizes: WriterSizes) -> tuple[np.ndarray, list]:
    """Feed new characters against a KV cache: their logits, and what each layer computed.

    The new characters' queries read the kept keys and values and their
    own (the causal mask aligned to the bottom-right corner); their keys and
    values are then kept too.

    Parameters
    ----------
    params : dict of str to array_like
    tokens : array_like of int, shape (n,)
        The next ids: the whole prompt (the prefill), or one.
    cache : KVCache
        From :func:`writer_cache`; changed in place.
    sizes : WriterSizes

    Returns
    -------
    logits : numpy.ndarray, shape (n, vocab)
    trace : list of dict
        As :func:`~selfattention.writer.model.writer_forward`;
        ``trace[l]["weights"]`` is ``(heads, n, S)``, ``S`` the positions so far.

    Raises
    ------
    TypeError, ValueError
        If an argument has the wrong type or shape, or the new characters do
        not fit in the ``n_positions`` of the cache.

    Examples
    --------
    >>> from selfattention.writer.model import WriterSizes, init_writer, writer_forward
    >>> sizes = WriterSizes(vocab=10, n_positions=8, d_model=16, heads=2, layers=2, d_ff=32)
    >>> params, cache = init_writer(sizes, 0), writer_cache(sizes)
    >>> first, _ = writer_decode_step(params, [4, 2], cache, sizes)
    >>> last, trace = writer_decode_step(params, [7], cache, sizes)
    >>> bool(np.allclose(last, writer_forward(params, [4, 2, 7], sizes)[0][0, -1:])), trace[0]["weights"].shape
    (True, (2, 1, 3))
    """
    params = check_writer_params(params, sizes)
    tokens = check_writer_tokens(tokens, sizes)[0]
    cache = _check_cache(cache, sizes)
    if cache.length + tokens.size > sizes.n_positions:
        raise ValueError(f"the cache holds {sizes.n_positions} positions (n_positions); {cache.length} are "
                         f"used, so {tokens.size} more do not fit")
    return _decode(params, tokens, cache, sizes)


def _check_prompt(prompt, sizes: WriterSizes) -> list[int]:
    arr = np.asarray(prompt)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"prompt must be a non-empty 1-D sequence of ids, got shape {arr.shape}")
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"prompt must be integer ids (tokenizer.encode(text)), got dtype {arr.dtype}")
    if arr.min() < 0 or arr.max() >= sizes.vocab:
        raise ValueError(f"prompt must be ids 0 to {sizes.vocab - 1} (vocab={sizes.vocab}), "
                         f"got {arr.min()} to {arr.max()}")
    return [int(t) for t in arr]


def write(params, prompt, steps: int, sizes: WriterSizes, *, cache: bool = True, temperature: float = 0.0,
          top_k: int | None = None, top_p: float | None = None, seed: int = 0, weights: bool = False) -> dict:
    """Write ``steps`` characters after ``prompt``, one at a time.

    Each step draws from :func:`next_distribution` of the last logits, with
    :func:`draw_index` and a generator seeded with ``seed``. With ``cache`` the
    prompt is one prefill and each new character one
    :func:`writer_decode_step`; without it every step is a full pass over the
    last ``n_positions`` characters. Both give the same characters.

    Parameters
    ----------
    params : dict of str to array_like
    prompt : array_like of int, shape (n,)
        At least one id.
    steps : int
        Characters to add.
    sizes : WriterSizes
    cache : bool, default True, keyword-only
    temperature : float, default 0.0 (greedy), keyword-only
    top_k : int, optional, keyword-only
    top_p : float, optional, keyword-only
    seed : int, default 0, keyword-only
    weights : bool, default False, keyword-only
        Also keep, for each step, the attention weights of the newest
        character's query.

    Returns
    -------
    dict
        ``ids`` the prompt and the new ids (a list); ``probs`` (steps, vocab)
        the distribution each new id was drawn from; with ``weights``,
        ``weights``: one (layers, heads, S) array per step, ``S`` the
        characters read at that step (at most ``n_positions``).

    Raises
    ------
    TypeError, ValueError
        If an argument has the wrong type or value.

    Examples
    --------
    >>> from selfattention.writer.model import WriterSizes, init_writer
    >>> sizes = WriterSizes(vocab=10, n_positions=8, d_model=16, heads=2, layers=2, d_ff=32)
    >>> params = init_writer(sizes, 0)
    >>> out = write(params, [1, 2, 3], 10, sizes, temperature=1.0, seed=3)
    >>> len(out["ids"]), out["probs"].shape
    (13, (10, 10))
    >>> out["ids"] == write(params, [1, 2, 3], 10, sizes, cache=False, temperature=1.0, seed=3)["ids"]
    True
    """
    params = check_writer_params(params, sizes)
    ids = _check_prompt(prompt, sizes)
    steps = check_positive_int(steps, "steps")
    cache = check_flag(cache, "cache")
    keep = check_flag(weights, "weights")
    next_distribution(np.zeros(sizes.vocab), temperature=temperature, top_k=top_k, top_p=top_p)  # checks them
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an integer, got {seed!r}")
    rng = np.random.default_rng(seed)
    n = sizes.n_positions
    kv = writer_cache(sizes) if cache else None
    probs, kept = np.empty((steps, sizes.vocab)), []
    for step in range(steps):
        window = np.asarray(ids[-n:])                                  # (<= n,) what the writer reads
        if kv is None:
            logits, trace = run_writer(params, window, sizes)          # a full pass
        elif step == 0 or len(ids) > n:                                # the prefill, or positions moved
            kv.length = 0
            logits, trace = _decode(params, window, kv, sizes)
        else:
            logits, trace = _decode(params, window[-1:], kv, sizes)    # one new row
        if keep:
            kept.append(np.stack([parts["weights"][:, -1] for parts in trace]))   # (layers, heads, S)
        probs[step] = next_distribution(logits[-1], temperature=temperature, top_k=top_k, top_p=top_p)
        ids.append(draw_index(probs[step], rng))
    return {"ids": ids, "probs": probs, **({"weights": kept} if keep else {})}


def seconds_per_char(params, sizes: WriterSizes, n: int, *, cache: bool = True, repeat: int = 5,
                     seed: int = 0) -> float:
    """Best time, in seconds, to write one character after ``n`` of context, on one thread.

    With ``cache`` one :func:`writer_decode_step` of one character runs against
    a cache of ``n`` positions; without it, a full pass reads all ``n + 1``.

    Parameters
    ----------
    params : dict of str to array_like
    sizes : WriterSizes
    n : int
        Context, 1 to ``n_positions - 1``.
    cache : bool, default True, keyword-only
    repeat : int, default 5, keyword-only
        Timed calls; the best is kept.
    seed : int, default 0, keyword-only
        Seed of the random characters.

    Returns
    -------
    float

    Raises
    ------
    TypeError, ValueError
        If an argument has the wrong type, or ``n`` is not 1 to ``n_positions - 1``.

    Examples
    --------
    >>> from selfattention.writer.model import WriterSizes, init_writer
    >>> sizes = WriterSizes(vocab=10, n_positions=16, d_model=16, heads=2, layers=2, d_ff=32)
    >>> 0 < seconds_per_char(init_writer(sizes, 0), sizes, 15, repeat=2) < 1
    True
    """
    from threadpoolctl import threadpool_limits

    params = check_writer_params(params, sizes)
    n, repeat = check_positive_int(n, "n"), check_positive_int(repeat, "repeat")
    if n >= sizes.n_positions:
        raise ValueError(f"n must be 1 to n_positions - 1 = {sizes.n_positions - 1}, got {n}")
    tokens = np.random.default_rng(seed).integers(0, sizes.vocab, n + 1)   # (n + 1,)
    with threadpool_limits(limits=1):
        if not check_flag(cache, "cache"):
            return best_time(run_writer, params, tokens, sizes, repeat=repeat)
        kv = writer_cache(sizes)
        _decode(params, tokens[:n], kv, sizes)

        def one_step():
            kv.length = n  # the same step each time
            _decode(params, tokens[n:], kv, sizes)

        return best_time(one_step, repeat=repeat)
