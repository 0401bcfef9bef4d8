"""A small BERT encoder, forward pass only, in NumPy (float32).

Every step is a short pure function named after its maths:

* :func:`bert_embeddings` -- word + position + token-type vectors, then
  :func:`~selfattention.bert.layers.layer_norm`;
* :func:`bert_self_attention` -- :func:`~selfattention.bert.layers.linear`
  projections to queries, keys and values,
  :func:`~selfattention.split_heads`, the scores, their
  softmax and the weighted average of the values, then
  :func:`~selfattention.concat_heads`;
* :func:`feed_forward` -- ``linear``, exact ``gelu``, ``linear``;
* :func:`bert_layer` -- attention and feed-forward, each followed by
  "add the input back, then ``layer_norm``";
* :func:`bert_forward` -- embeddings, then every layer, keeping every hidden
  state, every attention-weight matrix and every pre-softmax score matrix.

The weights are checked by :func:`~selfattention.bert.check_bert_weights`.
This module imports only NumPy and the standard library.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from .._validate import check_mask
from ..attention import attention_scores
from ..multihead import concat_heads, split_heads
from ..softmax import softmax
from .layers import gelu, layer_norm, linear
from .weights import BertConfig, _check_config, check_bert_weights, random_bert_weights  # noqa: F401


def key_padding_mask(attention_mask) -> np.ndarray:
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
    >>> key_padding_mask([1, 1, 0]).astype(int)
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


def bert_embeddings(
    input_ids, weights: Mapping, config: BertConfig, *, token_type_ids=None
) -> np.ndarray:
    """The first hidden state: word + position + token-type vectors, then LayerNorm.

    Parameters
    ----------
    input_ids : array_like of int, shape (..., L)
        Token ids from the tokenizer.
    weights : Mapping of str to numpy.ndarray
        As checked by :func:`~selfattention.bert.check_bert_weights`.
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
    into heads, and for every head at once computes the scores with
    :func:`~selfattention.attention_scores`, their
    :func:`~selfattention.softmax` and the weighted average of the
    values: the steps of
    :func:`~selfattention.scaled_dot_product_attention`, with the
    scores kept.

    Parameters
    ----------
    x : array_like, shape (..., L, hidden_size)
        The layer's input hidden state.
    weights : Mapping of str to numpy.ndarray
        As checked by :func:`~selfattention.bert.check_bert_weights`.
    layer : int
        Which layer's parameters to use, from 0.
    config : BertConfig
        The model's sizes.
    mask : array_like of bool, optional, keyword-only
        ``True`` = may attend, broadcastable to ``(..., heads, L, L)``, e.g.
        from :func:`key_padding_mask`.

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
    scores = attention_scores(q, k)  # (..., h, L, L), computed once
    if mask is not None:
        scores = np.where(_check_mask(mask, scores.shape), scores, -np.inf)  # (..., h, L, L)
    attn = softmax(scores)  # each row sums to 1
    context = attn @ v  # (..., h, L, L) @ (..., h, L, d_head) -> (..., h, L, d_head)
    return concat_heads(context), attn, scores  # (..., L, d)


def feed_forward(x, weights: Mapping, layer: int, config: BertConfig) -> np.ndarray:
    """The position-wise feed-forward network: ``linear(gelu(linear(x)))``.

    Parameters
    ----------
    x : array_like, shape (..., L, hidden_size)
        Hidden state after the attention block.
    weights : Mapping of str to numpy.ndarray
        As checked by :func:`~selfattention.bert.check_bert_weights`.
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
        As checked by :func:`~selfattention.bert.check_bert_weights`.
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
        :func:`~selfattention.bert.bert_weight_shapes`. Converted to float32.
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
        mask = key_padding_mask(am)  # (..., 1, 1, L)
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


def _check_mask(mask, shape: tuple) -> np.ndarray:
    """A boolean mask (``True`` = may attend) that broadcasts to ``shape``, or an error."""
    allowed, bias = check_mask(mask, shape[-2], shape[-1], shape[:-2])
    if bias is not None:
        raise TypeError(f"mask must be boolean (True = may attend), got dtype {np.asarray(mask).dtype}")
    return allowed


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
    "BertOutput",
    "bert_embeddings",
    "bert_forward",
    "bert_layer",
    "bert_self_attention",
    "feed_forward",
    "key_padding_mask",
]
