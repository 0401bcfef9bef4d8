"""Cross-attention: queries from one sequence, keys and values from another."""

import numpy as np
import pytest

from selfattention import (
    SOURCE,
    TARGET,
    attention_head,
    cat_is_sleeping,
    cross_attention,
    scaled_dot_product_attention,
    softmax,
    three_words,
)

X_Q, X_KV, W_Q, W_K, W_V = cat_is_sleeping()
RNG = np.random.default_rng(9)


def test_the_example_has_one_row_per_word():
    assert X_Q.shape == (len(TARGET), 2) and X_KV.shape == (len(SOURCE), 2)
    assert len(TARGET) != len(SOURCE)


def test_weights_are_l_q_by_l_kv_and_output_is_l_q_by_d_v():
    out, w = cross_attention(X_Q, X_KV, W_Q, W_K, np.ones((2, 5)), return_weights=True)
    assert w.shape == (3, 4) and out.shape == (3, 5)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0)


def test_equals_the_formula_written_out():
    q, k, v = X_Q @ W_Q, X_KV @ W_K, X_KV @ W_V
    expected_w = softmax(q @ k.T / np.sqrt(2))
    out, w = cross_attention(X_Q, X_KV, W_Q, W_K, W_V, return_weights=True)
    np.testing.assert_allclose(w, expected_w, rtol=1e-12)
    np.testing.assert_allclose(out, expected_w @ v, rtol=1e-12)


def test_each_german_word_reads_its_english_words():
    _, w = cross_attention(X_Q, X_KV, W_Q, W_K, W_V, return_weights=True)
    assert w[0].argmax() == SOURCE.index("the") and w[1].argmax() == SOURCE.index("cat")
    np.testing.assert_allclose(w[2, 2], w[2, 3], rtol=1e-12)  # schläft: "is" and "sleeping" alike
    assert w[2, 2] + w[2, 3] > 0.99


def test_with_one_sequence_it_is_self_attention():
    x = three_words()
    w_q, w_k, w_v = RNG.standard_normal((3, 2, 2))
    np.testing.assert_allclose(cross_attention(x, x, w_q, w_k, w_v), attention_head(x, w_q, w_k, w_v))


def test_the_two_sequences_may_have_different_widths():
    x_q, x_kv = RNG.standard_normal((2, 3)), RNG.standard_normal((5, 4))
    w_q, w_k, w_v = RNG.standard_normal((3, 2)), RNG.standard_normal((4, 2)), RNG.standard_normal((4, 6))
    out = cross_attention(x_q, x_kv, w_q, w_k, w_v)
    np.testing.assert_allclose(out, scaled_dot_product_attention(x_q @ w_q, x_kv @ w_k, x_kv @ w_v))
    assert out.shape == (2, 6)


def test_batches_broadcast():
    x_q, x_kv = RNG.standard_normal((2, 3, 2)), RNG.standard_normal((2, 4, 2))
    out, w = cross_attention(x_q, x_kv, W_Q, W_K, W_V, return_weights=True)
    assert out.shape == (2, 3, 2) and w.shape == (2, 3, 4)
    np.testing.assert_allclose(out[1], cross_attention(x_q[1], x_kv[1], W_Q, W_K, W_V))


def test_a_padding_mask_on_the_source_gives_its_words_no_weight():
    keep = np.array([True, True, True, False])  # the last source word is padding
    _, w = cross_attention(X_Q, X_KV, W_Q, W_K, W_V, mask=keep, return_weights=True)
    assert (w[:, 3] == 0).all()
    np.testing.assert_allclose(w.sum(axis=-1), 1.0)


@pytest.mark.parametrize(
    "args, message",
    [
        ((X_Q, X_KV, np.eye(3), W_K, W_V), r"w_q must have shape \(2, d\): one row per number of x_q"),
        ((X_Q, X_KV, W_Q, np.ones((3, 2)), W_V), r"w_k must have shape \(2, d\): one row per number of x_kv"),
        ((X_Q, X_KV, W_Q, W_K, np.ones(2)), r"w_v must have shape \(2, d\)"),
        ((X_Q, X_KV, W_Q, np.ones((2, 3)), W_V), r"w_q and w_k must make queries and keys of the same size"),
        ((np.ones(2), X_KV, W_Q, W_K, W_V), r"x_q must have shape \(\.\.\., L_q, d_q\)"),
        ((X_Q, np.ones(2), W_Q, W_K, W_V), r"x_kv must have shape \(\.\.\., L_kv, d_kv\)"),
    ],
)
def test_bad_shapes_name_the_argument(args, message):
    with pytest.raises(ValueError, match=message):
        cross_attention(*args)


def test_a_mask_of_the_wrong_shape_is_refused():
    with pytest.raises(ValueError, match="mask"):
        cross_attention(X_Q, X_KV, W_Q, W_K, W_V, mask=np.ones((4, 3), bool))


def test_strings_are_refused():
    with pytest.raises(TypeError, match="x_kv must be numeric"):
        cross_attention(X_Q, [["a", "b"]], W_Q, W_K, W_V)
