import numpy as np
import pytest

from selfattention import attention_head, project_qkv, scaled_dot_product_attention, three_words

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
