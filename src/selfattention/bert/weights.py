"""The model's sizes and its weights: names, shapes, checks and random weights.

The weights are a plain mapping from the parameter names used by Hugging
Face's ``BertModel`` (for example ``"encoder.layer.0.attention.self.query.weight"``)
to arrays, with PyTorch's layout: a linear layer's ``weight`` has shape
``(out_features, in_features)`` and computes ``x @ weight.T + bias``.
Loading the real weights from disk lives in :mod:`selfattention.minilm`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np


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
    """The name and shape of every parameter :func:`~selfattention.bert_forward` reads.

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


def _check_config(config) -> BertConfig:
    if not isinstance(config, BertConfig):
        raise TypeError(f"config must be a BertConfig, got {type(config).__name__}")
    return config


__all__ = ["BertConfig", "bert_weight_shapes", "check_bert_weights", "random_bert_weights"]
