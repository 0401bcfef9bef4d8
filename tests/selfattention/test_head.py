import numpy as np
import pytest

from selfattention import (
    attention_head,
    head_trace,
    i_love_cats,
    project_qkv,
    query_key_product,
    scaled_dot_product_attention,
    three_words,
)

X = three_words()
EYE = np.eye(2)


def test_identity_projections_give_plain_attention():
    np.testing.assert_allclose(attention_head(X, EYE, EYE, EYE), scaled_dot_product_attention(X, X, X))


def test_one_way_keys_break_symmetry():
    _, w = attention_head(X, EYE, [[0, 0], [1, 0]], EYE, return_weights=True)
    np.testing.assert_allclose(w, [[0.05, 0.19, 0.77], [0.14, 0.28, 0.58], [1 / 3] * 3], atol=6e-3)
    assert not np.allclose(w, w.T)


def test_value_matrix_sets_output_width():
    out = attention_head(X, EYE, EYE, np.ones((2, 5)))
    assert out.shape == (3, 5)


@pytest.mark.parametrize(
    "w_q, w_k, w_v, message",
    [
        (np.eye(3), np.eye(3), EYE, r"w_q must have shape \(d_model, d\) with d_model=2"),
        (EYE, np.ones((2, 3)), EYE, r"w_q and w_k must have the same shape"),
        (EYE, EYE, np.ones(2), r"w_v must have shape \(d_model, d\)"),
    ],
)
def test_bad_matrices_get_a_clear_error(w_q, w_k, w_v, message):
    with pytest.raises(ValueError, match=message):
        project_qkv(X, w_q, w_k, w_v)


# --- query_key_product and head_trace ("Queries, keys and values") ---------------------------

SWAP = np.array([[0.0, 1.0], [1.0, 0.0]])
ONE_WAY = np.array([[0.0, 0.0], [1.0, 0.0]])


@pytest.mark.parametrize("w_q, w_k", [(EYE, SWAP), (EYE, ONE_WAY), (SWAP, ONE_WAY),
                                      (np.arange(6.0).reshape(3, 2), np.ones((3, 2)))])
def test_scores_depend_only_on_the_query_key_product(w_q, w_k):
    x = np.random.default_rng(0).normal(size=(4, w_q.shape[0]))
    q, k, _ = project_qkv(x, w_q, w_k, w_q)
    np.testing.assert_allclose(q @ k.T, x @ query_key_product(w_q, w_k) @ x.T, atol=1e-12)


def test_a_symmetric_product_gives_a_symmetric_table_for_any_words():
    rng = np.random.default_rng(1)
    w_q = rng.normal(size=(3, 2))
    w_k = w_q @ np.array([[2.0, 1.0], [1.0, 3.0]])   # W_Q W_K^T = W_Q S W_Q^T, S symmetric
    m = query_key_product(w_q, w_k)
    np.testing.assert_allclose(m, m.T, atol=1e-12)
    for _ in range(5):
        x = rng.normal(size=(5, 3))
        s = x @ m @ x.T
        np.testing.assert_allclose(s, s.T, atol=1e-12)


def test_query_key_product_rejects_different_shapes():
    with pytest.raises(ValueError, match=r"w_q: \(2, 2\), w_k: \(2, 3\)"):
        query_key_product(EYE, np.ones((2, 3)))


def test_head_trace_ends_where_the_head_ends():
    x, w_q, w_k, w_v = i_love_cats()
    t = head_trace(x, w_q, w_k, w_v)
    out, weights = attention_head(x, w_q, w_k, w_v, return_weights=True)
    np.testing.assert_allclose(t["weights"], weights, atol=1e-15)
    np.testing.assert_allclose(t["output"], out, atol=1e-15)
    np.testing.assert_allclose(t["scores"], t["raw_scores"] / np.sqrt(2), atol=1e-15)
    np.testing.assert_allclose(t["q"], x @ w_q)
    assert [t[n].shape for n in ("q", "k", "v", "raw_scores", "output")] == [(3, 2)] * 3 + [(3, 3), (3, 2)]


def test_i_love_cats_has_whole_number_steps_and_an_asymmetric_table():
    t = head_trace(*i_love_cats())
    for name in ("q", "k", "v", "raw_scores"):
        np.testing.assert_array_equal(t[name], np.round(t[name]))
    assert not np.allclose(t["raw_scores"], t["raw_scores"].T)
    assert t["weights"].argmax(axis=1).tolist() == [1, 0, 1]   # I and cats look at love; love at I


def test_head_trace_rejects_a_batch():
    with pytest.raises(ValueError, match="x must have shape"):
        head_trace(np.ones((2, 3, 2)), EYE, EYE, EYE)
