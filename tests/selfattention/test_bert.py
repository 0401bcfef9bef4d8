"""The NumPy BERT encoder: its building blocks, and the real model against PyTorch.

``tests/selfattention/data/bert_reference.npz`` was written by ``scripts/make_bert_reference.py``
(Hugging Face ``transformers`` on PyTorch, eager attention).
"""

import math
from pathlib import Path

import numpy as np
import pytest

from selfattention import minilm, softmax
from selfattention.bert import (
    BertConfig,
    attention_from_to,
    bert_embeddings,
    bert_forward,
    bert_layer,
    bert_weight_shapes,
    check_bert_weights,
    concat_heads,
    erf,
    erfc,
    gelu,
    key_padding_mask,
    layer_norm,
    linear,
    preference_flips,
    random_bert_weights,
    split_heads,
    token_index,
)

REFERENCE = Path(__file__).parent / "data" / "bert_reference.npz"
TOLERANCE = 1e-5

TINY = BertConfig(
    vocab_size=12,
    hidden_size=8,
    num_hidden_layers=2,
    num_attention_heads=2,
    intermediate_size=16,
    max_position_embeddings=10,
)


@pytest.fixture(scope="module")
def reference():
    with np.load(REFERENCE, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def sentence_indices():
    with np.load(REFERENCE, allow_pickle=False) as data:
        return list(range(len(data["sentences"])))


# ---------------------------------------------------------------------------
# The real model against the PyTorch reference
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("i", sentence_indices())
def test_matches_pytorch_reference(reference, i):
    sentence = str(reference["sentences"][i])
    enc = minilm.encode(sentence)
    assert list(enc.tokens) == reference[f"s{i}_tokens"].tolist()
    np.testing.assert_array_equal(enc.input_ids, reference[f"s{i}_input_ids"])
    L = len(enc.tokens)
    assert enc.attentions.shape == reference[f"s{i}_attentions"].shape == (6, 12, L, L)
    assert enc.attentions.dtype == enc.hidden_states.dtype == np.float32
    diffs = {
        "attentions": np.abs(enc.attentions - reference[f"s{i}_attentions"]).max(),
        "hidden 0": np.abs(enc.hidden_states[0] - reference[f"s{i}_hidden_first"]).max(),
        "hidden 3": np.abs(enc.hidden_states[3] - reference[f"s{i}_hidden_mid"]).max(),
        "hidden 6": np.abs(enc.hidden_states[6] - reference[f"s{i}_hidden_last"]).max(),
    }
    assert max(diffs.values()) <= TOLERANCE, diffs


def test_reference_file_is_small_float32(reference):
    assert REFERENCE.stat().st_size < 1_000_000
    for key, arr in reference.items():
        if key.endswith(("_attentions", "_hidden_first", "_hidden_mid", "_hidden_last")):
            assert arr.dtype == np.float32, key


def test_scores_reproduce_the_weights():
    enc = minilm.encode("The cat sat on the mat.")
    # Exactly equal: self-attention computes its scores once and takes their softmax.
    np.testing.assert_array_equal(softmax(enc.scores), enc.attentions)
    # A temperature flattens every row but keeps it a distribution.
    hot = softmax(enc.scores / np.float32(4.0))
    np.testing.assert_allclose(hot.sum(-1), 1.0, atol=1e-6)
    assert hot.max() < enc.attentions.max()


def test_padded_batch_matches_single_sentences():
    a, b = "The animal was tired.", "We sat on the bank of the river."
    ta, tb = minilm.tokenize(a), minilm.tokenize(b)
    La, Lb = len(ta.tokens), len(tb.tokens)
    ids = np.zeros((2, Lb), dtype=np.int64)
    ids[0, :La], ids[1] = ta.input_ids, tb.input_ids
    mask = np.zeros((2, Lb), dtype=np.int64)
    mask[0, :La], mask[1] = 1, 1
    out = bert_forward(ids, minilm.load_weights(), minilm.load_config(), attention_mask=mask)
    assert out.hidden_states.shape == (7, 2, Lb, 384)
    assert out.attentions.shape == (6, 2, 12, Lb, Lb)
    single = minilm.encode(a)
    np.testing.assert_allclose(out.hidden_states[:, 0, :La], single.hidden_states, atol=TOLERANCE)
    np.testing.assert_allclose(out.attentions[:, 0, :, :La, :La], single.attentions, atol=TOLERANCE)
    assert (out.attentions[:, 0, :, :, La:] == 0).all()  # nobody looks at padding
    assert np.isneginf(out.scores[:, 0, :, :, La:]).all()
    alone = minilm.encode(b)
    np.testing.assert_allclose(out.hidden_states[:, 1], alone.hidden_states, atol=TOLERANCE)


def test_forward_is_deterministic():
    s = "Determinism matters."
    one, two = minilm.encode(s), minilm.encode(s)
    assert np.array_equal(one.hidden_states, two.hidden_states)
    assert np.array_equal(one.attentions, two.attentions)


# ---------------------------------------------------------------------------
# erf, erfc, GELU
# ---------------------------------------------------------------------------


def test_erf_and_erfc_are_the_standard_librarys():
    # Exact in float64 (T5-14: an approximate erf made check_bert_layer refuse right float64 answers).
    x = np.concatenate([np.linspace(-6, 26, 32001), [-0.0, 1e-9, 1e-3]])
    np.testing.assert_array_equal(erf(x), [math.erf(v) for v in x])
    np.testing.assert_array_equal(erfc(x), [math.erfc(v) for v in x])


def test_erf_of_float32_is_within_a_float32_rounding_of_the_exact_value():
    # float32 takes a vectorised fit (the model's forward pass calls it a million times).
    x = np.linspace(-6, 26, 32001, dtype=np.float32)
    exact_erf = np.array([math.erf(v) for v in x.tolist()])
    exact_erfc = np.array([math.erfc(v) for v in x.tolist()])
    assert erf(x).dtype == erfc(x).dtype == np.float32
    assert np.abs(erf(x) - exact_erf).max() < 1.2e-7
    tiny = np.finfo(np.float32).tiny
    relative = np.abs(erfc(x) - exact_erfc) / exact_erfc
    assert relative[exact_erfc > 100 * tiny].max() < 1.2e-7 + np.finfo(np.float32).eps


def test_erf_keeps_shape_of_a_scalar():
    assert erf(0.5).shape == erfc(0.5).shape == gelu(0.5).shape == ()
    assert erf([[0.5]]).shape == (1, 1)


def test_erf_is_odd_and_keeps_float32():
    x = np.array([0.0, 0.1, 1.0, 3.0], dtype=np.float32)
    assert erf(x).dtype == erfc(x).dtype == gelu(x).dtype == np.float32
    np.testing.assert_array_equal(erf(-x), -erf(x))
    assert erf(0.0) == 0.0
    assert erf(1e6) == 1.0 and erfc(1e6) == 0.0


def test_gelu_matches_exact_formula():
    x = np.linspace(-10, 10, 4001)
    expected = np.array([0.5 * v * math.erfc(-v / math.sqrt(2)) for v in x])
    np.testing.assert_allclose(gelu(x), expected, rtol=1e-15, atol=0)   # the same formula, in float64
    # Not the tanh approximation: they differ by more than 1e-4 somewhere.
    tanh_gelu = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    assert np.abs(gelu(x) - tanh_gelu).max() > 1e-4


@pytest.mark.parametrize("f", [erf, erfc, gelu])
def test_special_functions_reject_bad_input(f):
    with pytest.raises(ValueError, match="x contains"):
        f([0.0, np.nan])
    with pytest.raises(TypeError, match="x must be"):
        f(["a"])


# ---------------------------------------------------------------------------
# Building blocks
# ---------------------------------------------------------------------------


def test_layer_norm_standardises_rows():
    rng = np.random.default_rng(0)
    x = rng.normal(3.0, 5.0, size=(4, 6)).astype(np.float32)
    y = layer_norm(x, np.ones(6), np.zeros(6), eps=1e-12)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.mean(-1), 0, atol=1e-6)
    np.testing.assert_allclose(y.var(-1), 1, atol=1e-5)
    z = layer_norm(x, np.full(6, 2.0), np.full(6, 1.0))
    np.testing.assert_allclose(z, 2 * y + 1, atol=1e-5)


def test_layer_norm_errors_name_the_argument():
    with pytest.raises(ValueError, match=r"gamma must have shape \(3,\)"):
        layer_norm(np.ones((2, 3)), np.ones(4), np.zeros(3))
    with pytest.raises(ValueError, match="eps"):
        layer_norm(np.ones((2, 3)), np.ones(3), np.zeros(3), eps=0)


def test_linear_uses_pytorch_layout():
    x = np.arange(6.0).reshape(2, 3)
    w = np.arange(12.0).reshape(4, 3)
    np.testing.assert_allclose(linear(x, w, np.ones(4)), x @ w.T + 1)
    with pytest.raises(ValueError, match=r"weight must have shape \(d_out, d_in\) with d_in=3"):
        linear(x, w.T, np.ones(4))
    with pytest.raises(ValueError, match=r"bias must have shape \(4,\)"):
        linear(x, w, np.ones(3))


def test_split_and_concat_heads_are_the_multihead_ones():
    x = np.arange(2 * 5 * 12.0).reshape(2, 5, 12)
    h = split_heads(x, 3)
    assert h.shape == (2, 3, 5, 4)
    np.testing.assert_array_equal(h[:, 1], x[..., 4:8])
    np.testing.assert_array_equal(concat_heads(h), x)
    with pytest.raises(ValueError, match="h=5 heads must divide d_model=12"):
        split_heads(x, 5)
    with pytest.raises(TypeError, match="h"):
        split_heads(x, 2.0)


def test_padding_mask():
    m = key_padding_mask([[1, 1, 0], [1, 0, 0]])
    assert m.shape == (2, 1, 1, 3) and m.dtype == bool
    with pytest.raises(ValueError, match="only 0 and 1"):
        key_padding_mask([1, 2])
    with pytest.raises(TypeError, match="attention_mask"):
        key_padding_mask([1.0, 0.0])


# ---------------------------------------------------------------------------
# Config, weights and inputs
# ---------------------------------------------------------------------------


def test_config_from_real_config_json():
    cfg = minilm.load_config()
    assert cfg == BertConfig()
    assert (cfg.num_hidden_layers, cfg.num_attention_heads, cfg.hidden_size) == (6, 12, 384)
    assert cfg.intermediate_size == 1536 and cfg.layer_norm_eps == 1e-12


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"hidden_size": 0}, ValueError, "hidden_size must be a positive integer"),
        ({"num_hidden_layers": 2.5}, TypeError, "num_hidden_layers"),
        ({"layer_norm_eps": -1.0}, ValueError, "layer_norm_eps"),
        ({"hidden_size": 10, "num_attention_heads": 3}, ValueError, "must divide"),
    ],
)
def test_config_rejects_bad_sizes(kwargs, error, match):
    with pytest.raises(error, match=match):
        BertConfig(**kwargs)


def test_config_rejects_other_activations():
    with pytest.raises(ValueError, match="hidden_act"):
        BertConfig.from_dict({"hidden_act": "relu"})
    with pytest.raises(TypeError, match="config must be a mapping"):
        BertConfig.from_dict([("hidden_size", 8)])


def test_real_weights_have_every_expected_parameter():
    weights = minilm.load_weights()
    shapes = bert_weight_shapes(minilm.load_config())
    assert set(shapes) <= set(weights)
    assert all(weights[k].shape == s and weights[k].dtype == np.float32 for k, s in shapes.items())


def test_weight_errors_name_the_parameter():
    w = random_bert_weights(TINY)
    w["encoder.layer.1.attention.self.key.weight"] = np.zeros((8, 7), np.float32)
    with pytest.raises(ValueError, match=r"key.weight'\] must have shape \(8, 8\), got \(8, 7\)"):
        bert_forward([1, 2], w, TINY)
    w = random_bert_weights(TINY)
    w["embeddings.LayerNorm.bias"] = np.zeros(8, dtype=np.int64)
    with pytest.raises(TypeError, match="real floating"):
        check_bert_weights(w, TINY)
    with pytest.raises(TypeError, match="weights must be a mapping"):
        bert_forward([1, 2], [], TINY)
    with pytest.raises(TypeError, match="config must be a BertConfig"):
        bert_forward([1, 2], random_bert_weights(TINY), {"hidden_size": 8})


@pytest.mark.parametrize(
    "ids, kwargs, error, match",
    [
        ([1, 12], {}, ValueError, r"input_ids must lie in 0..11"),
        ([1.0, 2.0], {}, TypeError, "input_ids must be integers"),
        ([], {}, ValueError, "L >= 1"),
        (list(range(11)), {}, ValueError, "more than max_position_embeddings=10"),
        ([1, 2], {"token_type_ids": [0, 2]}, ValueError, r"token_type_ids must lie in 0..1"),
        ([1, 2], {"token_type_ids": [0]}, ValueError, "token_type_ids must have the shape"),
        ([1, 2], {"attention_mask": [1, 1, 1]}, ValueError, "attention_mask must have the shape"),
    ],
)
def test_bad_inputs_are_named(ids, kwargs, error, match):
    with pytest.raises(error, match=match):
        bert_forward(ids, random_bert_weights(TINY), TINY, **kwargs)


def test_tiny_model_shapes_and_layer_range():
    w = random_bert_weights(TINY, std=0.5)
    out = bert_forward([[3, 4, 5], [6, 7, 8]], w, TINY, token_type_ids=[[0, 0, 1], [0, 1, 1]])
    assert out.hidden_states.shape == (3, 2, 3, 8)
    assert out.attentions.shape == out.scores.shape == (2, 2, 2, 3, 3)
    np.testing.assert_allclose(out.attentions.sum(-1), 1, atol=1e-6)
    h0 = bert_embeddings([3, 4, 5], w, TINY, token_type_ids=[0, 0, 1])
    np.testing.assert_array_equal(out.hidden_states[0, 0], h0)
    with pytest.raises(ValueError, match=r"layer must be in 0..1, got 2"):
        bert_layer(h0, w, 2, TINY)


# ---------------------------------------------------------------------------
# Reading attention between named tokens
# ---------------------------------------------------------------------------


def test_attention_from_to_picks_rows_and_columns():
    rng = np.random.default_rng(0)
    a = softmax(rng.normal(size=(2, 3, 4, 4)))
    tokens = ["[CLS]", "it", "cat", "[SEP]"]
    got = attention_from_to(a, tokens, "it", ["cat", 0])
    np.testing.assert_array_equal(got, a[..., 1, [2, 0]])
    with pytest.raises(ValueError, match="attentions must have shape"):
        attention_from_to(a[..., :3], tokens, "it", ["cat"])
    with pytest.raises(TypeError, match="targets must be a sequence"):
        attention_from_to(a, tokens, "it", "cat")


def test_token_index_errors():
    tokens = ["the", "cat", "the"]
    with pytest.raises(ValueError, match=r"occurs at positions \[0, 2\]"):
        token_index(tokens, "the")
    with pytest.raises(ValueError, match="'dog' is not among"):
        token_index(tokens, "dog")
    with pytest.raises(ValueError, match="position 3 is out of range"):
        token_index(tokens, 3)
    with pytest.raises(TypeError, match="token must be"):
        token_index(tokens, 1.0)


def test_preference_flips():
    first = np.array([[0.3, 0.1], [0.1, 0.3]])
    second = np.array([[0.1, 0.3], [0.1, 0.3]])
    np.testing.assert_array_equal(preference_flips(first, second), [True, False])
    np.testing.assert_array_equal(preference_flips(first, second, min_weight=0.5), [False, False])
    with pytest.raises(ValueError, match=r"shape \(\.\.\., 2\)"):
        preference_flips(first[:, :1], second[:, :1])
    with pytest.raises(ValueError, match="min_weight"):
        preference_flips(first, second, min_weight=2)


def test_preference_flips_min_margin_drops_close_calls():
    first = np.array([[0.30, 0.10], [0.155, 0.150], [0.30, 0.10]])
    second = np.array([[0.10, 0.30], [0.10, 0.30], [0.148, 0.152]])
    np.testing.assert_array_equal(preference_flips(first, second), [True, True, True])
    np.testing.assert_array_equal(preference_flips(first, second, min_margin=0.01), [True, False, False])
    # The margin is the favourite minus the other, so exactly the margin counts.
    assert preference_flips([0.25, 0.125], [0.125, 0.25], min_margin=0.125)
    for bad in (-0.1, 1.5, True, "0.01"):
        with pytest.raises(ValueError, match="min_margin"):
            preference_flips(first, second, min_margin=bad)
