"""Bad inputs tried against the public API of ``selfattention``, and the errors they get.

:data:`CASES` lists, for every public function, inputs that are wrong in one
way each: a wrong number of dimensions, sizes that do not match, a mask that
does not broadcast, a wrong dtype, NaN or inf, a bad scale, and so on. The
book's testing page runs them all when it is built and shows the errors in a
table (:func:`bad_input_table`); ``tests/booktools/test_badinputs.py`` checks that each
one raises ``TypeError`` or ``ValueError`` with a message that names the
argument at fault.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

import selfattention as sa
from selfattention.bert import random_bert_weights

from .tables import Table, cell, code

#: The errors a bad input may get: anything else is a bug.
EXPECTED_ERRORS = ("TypeError", "ValueError")


@dataclass(frozen=True, eq=False)  # compared by identity: args hold arrays
class BadInput:
    """One call of a public function with one thing wrong.

    Attributes
    ----------
    function : str
        Name of the function (or class) in :mod:`selfattention`.
    description : str
        What is wrong, in a few words of Markdown.
    argument : str
        The argument at fault; the error message should name it.
    args : tuple
        Positional arguments of the call.
    kwargs : Mapping
        Keyword arguments of the call.
    """

    function: str
    description: str
    argument: str
    args: tuple = ()
    kwargs: Mapping = field(default_factory=dict)

    def call(self):
        """Call ``selfattention.<function>(*args, **kwargs)`` and return its result."""
        return getattr(sa, self.function)(*self.args, **self.kwargs)


class Outcome(NamedTuple):
    """What a bad input got: ``error`` is the exception's type name, ``""`` if none."""

    description: str
    error: str
    message: str


# ---------------------------------------------------------------------------
# The cases
# ---------------------------------------------------------------------------

_X = sa.three_words()  # (3, 2): cat, dog, car
_I = np.eye(2)
_NAN_K = np.where(_X > 1, np.nan, _X)  # two NaN
_INF_K = np.where(_X > 1, np.inf, _X)  # two +inf
_STRINGS = np.array([["a", "b"], ["c", "d"], ["e", "f"]])  # (3, 2) of str

#: A BERT small enough to build in a millisecond.
_TINY = sa.BertConfig(vocab_size=10, hidden_size=4, num_hidden_layers=1,
                      num_attention_heads=2, intermediate_size=8, max_position_embeddings=6)
_W = random_bert_weights(_TINY)
_W_MISSING = {k: v for k, v in _W.items() if k != "embeddings.LayerNorm.bias"}
_W_NAN = {**_W, "embeddings.LayerNorm.bias": np.full(4, np.nan, np.float32)}
_IDS = [1, 4, 2]


def _sdpa(description, argument, q=_X, k=_X, v=_X, **kwargs):
    return BadInput("scaled_dot_product_attention", description, argument, (q, k, v), kwargs)


#: Every bad input, grouped by function, in the order the book shows them.
CASES: tuple[BadInput, ...] = (
    # scaled_dot_product_attention -------------------------------------------
    _sdpa("`q` has one dimension, shape (3,)", "q", q=np.ones(3)),
    _sdpa("`k` is a single number, shape ()", "k", k=np.float64(1.0)),
    _sdpa("`q` has d_k = 2 but `k` has d_k = 3", "k", k=np.ones((3, 3))),
    _sdpa("`k` has S = 3 rows but `v` has 4", "v", v=np.ones((4, 2))),
    _sdpa("batch sizes 2 and 4 of `q` and `k`", "k",
          q=np.ones((2, 3, 2)), k=np.ones((4, 3, 2)), v=np.ones((4, 3, 2))),
    _sdpa("`mask` of shape (2, 2) for L = S = 3", "mask", mask=np.ones((2, 2), bool)),
    _sdpa("`mask` of shape (4,): 4 keys, not 3", "mask", mask=np.ones(4, bool)),
    _sdpa("`mask` of strings", "mask", mask=np.array(["a", "b", "c"])),
    _sdpa("`mask` of 0/1 integers (would be added, not block)", "mask", mask=np.tri(3, dtype=int)),
    _sdpa("`causal` = \"no\" (a string, not a bool)", "causal", causal="no"),
    _sdpa("`return_weights` = 1", "return_weights", return_weights=1),
    _sdpa("float `mask` holding NaN", "mask", mask=np.array([0.0, np.nan, 0.0])),
    _sdpa("float `mask` holding +inf", "mask", mask=np.array([0.0, np.inf, 0.0])),
    _sdpa("`q` of strings", "q", q=_STRINGS),
    _sdpa("`k` of Python objects (dtype object)", "k", k=np.full((3, 2), None)),
    _sdpa("complex `v`", "v", v=_X + 1j),
    _sdpa("`q` holding NaN", "q", q=_NAN_K),
    _sdpa("`k` holding +inf", "k", k=_INF_K),
    _sdpa("`v` holding -inf", "v", v=-_INF_K),
    _sdpa("`scale` is a string", "scale", scale="big"),
    _sdpa("`scale` is True", "scale", scale=True),
    _sdpa("`scale` is NaN", "scale", scale=float("nan")),
    _sdpa("`scale` is inf", "scale", scale=float("inf")),
    # attention_scores ---------------------------------------------------------
    BadInput("attention_scores", "`k` has one dimension, shape (2,)", "k", (_X, np.ones(2))),
    BadInput("attention_scores", "`q` has d_k = 3 but `k` has d_k = 2", "k",
             (np.ones((3, 3)), _X)),
    BadInput("attention_scores", "`scale` is a list", "scale", (_X, _X), {"scale": [0.5]}),
    # causal_mask --------------------------------------------------------------
    BadInput("blockwise_attention", "`block_size` = 0", "block_size", (_X, _X, _X), {"block_size": 0}),
    BadInput("blockwise_attention", "`k` has d_k = 3 but `q` has d_k = 2", "k",
             (_X, np.ones((3, 3)), _X)),
    BadInput("blockwise_attention", "`mask` of shape (2, 2) for L = S = 3", "mask",
             (_X, _X, _X), {"mask": np.ones((2, 2), bool)}),
    BadInput("blockwise_attention", "`causal` = 1", "causal", (_X, _X, _X), {"causal": 1}),
    BadInput("sliding_window_mask", "`window` = -1", "window", (4, -1)),
    BadInput("sliding_window_mask", "`L` = 2.5", "L", (2.5, 1)),
    BadInput("sliding_window_mask", "`causal` = \"yes\"", "causal", (4, 1), {"causal": "yes"}),
    BadInput("strided_mask", "`stride` = 0", "stride", (4, 0)),
    BadInput("strided_mask", "`S` = 0", "S", (4, 2, 0)),
    BadInput("online_softmax_trace", "`block_size` = 0", "block_size", (_X[:1], _X, _X), {"block_size": 0}),
    BadInput("online_softmax_trace", "`v` has 2 rows but `k` has 3", "v", (_X[:1], _X, _X[:2]), {"block_size": 2}),
    BadInput("causal_mask", "`L` = 0", "L", (0,)),
    BadInput("causal_mask", "`L` = 2.5", "L", (2.5,)),
    BadInput("causal_mask", "`L` is the string \"3\"", "L", ("3",)),
    BadInput("causal_mask", "`L` is True", "L", (True,)),
    BadInput("causal_mask", "`S` = -1", "S", (3, -1)),
    # padding_mask (chapter "Causal masking") ----------------------------------
    BadInput("padding_mask", "`lengths` of floats", "lengths", ([2.0, 3.0],)),
    BadInput("padding_mask", "`lengths` = [2, -1]", "lengths", ([2, -1],)),
    BadInput("padding_mask", "`lengths` is empty", "lengths", ([],)),
    BadInput("padding_mask", "`lengths` of shape (1, 2)", "lengths", ([[2, 3]],)),
    BadInput("padding_mask", "a length larger than `S`", "S", ([2, 5], 4)),
    BadInput("padding_mask", "`S` = 0", "S", ([2], 0)),
    BadInput("padding_mask", "`side` = \"middle\"", "side", ([2],), {"side": "middle"}),
    # check_causal_mask --------------------------------------------------------
    BadInput("check_causal_mask", "`n` = 0", "n", (np.ones((1, 1), bool), 0)),
    BadInput("check_causal_mask", "`n` = 2.5", "n", (np.ones((1, 1), bool), 2.5)),
    # softmax ------------------------------------------------------------------
    BadInput("softmax", "`x` of strings", "x", (["a", "b"],)),
    BadInput("softmax", "`x` of complex numbers", "x", ([1j, 0.0],)),
    BadInput("softmax", "`x` is a scalar", "x", (5.0,)),
    BadInput("softmax", "`axis` = 0.5", "axis", (_X,), {"axis": 0.5}),
    BadInput("softmax", "`x` holding NaN", "x", ([0.0, np.nan],)),
    BadInput("softmax", "`x` holding +inf", "x", ([0.0, np.inf],)),
    BadInput("softmax", "`axis` = 2 for a 2-D `x`", "axis", (_X,), {"axis": 2}),
    BadInput("softmax", "`axis` = -3 for a 2-D `x`", "axis", (_X,), {"axis": -3}),
    # project_qkv and attention_head -------------------------------------------
    BadInput("project_qkv", "`x` has one dimension, shape (2,)", "x", (np.ones(2), _I, _I, _I)),
    BadInput("project_qkv", "`w_q` has 3 rows but `x` has d_model = 2", "w_q",
             (_X, np.eye(3), _I, _I)),
    BadInput("project_qkv", "`w_k` is (2, 3) but `w_q` is (2, 2)", "w_k",
             (_X, _I, np.ones((2, 3)), _I)),
    BadInput("project_qkv", "`w_v` has one dimension, shape (2,)", "w_v",
             (_X, _I, _I, np.ones(2))),
    BadInput("project_qkv", "`w_q` holding NaN", "w_q", (_X, np.full((2, 2), np.nan), _I, _I)),
    BadInput("project_qkv", "`w_v` of strings", "w_v", (_X, _I, _I, _STRINGS[:2])),
    BadInput("project_qkv", "complex `w_k`", "w_k", (_X, _I, _I * 1j, _I)),
    BadInput("attention_head", "`w_q` has 3 rows but `x` has d_model = 2", "w_q",
             (_X, np.eye(3), _I, _I)),
    BadInput("attention_head", "`mask` of shape (2, 2) for L = 3", "mask",
             (_X, _I, _I, _I), {"mask": np.ones((2, 2), bool)}),
    BadInput("attention_head", "`scale` is NaN", "scale",
             (_X, _I, _I, _I), {"scale": float("nan")}),
    # query_key_product and head_trace -----------------------------------------
    BadInput("query_key_product", "`w_k` is (2, 3) but `w_q` is (2, 2)", "w_k", (_I, np.ones((2, 3)))),
    BadInput("query_key_product", "`w_q` holding NaN", "w_q", (np.full((2, 2), np.nan), _I)),
    BadInput("head_trace", "`x` with a batch axis, shape (2, 3, 2)", "x", (np.ones((2, 3, 2)), _I, _I, _I)),
    BadInput("head_trace", "`w_v` has 3 rows but `x` has d_model = 2", "w_v", (_X, _I, _I, np.eye(3))),
    # check_head_scores --------------------------------------------------------
    BadInput("check_head_scores", "words `x` with one dimension, shape (3,)", "x",
             (_X @ _X.T,), {"x": np.ones(3)}),
    BadInput("check_head_scores", "`w_k` of shape (3, 3) for words of 2 numbers", "w_k",
             (_X @ _X.T,), {"w_k": np.eye(3)}),
    # check_scores -------------------------------------------------------------
    BadInput("check_scores", "words `x` with one dimension, shape (3,)", "x",
             (_X @ _X.T,), {"x": np.ones(3)}),
    BadInput("check_scores", "words `x` given as a string", "x",
             (_X @ _X.T,), {"x": "cat dog car"}),
    BadInput("check_scores", "words `x` holding NaN", "x", (_X @ _X.T,), {"x": _NAN_K}),
    # check_blend --------------------------------------------------------------
    BadInput("check_blend", "`word` = 3, not a row of the 3 words", "word", (_X[0],), {"word": 3}),
    BadInput("check_blend", "`word` = 1.0, a float", "word", (_X[0],), {"word": 1.0}),
    BadInput("check_blend", "words `x` with one dimension, shape (3,)", "x", (_X[0],), {"x": np.ones(3)}),
    # cross-attention (chapter self-and-cross-attention) -------------------------
    BadInput("cross_attention", "`w_q` has 3 rows but `x_q` has 2 numbers per word", "w_q",
             (_X, _X, np.eye(3), _I, _I)),
    BadInput("cross_attention", "`w_k` makes d_k = 3 but `w_q` makes d_k = 2", "w_k",
             (_X, _X, _I, np.ones((2, 3)), _I)),
    BadInput("cross_attention", "`x_kv` has one dimension, shape (2,)", "x_kv", (_X, np.ones(2), _I, _I, _I)),
    BadInput("cross_attention", "`x_q` of strings", "x_q", (_STRINGS[:2], _X, _I, _I, _I)),
    BadInput("cross_attention", "`mask` of shape (2, 2) for L_q = L_kv = 3", "mask",
             (_X, _X, _I, _I, _I), {"mask": np.ones((2, 2), bool)}),
    BadInput("causal_mask_bottom_right", "`L` = 0", "L", (0,)),
    BadInput("causal_mask_bottom_right", "`S` = 2.5", "S", (3, 2.5)),
    BadInput("check_cross_weights", "`x_q` with one dimension, shape (3,)", "x_q",
             (np.ones((3, 4)),), {"x_q": np.ones(3)}),
    BadInput("check_cross_weights", "`w_k` of shape (3, 3) for words of 2 numbers", "w_k",
             (np.ones((3, 4)),), {"w_k": np.eye(3)}),
    # why divide by sqrt(d_k) --------------------------------------------------
    BadInput("dot_product_std", "`d_k` = 0", "d_k", (0,)),
    BadInput("dot_product_std", "`n_samples` = 1: no spread to measure", "n_samples", (4, 1)),
    BadInput("dot_product_std", "`rng` is the string \"seed\"", "rng", (4,), {"rng": "seed"}),
    BadInput("softmax_with_temperature", "`temperature` = 0", "temperature", ([4.0, 2.0, 0.0], 0.0)),
    BadInput("softmax_with_temperature", "`temperature` is a string", "temperature", ([4.0, 2.0, 0.0], "hot")),
    BadInput("softmax_with_temperature", "`scores` holding NaN", "scores", ([0.0, np.nan],)),
    BadInput("softmax_jacobian", "`scores` of strings", "scores", (["a", "b"],)),
    BadInput("softmax_jacobian", "`scores` is a scalar", "scores", (3.0,)),
    BadInput("saturation", "`d_ks` holding 0", "d_ks", ([4, 0],)),
    BadInput("saturation", "`n_keys` = 1", "n_keys", ([4],), {"n_keys": 1}),
    BadInput("scaling_example", "`seed` = -1", "seed", (), {"seed": -1}),
    BadInput("scaling_example", "`d_k` = 2.5", "d_k", (), {"d_k": 2.5}),
    BadInput("check_scaled_row", "`q` without `k`", "k", (np.ones(2),), {"q": np.ones(3)}),
    BadInput("check_scaled_row", "`k` of 4 numbers per key, `q` of 3", "k", (np.ones(2),),
             {"q": np.ones(3), "k": np.ones((2, 4))}),
    # the recurrent network ----------------------------------------------------
    BadInput("rnn_states", "words `x` of shape (1, 1, 2)", "x", (np.ones((1, 1, 2)), 0.5)),
    BadInput("rnn_states", "no words: `x` of shape (0,)", "x", (np.ones(0), 0.5)),
    BadInput("rnn_states", "`w` given as a string", "w", (_X, "0.5")),
    BadInput("rnn_states", "`h0` of 3 numbers for words of 2", "h0", (_X, 0.5), {"h0": np.zeros(3)}),
    BadInput("fading", "`k` = 1.5, not a count", "k", (0.5, 1.5)),
    BadInput("fading", "`k` = -1", "k", (0.5, -1)),
    BadInput("fading", "`w` is NaN", "w", (float("nan"), 3)),
    BadInput("effect_on_last", "words `x` holding NaN", "x", (_NAN_K, 0.5)),
    BadInput("effect_on_last", "`w` is a list", "w", (_X, [0.5])),
    BadInput("check_rnn_states", "words `x` given as a string", "x", (_X, "cat dog car", 0.5)),
    BadInput("check_rnn_states", "`w` is infinite", "w", (_X, _X, float("inf"))),
    # multi-head attention (several-heads) ---------------------------------------
    BadInput("multi_head_attention", "`h` = 3 does not divide d_model = 4", "h",
             (np.ones((3, 4)), *[np.eye(4)] * 4, 3)),
    BadInput("multi_head_attention", "`h` = 2.0, a float", "h", (np.ones((3, 4)), *[np.eye(4)] * 4, 2.0)),
    BadInput("multi_head_attention", "`w_o` of shape (4, 2) for d_model = 4", "w_o",
             (np.ones((3, 4)), *[np.eye(4)] * 3, np.ones((4, 2)), 2)),
    BadInput("multi_head_attention", "`b_v` of shape (2,) for d_model = 4", "b_v",
             (np.ones((3, 4)), *[np.eye(4)] * 4, 2), {"b_v": np.zeros(2)}),
    BadInput("multi_head_attention", "`w_q` holding NaN", "w_q",
             (np.ones((3, 4)), np.full((4, 4), np.nan), *[np.eye(4)] * 3, 2)),
    BadInput("split_heads", "`h` = 3 does not divide d_model = 4", "h", (np.ones((3, 4)), 3)),
    BadInput("split_heads", "`x` has one dimension, shape (4,)", "x", (np.ones(4), 2)),
    BadInput("concat_heads", "`x` with two dimensions, no head axis", "x", (np.ones((3, 4)),)),
    BadInput("check_split_heads", "`q` with one dimension, shape (4,)", "q", (np.ones((2, 3, 2)),),
             {"q": np.ones(4)}),
    BadInput("check_split_heads", "`h` = 3 does not divide d_model = 4", "h", (np.ones((2, 3, 2)),),
             {"h": 3}),
    # BERT ---------------------------------------------------------------------
    BadInput("BertConfig", "`num_attention_heads` = 4 does not divide 10", "num_attention_heads",
             (), {"hidden_size": 10, "num_attention_heads": 4}),
    BadInput("BertConfig", "`vocab_size` = 0", "vocab_size", (), {"vocab_size": 0}),
    BadInput("BertConfig", "`hidden_size` = 8.0, a float", "hidden_size", (), {"hidden_size": 8.0}),
    BadInput("BertConfig", "`layer_norm_eps` = -1", "layer_norm_eps", (), {"layer_norm_eps": -1}),
    BadInput("bert_forward", "`config` is a dict", "config", (_IDS, _W, {"hidden_size": 4})),
    BadInput("bert_forward", "`weights` is a list", "weights", (_IDS, list(_W.values()), _TINY)),
    BadInput("bert_forward", "`weights` lacks a parameter", "weights", (_IDS, _W_MISSING, _TINY)),
    BadInput("bert_forward", "a weight holding NaN", "weights", (_IDS, _W_NAN, _TINY)),
    BadInput("bert_forward", "`input_ids` of floats", "input_ids", ([1.0, 4.0], _W, _TINY)),
    BadInput("bert_forward", "`input_ids` holding 10, vocabulary of 10", "input_ids",
             ([1, 10], _W, _TINY)),
    BadInput("bert_forward", "`input_ids` with three dimensions", "input_ids",
             ([[_IDS]], _W, _TINY)),
    BadInput("bert_forward", "7 `input_ids`, 6 positions", "input_ids", ([1] * 7, _W, _TINY)),
    BadInput("bert_forward", "`token_type_ids` holding 2, two types", "token_type_ids",
             (_IDS, _W, _TINY), {"token_type_ids": [0, 0, 2]}),
    BadInput("bert_forward", "`attention_mask` of shape (2,) for 3 ids", "attention_mask",
             (_IDS, _W, _TINY), {"attention_mask": [1, 1]}),
    BadInput("bert_forward", "`attention_mask` holding 2", "attention_mask",
             (_IDS, _W, _TINY), {"attention_mask": [1, 2, 1]}),
    BadInput("erf", "`x` of strings", "x", (["a"],)),
    BadInput("erf", "`x` holding NaN", "x", ([0.0, np.nan],)),
    BadInput("gelu", "complex `x`", "x", ([1j],)),
    BadInput("gelu", "`x` holding +inf", "x", ([np.inf],)),
    BadInput("layer_norm", "`gamma` of shape (2,) for d = 3", "gamma",
             ([[1.0, 2.0, 3.0]], [1, 1], [0, 0, 0])),
    BadInput("layer_norm", "`beta` of strings", "beta",
             ([[1.0, 2.0, 3.0]], [1, 1, 1], ["a", "b", "c"])),
    BadInput("layer_norm", "`eps` = 0", "eps",
             ([[1.0, 2.0, 3.0]], [1, 1, 1], [0, 0, 0]), {"eps": 0}),
    BadInput("layer_norm", "`x` is a single number", "x", (3.0, [1], [0])),
    # learning where to look ---------------------------------------------------
    BadInput("apple_sweet_loss", "`c` given as a string", "c", ("1",)),
    BadInput("apple_sweet_gradient", "`c` is NaN", "c", (float("nan"),)),
    BadInput("gradient_step", "`learning_rate` = -1", "learning_rate", (0.0, -1.0)),
    BadInput("descend", "`steps` = 0", "steps", (0.0, 0)),
    BadInput("descend", "`c0` is infinite", "c0", (float("inf"), 3)),
    BadInput("head_loss_and_gradients", "`w_v` has 3 rows but the words have 2 numbers", "w_v", (_I, _I, np.eye(3))),
    BadInput("head_loss_and_gradients", "`word` = 2, not a row of the 2 words", "word", (_I, _I, _I), {"word": 2}),
    BadInput("head_loss_and_gradients", "`target` of 3 numbers for values of 2", "target", (_I, _I, _I),
             {"target": [1.0, 0.0, 0.0]}),
    BadInput("train_head", "`train` names a matrix `w_x`", "train", (_I, _I, _I), {"train": ["w_x"]}),
    BadInput("train_head", "`steps` = 2.5", "steps", (_I, _I, _I), {"steps": 2.5}),
    BadInput("training_run", "`number` = 5, not a run", "number", (5,)),
    BadInput("check_gradient_step", "`c` is NaN", "c", (1.0,), {"c": float("nan")}),
    # the checkers of chapters 10 and 11 -----------------------------------------
    BadInput("check_score_memory", "`n` = 0", "n", (1,), {"n": 0}),
    BadInput("check_score_memory", "`heads` = 2.5", "heads", (1,), {"heads": 2.5}),
    BadInput("check_score_memory", "`dtype` = \"float7\"", "dtype", (1,), {"dtype": "float7"}),
    BadInput("check_window_count", "`n` = 0", "n", (1,), {"n": 0}),
    BadInput("check_window_count", "`w` = -1", "w", (1,), {"w": -1}),
    BadInput("check_strongest_head", "`source` is not a token of the sentence", "source", (np.zeros((6, 12)), 0, 0),
             {"source": "dog"}),
    BadInput("check_strongest_head", "`sentence` is not a string", "sentence", (np.zeros((6, 12)), 0, 0),
             {"sentence": 3}),
    BadInput("check_head_counts", "`targets` of three tokens", "targets", (1, 1),
             {"targets": ("keys", "cabinet", "table")}),
    BadInput("check_head_counts", "`min_weight` = 2", "min_weight", (1, 1), {"min_weight": 2}),
    BadInput("check_bert_layer", "`layer` = 6, the model has layers 0 to 5", "layer", (np.zeros((9, 384)),),
             {"layer": 6}),
    BadInput("check_bert_layer", "`layer` = 1.0, a float", "layer", (np.zeros((9, 384)),), {"layer": 1.0}),
    # chapter "One word at a time" --------------------------------------------------
    BadInput("tiny_decoder", "`kv_heads` = 3 does not divide `h` = 4", "kv_heads", (), {"h": 4, "kv_heads": 3}),
    BadInput("tiny_decoder", "`seed` = 1.5", "seed", (), {"seed": 1.5}),
    BadInput("KVCache", "`dtype` is int64", "dtype", (2, 4, 4, 3), {"dtype": np.int64}),
    BadInput("KVCache", "`window` = -1", "window", (2, 4, 4), {"window": -1}),
    BadInput("decode_step", "`cache` of a model with other key/value heads", "cache",
             (sa.tiny_decoder(), [0], sa.KVCache(2, 2, 4, 4))),
    BadInput("decode_step", "`cache` is a plain array", "cache", (sa.tiny_decoder(), [0], np.zeros((2, 2, 4, 3, 4)))),
    BadInput("decode_step", "4 `tokens` at once into a window of 2 (3 slots)", "tokens",
             (sa.tiny_decoder(), [0, 1, 2, 3], sa.KVCache(2, 4, 4, window=2))),
    BadInput("decoder_forward", "`tokens` outside the vocabulary", "tokens", (sa.tiny_decoder(), [12])),
    BadInput("decoder_forward", "`window` without the causal mask", "window", (sa.tiny_decoder(), [0]),
             {"causal": False, "window": 2}),
    BadInput("generate", "`steps` = 0", "steps", (sa.tiny_decoder(), [0], 0)),
    BadInput("grouped_query_attention", "`k` has 3 heads for 4 query heads", "k",
             (np.ones((4, 2, 3)), np.ones((3, 2, 3)), np.ones((3, 2, 3)))),
    BadInput("kv_cache_bytes", "`n` = 0", "n", (1, 1, 1, 0)),
    BadInput("scores_per_step", "`t` = 0", "t", (0,)),
    BadInput("check_decode_step", "`q_new` is 1-D", "q_new", (np.zeros((2, 4)),), {"q_new": [1.0, 2.0]}),
    BadInput("sinusoidal_positions", "`d_model` = 3 is odd", "d_model", (4, 3)),
    BadInput("sinusoidal_positions", "`L` = 0", "L", (0, 4)),
    BadInput("sinusoidal_shift", "`k` = 1.5 steps", "k", (1.5, 4)),
    BadInput("rope", "3 `positions` for 2 rows", "positions", (np.ones((2, 4)), [0, 1, 2])),
    BadInput("rope", "`base` = 0", "base", (np.ones((2, 4)),), {"base": 0.0}),
    BadInput("rope_rotate_half", "3 `positions` for 2 rows", "positions", (np.ones((2, 4)), [0, 1, 2])),
    BadInput("rope_pair_order", "`d` = 3 is odd", "d", (3,)),
    BadInput("check_rope", "`position` = -1", "position", ([1.0, 0.0],), {"position": -1}),
    BadInput("check_induction_score", "`layer` = 2, past the last layer", "layer", (0.5,), {"layer": 2}),
    BadInput("check_ablated_loss", "`head` = -1", "head", (1.0,), {"head": -1}),
    BadInput("check_top_p", "`p` = 1.5", "p", (np.zeros(8),), {"p": 1.5}),
    BadInput("check_top_p", "`probs` adding up to 1.1", "probs", (np.zeros(2),), {"probs": [0.5, 0.6]}),
    BadInput("check_bits_per_character", "`text` holds a character not in `chars`", "text", (1.0,),
             {"chars": "ab", "text": "abc", "probs": np.full((2, 2), 0.5)}),
    BadInput("check_wiring", "`W_K1` of shape (52, 52): the stream has 136 rows", "W_K1",
             (*[np.zeros((136, 136))] * 3, np.zeros((52, 52)))),
    BadInput("check_wiring", "`W_K0` with d_head = 3, `W_Q0` with 136", "W_K0",
             (np.zeros((136, 136)), np.zeros((136, 3)), *[np.zeros((136, 136))] * 2)),
    BadInput("check_wiring", "`W_Q1` of strings", "W_Q1",
             (*[np.zeros((136, 136))] * 2, np.full((136, 136), "1"), np.zeros((136, 136)))),
    BadInput("alibi_slopes", "`h` = 0", "h", (0,)),
    BadInput("alibi_bias", "`causal` is a string", "causal", (3, 2), {"causal": "yes"}),
    BadInput("learned_positions", "`positions` = [512], past the table", "positions", ([512],)),
)


# ---------------------------------------------------------------------------
# Running them
# ---------------------------------------------------------------------------


def run_case(case: BadInput) -> Outcome:
    """Call one bad input and record the error it gets.

    Parameters
    ----------
    case : BadInput
        The call to make.

    Returns
    -------
    Outcome
        ``(description, error, message)``: the case's description, the
        exception's type name and its message; ``error`` and ``message``
        are ``""`` if the call raised nothing.

    Examples
    --------
    >>> run_case(BadInput("causal_mask", "`L` = 0", "L", (0,)))
    Outcome(description='`L` = 0', error='ValueError', message='L must be a positive integer, got 0')
    >>> run_case(BadInput("causal_mask", "a good input", "L", (2,)))
    Outcome(description='a good input', error='', message='')
    """
    try:
        case.call()
    except Exception as err:  # noqa: BLE001 -- every kind is recorded, then judged
        return Outcome(case.description, type(err).__name__, str(err))
    return Outcome(case.description, "", "")


def run_cases(cases: Iterable[BadInput] = CASES) -> list[Outcome]:
    """Run every bad input; see :func:`run_case`.

    Examples
    --------
    >>> outcomes = run_cases()
    >>> len(outcomes) == len(CASES)
    True
    >>> sorted({o.error for o in outcomes})
    ['TypeError', 'ValueError']
    """
    return [run_case(case) for case in cases]


def names_argument(message: str, argument: str) -> bool:
    """Whether ``message`` names ``argument`` as a word of its own.

    ``"k"`` is named in ``"k has d_k=3"`` but not by the ``k`` inside
    ``d_k``.

    Examples
    --------
    >>> names_argument("k has d_k=3 but q has d_k=2", "k")
    True
    >>> names_argument("q has d_k=2", "k")
    False
    >>> names_argument("weights['a.b'] must have shape (4,)", "weights")
    True
    """
    return re.search(rf"(?<!\w){re.escape(argument)}(?!\w)", message) is not None


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------


def bad_input_table(cases: Sequence[BadInput] = CASES, *,
                    caption: str = "Every bad input tried against the package, and the "
                                   "error it gets. Run when the book is built.",
                    name: str = "tbl-bad-inputs") -> Table:
    """Run ``cases`` and tabulate each input with the error and message it got.

    Parameters
    ----------
    cases : sequence of BadInput
        The bad inputs; defaults to :data:`CASES`.
    caption : str, keyword-only
        The table's caption.
    name : str, keyword-only
        Its label for ``{numref}``.

    Returns
    -------
    Table
        One row per case. The last column says whether the message names
        the argument at fault.

    Raises
    ------
    AssertionError
        If a case raised nothing, or raised something other than
        ``TypeError`` or ``ValueError``: the table never shows "no error".

    Examples
    --------
    >>> t = bad_input_table(CASES[:1], caption="One", name="tbl-one")
    >>> print(t.markdown())  # doctest: +NORMALIZE_WHITESPACE
    :::{table} One
    :name: tbl-one
    <BLANKLINE>
    | Bad input | Error | Names it |
    |---|---|---|
    | `scaled_dot_product_attention`: `q` has one dimension, shape (3,) |
      **ValueError**: `q must have shape (..., L, d_k) (at least 2 dimensions), got shape (3,)` | yes |
    :::
    >>> bad_input_table([BadInput("causal_mask", "a good input", "L", (2,))])
    Traceback (most recent call last):
    ...
    AssertionError: these bad inputs got no TypeError or ValueError: ['causal_mask: a good input -> no error']
    """
    outcomes = run_cases(cases)
    wrong = [f"{c.function}: {o.description} -> {o.error or 'no error'}"
             for c, o in zip(cases, outcomes) if o.error not in EXPECTED_ERRORS]
    if wrong:
        raise AssertionError(f"these bad inputs got no TypeError or ValueError: {wrong}")
    rows = [[f"{code(c.function)}: {cell(o.description)}", f"**{o.error}**: {code(o.message)}",
             "yes" if names_argument(o.message, c.argument) else "**no**"]
            for c, o in zip(cases, outcomes)]
    return Table(["Bad input", "Error", "Names it"], rows, caption, name)


__all__ = [
    "CASES",
    "EXPECTED_ERRORS",
    "BadInput",
    "Outcome",
    "bad_input_table",
    "names_argument",
    "run_case",
    "run_cases",
]
