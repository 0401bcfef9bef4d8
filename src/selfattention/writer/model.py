"""The writer: a decoder-only transformer, the whole block of chapter 16 stacked and trained on text.

Each character is a row of the token embedding ``W_E``, and its position a
row of the learned positions ``W_pos``; their sum starts the residual stream
``x`` (one row of ``d_model`` numbers per position). Each of the ``layers``
blocks is *pre-LN* (as GPT-2): it reads a layer-normed copy of the stream and
adds what it computes back to the stream,

* ``x = x + MultiHead(LN_1(x)) W_O``: causal multi-head attention, every head
  reading the characters before it (:func:`~selfattention.split_heads`,
  :func:`~selfattention.scaled_dot_product_attention` with a causal mask,
  :func:`~selfattention.concat_heads`);
* ``x = x + GELU(LN_2(x) W_1 + b_1) W_2 + b_2``: the MLP, with the exact GELU
  ``h Φ(h)`` (:func:`~selfattention.gelu`, chapter 16's).

A last layer norm and the unembedding ``W_U`` (its own matrix, not ``W_E``
transposed) turn the stream into one score (logit) per character of the
vocabulary: the model's guess for the next character.

The parameters are one dict of float64 arrays; the per-layer ones are
stacked on a first axis of length ``layers``:

========== ============================ ==========================================
name       shape                        role
========== ============================ ==========================================
``W_E``    (vocab, d_model)             character to stream
``W_pos``  (n_positions, d_model)       position to stream
``ln1_g``  (layers, d_model)            scale of the attention's layer norm
``ln1_b``  (layers, d_model)            its shift
``W_Q``    (layers, d_model, d_model)   ``q = LN_1(x) @ W_Q``; head ``a`` owns
``W_K``    (layers, d_model, d_model)   columns ``a*d_head .. (a+1)*d_head``
``W_V``    (layers, d_model, d_model)   of the three
``W_O``    (layers, d_model, d_model)   the joined heads to the stream
``ln2_g``  (layers, d_model)            scale of the MLP's layer norm
``ln2_b``  (layers, d_model)            its shift
``W_1``    (layers, d_model, d_ff)      into the MLP
``b_1``    (layers, d_ff)               its bias
``W_2``    (layers, d_ff, d_model)      out of the MLP
``b_2``    (layers, d_model)            its bias
``lnf_g``  (d_model,)                   scale of the final layer norm
``lnf_b``  (d_model,)                   its shift
``W_U``    (d_model, vocab)             stream to logits
========== ============================ ==========================================

The attention has no biases. Every layer norm adds ``LN_EPS = 1e-5`` to the
variance (GPT-2's value).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ..attention import scaled_dot_product_attention
from ..bert import layer_norm
from ..bert.layers import gelu
from ..causal_alignment import causal_mask_bottom_right
from ..multihead import concat_heads, split_heads

#: Added to the variance in every layer norm.
LN_EPS = 1e-5
#: The parameters that every layer has its own of, stacked on a first axis.
LAYER_NAMES = ("ln1_g", "ln1_b", "W_Q", "W_K", "W_V", "W_O", "ln2_g", "ln2_b", "W_1", "b_1", "W_2", "b_2")
#: Every parameter, in the order of the file.
NAMES = ("W_E", "W_pos", *LAYER_NAMES, "lnf_g", "lnf_b", "W_U")


@dataclass(frozen=True)
class WriterSizes:
    """The writer's sizes.

    Parameters
    ----------
    vocab : int
        Characters the model knows (the tokenizer's ``vocab``).
    n_positions : int, default 128
        The context: the most characters the model reads at once.
    d_model : int, default 64
        Numbers per position in the residual stream.
    heads : int, default 4
        Heads per layer; must divide ``d_model``.
    layers : int, default 4
        Blocks.
    d_ff : int, default 256
        Width of the MLP's hidden layer.

    The defaults are the shipped model's: with the book's 108 characters,
    221,056 parameters, 0.44 MB in float16.

    Raises
    ------
    TypeError
        If a size is not an integer.
    ValueError
        If a size is not positive, or ``heads`` does not divide ``d_model``.

    Examples
    --------
    >>> sizes = WriterSizes(vocab=10, n_positions=8, d_model=16, heads=2, layers=1, d_ff=32)
    >>> sizes.d_head, sizes.parameter_count
    (8, 2640)
    >>> WriterSizes(vocab=10, d_model=16, heads=3)
    Traceback (most recent call last):
    ...
    ValueError: heads=3 does not divide d_model=16
    """

    vocab: int
    n_positions: int = 128
    d_model: int = 64
    heads: int = 4
    layers: int = 4
    d_ff: int = 256

    def __post_init__(self) -> None:
        for name in ("vocab", "n_positions", "d_model", "heads", "layers", "d_ff"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(f"{name} must be a positive integer, got {value!r}")
            if value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value}")
            object.__setattr__(self, name, int(value))
        if self.d_model % self.heads:
            raise ValueError(f"heads={self.heads} does not divide d_model={self.d_model}")

    @property
    def d_head(self) -> int:
        """Numbers in each head's query, key and value: ``d_model / heads``."""
        return self.d_model // self.heads

    @property
    def parameter_count(self) -> int:
        """How many numbers the parameters hold, all together."""
        return sum(int(np.prod(shape)) for shape in writer_shapes(self).values())


def _check_sizes(sizes) -> WriterSizes:
    if not isinstance(sizes, WriterSizes):
        raise TypeError(f"sizes must be a WriterSizes, got {type(sizes).__name__}")
    return sizes


def writer_shapes(sizes: WriterSizes) -> dict[str, tuple[int, ...]]:
    """The shape of every parameter, in the order of :data:`NAMES`.

    Parameters
    ----------
    sizes : WriterSizes

    Returns
    -------
    dict of str to tuple of int

    Raises
    ------
    TypeError
        If ``sizes`` is not a WriterSizes.

    Examples
    --------
    >>> shapes = writer_shapes(WriterSizes(vocab=10, n_positions=8, d_model=16, heads=2, layers=3, d_ff=32))
    >>> shapes["W_Q"], shapes["W_1"], shapes["W_U"]
    ((3, 16, 16), (3, 16, 32), (16, 10))
    """
    s = _check_sizes(sizes)
    d, lyr = s.d_model, s.layers
    return {"W_E": (s.vocab, d), "W_pos": (s.n_positions, d),
            "ln1_g": (lyr, d), "ln1_b": (lyr, d),
            "W_Q": (lyr, d, d), "W_K": (lyr, d, d), "W_V": (lyr, d, d), "W_O": (lyr, d, d),
            "ln2_g": (lyr, d), "ln2_b": (lyr, d),
            "W_1": (lyr, d, s.d_ff), "b_1": (lyr, s.d_ff), "W_2": (lyr, s.d_ff, d), "b_2": (lyr, d),
            "lnf_g": (d,), "lnf_b": (d,), "W_U": (d, s.vocab)}


def init_writer(sizes: WriterSizes, seed: int) -> dict[str, np.ndarray]:
    """Random starting parameters, from a seed (GPT-2's recipe).

    Every matrix and embedding is Gaussian with standard deviation 0.02;
    the two that write into the stream at the end of a block (``W_O`` and
    ``W_2``) get ``0.02 / sqrt(2 * layers)``, so that the stream does not
    grow with the number of blocks. Layer-norm scales start at 1, shifts
    and biases at 0.

    Parameters
    ----------
    sizes : WriterSizes
    seed : int

    Returns
    -------
    dict of str to numpy.ndarray
        Float64 arrays of the shapes :func:`writer_shapes` gives.

    Raises
    ------
    TypeError
        If ``sizes`` is not a WriterSizes or ``seed`` not an integer.

    Examples
    --------
    >>> params = init_writer(WriterSizes(vocab=10, n_positions=8, d_model=16, heads=2, layers=1, d_ff=32), 0)
    >>> params["W_E"].shape, params["ln1_g"][0, :3].tolist(), params["b_1"].any()
    ((10, 16), [1.0, 1.0, 1.0], np.False_)
    """
    shapes = writer_shapes(sizes)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an integer, got {seed!r}")
    rng = np.random.default_rng(seed)
    params = {}
    for name, shape in shapes.items():
        if name.endswith("_g"):
            params[name] = np.ones(shape)
        elif name.endswith("_b") or name.startswith("b_"):
            params[name] = np.zeros(shape)
        else:
            std = 0.02 / np.sqrt(2 * sizes.layers) if name in ("W_O", "W_2") else 0.02
            params[name] = rng.normal(0.0, std, shape)
    return params


def check_writer_params(params, sizes: WriterSizes) -> dict[str, np.ndarray]:
    """Return the parameters as float64 arrays, or say which one is missing or has the wrong shape.

    Parameters
    ----------
    params : dict of str to array_like
    sizes : WriterSizes

    Returns
    -------
    dict of str to numpy.ndarray

    Raises
    ------
    TypeError
        If ``params`` is not a mapping or ``sizes`` not a WriterSizes.
    ValueError
        If a parameter is missing, extra, of the wrong shape or not finite.

    Examples
    --------
    >>> sizes = WriterSizes(vocab=10, n_positions=8, d_model=16, heads=2, layers=1, d_ff=32)
    >>> bad = init_writer(sizes, 0); bad["W_U"] = bad["W_U"].T
    >>> check_writer_params(bad, sizes)
    Traceback (most recent call last):
    ...
    ValueError: W_U must have shape (16, 10), got (10, 16)
    """
    shapes = writer_shapes(sizes)
    if not hasattr(params, "keys"):
        raise TypeError(f"params must be a dict of arrays, got {type(params).__name__}")
    missing, extra = sorted(set(shapes) - set(params)), sorted(set(params) - set(shapes))
    if missing or extra:
        raise ValueError(f"params must have exactly {list(NAMES)}; missing {missing}, extra {extra}")
    out = {}
    for name, shape in shapes.items():
        arr = np.asarray(params[name])
        if arr.dtype == object or not np.issubdtype(arr.dtype, np.number):
            raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}")
        arr = arr.astype(np.float64, copy=False)
        if arr.shape != shape:
            raise ValueError(f"{name} must have shape {shape}, got {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} contains NaN or inf")
        out[name] = arr
    return out


def check_writer_tokens(tokens, sizes: WriterSizes, *, extra: int = 0) -> np.ndarray:
    """Return ``tokens`` as a (B, n) array of character ids, or raise a clear error.

    Parameters
    ----------
    tokens : array_like of int, shape (n,) or (B, n)
        Character ids, ``0 <= id < vocab``; one row becomes ``(1, n)``.
    sizes : WriterSizes
    extra : int, default 0, keyword-only
        How many more than ``n_positions`` a row may hold (1 for a window
        whose last character is only a target).

    Returns
    -------
    numpy.ndarray of int64, shape (B, n)

    Raises
    ------
    TypeError
        If the ids are not integers.
    ValueError
        If the shape is wrong, a row is longer than ``n_positions + extra``
        or an id is outside the vocabulary.

    Examples
    --------
    >>> sizes = WriterSizes(vocab=10, n_positions=8, d_model=16, heads=2, layers=1, d_ff=32)
    >>> check_writer_tokens([0, 1, 2], sizes).shape
    (1, 3)
    >>> check_writer_tokens([0, 10], sizes)
    Traceback (most recent call last):
    ...
    ValueError: tokens must be character ids 0 to 9 (vocab=10), got 0 to 10
    """
    sizes = _check_sizes(sizes)
    arr = np.asarray(tokens)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"tokens must be integer character ids, got dtype {arr.dtype}")
    if arr.ndim == 1:
        arr = arr[None, :]
    longest = sizes.n_positions + extra
    if arr.ndim != 2 or not 1 <= arr.shape[1] <= longest:
        raise ValueError(f"tokens must have shape (B, n) or (n,) with 1 <= n <= {longest} "
                         f"(n_positions={sizes.n_positions}), got shape {np.shape(tokens)}")
    if arr.size and (arr.min() < 0 or arr.max() >= sizes.vocab):
        raise ValueError(f"tokens must be character ids 0 to {sizes.vocab - 1} (vocab={sizes.vocab}), "
                         f"got {arr.min()} to {arr.max()}")
    return arr.astype(np.int64)


def layer_params(params: dict, layer: int) -> dict[str, np.ndarray]:
    """The parameters of one block: each of :data:`LAYER_NAMES` at index ``layer``.

    Parameters
    ----------
    params : dict of str to numpy.ndarray
        Checked parameters (:func:`check_writer_params`).
    layer : int

    Returns
    -------
    dict of str to numpy.ndarray
        Views, not copies.

    Raises
    ------
    IndexError
        If there is no such layer.

    Examples
    --------
    >>> sizes = WriterSizes(vocab=10, n_positions=8, d_model=16, heads=2, layers=2, d_ff=32)
    >>> layer_params(init_writer(sizes, 0), 1)["W_1"].shape
    (16, 32)
    """
    return {name: params[name][layer] for name in LAYER_NAMES}


def decoder_block(x, p: dict, heads: int, *, k_past=None, v_past=None) -> tuple[np.ndarray, dict]:
    """One pre-LN block: attention, then the MLP, each added to the stream.

    With ``k_past`` and ``v_past`` (a KV cache), the ``n`` rows of ``x`` are
    the last ``n`` of ``S`` positions: their queries read the kept keys and
    values too, under the causal mask aligned to the bottom-right corner
    (:func:`~selfattention.causal_mask_bottom_right`). Without them ``S = n``.

    Parameters
    ----------
    x : numpy.ndarray, shape (..., n, d_model)
        The residual stream.
    p : dict of str to numpy.ndarray
        One block's parameters (:func:`layer_params`).
    heads : int
        Heads of the attention.
    k_past, v_past : numpy.ndarray, shape (..., heads, S - n, d_head), optional, keyword-only
        Keys and values of the earlier positions.

    Returns
    -------
    x_out : numpy.ndarray, shape (..., n, d_model)
        The stream after the block.
    parts : dict of str to numpy.ndarray
        What the block computed, for the backward pass and the chapter:
        ``x`` (the stream it read), ``a_in`` (``LN_1(x)``), ``q``, ``k``,
        ``v`` (..., heads, n, d_head) of the new rows, ``weights``
        (..., heads, n, S), ``z`` (..., n, d_model) the joined heads,
        ``x_mid`` (the stream after attention), ``m_in`` (``LN_2(x_mid)``),
        ``h_pre`` (..., n, d_ff) the MLP's input to GELU, ``act`` its GELU and
        ``x_out``.

    Raises
    ------
    TypeError, ValueError
        As :func:`~selfattention.layer_norm`, :func:`~selfattention.split_heads`
        and :func:`~selfattention.scaled_dot_product_attention` do for bad shapes.

    Examples
    --------
    >>> sizes = WriterSizes(vocab=10, n_positions=8, d_model=16, heads=2, layers=1, d_ff=32)
    >>> p = layer_params(init_writer(sizes, 0), 0)
    >>> x_out, parts = decoder_block(np.ones((3, 16)), p, 2)
    >>> x_out.shape, parts["weights"].shape, parts["weights"][:, 0, 1:].max()
    ((3, 16), (2, 3, 3), np.float64(0.0))
    """
    a_in = layer_norm(x, p["ln1_g"], p["ln1_b"], eps=LN_EPS)          # (..., n, d_model)
    q = split_heads(a_in @ p["W_Q"], heads)                            # (..., h, n, d_head)
    k = split_heads(a_in @ p["W_K"], heads)                            # (..., h, n, d_head)
    v = split_heads(a_in @ p["W_V"], heads)                            # (..., h, n, d_head)
    k_all = k if k_past is None else np.concatenate([k_past, k], axis=-2)   # (..., h, S, d_head)
    v_all = v if v_past is None else np.concatenate([v_past, v], axis=-2)   # (..., h, S, d_head)
    mask = causal_mask_bottom_right(q.shape[-2], k_all.shape[-2])     # (n, S)
    out, weights = scaled_dot_product_attention(q, k_all, v_all, mask=mask, return_weights=True)
    z = concat_heads(out)                                              # (..., n, d_model)
    x_mid = x + z @ p["W_O"]                                           # (..., n, d_model): residual sum
    m_in = layer_norm(x_mid, p["ln2_g"], p["ln2_b"], eps=LN_EPS)      # (..., n, d_model)
    h_pre = m_in @ p["W_1"] + p["b_1"]                                 # (..., n, d_ff)
    act = gelu(h_pre)                                                  # (..., n, d_ff): GELU(h) = h Φ(h)
    x_out = x_mid + act @ p["W_2"] + p["b_2"]                          # (..., n, d_model): residual sum
    return x_out, {"x": x, "a_in": a_in, "q": q, "k": k, "v": v, "weights": weights, "z": z,
                   "x_mid": x_mid, "m_in": m_in, "h_pre": h_pre, "act": act, "x_out": x_out}


def embed_tokens(params: dict, tokens: np.ndarray, start: int = 0) -> np.ndarray:
    """The stream's start: each character's row of ``W_E`` plus its position's row of ``W_pos``.

    Parameters
    ----------
    params : dict of str to numpy.ndarray
        Checked parameters.
    tokens : numpy.ndarray of int, shape (..., n)
        Checked character ids.
    start : int, default 0
        The position of the first of them (later than 0 after a KV cache).

    Returns
    -------
    numpy.ndarray, shape (..., n, d_model)

    Raises
    ------
    ValueError
        If ``start + n`` is past the learned positions.

    Examples
    --------
    >>> sizes = WriterSizes(vocab=10, n_positions=8, d_model=16, heads=2, layers=1, d_ff=32)
    >>> params = init_writer(sizes, 0)
    >>> x = embed_tokens(params, np.array([3, 3]))
    >>> bool(np.allclose(x[1] - x[0], params["W_pos"][1] - params["W_pos"][0]))
    True
    """
    n = tokens.shape[-1]
    if start + n > params["W_pos"].shape[0]:
        raise ValueError(f"positions {start} to {start + n - 1} are past the {params['W_pos'].shape[0]} "
                         "learned positions (n_positions)")
    return params["W_E"][tokens] + params["W_pos"][start:start + n]    # (..., n, d_model)


def writer_forward(params, tokens, sizes: WriterSizes) -> tuple[np.ndarray, list[dict]]:
    """Logits for the next character at every position, and what each block computed.

    Parameters
    ----------
    params : dict of str to array_like
        The parameters (see the module's table).
    tokens : array_like of int, shape (B, n) or (n,)
        Character ids, at most ``n_positions`` per row.
    sizes : WriterSizes

    Returns
    -------
    logits : numpy.ndarray, shape (B, n, vocab)
        Row ``t`` scores the character at ``t + 1``.
    trace : list of dict, one per layer
        The ``parts`` of :func:`decoder_block`; ``trace[l]["weights"]``
        (B, heads, n, n) are layer ``l``'s attention weights and
        ``trace[-1]["x_out"]`` the last stream, before the final layer norm.

    Raises
    ------
    TypeError, ValueError
        If ``sizes``, a parameter or ``tokens`` has the wrong type or shape.

    Examples
    --------
    >>> sizes = WriterSizes(vocab=10, n_positions=8, d_model=16, heads=2, layers=2, d_ff=32)
    >>> logits, trace = writer_forward(init_writer(sizes, 0), [1, 2, 3, 4], sizes)
    >>> logits.shape, len(trace), trace[1]["weights"].shape
    ((1, 4, 10), 2, (1, 2, 4, 4))
    >>> bool(np.allclose(trace[0]["weights"].sum(axis=-1), 1))
    True
    """
    return run_writer(check_writer_params(params, sizes), check_writer_tokens(tokens, sizes), sizes)


def run_writer(params: dict, tokens: np.ndarray, sizes: WriterSizes, *, past=None) -> tuple[np.ndarray, list[dict]]:
    """:func:`writer_forward` on inputs already checked; with ``past``, the new rows after a KV cache.

    Parameters
    ----------
    params : dict of str to numpy.ndarray
        Checked parameters (:func:`check_writer_params`).
    tokens : numpy.ndarray of int, shape (..., n)
        Checked ids (:func:`check_writer_tokens`).
    sizes : WriterSizes
    past : numpy.ndarray, shape (layers, 2, heads, S - n, d_head), optional, keyword-only
        The keys (index 0) and values (index 1) of the ``S - n`` positions
        before these, for every layer; the tokens then stand at positions
        ``S - n`` to ``S - 1``.

    Returns
    -------
    logits, trace
        As :func:`writer_forward`.

    Examples
    --------
    Two positions from a cache, then one new: the logits of a full pass.

    >>> sizes = WriterSizes(vocab=10, n_positions=8, d_model=16, heads=2, layers=2, d_ff=32)
    >>> params = init_writer(sizes, 0)
    >>> full, trace = run_writer(params, np.array([4, 2, 7]), sizes)
    >>> past = np.stack([np.stack([t["k"][..., :2, :], t["v"][..., :2, :]]) for t in trace])
    >>> last, _ = run_writer(params, np.array([7]), sizes, past=past)
    >>> bool(np.allclose(last, full[-1:]))
    True
    """
    start = 0 if past is None else past.shape[-2]
    x = embed_tokens(params, tokens, start)                                   # (..., n, d_model)
    trace = []
    for layer in range(sizes.layers):
        kept = {} if past is None else {"k_past": past[layer, 0], "v_past": past[layer, 1]}
        x, parts = decoder_block(x, layer_params(params, layer), sizes.heads, **kept)   # (..., n, d_model)
        trace.append(parts)
    x_final = layer_norm(x, params["lnf_g"], params["lnf_b"], eps=LN_EPS)       # (..., n, d_model)
    return x_final @ params["W_U"], trace                              # (..., n, vocab)
