"""A small BERT encoder, forward pass only, in NumPy (float32).

Every step is a short pure function named after its maths:

* :func:`bert_embeddings` -- word + position + token-type vectors, then
  :func:`layer_norm`;
* :func:`bert_self_attention` -- :func:`linear` projections to queries, keys
  and values, :func:`split_heads`, the package's own
  :func:`~selfattention.attention.scaled_dot_product_attention`, then
  :func:`merge_heads`;
* :func:`feed_forward` -- :func:`linear`, exact :func:`gelu`, :func:`linear`;
* :func:`bert_layer` -- attention and feed-forward, each followed by
  "add the input back, then :func:`layer_norm`";
* :func:`bert_forward` -- embeddings, then every layer, keeping every hidden
  state, every attention-weight matrix and every pre-softmax score matrix.

The weights are a plain mapping from the parameter names used by Hugging
Face's ``BertModel`` (for example ``"encoder.layer.0.attention.self.query.weight"``)
to arrays, with PyTorch's layout: a linear layer's ``weight`` has shape
``(out_features, in_features)`` and computes ``x @ weight.T + bias``. Loading
real weights from disk lives in :mod:`selfattention.minilm`; this module
imports only NumPy and the standard library.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ._validate import as_float_array, check_ndim
from .attention import attention_scores, scaled_dot_product_attention

# ---------------------------------------------------------------------------
# Configuration
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class BertConfig:
    """The sizes of a BERT encoder; the defaults are all-MiniLM-L6-v2's.

    Field names follow Hugging Face's ``config.json`` so that
    :meth:`from_dict` can read one directly.

    Parameters
    ----------
    vocab_size : int, default 30522
        Number of rows of the word-embedding table.
    hidden_size : int, default 384
        Width ``d_model`` of every hidden state.
    num_hidden_layers : int, default 6
        Number of encoder layers.
    num_attention_heads : int, default 12
        Heads per layer; must divide ``hidden_size``.
    intermediate_size : int, default 1536
        Width of the feed-forward layer.
    max_position_embeddings : int, default 512
        Longest sequence the position table covers.
    type_vocab_size : int, default 2
        Number of token types (sentence A / sentence B).
    layer_norm_eps : float, default 1e-12
        The ``eps`` added to the variance in every LayerNorm.

    Raises
    ------
    TypeError
        If a size is not an integer or ``layer_norm_eps`` is not a number.
    ValueError
        If a size is not positive, ``num_attention_heads`` does not divide
        ``hidden_size``, or ``layer_norm_eps`` is not positive and finite.

    Examples
    --------
    >>> cfg = BertConfig()
    >>> cfg.num_hidden_layers, cfg.num_attention_heads, cfg.head_size
    (6, 12, 32)
    >>> BertConfig(hidden_size=10, num_attention_heads=4)
    Traceback (most recent call last):
    ...
    ValueError: num_attention_heads=4 must divide hidden_size=10
    """

    vocab_size: int = 30522
    hidden_size: int = 384
    num_hidden_layers: int = 6
    num_attention_heads: int = 12
    intermediate_size: int = 1536
    max_position_embeddings: int = 512
    type_vocab_size: int = 2
    layer_norm_eps: float = 1e-12

    def __post_init__(self):
        for name in (
            "vocab_size",
            "hidden_size",
            "num_hidden_layers",
            "num_attention_heads",
            "intermediate_size",
            "max_position_embeddings",
            "type_vocab_size",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(f"{name} must be a positive integer, got {value!r}")
            if value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value}")
        if self.hidden_size % self.num_attention_heads:
            raise ValueError(
                f"num_attention_heads={self.num_attention_heads} must divide "
                f"hidden_size={self.hidden_size}"
            )
        eps = self.layer_norm_eps
        if isinstance(eps, bool) or not isinstance(eps, numbers.Real):
            raise TypeError(f"layer_norm_eps must be a number, got {eps!r}")
        if not (math.isfinite(eps) and eps > 0):
            raise ValueError(f"layer_norm_eps must be positive and finite, got {eps}")

    @property
    def head_size(self) -> int:
        """Width of one head: ``hidden_size // num_attention_heads``."""
        return self.hidden_size // self.num_attention_heads

    @classmethod
    def from_dict(cls, config: Mapping) -> BertConfig:
        """Read the fields this module needs from a Hugging Face ``config.json``.

        Parameters
        ----------
        config : Mapping
            The parsed JSON. Unknown keys are ignored; missing keys take the
            defaults.

        Returns
        -------
        BertConfig

        Raises
        ------
        TypeError
            If ``config`` is not a mapping.
        ValueError
            If the model is not a plain BERT encoder this module can run:
            ``hidden_act`` other than exact ``"gelu"`` or
            ``position_embedding_type`` other than ``"absolute"``.

        Examples
        --------
        >>> BertConfig.from_dict({"hidden_size": 8, "num_attention_heads": 2}).head_size
        4
        >>> BertConfig.from_dict({"hidden_act": "gelu_new"})
        Traceback (most recent call last):
        ...
        ValueError: config: hidden_act must be 'gelu' (exact, erf-based), got 'gelu_new'
        """
        if not isinstance(config, Mapping):
            raise TypeError(f"config must be a mapping, got {type(config).__name__}")
        act = config.get("hidden_act", "gelu")
        if act != "gelu":
            raise ValueError(f"config: hidden_act must be 'gelu' (exact, erf-based), got {act!r}")
        pos = config.get("position_embedding_type", "absolute")
        if pos != "absolute":
            raise ValueError(f"config: position_embedding_type must be 'absolute', got {pos!r}")
        names = cls.__dataclass_fields__
        return cls(**{k: config[k] for k in names if k in config})


def bert_weight_shapes(config: BertConfig) -> dict[str, tuple[int, ...]]:
    """The name and shape of every parameter :func:`bert_forward` reads.

    Parameters
    ----------
    config : BertConfig
        The model's sizes.

    Returns
    -------
    dict of str to tuple of int
        Hugging Face ``BertModel`` parameter names (without a ``"bert."``
        prefix) and their shapes; linear weights are ``(out, in)``.

    Raises
    ------
    TypeError
        If ``config`` is not a :class:`BertConfig`.

    Examples
    --------
    >>> shapes = bert_weight_shapes(BertConfig())
    >>> len(shapes)
    101
    >>> shapes["encoder.layer.0.intermediate.dense.weight"]
    (1536, 384)
    """
    _check_config(config)
    d, f = config.hidden_size, config.intermediate_size
    shapes = {
        "embeddings.word_embeddings.weight": (config.vocab_size, d),
        "embeddings.position_embeddings.weight": (config.max_position_embeddings, d),
        "embeddings.token_type_embeddings.weight": (config.type_vocab_size, d),
        "embeddings.LayerNorm.weight": (d,),
        "embeddings.LayerNorm.bias": (d,),
    }
    for i in range(config.num_hidden_layers):
        p = f"encoder.layer.{i}."
        for name in ("query", "key", "value"):
            shapes[f"{p}attention.self.{name}.weight"] = (d, d)
            shapes[f"{p}attention.self.{name}.bias"] = (d,)
        shapes[f"{p}attention.output.dense.weight"] = (d, d)
        shapes[f"{p}attention.output.dense.bias"] = (d,)
        shapes[f"{p}attention.output.LayerNorm.weight"] = (d,)
        shapes[f"{p}attention.output.LayerNorm.bias"] = (d,)
        shapes[f"{p}intermediate.dense.weight"] = (f, d)
        shapes[f"{p}intermediate.dense.bias"] = (f,)
        shapes[f"{p}output.dense.weight"] = (d, f)
        shapes[f"{p}output.dense.bias"] = (d,)
        shapes[f"{p}output.LayerNorm.weight"] = (d,)
        shapes[f"{p}output.LayerNorm.bias"] = (d,)
    return shapes


def check_bert_weights(weights: Mapping, config: BertConfig) -> dict[str, np.ndarray]:
    """Check that ``weights`` holds every parameter with the right shape.

    Only names and shapes are checked (plus a real floating dtype), so the
    check is cheap enough to run on every forward pass. Extra entries (such
    as ``"pooler.dense.weight"``) are ignored.

    Parameters
    ----------
    weights : Mapping of str to array_like
        Parameters by their Hugging Face names.
    config : BertConfig
        The sizes the parameters must have.

    Returns
    -------
    dict of str to numpy.ndarray
        The needed parameters as float32 arrays (no copy if already float32).

    Raises
    ------
    TypeError
        If ``weights`` is not a mapping or a parameter is not real floating.
    ValueError
        If a parameter is missing or has the wrong shape.

    Examples
    --------
    >>> cfg = BertConfig(vocab_size=10, hidden_size=4, num_hidden_layers=1,
    ...                  num_attention_heads=2, intermediate_size=8,
    ...                  max_position_embeddings=6)
    >>> w = random_bert_weights(cfg)
    >>> len(check_bert_weights(w, cfg))
    21
    >>> del w["encoder.layer.0.output.dense.bias"]
    >>> check_bert_weights(w, cfg)
    Traceback (most recent call last):
    ...
    ValueError: weights is missing 'encoder.layer.0.output.dense.bias' (expected shape (4,))
    """
    if not isinstance(weights, Mapping):
        raise TypeError(
            f"weights must be a mapping of names to arrays, got {type(weights).__name__}"
        )
    checked = {}
    for name, shape in bert_weight_shapes(config).items():
        if name not in weights:
            raise ValueError(f"weights is missing {name!r} (expected shape {shape})")
        arr = np.asarray(weights[name])
        if not np.issubdtype(arr.dtype, np.floating):
            raise TypeError(
                f"weights[{name!r}] must be a real floating array, got dtype {arr.dtype}"
            )
        if arr.shape != shape:
            raise ValueError(f"weights[{name!r}] must have shape {shape}, got {arr.shape}")
        checked[name] = arr.astype(np.float32, copy=False)
    return checked


def random_bert_weights(
    config: BertConfig, *, seed: int = 0, std: float = 0.02
) -> dict[str, np.ndarray]:
    """Untrained weights for ``config``: small normal matrices, LayerNorm at identity.

    Handy for shapes, tests and toy examples; a trained model comes from
    :func:`selfattention.minilm.load_weights`.

    Parameters
    ----------
    config : BertConfig
        The model's sizes.
    seed : int, default 0, keyword-only
        Seed of :func:`numpy.random.default_rng`.
    std : float, default 0.02, keyword-only
        Standard deviation of the matrices and embedding tables.

    Returns
    -------
    dict of str to numpy.ndarray
        float32 arrays with the names and shapes of :func:`bert_weight_shapes`:
        LayerNorm weights are 1, biases are 0.

    Raises
    ------
    TypeError
        If ``config`` is not a :class:`BertConfig`.
    ValueError
        If ``std`` is negative or not finite.

    Examples
    --------
    >>> w = random_bert_weights(BertConfig(vocab_size=10, hidden_size=4,
    ...     num_hidden_layers=1, num_attention_heads=2, intermediate_size=8))
    >>> w["embeddings.word_embeddings.weight"].shape, w["embeddings.LayerNorm.weight"]
    ((10, 4), array([1., 1., 1., 1.], dtype=float32))
    """
    if not (isinstance(std, numbers.Real) and math.isfinite(std) and std >= 0):
        raise ValueError(f"std must be a finite number >= 0, got {std!r}")
    rng = np.random.default_rng(seed)
    weights = {}
    for name, shape in bert_weight_shapes(config).items():
        if name.endswith("LayerNorm.weight"):
            arr = np.ones(shape)
        elif len(shape) == 1:
            arr = np.zeros(shape)
        else:
            arr = rng.normal(0.0, std, size=shape)
        weights[name] = arr.astype(np.float32)
    return weights


# ---------------------------------------------------------------------------
# The error function and GELU
# ---------------------------------------------------------------------------

# Chebyshev-fitted coefficients of erfc (Press et al., Numerical Recipes,
# 2nd ed., section 6.2, "erfcc"): relative error below 1.2e-7 for every x.
_ERFC_COEFFS = (
    -1.26551223,
    1.00002368,
    0.37409196,
    0.09678418,
    -0.18628806,
    0.27886807,
    -1.13520398,
    1.48851587,
    -0.82215223,
    0.17087277,
)


def erfc(x) -> np.ndarray:
    """Complementary error function ``erfc(x) = 1 - erf(x)``, vectorised.

    Uses ``erfc(z) = t * exp(-z**2 + P(t))`` with ``t = 1 / (1 + z/2)`` and
    a degree-9 polynomial ``P`` (Numerical Recipes' ``erfcc``), evaluated in
    float64, then ``erfc(-z) = 2 - erfc(z)``. The relative error is below
    1.2e-7 everywhere (float32 has about 6e-8), so it is exact enough for a
    float32 network.

    Parameters
    ----------
    x : array_like
        Real numbers.

    Returns
    -------
    numpy.ndarray
        ``erfc(x)``, same shape; float32 stays float32, anything else
        becomes float64.

    Raises
    ------
    TypeError
        If ``x`` is not real numeric.
    ValueError
        If ``x`` contains NaN or inf.

    Examples
    --------
    >>> import math
    >>> erfc([0.0, 1.0, -1.0]).round(7)
    array([1.       , 0.1572992, 1.8427008])
    >>> round(math.erfc(1.0), 7)
    0.1572992
    """
    x = as_float_array(x, "x")
    xd = x.astype(np.float64, copy=False)
    z = np.abs(xd)
    t = 1.0 / (1.0 + 0.5 * z)
    poly = np.zeros_like(t)
    for c in reversed(_ERFC_COEFFS[1:]):  # Horner: P(t) = c0 + t (c1 + t (c2 + ...))
        poly = (poly + c) * t
    poly += _ERFC_COEFFS[0]
    tail = t * np.exp(-z * z + poly)
    return np.where(xd >= 0, tail, 2.0 - tail).astype(x.dtype, copy=False)


def erf(x) -> np.ndarray:
    """The error function ``erf(x) = 2/sqrt(pi) * integral_0^x exp(-t**2) dt``.

    NumPy has no ``erf``; this is ``1 - erfc(|x|)`` from :func:`erfc`, given
    the sign of ``x`` (``erf`` is odd), with an absolute error below 1e-7
    everywhere.

    Parameters
    ----------
    x : array_like
        Real numbers.

    Returns
    -------
    numpy.ndarray
        ``erf(x)``, same shape; float32 stays float32, anything else becomes
        float64.

    Raises
    ------
    TypeError
        If ``x`` is not real numeric.
    ValueError
        If ``x`` contains NaN or inf.

    Examples
    --------
    >>> erf([-3.0, -0.5, 0.0, 0.5, 3.0]).round(6)
    array([-0.999978, -0.5205  ,  0.      ,  0.5205  ,  0.999978])
    """
    x = as_float_array(x, "x")
    xd = x.astype(np.float64, copy=False)
    magnitude = np.maximum(1.0 - erfc(np.abs(xd)), 0.0)  # erf(|x|) >= 0
    return np.copysign(magnitude, xd).astype(x.dtype, copy=False)


def gelu(x) -> np.ndarray:
    """Exact GELU: ``x * Phi(x)``, with ``Phi`` the standard normal CDF.

    ``Phi(x) = (1 + erf(x / sqrt(2))) / 2 = erfc(-x / sqrt(2)) / 2``; the
    second form keeps full relative accuracy for negative ``x`` too. This is
    BERT's ``hidden_act="gelu"`` (not the tanh approximation).

    Parameters
    ----------
    x : array_like
        Real numbers.

    Returns
    -------
    numpy.ndarray
        ``gelu(x)``, same shape; float32 stays float32, anything else
        becomes float64.

    Raises
    ------
    TypeError
        If ``x`` is not real numeric.
    ValueError
        If ``x`` contains NaN or inf.

    Examples
    --------
    Large positive inputs pass, large negative ones are silenced:

    >>> gelu([-3.0, -1.0, 0.0, 1.0, 3.0]).round(4)
    array([-0.004 , -0.1587,  0.    ,  0.8413,  2.996 ])
    """
    x = as_float_array(x, "x")
    xd = x.astype(np.float64, copy=False)
    return (0.5 * xd * erfc(-xd / math.sqrt(2.0))).astype(x.dtype, copy=False)


# ---------------------------------------------------------------------------
# Building blocks
# ---------------------------------------------------------------------------


def layer_norm(x, gamma, beta, *, eps: float = 1e-12) -> np.ndarray:
    """LayerNorm: give each row mean 0 and variance 1, then scale and shift.

    ``(x - mean) / sqrt(var + eps) * gamma + beta`` over the last axis, with
    the biased variance (divide by ``d``), as in PyTorch.

    Parameters
    ----------
    x : array_like, shape (..., d)
        Rows to normalise.
    gamma, beta : array_like, shape (d,)
        Learned scale and shift.
    eps : float, default 1e-12, keyword-only
        Added to the variance.

    Returns
    -------
    numpy.ndarray, shape (..., d)
        In the dtype of ``x`` (float32 stays float32).

    Raises
    ------
    TypeError
        If an input is not numeric.
    ValueError
        If ``gamma`` or ``beta`` is not ``(d,)``, ``eps`` is not positive,
        or ``x`` has NaN or inf.

    Examples
    --------
    >>> layer_norm([[1.0, 2.0, 3.0]], [1, 1, 1], [0, 0, 0]).round(4)
    array([[-1.2247,  0.    ,  1.2247]])
    """
    x = as_float_array(x, "x")
    check_ndim(x, "x", 1, "(..., d)")
    d = x.shape[-1]
    gamma = _param(gamma, "gamma", (d,), x)
    beta = _param(beta, "beta", (d,), x)
    if not (isinstance(eps, numbers.Real) and eps > 0):
        raise ValueError(f"eps must be a positive number, got {eps!r}")
    mean = x.mean(axis=-1, keepdims=True)  # (..., 1)
    centred = x - mean  # (..., d)
    var = np.mean(centred * centred, axis=-1, keepdims=True)  # (..., 1)
    return centred / np.sqrt(var + x.dtype.type(eps)) * gamma + beta


def linear(x, weight, bias) -> np.ndarray:
    """A dense layer in PyTorch's layout: ``x @ weight.T + bias``.

    Parameters
    ----------
    x : array_like, shape (..., d_in)
        Inputs, one row per token.
    weight : array_like, shape (d_out, d_in)
        One row per output feature.
    bias : array_like, shape (d_out,)
        Added to every row.

    Returns
    -------
    numpy.ndarray, shape (..., d_out)

    Raises
    ------
    TypeError
        If an input is not numeric.
    ValueError
        If the shapes do not fit together, or ``x`` has NaN or inf.

    Examples
    --------
    >>> linear([[1.0, 2.0]], [[1, 0], [1, 1], [0, 3]], [0, 0, 10])
    array([[ 1.,  3., 16.]])
    """
    x = as_float_array(x, "x")
    check_ndim(x, "x", 1, "(..., d_in)")
    w = np.asarray(weight)
    if w.ndim != 2 or w.shape[1] != x.shape[-1]:
        raise ValueError(
            f"weight must have shape (d_out, d_in) with d_in={x.shape[-1]} to match "
            f"x {x.shape}, got {w.shape}"
        )
    w = _param(w, "weight", w.shape, x)
    b = _param(bias, "bias", (w.shape[0],), x)
    return x @ w.T + b  # (..., d_out)


def split_heads(x, num_heads: int) -> np.ndarray:
    """Cut each row into ``num_heads`` slices, one per head.

    Parameters
    ----------
    x : array_like, shape (..., L, d)
        Rows of width ``d = num_heads * d_head``.
    num_heads : int
        How many heads; must divide ``d``.

    Returns
    -------
    numpy.ndarray, shape (..., num_heads, L, d_head)
        Head ``h`` sees columns ``h*d_head : (h+1)*d_head``.

    Raises
    ------
    TypeError
        If ``x`` is not numeric or ``num_heads`` is not an integer.
    ValueError
        If ``x`` has fewer than 2 dimensions or ``num_heads`` does not
        divide ``d``.

    Examples
    --------
    >>> import numpy as np
    >>> split_heads(np.arange(8.0).reshape(2, 4), 2)
    array([[[0., 1.],
            [4., 5.]],
    <BLANKLINE>
           [[2., 3.],
            [6., 7.]]])
    """
    x = as_float_array(x, "x")
    check_ndim(x, "x", 2, "(..., L, d)")
    if isinstance(num_heads, bool) or not isinstance(num_heads, numbers.Integral):
        raise TypeError(f"num_heads must be a positive integer, got {num_heads!r}")
    *lead, L, d = x.shape
    if num_heads < 1 or d % num_heads:
        raise ValueError(f"num_heads={num_heads} must be positive and divide d={d} of x {x.shape}")
    heads = x.reshape(*lead, L, num_heads, d // num_heads)  # (..., L, h, d_head)
    return np.swapaxes(heads, -3, -2)  # (..., h, L, d_head)


def merge_heads(x) -> np.ndarray:
    """Undo :func:`split_heads`: put the heads' slices side by side again.

    Parameters
    ----------
    x : array_like, shape (..., num_heads, L, d_head)
        One block per head.

    Returns
    -------
    numpy.ndarray, shape (..., L, num_heads * d_head)

    Raises
    ------
    TypeError
        If ``x`` is not numeric.
    ValueError
        If ``x`` has fewer than 3 dimensions.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.arange(8.0).reshape(2, 4)
    >>> bool((merge_heads(split_heads(x, 2)) == x).all())
    True
    """
    x = as_float_array(x, "x")
    check_ndim(x, "x", 3, "(..., num_heads, L, d_head)")
    *lead, h, L, dh = x.shape
    return np.swapaxes(x, -3, -2).reshape(*lead, L, h * dh)  # (..., L, d)


def padding_mask(attention_mask) -> np.ndarray:
    """Turn a ``(..., L)`` 1/0 "real token / padding" mask into a key mask.

    Parameters
    ----------
    attention_mask : array_like, shape (..., L)
        1 (or True) for real tokens, 0 (or False) for padding.

    Returns
    -------
    numpy.ndarray of bool, shape (..., 1, 1, L)
        ``True`` = may attend; broadcasts against ``(..., heads, L, L)`` so
        that no query looks at a padding key.

    Raises
    ------
    TypeError
        If ``attention_mask`` is not boolean or integer.
    ValueError
        If it holds values other than 0 and 1, or is 0-dimensional.

    Examples
    --------
    >>> padding_mask([1, 1, 0]).astype(int)
    array([[[1, 1, 0]]])
    """
    m = np.asarray(attention_mask)
    if m.dtype != np.bool_ and not np.issubdtype(m.dtype, np.integer):
        raise TypeError(f"attention_mask must be boolean or integer 0/1, got dtype {m.dtype}")
    if m.ndim < 1:
        raise ValueError(f"attention_mask must have shape (..., L), got shape {m.shape}")
    if m.dtype != np.bool_ and not np.isin(m, (0, 1)).all():
        raise ValueError(f"attention_mask must hold only 0 and 1; shape {m.shape}")
    return m.astype(bool)[..., None, None, :]  # (..., 1, 1, L)


# ---------------------------------------------------------------------------
# The encoder
# ---------------------------------------------------------------------------


def bert_embeddings(
    input_ids, weights: Mapping, config: BertConfig, *, token_type_ids=None
) -> np.ndarray:
    """The first hidden state: word + position + token-type vectors, then LayerNorm.

    Parameters
    ----------
    input_ids : array_like of int, shape (..., L)
        Token ids from the tokenizer.
    weights : Mapping of str to numpy.ndarray
        As checked by :func:`check_bert_weights`.
    config : BertConfig
        The model's sizes.
    token_type_ids : array_like of int, shape (..., L), optional, keyword-only
        0 for sentence A, 1 for sentence B; defaults to all 0.

    Returns
    -------
    numpy.ndarray, shape (..., L, hidden_size)
        float32.

    Raises
    ------
    TypeError
        If the ids are not integers.
    ValueError
        If an id is out of range, ``L`` exceeds
        ``max_position_embeddings``, the two id arrays differ in shape, or
        a weight is missing or mis-shaped.

    Examples
    --------
    >>> cfg = BertConfig(vocab_size=10, hidden_size=4, num_hidden_layers=1,
    ...                  num_attention_heads=2, intermediate_size=8)
    >>> h0 = bert_embeddings([2, 5, 3], random_bert_weights(cfg), cfg)
    >>> h0.shape, h0.dtype, bool(abs(h0.mean(axis=-1)).max() < 1e-6)
    ((3, 4), dtype('float32'), True)
    """
    w = check_bert_weights(weights, config)
    ids, types = _check_ids(input_ids, token_type_ids, config)
    L = ids.shape[-1]
    x = (
        w["embeddings.word_embeddings.weight"][ids]  # (..., L, d)
        + w["embeddings.position_embeddings.weight"][:L]  # (L, d)
        + w["embeddings.token_type_embeddings.weight"][types]  # (..., L, d)
    )
    return layer_norm(
        x,
        w["embeddings.LayerNorm.weight"],
        w["embeddings.LayerNorm.bias"],
        eps=config.layer_norm_eps,
    )


def bert_self_attention(x, weights: Mapping, layer: int, config: BertConfig, *, mask=None):
    """Multi-head self-attention of one layer, before the output projection.

    Projects ``x`` to queries, keys and values (with biases), splits them
    into heads and runs :func:`~selfattention.attention.scaled_dot_product_attention`
    on every head at once.

    Parameters
    ----------
    x : array_like, shape (..., L, hidden_size)
        The layer's input hidden state.
    weights : Mapping of str to numpy.ndarray
        As checked by :func:`check_bert_weights`.
    layer : int
        Which layer's parameters to use, from 0.
    config : BertConfig
        The model's sizes.
    mask : array_like of bool, optional, keyword-only
        ``True`` = may attend, broadcastable to ``(..., heads, L, L)``, e.g.
        from :func:`padding_mask`.

    Returns
    -------
    context : numpy.ndarray, shape (..., L, hidden_size)
        The heads' outputs side by side.
    weights : numpy.ndarray, shape (..., heads, L, L)
        Attention weights; each row sums to 1.
    scores : numpy.ndarray, shape (..., heads, L, L)
        The scaled scores ``q @ k.T / sqrt(d_head)`` that went into the
        softmax, ``-inf`` where ``mask`` blocks; ``softmax(scores)`` equals
        ``weights`` up to float rounding.

    Raises
    ------
    TypeError, ValueError
        If an input or weight has the wrong type or shape, or ``layer`` is
        out of range.

    Examples
    --------
    >>> import numpy as np
    >>> from selfattention import softmax
    >>> cfg = BertConfig(vocab_size=10, hidden_size=4, num_hidden_layers=1,
    ...                  num_attention_heads=2, intermediate_size=8)
    >>> w = random_bert_weights(cfg, std=1.0)
    >>> x = np.random.default_rng(1).normal(size=(3, 4)).astype(np.float32)
    >>> ctx, a, s = bert_self_attention(x, w, 0, cfg)
    >>> ctx.shape, a.shape, bool(np.allclose(softmax(s), a, rtol=1e-5, atol=1e-6))
    ((3, 4), (2, 3, 3), True)
    """
    p = f"encoder.layer.{_check_layer(layer, config)}.attention.self."
    h = config.num_attention_heads
    q = split_heads(linear(x, *_dense(weights, p + "query")), h)  # (..., h, L, d_head)
    k = split_heads(linear(x, *_dense(weights, p + "key")), h)  # (..., h, L, d_head)
    v = split_heads(linear(x, *_dense(weights, p + "value")), h)  # (..., h, L, d_head)
    context, attn = scaled_dot_product_attention(q, k, v, mask=mask, return_weights=True)
    scores = attention_scores(q, k)  # (..., h, L, L)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)  # (..., h, L, L)
    return merge_heads(context), attn, scores  # (..., L, d)


def feed_forward(x, weights: Mapping, layer: int, config: BertConfig) -> np.ndarray:
    """The position-wise feed-forward network: ``linear(gelu(linear(x)))``.

    Parameters
    ----------
    x : array_like, shape (..., L, hidden_size)
        Hidden state after the attention block.
    weights : Mapping of str to numpy.ndarray
        As checked by :func:`check_bert_weights`.
    layer : int
        Which layer's parameters to use, from 0.
    config : BertConfig
        The model's sizes.

    Returns
    -------
    numpy.ndarray, shape (..., L, hidden_size)
        Before the residual connection and LayerNorm.

    Raises
    ------
    TypeError, ValueError
        If an input or weight has the wrong type or shape, or ``layer`` is
        out of range.

    Examples
    --------
    >>> import numpy as np
    >>> cfg = BertConfig(vocab_size=10, hidden_size=4, num_hidden_layers=1,
    ...                  num_attention_heads=2, intermediate_size=8)
    >>> feed_forward(np.ones((3, 4), np.float32), random_bert_weights(cfg), 0, cfg).shape
    (3, 4)
    """
    p = f"encoder.layer.{_check_layer(layer, config)}."
    inner = linear(x, *_dense(weights, p + "intermediate.dense"))  # (..., L, intermediate_size)
    inner = gelu(inner)
    return linear(inner, *_dense(weights, p + "output.dense"))  # (..., L, hidden_size)


def bert_layer(x, weights: Mapping, layer: int, config: BertConfig, *, mask=None):
    """One encoder layer: attention, add & norm, feed-forward, add & norm.

    Parameters
    ----------
    x : array_like, shape (..., L, hidden_size)
        The layer's input hidden state.
    weights : Mapping of str to numpy.ndarray
        As checked by :func:`check_bert_weights`.
    layer : int
        Which layer, from 0.
    config : BertConfig
        The model's sizes.
    mask : array_like of bool, optional, keyword-only
        As in :func:`bert_self_attention`.

    Returns
    -------
    hidden : numpy.ndarray, shape (..., L, hidden_size)
        The layer's output hidden state.
    weights : numpy.ndarray, shape (..., heads, L, L)
        Attention weights.
    scores : numpy.ndarray, shape (..., heads, L, L)
        Pre-softmax scaled scores.

    Raises
    ------
    TypeError, ValueError
        As in :func:`bert_self_attention`.

    Examples
    --------
    >>> import numpy as np
    >>> cfg = BertConfig(vocab_size=10, hidden_size=4, num_hidden_layers=1,
    ...                  num_attention_heads=2, intermediate_size=8)
    >>> out, a, s = bert_layer(np.eye(3, 4, dtype=np.float32), random_bert_weights(cfg), 0, cfg)
    >>> out.shape, a.shape, a.sum(axis=-1).round(6).tolist()
    ((3, 4), (2, 3, 3), [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
    """
    p = f"encoder.layer.{_check_layer(layer, config)}."
    eps = config.layer_norm_eps
    context, attn, scores = bert_self_attention(x, weights, layer, config, mask=mask)
    attended = linear(context, *_dense(weights, p + "attention.output.dense"))  # (..., L, d)
    x = layer_norm(x + attended, *_dense(weights, p + "attention.output.LayerNorm"), eps=eps)
    ffn = feed_forward(x, weights, layer, config)  # (..., L, d)
    x = layer_norm(x + ffn, *_dense(weights, p + "output.LayerNorm"), eps=eps)
    return x, attn, scores


class BertOutput(NamedTuple):
    """Everything :func:`bert_forward` computed.

    Attributes
    ----------
    hidden_states : numpy.ndarray, shape (layers + 1, ..., L, hidden_size)
        ``hidden_states[0]`` is the embedding output, ``hidden_states[i]``
        the output of layer ``i - 1`` (the last is the model's output).
    attentions : numpy.ndarray, shape (layers, ..., heads, L, L)
        Attention weights of every layer and head.
    scores : numpy.ndarray, shape (layers, ..., heads, L, L)
        Pre-softmax scaled scores (``-inf`` where padding is masked):
        ``softmax(scores / T)`` re-does the attention at temperature ``T``.
    """

    hidden_states: np.ndarray
    attentions: np.ndarray
    scores: np.ndarray


def bert_forward(
    input_ids, weights: Mapping, config: BertConfig, *, token_type_ids=None, attention_mask=None
) -> BertOutput:
    """Run the whole encoder and keep every intermediate result.

    Parameters
    ----------
    input_ids : array_like of int, shape (L,) or (batch, L)
        Token ids, ``[CLS] ... [SEP]`` as the tokenizer makes them.
    weights : Mapping of str to array_like
        Parameters by Hugging Face ``BertModel`` name; see
        :func:`bert_weight_shapes`. Converted to float32.
    config : BertConfig
        The model's sizes.
    token_type_ids : array_like of int, optional, keyword-only
        Same shape as ``input_ids``; defaults to all 0.
    attention_mask : array_like of int or bool, optional, keyword-only
        Same shape as ``input_ids``; 1 for real tokens, 0 for padding. No
        query attends to a padding key.

    Returns
    -------
    BertOutput
        ``hidden_states`` ``(layers + 1, ..., L, d)``, ``attentions`` and
        ``scores`` ``(layers, ..., heads, L, L)``, all float32.

    Raises
    ------
    TypeError
        If ``config`` is not a :class:`BertConfig`, the ids or mask are not
        integer/boolean, or a weight is not a floating array.
    ValueError
        If a weight is missing or mis-shaped, an id is out of range, the
        sequence is longer than ``max_position_embeddings``, or the id and
        mask shapes differ.

    Examples
    --------
    A tiny untrained model shows the shapes (the real one is in
    :func:`selfattention.minilm.encode`):

    >>> cfg = BertConfig(vocab_size=10, hidden_size=8, num_hidden_layers=2,
    ...                  num_attention_heads=2, intermediate_size=16)
    >>> out = bert_forward([1, 4, 2], random_bert_weights(cfg), cfg)
    >>> out.hidden_states.shape, out.attentions.shape, out.scores.shape
    ((3, 3, 8), (2, 2, 3, 3), (2, 2, 3, 3))

    Padding changes nothing for the real tokens:

    >>> import numpy as np
    >>> padded = bert_forward([[1, 4, 2, 0]], random_bert_weights(cfg), cfg,
    ...                       attention_mask=[[1, 1, 1, 0]])
    >>> bool(np.allclose(padded.hidden_states[:, 0, :3], out.hidden_states, atol=1e-6))
    True
    """
    w = check_bert_weights(weights, config)
    ids, types = _check_ids(input_ids, token_type_ids, config)
    mask = None
    if attention_mask is not None:
        am = np.asarray(attention_mask)
        if am.shape != ids.shape:
            raise ValueError(
                f"attention_mask must have the shape of input_ids {ids.shape}, got {am.shape}"
            )
        mask = padding_mask(am)  # (..., 1, 1, L)
    x = bert_embeddings(ids, w, config, token_type_ids=types)  # (..., L, d)
    hidden, attentions, scores = [x], [], []
    for layer in range(config.num_hidden_layers):
        x, attn, s = bert_layer(x, w, layer, config, mask=mask)
        hidden.append(x)
        attentions.append(attn)
        scores.append(s)
    return BertOutput(
        hidden_states=np.stack(hidden),  # (layers + 1, ..., L, d)
        attentions=np.stack(attentions),  # (layers, ..., h, L, L)
        scores=np.stack(scores),  # (layers, ..., h, L, L)
    )


# ---------------------------------------------------------------------------
# Reading the attention
# ---------------------------------------------------------------------------


def token_index(tokens: Sequence[str], token) -> int:
    """Position of ``token`` in ``tokens``; it must occur exactly once.

    Parameters
    ----------
    tokens : sequence of str
        The sentence's tokens, e.g. ``["[CLS]", "the", "animal", ...]``.
    token : str or int
        A token that occurs once, or a position (negative counts from the
        end).

    Returns
    -------
    int
        The position, from 0.

    Raises
    ------
    TypeError
        If ``token`` is neither a string nor an integer.
    ValueError
        If the string does not occur, occurs more than once (pass the
        position instead), or the position is out of range.

    Examples
    --------
    >>> toks = ["[CLS]", "the", "cat", "saw", "the", "dog", "[SEP]"]
    >>> token_index(toks, "cat"), token_index(toks, -2)
    (2, 5)
    >>> token_index(toks, "the")
    Traceback (most recent call last):
    ...
    ValueError: token 'the' occurs at positions [1, 4]; pass a position instead
    """
    n = len(tokens)
    if isinstance(token, str):
        where = [i for i, t in enumerate(tokens) if t == token]
        if not where:
            raise ValueError(f"token {token!r} is not among the {n} tokens {list(tokens)}")
        if len(where) > 1:
            raise ValueError(
                f"token {token!r} occurs at positions {where}; pass a position instead"
            )
        return where[0]
    if isinstance(token, bool) or not isinstance(token, numbers.Integral):
        raise TypeError(f"token must be a string or an integer position, got {token!r}")
    if not -n <= token < n:
        raise ValueError(f"position {token} is out of range for {n} tokens")
    return int(token) % n


def attention_from_to(attentions, tokens: Sequence[str], source, targets) -> np.ndarray:
    """How much ``source`` attends to each of ``targets``, in every layer and head.

    Parameters
    ----------
    attentions : array_like, shape (..., L, L)
        Attention weights, e.g. ``(layers, heads, L, L)`` from
        :func:`bert_forward`; row = query (the token that looks).
    tokens : sequence of str
        The ``L`` tokens.
    source : str or int
        The token that looks (see :func:`token_index`).
    targets : sequence of (str or int)
        The tokens looked at.

    Returns
    -------
    numpy.ndarray, shape (..., len(targets))
        ``[..., j]`` is the weight from ``source`` to ``targets[j]``.

    Raises
    ------
    TypeError, ValueError
        If ``attentions`` is not ``(..., L, L)`` with ``L = len(tokens)``,
        or a token cannot be found (see :func:`token_index`).

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([[[0.1, 0.6, 0.3], [0.2, 0.2, 0.6], [0.5, 0.4, 0.1]]])  # (1, 3, 3)
    >>> attention_from_to(a, ["it", "cat", "mat"], "it", ["cat", "mat"])
    array([[0.6, 0.3]])
    """
    a = as_float_array(attentions, "attentions")
    L = len(tokens)
    if a.ndim < 2 or a.shape[-2:] != (L, L):
        raise ValueError(f"attentions must have shape (..., L, L) with L={L} tokens, got {a.shape}")
    if isinstance(targets, (str, bytes)) or not isinstance(targets, Sequence):
        raise TypeError(f"targets must be a sequence of tokens or positions, got {targets!r}")
    i = token_index(tokens, source)
    cols = [token_index(tokens, t) for t in targets]
    return a[..., i, cols]  # (..., len(targets))


def preference_flips(first, second, *, min_weight: float = 0.0) -> np.ndarray:
    """Heads whose favourite of two targets swaps from the first sentence to the second.

    Parameters
    ----------
    first, second : array_like, shape (..., 2)
        Weights to targets ``(a, b)`` from :func:`attention_from_to`, for
        two sentences, e.g. ``(layers, heads, 2)``.
    min_weight : float, default 0.0, keyword-only
        Ignore heads that barely look at either target: the favourite must
        get at least this weight in both sentences.

    Returns
    -------
    numpy.ndarray of bool, shape (...)
        ``True`` where ``first`` gives ``a`` more weight than ``b``,
        ``second`` gives ``b`` more weight than ``a``, and both favourites
        reach ``min_weight``.

    Raises
    ------
    TypeError
        If an input is not numeric.
    ValueError
        If the shapes differ, the last axis is not 2, or ``min_weight`` is
        not a number in [0, 1].

    Examples
    --------
    >>> first = [[0.6, 0.1], [0.5, 0.2], [0.03, 0.01]]
    >>> second = [[0.2, 0.3], [0.5, 0.4], [0.01, 0.02]]
    >>> preference_flips(first, second)
    array([ True, False,  True])
    >>> preference_flips(first, second, min_weight=0.05)
    array([ True, False, False])
    """
    f = as_float_array(first, "first")
    s = as_float_array(second, "second")
    if f.shape != s.shape or f.ndim < 1 or f.shape[-1] != 2:
        raise ValueError(
            f"first and second must both have shape (..., 2), got {f.shape} and {s.shape}"
        )
    if (
        isinstance(min_weight, bool)
        or not isinstance(min_weight, numbers.Real)
        or not 0 <= min_weight <= 1
    ):
        raise ValueError(f"min_weight must be a number in [0, 1], got {min_weight!r}")
    looked_at = (f[..., 0] >= min_weight) & (s[..., 1] >= min_weight)
    return (f[..., 0] > f[..., 1]) & (s[..., 1] > s[..., 0]) & looked_at


# ---------------------------------------------------------------------------
# Private helpers
# ---------------------------------------------------------------------------


def _check_config(config) -> BertConfig:
    if not isinstance(config, BertConfig):
        raise TypeError(f"config must be a BertConfig, got {type(config).__name__}")
    return config


def _check_layer(layer, config: BertConfig) -> int:
    _check_config(config)
    if isinstance(layer, bool) or not isinstance(layer, numbers.Integral):
        raise TypeError(f"layer must be an integer, got {layer!r}")
    if not 0 <= layer < config.num_hidden_layers:
        raise ValueError(f"layer must be in 0..{config.num_hidden_layers - 1}, got {layer}")
    return int(layer)


def _dense(weights: Mapping, prefix: str):
    """``(weights[prefix + ".weight"], weights[prefix + ".bias"])``."""
    return _get(weights, prefix + ".weight"), _get(weights, prefix + ".bias")


def _get(weights: Mapping, name: str):
    """``weights[name]``, or a ``ValueError`` that names the missing parameter."""
    if not isinstance(weights, Mapping):
        raise TypeError(
            f"weights must be a mapping of names to arrays, got {type(weights).__name__}"
        )
    try:
        return weights[name]
    except KeyError:
        raise ValueError(f"weights is missing {name!r}") from None


def _param(p, name: str, shape: tuple, x: np.ndarray) -> np.ndarray:
    """A parameter as a real array of ``shape`` in the dtype of ``x`` (no finiteness scan)."""
    arr = np.asarray(p)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_):
        raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"{name} must be real, got dtype {arr.dtype}")
    if arr.shape != shape:
        raise ValueError(f"{name} must have shape {shape} to match x {x.shape}, got {arr.shape}")
    return arr.astype(x.dtype, copy=False)


def _check_ids(input_ids, token_type_ids, config: BertConfig):
    """Validate token ids and token-type ids; return them as int64 arrays."""
    _check_config(config)
    ids = _int_array(input_ids, "input_ids")
    if ids.ndim not in (1, 2) or ids.shape[-1] < 1:
        raise ValueError(
            f"input_ids must have shape (L,) or (batch, L) with L >= 1, got {ids.shape}"
        )
    L = ids.shape[-1]
    if L > config.max_position_embeddings:
        raise ValueError(
            f"input_ids has L={L} tokens, more than max_position_embeddings="
            f"{config.max_position_embeddings}"
        )
    _check_range(ids, "input_ids", config.vocab_size)
    if token_type_ids is None:
        types = np.zeros_like(ids)
    else:
        types = _int_array(token_type_ids, "token_type_ids")
        if types.shape != ids.shape:
            raise ValueError(
                f"token_type_ids must have the shape of input_ids {ids.shape}, got {types.shape}"
            )
        _check_range(types, "token_type_ids", config.type_vocab_size)
    return ids, types


def _int_array(x, name: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.size == 0 and arr.dtype != object:
        arr = arr.astype(np.int64)  # [] parses as float64
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must be integers, got dtype {arr.dtype}")
    return arr.astype(np.int64, copy=False)


def _check_range(arr: np.ndarray, name: str, n: int) -> None:
    if arr.size and (arr.min() < 0 or arr.max() >= n):
        raise ValueError(f"{name} must lie in 0..{n - 1}, got values {arr.min()}..{arr.max()}")


__all__ = [
    "BertConfig",
    "BertOutput",
    "attention_from_to",
    "bert_embeddings",
    "bert_forward",
    "bert_layer",
    "bert_self_attention",
    "bert_weight_shapes",
    "check_bert_weights",
    "erf",
    "erfc",
    "feed_forward",
    "gelu",
    "layer_norm",
    "linear",
    "merge_heads",
    "padding_mask",
    "preference_flips",
    "random_bert_weights",
    "split_heads",
    "token_index",
]
