"""Checker of one whole encoder layer built from its parts (book/the-whole-block.md, "The whole block").

It runs all-MiniLM-L6-v2 (:func:`selfattention.minilm.encode`) on the
exercise's sentence to know the right answer, so it needs the model's files
(:func:`selfattention.minilm.find_model_dir`).
"""

from __future__ import annotations

import functools
import numbers

import numpy as np

from .. import minilm
from ..attention import causal_mask
from ..bert import bert_layer, feed_forward, layer_norm
from ..multihead import concat_heads, multi_head_attention, split_heads
from ..softmax import softmax
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
        "no-second-residual": "The second sum is missing: BERT normalises x' + MLP(x'), not MLP(x') alone.",
        "pre-ln": "That is the pre-LN order of GPT-2, x + Attn(LN(x)): BERT normalises after each sum, "
                  "LN(x + Attn(x)).",
        "other-layer": "These are the matrices of layer {other}: take every weight of "
                       "\"encoder.layer.{layer}.\".",
        "by-sqrt-d_model": "Each head's scores were divided by sqrt({d_model}), the square root of d_model. "
                           "A head compares queries and keys of d_head = {d_head} numbers: divide by "
                           "sqrt({d_head}) (sa.multi_head_attention does it for you).",
        "one-head": "That is one head of {d_model} numbers: MiniLM has h = {h} heads of {d_head}. Pass "
                    "h=config.num_attention_heads.",
        "causal": "That is the layer with a causal mask: BERT is an encoder, and every token reads the whole "
                  "sentence, the tokens after it too. Leave causal at False.",
        "columns": "Softmax ran down the columns of each head's scores (axis=0 or axis=-2). Each row must add "
                   "up to 1: softmax(scores, axis=-1).",
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


def _slipped_attention(layer: int, y: np.ndarray, *, h: int | None = None, divide_by: float | None = None,
                       axis: int = -1, causal: bool = False) -> np.ndarray:
    """The heads' output, Attn(y), written out with one slip: ``h`` heads, another divisor, softmax axis or a mask."""
    weights, config = _model()
    a = f"encoder.layer.{layer}.attention."
    w = {n: np.asarray(weights[a + n + ".weight"], np.float64).T for n in ("self.query", "self.key", "self.value",
                                                                           "output.dense")}
    b = {n: np.asarray(weights[a + n + ".bias"], np.float64) for n in w}
    h = config.num_attention_heads if h is None else h
    q, k, v = (split_heads(y @ w[n] + b[n], h) for n in ("self.query", "self.key", "self.value"))  # (h, L, d_head)
    d_head = q.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head if divide_by is None else divide_by)      # (h, L, L)
    if causal:
        scores = np.where(causal_mask(scores.shape[-1]), scores, -np.inf)
    heads = softmax(scores, axis=axis) @ v                                                        # (h, L, d_head)
    return concat_heads(heads) @ w["output.dense"] + b["output.dense"]                            # (L, d_model)


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
        layer's weights, scores divided by ``sqrt(d_model)`` instead of
        ``sqrt(d_head)``, one head instead of 12, a causal mask, softmax
        down the columns, or rounded numbers. The right answer is computed
        in float64, with the exact GELU (:func:`~selfattention.bert.layers.gelu`,
        on ``math.erfc``), so a right float64 answer (NumPy with
        ``math.erf``, or PyTorch in ``.double()``) passes, and so does a
        float32 one. A value counts as right within 100 eps (abs(expected) + the
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
        (norm2(mlp(first)), "no-second-residual", {}),
        (norm2(alone + mlp(alone)), "no-residual", {}),
        (pre + mlp(norm2(pre)), "pre-ln", {}),
        (np.asarray(bert_layer(x, weights, other, config)[0], np.float64), "other-layer",
         {"other": other, "layer": layer}),
    )
    d_model, h = config.hidden_size, config.num_attention_heads
    sizes = {"d_model": d_model, "d_head": d_model // h, "h": h}
    variants = (({"divide_by": d_model}, "by-sqrt-d_model"), ({"h": 1}, "one-head"), ({"causal": True}, "causal"),
                ({"axis": -2}, "columns"))
    for change, slip in variants:
        y = norm1(x + _slipped_attention(layer, x, **change))               # the first half, with the slip
        slips += ((norm2(y + mlp(y)), slip, sizes),)
    return expected, slips
