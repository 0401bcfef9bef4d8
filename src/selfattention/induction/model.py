"""The model: layers of causal heads that only read and add, sized by :class:`Sizes`.

An attention-only decoder, as Elhage et al. (2021) study it:

* each symbol is a row of the embedding ``W_E``, which starts the residual
  stream ``x`` (one row of :data:`D_MODEL` numbers per position);
* layer ``l`` has its own number of causal heads, ``HEADS[l]`` (the book's
  model has two heads in layer 0 and one in layer 1). Head ``a`` reads the
  stream through its own columns of ``W_Q{l}``, ``W_K{l}`` and ``W_V{l}``, and the
  heads' joined outputs go through ``W_O{l}`` and are *added* to the stream
  (a residual connection);
* the unembedding ``W_U`` turns the last stream into one score (logit) per
  symbol: the model's guess for the next symbol.

No MLP, no layer norm, no biases.

Where the learned positions ``W_pos`` enter is a size too (``Sizes.positions``):

* ``"qk0"`` (the book's model): added to the input of layer 0's queries and
  keys only, ``q = (x + W_pos) @ W_Q0``. Layer 0's heads can find "the symbol
  before me" by position; the values move symbols only, so position never
  enters the stream, and layer 1's heads can only look by content;
* ``"qk"``: added to the queries' and keys' input of every layer (the
  "position-infused attention" of Press et al., 2021);
* ``"stream"``: added once to the embedding, so they flow through the
  residual stream like everything else (GPT-2's way).

The parameters are one dict of float64 arrays, the layout of the shipped
``weights.npz``; ``h_l`` is layer ``l``'s head count:

* ``W_E`` (VOCAB, D_MODEL): symbol to stream;
* ``W_pos`` (N_POSITIONS, D_MODEL): the learned positions;
* ``W_Q{l}``, ``W_K{l}``, ``W_V{l}`` (D_MODEL, h_l * D_HEAD): head ``a`` owns
  columns ``a * D_HEAD`` to ``(a + 1) * D_HEAD`` (as
  :func:`~selfattention.split_heads` cuts them);
* ``W_O{l}`` (h_l * D_HEAD, D_MODEL): the joined heads back to the stream, head
  ``a`` owning the same rows;
* ``W_U`` (D_MODEL, VOCAB): the stream to logits.
"""

from __future__ import annotations

from numbers import Integral
from typing import NamedTuple

import numpy as np

from ..attention import causal_mask
from ..multihead import concat_heads, split_heads
from ..softmax import softmax
from .task import N_POSITIONS, VOCAB

#: Numbers per position in the residual stream.
D_MODEL = 64
#: Heads of each layer: two in layer 0, one in layer 1 (a tuple, one count per layer).
HEADS = (2, 1)
#: How many layers: one per entry of :data:`HEADS`.
LAYERS = len(HEADS)
#: Numbers in each head's query, key and value.
D_HEAD = 32
#: Where the positions enter: layer 0's queries and keys only.
POSITIONS = "qk0"
#: The three places positions may enter (see the module's text).
DESIGNS = ("qk0", "qk", "stream")


class Sizes(NamedTuple):
    """The model's sizes, and where positions enter.

    Examples
    --------
    >>> SIZES.layers, SIZES.heads, SIZES.positions
    (2, (2, 1), 'qk0')
    >>> SIZES._replace(positions="stream").positions      # another design, the same sizes
    'stream'
    """

    vocab: int = VOCAB
    n_positions: int = N_POSITIONS
    d_model: int = D_MODEL
    #: Heads of each layer: its length is the number of layers.
    heads: tuple = HEADS
    d_head: int = D_HEAD
    #: ``"qk0"``, ``"qk"`` or ``"stream"`` (see the module's text).
    positions: str = POSITIONS

    @property
    def layers(self) -> int:
        """How many layers: one per entry of ``heads``."""
        return len(self.heads)


#: The sizes of the book's model.
SIZES = Sizes()


def check_sizes(sizes) -> Sizes:
    """Return ``sizes`` if it describes a model, or say what is wrong.

    Examples
    --------
    >>> check_sizes(SIZES._replace(positions="everywhere"))
    Traceback (most recent call last):
    ...
    ValueError: positions must be one of ('qk0', 'qk', 'stream'), got 'everywhere'
    """
    if not isinstance(sizes, Sizes):
        raise TypeError(f"sizes must be a Sizes, got {type(sizes).__name__}")
    if sizes.positions not in DESIGNS:
        raise ValueError(f"positions must be one of {DESIGNS}, got {sizes.positions!r}")
    counts = (sizes.vocab, sizes.n_positions, sizes.d_model, sizes.d_head, *sizes.heads)
    if not sizes.heads or any(isinstance(c, bool) or not isinstance(c, Integral) or c < 1 for c in counts):
        raise ValueError(f"every size and head count must be a positive whole number, got {sizes}")
    return sizes


def positions_in_qk(sizes: Sizes, layer: int) -> bool:
    """True if layer ``layer``'s queries and keys read ``x + W_pos`` rather than ``x``.

    Examples
    --------
    >>> [positions_in_qk(SIZES, layer) for layer in range(2)]
    [True, False]
    >>> [positions_in_qk(SIZES._replace(positions=p), 1) for p in ("qk", "stream")]
    [True, False]
    """
    return sizes.positions == "qk" or (sizes.positions == "qk0" and layer == 0)


def names(sizes: Sizes = SIZES) -> tuple[str, ...]:
    """The parameters' names, in order.

    Examples
    --------
    >>> names()
    ('W_E', 'W_pos', 'W_Q0', 'W_K0', 'W_V0', 'W_O0', 'W_Q1', 'W_K1', 'W_V1', 'W_O1', 'W_U')
    """
    per_layer = tuple(f"{w}{layer}" for layer in range(sizes.layers) for w in ("W_Q", "W_K", "W_V", "W_O"))
    return ("W_E", "W_pos", *per_layer, "W_U")


#: The parameters of the book's model, in order.
NAMES = names(SIZES)


def parameter_shapes(sizes: Sizes = SIZES) -> dict[str, tuple[int, ...]]:
    """The shape of every parameter.

    Examples
    --------
    >>> shapes = parameter_shapes()
    >>> shapes["W_Q0"], shapes["W_Q1"], sum(int(np.prod(s)) for s in shapes.values())
    ((64, 64), (64, 32), 33280)
    """
    v, n, d = sizes.vocab, sizes.n_positions, sizes.d_model
    shapes = {"W_E": (v, d), "W_pos": (n, d)}
    for layer, h in enumerate(sizes.heads):
        hd = h * sizes.d_head
        shapes.update({f"W_Q{layer}": (d, hd), f"W_K{layer}": (d, hd), f"W_V{layer}": (d, hd),
                       f"W_O{layer}": (hd, d)})
    return {**shapes, "W_U": (d, v)}


def init_params(seed: int, sizes: Sizes = SIZES) -> dict[str, np.ndarray]:
    """Random starting parameters, from a seed.

    Each matrix is Gaussian with standard deviation ``1/sqrt(rows)``, so a
    product with it keeps numbers of about the same size; ``W_E`` has 1 and
    ``W_pos`` 0.5.

    Examples
    --------
    >>> params = init_params(0)
    >>> tuple(params) == NAMES, params["W_E"].shape
    (True, (52, 64))
    """
    rng = np.random.default_rng(seed)
    params = {}
    for name, shape in parameter_shapes(check_sizes(sizes)).items():
        std = 1.0 if name in ("W_E", "W_pos") else 1.0 / np.sqrt(shape[-2])
        params[name] = rng.normal(0.0, std, shape) * (0.5 if name == "W_pos" else 1.0)
    return params


def check_params(params, sizes: Sizes = SIZES) -> dict[str, np.ndarray]:
    """Return the parameters as float64 arrays, or say which one is missing or has the wrong shape.

    Raises
    ------
    TypeError
        If ``params`` is not a mapping.
    ValueError
        If a parameter is missing, extra, of the wrong shape or not finite.

    Examples
    --------
    >>> bad = init_params(0); bad["W_U"] = bad["W_U"].T
    >>> check_params(bad)
    Traceback (most recent call last):
    ...
    ValueError: W_U must have shape (64, 52), got (52, 64)
    """
    if not hasattr(params, "keys"):
        raise TypeError(f"params must be a dict of arrays, got {type(params).__name__}")
    shapes = parameter_shapes(sizes)
    missing, extra = sorted(set(shapes) - set(params)), sorted(set(params) - set(shapes))
    if missing or extra:
        raise ValueError(f"params must have exactly {list(names(sizes))} for heads {sizes.heads}; "
                         f"missing {missing}, extra {extra}")
    out = {}
    for name, shape in shapes.items():
        arr = np.asarray(params[name], dtype=np.float64)
        if arr.shape != shape:
            raise ValueError(f"{name} must have shape {shape}, got {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} contains NaN or inf")
        out[name] = arr
    return out


def check_tokens(tokens, sizes: Sizes = SIZES) -> np.ndarray:
    """Return ``tokens`` as a (B, n) integer array of symbols, or raise a clear error.

    Examples
    --------
    >>> check_tokens([0, 1, 2]).shape
    (1, 3)
    """
    arr = np.asarray(tokens)
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"tokens must be integers, got dtype {arr.dtype}")
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or not 1 <= arr.shape[1] <= sizes.n_positions:
        raise ValueError(f"tokens must have shape (B, n) with 1 <= n <= {sizes.n_positions}, got {np.shape(tokens)}")
    if arr.size and (arr.min() < 0 or arr.max() >= sizes.vocab):
        raise ValueError(f"tokens must be symbols 0 to {sizes.vocab - 1}, got {arr.min()} to {arr.max()}")
    return arr.astype(np.int64)


def check_layer_head(layer, head, sizes: Sizes = SIZES) -> tuple[int, int]:
    """Return ``(layer, head)`` as ints if the model has that head, or say which heads it has.

    Examples
    --------
    >>> check_layer_head(1, 1)
    Traceback (most recent call last):
    ...
    ValueError: no head (1, 1): layers 0 to 1 have (2, 1) heads
    """
    for value, name in ((layer, "layer"), (head, "head")):
        if isinstance(value, bool) or not isinstance(value, Integral):
            raise TypeError(f"{name} must be a whole number, got {value!r}")
    if not (0 <= layer < sizes.layers and 0 <= head < sizes.heads[layer]):
        raise ValueError(f"no head ({layer}, {head}): layers 0 to {sizes.layers - 1} have {sizes.heads} heads")
    return int(layer), int(head)


def head_keep(ablate=(), sizes: Sizes = SIZES) -> list[np.ndarray]:
    """One array of 1s per layer (one per head), with 0 for each ``(layer, head)`` in ``ablate``.

    Examples
    --------
    >>> [k.tolist() for k in head_keep([(0, 1)])]
    [[1.0, 0.0], [1.0]]
    """
    keep = [np.ones(h) for h in sizes.heads]
    for pair in ablate:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ValueError(f"ablate must hold (layer, head) pairs, got {pair!r}")
        layer, head = check_layer_head(*pair, sizes=sizes)
        keep[layer][head] = 0.0
    return keep


def forward(params, tokens, *, sizes: Sizes = SIZES, ablate=()):
    """Logits for the next symbol at every position, and what each layer computed.

    Parameters
    ----------
    params : dict of numpy.ndarray
        The parameters (see the module's table).
    tokens : array_like of int, shape (B, n) or (n,)
        Symbols 0 to ``vocab - 1``, at most ``n_positions`` of them.
    sizes : Sizes, keyword-only
        The sizes and where positions enter; by default the book's model.
    ablate : iterable of (layer, head), keyword-only
        Heads whose output is set to zero before ``W_O`` (an *ablation*).

    Returns
    -------
    logits : numpy.ndarray, shape (B, n, vocab)
        Row ``t`` scores the symbol at ``t + 1``.
    trace : list of dict, one per layer
        ``x`` (B, n, d_model) the stream the layer reads, ``qk_in`` what
        queries and keys read (``x + W_pos`` where positions enter them, else
        ``x``), ``q``, ``k``, ``v`` (B, h, n, d_head), ``weights`` (B, h, n, n),
        ``z`` (B, n, h * d_head) the heads' joined outputs and ``x_out`` the
        stream after the layer.

    Raises
    ------
    TypeError, ValueError
        If a parameter, ``tokens``, ``sizes`` or ``ablate`` is of the wrong type or shape.

    Examples
    --------
    >>> logits, trace = forward(init_params(0), [0, 1, 2, 0])
    >>> logits.shape, trace[0]["weights"].shape, trace[1]["weights"].shape
    ((1, 4, 52), (1, 2, 4, 4), (1, 1, 4, 4))
    >>> bool(np.allclose(trace[0]["weights"].sum(axis=-1), 1))
    True
    """
    sizes = check_sizes(sizes)
    params, tokens = check_params(params, sizes), check_tokens(tokens, sizes)
    keep = head_keep(ablate, sizes)
    n = tokens.shape[1]
    allowed = causal_mask(n)                                           # (n, n): True where a query may look
    pos = params["W_pos"][:n]                                          # (n, d_model)
    x = params["W_E"][tokens] + (pos if sizes.positions == "stream" else 0.0)   # (B, n, d_model)
    trace = []
    for layer, h in enumerate(sizes.heads):
        qk_in = x + pos if positions_in_qk(sizes, layer) else x        # (B, n, d_model)
        q = split_heads(qk_in @ params[f"W_Q{layer}"], h)              # (B, h, n, d_head)
        k = split_heads(qk_in @ params[f"W_K{layer}"], h)              # (B, h, n, d_head)
        v = split_heads(x @ params[f"W_V{layer}"], h)                  # (B, h, n, d_head)
        scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(sizes.d_head)    # (B, h, n, n)
        weights = softmax(np.where(allowed, scores, -np.inf))          # (B, h, n, n)
        heads = weights @ v * keep[layer][:, None, None]               # (B, h, n, d_head)
        z = concat_heads(heads)                                        # (B, n, h * d_head)
        x_out = x + z @ params[f"W_O{layer}"]                          # (B, n, d_model): the residual sum
        trace.append({"x": x, "qk_in": qk_in, "q": q, "k": k, "v": v, "weights": weights, "z": z, "x_out": x_out})
        x = x_out
    return x @ params["W_U"], trace                                    # (B, n, vocab)
