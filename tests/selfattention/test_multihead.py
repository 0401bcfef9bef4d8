"""Multi-head attention: one head is plain attention, heads are independent, and PyTorch agrees.

``tests/selfattention/data/multihead_reference.npz`` was written by
``scripts/make_multihead_reference.py`` (``torch.nn.functional.multi_head_attention_forward``).
"""

from pathlib import Path

import numpy as np
import pytest

import selfattention as sa
from selfattention import minilm
from selfattention.multihead import concat_heads, multi_head_attention, split_heads

REFERENCE = Path(__file__).parent / "data" / "multihead_reference.npz"
RNG = np.random.default_rng(12)


def random_case(L=5, d_model=8, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((L, d_model))
    ws = [rng.standard_normal((d_model, d_model)) / np.sqrt(d_model) for _ in range(4)]
    return x, ws


def reference_cases():
    with np.load(REFERENCE, allow_pickle=False) as data:
        return sorted({int(k.split("_")[0][1:]) for k in data.files if k.startswith("s")})


# ---------------------------------------------------------------------------
# One head, identity matrices: plain self-attention
# ---------------------------------------------------------------------------


def test_one_head_with_identity_matrices_is_one_head_of_attention():
    x = RNG.standard_normal((6, 4))
    eye = np.eye(4)
    out, weights = multi_head_attention(x, eye, eye, eye, eye, 1, return_weights=True)
    expected, expected_w = sa.scaled_dot_product_attention(x, x, x, return_weights=True)
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(weights[0], expected_w, rtol=0, atol=1e-12)
    assert weights.shape == (1, 6, 6)


def test_one_head_with_identity_matrices_on_the_three_words():
    x = sa.three_words()
    eye = np.eye(2)
    np.testing.assert_allclose(multi_head_attention(x, eye, eye, eye, eye, 1),
                               sa.scaled_dot_product_attention(x, x, x), rtol=0, atol=1e-12)


def test_one_head_is_attention_head_then_w_o():
    x, (w_q, w_k, w_v, w_o) = random_case()
    expected = sa.attention_head(x, w_q, w_k, w_v) @ w_o
    np.testing.assert_allclose(multi_head_attention(x, w_q, w_k, w_v, w_o, 1), expected, atol=1e-12)


# ---------------------------------------------------------------------------
# Several heads: each head is one attention head on its own slice
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("h", [1, 2, 4, 8])
def test_each_head_is_an_attention_head_on_its_columns(h):
    x, (w_q, w_k, w_v, w_o) = random_case(L=5, d_model=8, seed=h)
    d_head = 8 // h
    out, weights = multi_head_attention(x, w_q, w_k, w_v, w_o, h, return_weights=True)
    assert out.shape == (5, 8) and weights.shape == (h, 5, 5)
    outputs = []
    for i in range(h):
        cols = slice(i * d_head, (i + 1) * d_head)
        o, w = sa.attention_head(x, w_q[:, cols], w_k[:, cols], w_v[:, cols], return_weights=True)
        np.testing.assert_allclose(weights[i], w, atol=1e-12)
        outputs.append(o)                                       # (L, d_head)
    np.testing.assert_allclose(out, np.concatenate(outputs, axis=-1) @ w_o, atol=1e-12)


def test_every_row_of_every_head_sums_to_one():
    x, ws = random_case(L=7, d_model=12)
    _, weights = multi_head_attention(x, *ws, 3, return_weights=True)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, atol=1e-12)


def test_batch_dimensions_are_kept():
    x = RNG.standard_normal((3, 5, 8))                          # (batch, L, d_model)
    _, ws = random_case()
    out, weights = multi_head_attention(x, *ws, 2, return_weights=True)
    assert out.shape == (3, 5, 8) and weights.shape == (3, 2, 5, 5)
    np.testing.assert_allclose(out[1], multi_head_attention(x[1], *ws, 2), atol=1e-12)


def test_causal_mask_applies_to_every_head():
    x, ws = random_case()
    _, weights = multi_head_attention(x, *ws, 4, causal=True, return_weights=True)
    assert (weights[:, ~sa.causal_mask(5)] == 0).all()


def test_split_then_concat_is_the_identity():
    x = RNG.standard_normal((2, 5, 12))
    for h in (1, 2, 3, 4, 6, 12):
        heads = split_heads(x, h)
        assert heads.shape == (2, h, 5, 12 // h)
        np.testing.assert_array_equal(concat_heads(heads), x)
    np.testing.assert_array_equal(split_heads(x, 3)[0, 1], x[0, :, 4:8])   # head 1: columns 4 to 7


def test_float32_stays_float32():
    x, ws = random_case()
    out = multi_head_attention(x.astype(np.float32), *(w.astype(np.float32) for w in ws), 2)
    assert out.dtype == np.float32


# ---------------------------------------------------------------------------
# Against PyTorch
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("i", reference_cases())
def test_matches_pytorch_multi_head_attention_forward(i):
    with np.load(REFERENCE, allow_pickle=False) as ref:
        r = {k[len(f"s{i}_"):]: ref[k] for k in ref.files if k.startswith(f"s{i}_")}
    h, causal = int(r["h"]), bool(r["causal"])
    out, weights = multi_head_attention(r["x"], r["w_q"], r["w_k"], r["w_v"], r["w_o"], h,
                                        b_q=r["b_q"], b_k=r["b_k"], b_v=r["b_v"], b_o=r["b_o"],
                                        causal=causal, return_weights=True)
    np.testing.assert_allclose(out, r["out"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(weights, r["weights"], rtol=0, atol=1e-12)


def test_reference_covers_several_heads_causal_and_biases():
    with np.load(REFERENCE, allow_pickle=False) as ref:
        cases = reference_cases()
        assert {int(ref[f"s{i}_h"]) for i in cases} >= {1, 2, 3, 4}
        assert any(bool(ref[f"s{i}_causal"]) for i in cases)
        assert any(np.abs(ref[f"s{i}_b_q"]).max() > 0 for i in cases)


# ---------------------------------------------------------------------------
# Against the real model: the MiniLM layer's own heads
# ---------------------------------------------------------------------------


def test_reproduces_a_real_models_heads():
    enc = minilm.encode("The cat sat on the mat.")
    weights_file = minilm.load_weights()
    p = "encoder.layer.2.attention."
    w = {n: weights_file[f"{p}self.{n}.weight"].T for n in ("query", "key", "value")}
    b = {n: weights_file[f"{p}self.{n}.bias"] for n in ("query", "key", "value")}
    _, weights = multi_head_attention(enc.hidden_states[2], w["query"], w["key"], w["value"],
                                      weights_file[f"{p}output.dense.weight"].T, 12,
                                      b_q=b["query"], b_k=b["key"], b_v=b["value"],
                                      b_o=weights_file[f"{p}output.dense.bias"], return_weights=True)
    np.testing.assert_allclose(weights, enc.attentions[2], rtol=0, atol=1e-5)


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("h", [3, 5, 16])
def test_h_must_divide_d_model(h):
    x, ws = random_case()
    with pytest.raises(ValueError, match=f"h={h} heads must divide d_model=8"):
        multi_head_attention(x, *ws, h)


@pytest.mark.parametrize("h", [0, -2])
def test_h_must_be_positive(h):
    x, ws = random_case()
    with pytest.raises(ValueError, match="at least 1"):
        multi_head_attention(x, *ws, h)


@pytest.mark.parametrize("h", [2.0, True, "2", None])
def test_h_must_be_an_integer(h):
    x, ws = random_case()
    with pytest.raises(TypeError, match="must be an integer"):
        multi_head_attention(x, *ws, h)


@pytest.mark.parametrize("which", range(4))
def test_matrix_of_the_wrong_shape(which):
    x, ws = random_case()
    ws[which] = ws[which][:, :6]
    name = ("w_q", "w_k", "w_v", "w_o")[which]
    with pytest.raises(ValueError, match=rf"{name} must have shape \(d_model, d_model\) = \(8, 8\).*\(8, 6\)"):
        multi_head_attention(x, *ws, 2)


def test_bias_of_the_wrong_shape():
    x, ws = random_case()
    with pytest.raises(ValueError, match=r"b_v must have shape \(d_model,\) = \(8,\), got \(4,\)"):
        multi_head_attention(x, *ws, 2, b_v=np.zeros(4))


def test_x_must_be_at_least_2d():
    _, ws = random_case()
    with pytest.raises(ValueError, match=r"x must have shape \(\.\.\., L, d_model\)"):
        multi_head_attention(np.ones(8), *ws, 2)


def test_non_numeric_input():
    _, ws = random_case()
    with pytest.raises(TypeError, match="x must be numeric"):
        multi_head_attention([["a"] * 8], *ws, 2)


def test_concat_heads_needs_three_dimensions():
    with pytest.raises(ValueError, match=r"\(\.\.\., h, L, d_head\)"):
        concat_heads(np.ones((4, 2)))
