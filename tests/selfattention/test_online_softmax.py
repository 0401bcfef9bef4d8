import numpy as np
import pytest

from selfattention import scaled_dot_product_attention, three_words
from selfattention.online_softmax import OnlineSoftmaxStep, online_softmax_trace

RNG = np.random.default_rng(11)
Q, K, V = RNG.standard_normal((5, 3)), RNG.standard_normal((23, 3)), RNG.standard_normal((23, 2))


@pytest.mark.parametrize("block_size", [1, 4, 5, 23, 100])
def test_final_partial_output_equals_plain_attention(block_size):
    steps = online_softmax_trace(Q, K, V, block_size=block_size)
    np.testing.assert_allclose(steps[-1].partial, scaled_dot_product_attention(Q, K, V),
                               rtol=1e-12, atol=1e-14)


def test_blocks_cover_the_keys_in_order():
    steps = online_softmax_trace(Q, K, V, block_size=5)
    assert [(s.block, s.start, s.stop) for s in steps] == [
        (0, 0, 5), (1, 5, 10), (2, 10, 15), (3, 15, 20), (4, 20, 23)]
    assert all(isinstance(s, OnlineSoftmaxStep) for s in steps)


def test_running_max_is_the_max_of_the_scores_seen_so_far():
    scores = Q @ K.T / np.sqrt(3)  # (5, 23)
    for s in online_softmax_trace(Q, K, V, block_size=4):
        np.testing.assert_allclose(s.run_max, scores[:, : s.stop].max(axis=1), rtol=0, atol=1e-14)
        np.testing.assert_allclose(s.block_max, scores[:, s.start: s.stop].max(axis=1), atol=1e-14)


def test_running_sum_equals_the_sum_with_the_current_max():
    scores = Q @ K.T / np.sqrt(3)
    for s in online_softmax_trace(Q, K, V, block_size=4):
        seen = scores[:, : s.stop]
        direct = np.exp(seen - s.run_max[:, None]).sum(axis=1)
        np.testing.assert_allclose(s.run_sum, direct, rtol=1e-13)
        direct_acc = np.exp(seen - s.run_max[:, None]) @ V[: s.stop]
        np.testing.assert_allclose(s.acc, direct_acc, rtol=1e-12, atol=1e-14)


def test_partial_output_is_attention_over_the_keys_seen_so_far():
    for s in online_softmax_trace(Q, K, V, block_size=6):
        np.testing.assert_allclose(s.partial, scaled_dot_product_attention(Q, K[: s.stop], V[: s.stop]),
                                   rtol=1e-12, atol=1e-14)


def test_rescale_is_exp_of_old_max_minus_new_max():
    steps = online_softmax_trace(Q, K, V, block_size=3)
    np.testing.assert_array_equal(steps[0].rescale, np.zeros(5))  # nothing to rescale yet
    assert np.all(np.isneginf(steps[0].old_max))
    for prev, s in zip(steps, steps[1:]):
        np.testing.assert_array_equal(s.old_max, prev.run_max)
        np.testing.assert_allclose(s.rescale, np.exp(prev.run_max - s.run_max), rtol=1e-15)
        assert np.all((s.rescale > 0) & (s.rescale <= 1))
        # A rescale below 1 happens exactly when the block brought a new max.
        np.testing.assert_array_equal(s.rescale < 1, s.block_max > prev.run_max)


def test_huge_scores_do_not_overflow():
    x = three_words() * 40.0  # scores up to 4,500: exp would overflow without the running max
    steps = online_softmax_trace(x, x, x, block_size=2)
    assert all(np.isfinite(s.run_sum).all() and np.isfinite(s.acc).all() for s in steps)
    np.testing.assert_allclose(steps[-1].partial, scaled_dot_product_attention(x, x, x),
                               rtol=1e-12, atol=1e-12)


def test_running_example_cat_reading_one_word_at_a_time():
    x = three_words()
    steps = online_softmax_trace(x[:1], x, x, block_size=1)
    np.testing.assert_allclose([s.run_sum[0] for s in steps],
                               [1.0, 1 + np.exp(-np.sqrt(2)), 1 + np.exp(-np.sqrt(2)) + np.exp(-2 * np.sqrt(2))],
                               rtol=1e-14)
    np.testing.assert_allclose(steps[-1].partial[0], [1.72, 0.28], atol=5e-3)


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(TypeError, match="block_size must be a positive integer"):
        online_softmax_trace(Q, K, V, block_size=2.0)
    with pytest.raises(ValueError, match="block_size must be a positive integer, got 0"):
        online_softmax_trace(Q, K, V, block_size=0)
    with pytest.raises(ValueError, match="must be 2-D"):
        online_softmax_trace(Q[None], K[None], V[None], block_size=2)
    with pytest.raises(ValueError, match="k has d_k=2 but q has d_k=3"):
        online_softmax_trace(Q, K[:, :2], V, block_size=2)
    with pytest.raises(ValueError, match="S=0 rows"):
        online_softmax_trace(Q, K[:0], V[:0], block_size=2)
