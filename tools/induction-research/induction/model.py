"""The model: layers of causal heads that only read and add, sized by :class:`Sizes`.

The same attention-only decoder as ``selfattention.induction.model`` (Elhage
et al., 2021): embedding ``W_E`` starts the residual stream; each layer's
causal heads read it through ``W_Q``, ``W_K``, ``W_V`` and add their joined
outputs through ``W_O``; ``W_U`` turns the last stream into a score per
symbol. No MLP, no layer norm, no biases.

Where the learned positions ``W_pos`` enter is a size too:

* ``"qk"`` (as the package does now): added to the input of every layer's
  queries and keys only, ``q = (x + W_pos) @ W_Q``; the values move symbols only;
* ``"stream"``: added once to the embedding, so they flow through the
  residual stream like everything else (GPT-2's way);
* ``"qk0"``: added to the queries' and keys' input of layer 0 only. Layer 0's
  heads can then find "the symbol before me" by position, and layer 1's
  heads cannot see position at all: they can only look by content.

Parameters, one dict of float64 arrays; layer ``l`` may have its own number
of heads ``h_l`` (``Sizes.heads`` is one count per layer):

* ``W_E`` (V, d): symbol to stream; ``W_pos`` (n, d): the learned positions;
* ``W_Q{l}``, ``W_K{l}``, ``W_V{l}`` (d, h_l * d_head): head ``a`` owns columns
  ``a * d_head`` to ``(a + 1) * d_head``;
* ``W_O{l}`` (h_l * d_head, d): the joined heads back to the stream;
* ``W_U`` (d, V): the stream to logits.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from selfattention._validate import check_positive_int
from selfattention.multihead import concat_heads, split_heads
from selfattention.softmax import softmax



class Sizes(NamedTuple):
    """The model's sizes, and where positions enter.

    Examples
    --------
    >>> SIZES.layers, SIZES.heads
    (2, (2, 1))
    """

    vocab: int = 52
    n_positions: int = 32
    d_model: int = 64
    #: Heads of each layer: its length is the number of layers.
    heads: tuple = (2, 1)
    d_head: int = 32
    #: ``"qk"``: positions enter the queries' and keys' input of every layer; ``"qk0"``: of layer 0 only;
    #: ``"stream"``: the residual stream.
    positions: str = "qk0"


    @property
    def layers(self) -> int:
        """How many layers: one per entry of ``heads``."""
        return len(self.heads)


#: The sizes of the proposal.
SIZES = Sizes()


def names(sizes: "Sizes" = SIZES) -> tuple[str, ...]:
    """The parameters' names, in order.

    Examples
    --------
    >>> names()
    ('W_E', 'W_pos', 'W_Q0', 'W_K0', 'W_V0', 'W_O0', 'W_Q1', 'W_K1', 'W_V1', 'W_O1', 'W_U')
    """
    per_layer = tuple(f"{w}{layer}" for layer in range(sizes.layers) for w in ("W_Q", "W_K", "W_V", "W_O"))
    return ("W_E", "W_pos", *per_layer, "W_U")


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
        shapes.update({f"W_Q{layer}": (d, hd), f"W_K{layer}": (d, hd), f"W_V{layer}": (d, hd), f"W_O{layer}": (hd, d)})
    return {**shapes, "W_U": (d, v)}


def init_params(seed: int, sizes: Sizes = SIZES) -> dict[str, np.ndarray]:
    """Random starting parameters: Gaussian, standard deviation ``1/sqrt(rows)``; ``W_E`` 1, ``W_pos`` 0.5.

    Examples
    --------
    >>> init_params(0)["W_E"].shape
    (52, 64)
    """
    rng = np.random.default_rng(seed)
    params = {}
    for name, shape in parameter_shapes(sizes).items():
        std = 1.0 if name in ("W_E", "W_pos") else 1.0 / np.sqrt(shape[-2])
        params[name] = rng.normal(0.0, std, shape) * (0.5 if name == "W_pos" else 1.0)
    return params


def check_params(params, sizes: Sizes = SIZES) -> dict[str, np.ndarray]:
    """Return the parameters as float64 arrays, or say which one is missing or has the wrong shape.

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
        raise ValueError(f"params must have exactly {list(names(sizes))}; missing {missing}, extra {extra}")
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


def head_keep(ablate=(), sizes: Sizes = SIZES) -> np.ndarray:
    """One array of 1s per layer (one per head), with 0 for each ``(layer, head)`` in ``ablate``.

    Examples
    --------
    >>> [k.tolist() for k in head_keep([(0, 1)])]
    [[1.0, 0.0], [1.0]]
    """
    keep = [np.ones(h) for h in sizes.heads]
    for layer, head in ablate:
        layer, head = check_positive_int(layer + 1, "layer + 1") - 1, check_positive_int(head + 1, "head + 1") - 1
        if layer >= sizes.layers or head >= sizes.heads[layer]:
            raise ValueError(f"no head ({layer}, {head}): the layers have {sizes.heads} heads")
        keep[layer][head] = 0.0
    return keep


def forward(params, tokens, *, sizes: Sizes = SIZES, ablate=()):
    """Logits for the next symbol at every position, and what each layer computed.

    Parameters
    ----------
    params : dict of numpy.ndarray
    tokens : array_like of int, shape (B, n) or (n,)
    sizes : Sizes, keyword-only
    ablate : iterable of (layer, head), keyword-only
        Heads whose output is set to zero before ``W_O``.

    Returns
    -------
    logits : numpy.ndarray, shape (B, n, vocab)
        Row ``t`` scores the symbol at ``t + 1``.
    trace : list of dict, one per layer
        ``x`` the stream the layer reads, ``qk_in`` what queries and keys
        read, ``q``, ``k``, ``v`` (B, h, n, d_head), ``weights``
        (B, h, n, n), ``z`` (B, n, h*d_head) and ``x_out``.

    Examples
    --------
    >>> logits, trace = forward(init_params(0), [0, 1, 2, 0])
    >>> logits.shape, trace[1]["weights"].shape
    ((1, 4, 52), (1, 1, 4, 4))
    >>> bool(np.allclose(trace[0]["weights"].sum(axis=-1), 1))
    True
    >>> logits_s, _ = forward(init_params(0, SIZES._replace(positions="stream")), [0, 1], sizes=SIZES._replace(positions="stream"))
    >>> logits_s.shape
    (1, 2, 52)
    """
    params, tokens = check_params(params, sizes), check_tokens(tokens, sizes)
    if sizes.positions not in ("qk", "qk0", "stream"):
        raise ValueError(f"positions must be 'qk', 'qk0' or 'stream', got {sizes.positions!r}")
    keep = head_keep(ablate, sizes)
    n = tokens.shape[1]
    allowed = np.tri(n, n, dtype=bool)                                 # (n, n): query i sees keys j <= i
    pos = params["W_pos"][:n]                                          # (n, d_model)
    x = params["W_E"][tokens] + (pos if sizes.positions == "stream" else 0.0)   # (B, n, d_model)
    trace = []
    for layer, h in enumerate(sizes.heads):
        in_qk = sizes.positions == "qk" or (sizes.positions == "qk0" and layer == 0)
        qk_in = x + pos if in_qk else x                                # (B, n, d_model)
        q = split_heads(qk_in @ params[f"W_Q{layer}"], h)               # (B, h, n, d_head)
        k = split_heads(qk_in @ params[f"W_K{layer}"], h)               # (B, h, n, d_head)
        v = split_heads(x @ params[f"W_V{layer}"], h)                   # (B, h, n, d_head)
        scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(sizes.d_head)    # (B, h, n, n)
        weights = softmax(np.where(allowed, scores, -np.inf))          # (B, h, n, n)
        heads = weights @ v * keep[layer][:, None, None]               # (B, h, n, d_head)
        z = concat_heads(heads)                                        # (B, n, h * d_head)
        x_out = x + z @ params[f"W_O{layer}"]                           # the residual sum
        trace.append({"x": x, "qk_in": qk_in, "q": q, "k": k, "v": v, "weights": weights, "z": z, "x_out": x_out})
        x = x_out
    return x @ params["W_U"], trace
