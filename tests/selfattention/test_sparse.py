import numpy as np
import pytest

from selfattention import causal_mask, scaled_dot_product_attention
from selfattention.fast import blockwise_attention
from selfattention.sparse import sliding_window_mask, strided_mask


def loop_window(L, S, window, causal):
    """Reference by loops: what the docstring says, one pair at a time."""
    m = np.zeros((L, S), dtype=bool)
    for i in range(L):
        for j in range(S):
            m[i, j] = (i - window <= j <= i) if causal else abs(i - j) <= window
    return m


def loop_strided(L, S, stride, causal):
    m = np.zeros((L, S), dtype=bool)
    for i in range(L):
        for j in range(S):
            if causal and j > i:
                continue
            m[i, j] = abs(i - j) < stride or (i - j) % stride == 0
    return m


@pytest.mark.parametrize("L,S", [(1, 1), (7, 7), (5, 9), (9, 4)])
@pytest.mark.parametrize("window", [0, 1, 3, 20])
@pytest.mark.parametrize("causal", [True, False])
def test_sliding_window_matches_a_loop(L, S, window, causal):
    mask = sliding_window_mask(L, window, S, causal=causal)
    assert mask.shape == (L, S) and mask.dtype == np.bool_
    np.testing.assert_array_equal(mask, loop_window(L, S, window, causal))


@pytest.mark.parametrize("L,S", [(1, 1), (10, 10), (6, 11), (11, 3)])
@pytest.mark.parametrize("stride", [1, 2, 3, 4])
@pytest.mark.parametrize("causal", [True, False])
def test_strided_matches_a_loop(L, S, stride, causal):
    mask = strided_mask(L, stride, S, causal=causal)
    assert mask.shape == (L, S) and mask.dtype == np.bool_
    np.testing.assert_array_equal(mask, loop_strided(L, S, stride, causal))


def test_window_as_wide_as_the_sequence_is_the_causal_mask():
    np.testing.assert_array_equal(sliding_window_mask(6, 5), causal_mask(6))
    np.testing.assert_array_equal(sliding_window_mask(6, 5, causal=False), np.ones((6, 6), bool))


def test_stride_one_is_the_causal_mask():
    np.testing.assert_array_equal(strided_mask(6, 1), causal_mask(6))


def test_every_query_keeps_itself():
    for mask in (sliding_window_mask(9, 0), strided_mask(9, 4),
                 sliding_window_mask(9, 2, causal=False), strided_mask(9, 3, causal=False)):
        assert mask.diagonal().all()


def test_window_counts_grow_like_n_times_window():
    n, w = 1000, 10
    count = int(sliding_window_mask(n, w).sum())
    assert count == n * (w + 1) - w * (w + 1) // 2  # the first w rows are shorter
    assert int(sliding_window_mask(n, w, causal=False).sum()) == n * (2 * w + 1) - w * (w + 1)


def test_strided_count_is_about_n_times_stride_plus_n_over_stride():
    n, stride = 1024, 32
    count = int(strided_mask(n, stride).sum())
    # Causal: the band gives about n * stride, the far keys about n * (n / stride) / 2.
    approx = n * stride + n * (n / stride) / 2
    np.testing.assert_allclose(count, approx, rtol=0.05)
    assert count < n * (n + 1) // 2


def test_key_just_outside_the_window_gets_weight_exactly_zero():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((16, 4))
    w = 3
    _, weights = scaled_dot_product_attention(x, x, x, mask=sliding_window_mask(16, w),
                                              return_weights=True)
    i = 10
    assert weights[i, i - w - 1] == 0.0
    assert (weights[i, i - w: i + 1] > 0).all()
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, rtol=1e-12)


def test_masks_work_in_the_blockwise_function_too():
    rng = np.random.default_rng(4)
    q, k, v = rng.standard_normal((3, 40, 8))
    for mask in (sliding_window_mask(40, 5), strided_mask(40, 6)):
        np.testing.assert_allclose(blockwise_attention(q, k, v, mask=mask, block_size=7),
                                   scaled_dot_product_attention(q, k, v, mask=mask),
                                   rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("bad", [1.5, "3", None, True])
def test_non_integer_window_or_stride_raises_type_error(bad):
    with pytest.raises(TypeError, match="window"):
        sliding_window_mask(5, bad)
    with pytest.raises(TypeError, match="stride"):
        strided_mask(5, bad)


def test_negative_window_and_zero_stride_raise_value_error():
    with pytest.raises(ValueError, match="window must be an integer >= 0, got -1"):
        sliding_window_mask(5, -1)
    with pytest.raises(ValueError, match="stride must be a positive integer, got 0"):
        strided_mask(5, 0)


@pytest.mark.parametrize("fn,arg", [(sliding_window_mask, 2), (strided_mask, 2)])
def test_bad_sizes_and_flags_raise(fn, arg):
    with pytest.raises(ValueError, match="L must be a positive integer"):
        fn(0, arg)
    with pytest.raises(ValueError, match="S must be a positive integer"):
        fn(3, arg, -2)
    with pytest.raises(TypeError, match="L must be a positive integer"):
        fn(3.0, arg)
    with pytest.raises(TypeError, match="causal must be True or False"):
        fn(3, arg, causal="yes")
