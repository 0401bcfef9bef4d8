"""A small BERT encoder, forward pass only, in NumPy: one module per concern.

* :mod:`~selfattention.bert.layers` -- erf, GELU, LayerNorm, dense layers,
  splitting and merging heads;
* :mod:`~selfattention.bert.weights` -- the model's sizes
  (:class:`BertConfig`) and its weights: names, shapes, checks, random
  weights;
* :mod:`~selfattention.bert.encoder` -- embeddings, self-attention,
  feed-forward, one layer, the whole forward pass;
* :mod:`~selfattention.bert.reading` -- reading the attention: which token
  looks at which;
* :mod:`~selfattention.bert.tokenizer` -- the model's WordPiece tokenizer, in
  pure Python, read from its ``tokenizer.json``;
* :mod:`~selfattention.bert.weightfile` -- safetensors weight files, read
  and written with NumPy alone.

The tokenizer and the weight file are not imported into ``selfattention.bert``
itself (their names stay in their modules); every other name is.

The real all-MiniLM-L6-v2 weights are loaded by :mod:`selfattention.minilm`.

Examples
--------
>>> from selfattention.bert import BertConfig, bert_forward, random_bert_weights
>>> cfg = BertConfig(vocab_size=10, hidden_size=8, num_hidden_layers=2,
...                  num_attention_heads=2, intermediate_size=16)
>>> bert_forward([1, 4, 2], random_bert_weights(cfg), cfg).attentions.shape
(2, 2, 3, 3)
"""

from ..multihead import concat_heads, split_heads
from .encoder import (
    BertOutput,
    bert_embeddings,
    bert_forward,
    bert_layer,
    bert_self_attention,
    feed_forward,
    key_padding_mask,
)
from .layers import erf, erfc, gelu, layer_norm, linear
from .reading import attention_from_to, preference_flips, token_index
from .weights import BertConfig, bert_weight_shapes, check_bert_weights, random_bert_weights

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
    "concat_heads",
    "erf",
    "erfc",
    "feed_forward",
    "gelu",
    "key_padding_mask",
    "layer_norm",
    "linear",
    "preference_flips",
    "random_bert_weights",
    "split_heads",
    "token_index",
]
