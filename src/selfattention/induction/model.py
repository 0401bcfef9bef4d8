"""The model: two layers of causal heads that only read and add, and nothing else.

An attention-only decoder, as Elhage et al. (2021) study it:

* each symbol is a row of the embedding ``W_E``, which starts the residual
  stream ``x`` (one row of ``D_MODEL`` numbers per position);
* each of the ``LAYERS`` layers has ``HEADS`` causal heads. Head
  ``a`` of layer ``l`` reads the stream through its own ``W_Q``, ``W_K`` and
  ``W_V`` columns, and the heads' joined outputs go through ``W_O`` and are
  *added* to the stream (a residual connection);
* the unembedding ``W_U`` turns the last stream into one score (logit) per
  symbol: the model's guess for the next symbol.

No MLP, no layer norm, no biases. The learned positions ``W_pos`` are added
to the input of the queries and keys of every layer, and not to the stream
itself (the "position-infused attention" of Press et al., 2021): a head may
use a position to choose where to look, but what it moves is symbols only.

The parameters are one dict of arrays (float64), the layout the shipped file
``weights.npz`` has:

* ``W_E`` (VOCAB, D_MODEL): symbol to stream;
* ``W_pos`` (N_POSITIONS, D_MODEL): position to the queries' and keys' input;
* ``W_Q``, ``W_K`` (LAYERS, D_MODEL, HEADS * D_HEAD): ``q = (x + W_pos) @ W_Q[l]``,
  ``k = (x + W_pos) @ W_K[l]``;
* ``W_V`` (LAYERS, D_MODEL, HEADS * D_HEAD): ``v = x @ W_V[l]``;
* ``W_O`` (LAYERS, HEADS * D_HEAD, D_MODEL): the joined heads to the stream;
* ``W_U`` (D_MODEL, VOCAB): the stream to logits.

Head ``a`` owns columns ``a*D_HEAD`` to ``(a+1)*D_HEAD`` of ``W_Q``, ``W_K``
and ``W_V`` (as :func:`~selfattention.split_heads` cuts them), and
the same rows of ``W_O``.
"""

from __future__ import annotations

import numpy as np

from .._validate import check_positive_int
from ..attention import causal_mask
from ..multihead import concat_heads, split_heads
from ..softmax import softmax
from .task import N_POSITIONS, VOCAB

#: Numbers per position in the residual stream.
D_MODEL = 32
#: Layers, and heads in each layer.
LAYERS = 2
HEADS = 2
#: Numbers in each head's query, key and value.
D_HEAD = D_MODEL // HEADS
#: The parameters, in order.
NAMES = ("W_E", "W_pos", "W_Q", "W_K", "W_V", "W_O", "W_U")


def parameter_shapes() -> dict[str, tuple[int, ...]]:
    """The shape of every parameter.

    Examples
    --------
    >>> shapes = parameter_shapes()
    >>> shapes["W_Q"], sum(int(np.prod(s)) for s in shapes.values())
    ((2, 32, 32), 9984)
    """
    hd = HEADS * D_HEAD
    return {"W_E": (VOCAB, D_MODEL), "W_pos": (N_POSITIONS, D_MODEL), "W_Q": (LAYERS, D_MODEL, hd),
            "W_K": (LAYERS, D_MODEL, hd), "W_V": (LAYERS, D_MODEL, hd), "W_O": (LAYERS, hd, D_MODEL),
            "W_U": (D_MODEL, VOCAB)}


def init_params(seed: int) -> dict[str, np.ndarray]:
    """Random starting parameters, from a seed.

    Each matrix is Gaussian with standard deviation ``1/sqrt(rows)``, so a
    product with it keeps numbers of about the same size; ``W_pos`` has half
    that.

    Examples
    --------
    >>> params = init_params(0)
    >>> sorted(params) == sorted(NAMES), params["W_E"].shape
    (True, (16, 32))
    """
    rng = np.random.default_rng(seed)
    params = {}
    for name, shape in parameter_shapes().items():
        std = 1.0 if name in ("W_E", "W_pos") else 1.0 / np.sqrt(shape[-2])
        params[name] = rng.normal(0.0, std, shape) * (0.5 if name == "W_pos" else 1.0)
    return params


def check_params(params) -> dict[str, np.ndarray]:
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
    ValueError: W_U must have shape (32, 16), got (16, 32)
    """
    if not hasattr(params, "keys"):
        raise TypeError(f"params must be a dict of arrays, got {type(params).__name__}")
    shapes = parameter_shapes()
    missing, extra = sorted(set(shapes) - set(params)), sorted(set(params) - set(shapes))
    if missing or extra:
        raise ValueError(f"params must have exactly {list(NAMES)}; missing {missing}, extra {extra}")
    out = {}
    for name, shape in shapes.items():
        arr = np.asarray(params[name], dtype=np.float64)
        if arr.shape != shape:
            raise ValueError(f"{name} must have shape {shape}, got {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} contains NaN or inf")
        out[name] = arr
    return out


def check_tokens(tokens) -> np.ndarray:
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
    if arr.ndim != 2 or not 1 <= arr.shape[1] <= N_POSITIONS:
        raise ValueError(f"tokens must have shape (B, n) with 1 <= n <= {N_POSITIONS}, got {np.shape(tokens)}")
    if arr.size and (arr.min() < 0 or arr.max() >= VOCAB):
        raise ValueError(f"tokens must be symbols 0 to {VOCAB - 1}, got {arr.min()} to {arr.max()}")
    return arr.astype(np.int64)


def head_keep(ablate=()) -> np.ndarray:
    """A (LAYERS, HEADS) array of 1s, with 0 for each ``(layer, head)`` in ``ablate``.

    Examples
    --------
    >>> head_keep([(0, 1)]).tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    keep = np.ones((LAYERS, HEADS))
    for pair in ablate:
        layer, head = pair
        layer, head = check_positive_int(layer + 1, "layer + 1") - 1, check_positive_int(head + 1, "head + 1") - 1
        if layer >= LAYERS or head >= HEADS:
            raise ValueError(f"no head ({layer}, {head}): layers 0 to {LAYERS - 1}, heads 0 to {HEADS - 1}")
        keep[layer, head] = 0.0
    return keep


def forward(params, tokens, *, ablate=()):
    """Logits for the next symbol at every position, and what each layer computed.

    Parameters
    ----------
    params : dict of numpy.ndarray
        The parameters (see the module's table).
    tokens : array_like of int, shape (B, n) or (n,)
        Symbols 0 to ``VOCAB - 1``, at most ``N_POSITIONS`` of them.
    ablate : iterable of (layer, head), keyword-only
        Heads whose output is set to zero before ``W_O`` (an *ablation*).

    Returns
    -------
    logits : numpy.ndarray, shape (B, n, VOCAB)
        Row ``t`` scores the symbol at ``t + 1``.
    trace : list of dict, one per layer
        ``x`` (B, n, d_model) the stream the layer reads, ``qk_in`` what
        queries and keys read (``x + W_pos``), ``q``, ``k``, ``v``
        (B, h, n, d_head), ``weights`` (B, h, n, n) and ``z`` (B, n, h*d_head)
        the heads' joined outputs. The last stream is ``trace[-1]["x_out"]``.

    Raises
    ------
    TypeError, ValueError
        If a parameter or ``tokens`` has the wrong type or shape.

    Examples
    --------
    >>> logits, trace = forward(init_params(0), [0, 1, 2, 0])
    >>> logits.shape, trace[1]["weights"].shape
    ((1, 4, 16), (1, 2, 4, 4))
    >>> bool(np.allclose(trace[0]["weights"].sum(axis=-1), 1))
    True
    """
    params, tokens = check_params(params), check_tokens(tokens)
    keep = head_keep(ablate)
    n = tokens.shape[1]
    allowed = causal_mask(n)                                           # (n, n): True where a query may look
    x = params["W_E"][tokens]                                          # (B, n, d_model)
    trace = []
    for layer in range(LAYERS):
        qk_in = x + params["W_pos"][:n]                                # (B, n, d_model)
        q = split_heads(qk_in @ params["W_Q"][layer], HEADS)           # (B, h, n, d_head)
        k = split_heads(qk_in @ params["W_K"][layer], HEADS)           # (B, h, n, d_head)
        v = split_heads(x @ params["W_V"][layer], HEADS)               # (B, h, n, d_head)
        scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(D_HEAD)          # (B, h, n, n)
        weights = softmax(np.where(allowed, scores, -np.inf))          # (B, h, n, n)
        heads = weights @ v * keep[layer][:, None, None]               # (B, h, n, d_head)
        z = concat_heads(heads)                                        # (B, n, h * d_head)
        x_out = x + z @ params["W_O"][layer]                           # (B, n, d_model): the residual sum
        trace.append({"x": x, "qk_in": qk_in, "q": q, "k": k, "v": v, "weights": weights, "z": z, "x_out": x_out})
        x = x_out
    return x @ params["W_U"], trace                                    # (B, n, VOCAB)
