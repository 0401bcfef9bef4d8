"""The checker of the cross-attention exercise names each likely slip."""

import numpy as np
import pytest

from selfattention import cat_is_sleeping, check_cross_weights, softmax

X_Q, X_KV, W_Q, W_K, _ = cat_is_sleeping()
Q, K = X_Q @ W_Q, X_KV @ W_K
RIGHT = softmax(Q @ K.T / np.sqrt(2))


def test_the_right_weights_pass():
    verdict = check_cross_weights(RIGHT)
    assert verdict.ok and "(3, 4)" in verdict.message


@pytest.mark.parametrize(
    "weights, words",
    [
        (softmax(K @ Q.T / np.sqrt(2)), "K @ Q.T instead of Q @ K.T"),
        (softmax(Q @ Q.T / np.sqrt(2)), "the keys come from x_kv"),
        (softmax(K @ K.T / np.sqrt(2)), "the queries come from x_q"),
        (softmax(Q @ K.T / np.sqrt(2), axis=0), "Each column adds up to 1"),
        (Q @ K.T / np.sqrt(2), "These are the scores"),
        (softmax(Q @ K.T), "forget to divide the scores by sqrt(d_k) = sqrt(2)"),
        (softmax(X_Q @ K.T / np.sqrt(2)), "Your queries or keys are not projected as they should be"),
        # T3-3: the keys projected with W_Q give the same numbers here (W_Q is a rotation, W_K = I)
        (softmax(Q @ (X_KV @ W_Q).T / np.sqrt(2)), "Q = x_q @ W_Q and K = x_kv @ W_K"),
        (softmax(np.where(np.tri(3, 4, dtype=bool), Q @ K.T / np.sqrt(2), -np.inf)), "causal mask on cross-attention"),
        (softmax(np.where(np.tri(3, 4, k=1, dtype=bool), Q @ K.T / np.sqrt(2), -np.inf)), "Use no mask"),
        (RIGHT + np.eye(3, 4) * 0.01, "Wrong value at row "),
        ("weights", "should be a NumPy array of numbers"),
        (np.full((3, 4), np.nan), "NaN or inf"),
    ],
)
def test_each_slip_gets_its_own_message(weights, words):
    verdict = check_cross_weights(weights)
    assert not verdict.ok
    assert words in verdict.message


def test_other_sequences_can_be_checked():
    rng = np.random.default_rng(1)
    x_q, x_kv, w_q, w_k = rng.standard_normal((2, 5)), rng.standard_normal((6, 3)), rng.standard_normal((5, 4)), \
        rng.standard_normal((3, 4))
    weights = softmax((x_q @ w_q) @ (x_kv @ w_k).T / 2)
    assert check_cross_weights(weights, x_q, x_kv, w_q, w_k).ok


def test_malformed_sequences_are_errors():
    with pytest.raises(ValueError, match="x_q must have shape"):
        check_cross_weights(RIGHT, x_q=np.ones(2))
    with pytest.raises(ValueError, match="w_k must have shape"):
        check_cross_weights(RIGHT, w_k=np.eye(3))
