"""Checker of one whole encoder layer built from its parts (chapter 15, "The whole block").

It runs all-MiniLM-L6-v2 (:func:`selfattention.minilm.encode`) on the
exercise's sentence to know the right answer, so it needs the model's files
(:func:`selfattention.minilm.find_model_dir`).
"""

from __future__ import annotations

import functools
import numbers

import numpy as np

from .. import minilm
from ..bert import bert_layer, feed_forward, layer_norm
from ..multihead import multi_head_attention
from ._compare import Diagnoses, Feedback, compare

#: The exercise's sentence.
SENTENCE = "The cat sat on the mat."

BERT_LAYER = Diagnoses(
    "check_bert_layer",
    "Right: layer {layer} of all-MiniLM-L6-v2, shape {shape}, the same numbers as bert_layer.", {
        "input": "That is the layer's input, enc.hidden_states[{layer}], unchanged: run the heads, the MLP, "
                 "the two sums and the two norms on it.",
        "attention-only": "That is the heads' output, Attn(x), alone: add it to x, the residual connection, "
                          "then normalise the sum.",
        "first-half": "That is x' = LN(x + Attn(x)), the first half of the layer: the MLP comes next, "
                      "added to x' and normalised again.",
        "no-second-norm": "That is x' + MLP(x'): the second sum needs its layer norm too, with the weights "
                          "of output.LayerNorm.",
        "no-residual": "The first sum is missing: BERT normalises x + Attn(x), not Attn(x) alone.",
        "pre-ln": "That is the pre-LN order of GPT-2, x + Attn(LN(x)): BERT normalises after each sum, "
                  "LN(x + Attn(x)).",
        "other-layer": "These are the matrices of layer {other}: take every weight of "
                       "\"encoder.layer.{layer}.\".",
    })


@functools.cache
def _model():
    return minilm.load_weights(), minilm.load_config()


@functools.cache
def _encoded(sentence: str):
    return minilm.encode(sentence)


def _parts(layer: int):
    """The layer's parts in float64: its weights, the heads' output and the two norms' parameters."""
    weights, config = _model()
    p = f"encoder.layer.{layer}."
    w = {name: np.asarray(a, np.float64) for name, a in weights.items() if name.startswith(p)}
    a = p + "attention."

    def attention(y):                                    # the heads' output, (L, d_model)
        mat = {n: w[a + n + ".weight"].T for n in ("self.query", "self.key", "self.value", "output.dense")}
        b = {n: w[a + n + ".bias"] for n in ("self.query", "self.key", "self.value", "output.dense")}
        return multi_head_attention(y, mat["self.query"], mat["self.key"], mat["self.value"],
                                    mat["output.dense"], config.num_attention_heads, b_q=b["self.query"],
                                    b_k=b["self.key"], b_v=b["self.value"], b_o=b["output.dense"])

    eps = config.layer_norm_eps

    def norm1(y):
        return layer_norm(y, w[a + "output.LayerNorm.weight"], w[a + "output.LayerNorm.bias"], eps=eps)

    def norm2(y):
        return layer_norm(y, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps=eps)

    def mlp(y):
        return feed_forward(y, w, layer, config)

    return w, attention, norm1, norm2, mlp


def check_bert_layer(out, layer: int = 1, *, sentence: str = SENTENCE) -> Feedback:
    """Check the reader's layer of MiniLM, built from its parts: post-LN, as BERT computes it.

    The right answer is :func:`~selfattention.bert.bert_layer` on
    ``enc.hidden_states[layer]``: ``x' = LN(x + Attn(x))``, then
    ``LN(x' + MLP(x'))``, each part with that layer's own weights.

    Parameters
    ----------
    out : array_like
        What the reader computed, shape ``(L, 384)``.
    layer : int, default 1
        The layer, from 0.
    sentence : str, default "The cat sat on the mat.", keyword-only
        The sentence the layer reads.

    Returns
    -------
    Feedback
        ``ok`` is True if ``out`` is right; otherwise the message names the
        likely slip: the input returned unchanged, the heads' output alone,
        only the first half of the layer, the second norm left out, the
        first residual sum left out, the pre-LN order of GPT-2, another
        layer's weights, or rounded numbers. The right answer is computed in
        float64. A value counts as right within 100 eps (abs(expected) + the
        largest abs(expected)), eps being the machine epsilon of the answer:
        float32's for float32 arrays (as torch's .numpy() gives), float64's
        otherwise; a float16 answer is judged with float16's rounding (10 of
        its eps), and an expected inf only by the same inf. The model's own
        arrays are float32.

    Raises
    ------
    TypeError, ValueError
        If ``layer`` is not a layer of the model (a wrong ``out`` is not an
        error).
    selfattention.minilm.ModelNotFoundError
        If the model's files are not installed.

    Examples
    --------
    >>> import numpy as np
    >>> from selfattention import minilm
    >>> from selfattention.bert import bert_layer
    >>> enc = minilm.encode(SENTENCE)
    >>> W, config = minilm.load_weights(), minilm.load_config()
    >>> print(check_bert_layer(bert_layer(enc.hidden_states[1], W, 1, config)[0]))
    ✓ Right: layer 1 of all-MiniLM-L6-v2, shape (9, 384), the same numbers as bert_layer.
    >>> print(check_bert_layer(enc.hidden_states[1]))  # doctest: +NORMALIZE_WHITESPACE
    ✗ That is the layer's input, enc.hidden_states[1], unchanged: run the heads, the MLP, the two sums
    and the two norms on it.
    """
    weights, config = _model()
    last = config.num_hidden_layers - 1
    if isinstance(layer, bool) or not isinstance(layer, numbers.Integral) or not 0 <= layer <= last:
        raise ValueError(f"layer should be a whole number from 0 to {last}, got {layer!r}")
    expected, slips = _answers(int(layer), sentence)
    return compare(out, expected, BERT_LAYER, name="out", layout="one row per token, d_model numbers each.",
                   slips=slips, right={"layer": int(layer), "shape": expected.shape})


@functools.cache
def _answers(layer: int, sentence: str):
    """The right answer and the typical slips, computed once per layer and sentence."""
    weights, config = _model()
    x = np.asarray(_encoded(sentence).hidden_states[layer], np.float64)      # (L, d_model)
    _, attention, norm1, norm2, mlp = _parts(layer)
    attn = attention(x)
    first = norm1(x + attn)                                  # x' = LN(x + Attn(x))
    expected = norm2(first + mlp(first))                     # LN(x' + MLP(x'))
    alone = norm1(attn)
    pre = x + attention(norm1(x))                            # the pre-LN order with the same weights
    other = layer - 1 if layer > 0 else layer + 1
    slips = (
        (x, "input", {"layer": layer}),
        (attn, "attention-only", {}),
        (first, "first-half", {}),
        (first + mlp(first), "no-second-norm", {}),
        (norm2(alone + mlp(alone)), "no-residual", {}),
        (pre + mlp(norm2(pre)), "pre-ln", {}),
        (np.asarray(bert_layer(x, weights, other, config)[0], np.float64), "other-layer",
         {"other": other, "layer": layer}),
    )
    return expected, slips
