"""The causal mask aligned to the bottom-right corner, against the package's top-left default."""

import numpy as np
import pytest

from selfattention import causal_mask, causal_mask_bottom_right, scaled_dot_product_attention

RNG = np.random.default_rng(3)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_square_masks_agree(n):
    np.testing.assert_array_equal(causal_mask_bottom_right(n), causal_mask(n))
    np.testing.assert_array_equal(causal_mask_bottom_right(n, n), causal_mask(n, n))


@pytest.mark.parametrize("L, S", [(3, 5), (1, 4), (2, 7), (5, 2), (4, 4)])
def test_query_i_sees_keys_up_to_i_plus_s_minus_l(L, S):
    m = causal_mask_bottom_right(L, S)
    assert m.shape == (L, S) and m.dtype == bool
    i, j = np.indices((L, S))
    np.testing.assert_array_equal(m, j <= i + S - L)
    assert m[-1].all()  # the newest query sees every key


def test_it_is_the_bottom_rows_of_the_full_square_mask():
    np.testing.assert_array_equal(causal_mask_bottom_right(3, 5), causal_mask(5)[-3:])


def test_more_queries_than_keys_leaves_the_first_rows_empty():
    m = causal_mask_bottom_right(5, 2)
    np.testing.assert_array_equal(m.astype(int), [[0, 0], [0, 0], [0, 0], [1, 0], [1, 1]])
    q, k, v = RNG.standard_normal((5, 2)), RNG.standard_normal((2, 2)), RNG.standard_normal((2, 3))
    out, w = scaled_dot_product_attention(q, k, v, mask=m, return_weights=True)
    assert (w[:3] == 0).all() and (out[:3] == 0).all()


def test_new_queries_against_cached_keys_repeat_the_rows_of_the_full_computation():
    S, L = 5, 3
    q, k, v = RNG.standard_normal((S, 4)), RNG.standard_normal((S, 4)), RNG.standard_normal((S, 2))
    full = scaled_dot_product_attention(q, k, v, causal=True)  # (S, 2): every position at once
    right = scaled_dot_product_attention(q[-L:], k, v, mask=causal_mask_bottom_right(L, S))
    left = scaled_dot_product_attention(q[-L:], k, v, causal=True)  # the top-left default
    np.testing.assert_allclose(right, full[-L:], rtol=1e-12)
    assert not np.allclose(left, full[-L:])


@pytest.mark.parametrize("bad, error", [((0, 3), ValueError), ((2.5, 3), TypeError), ((3, -1), ValueError),
                                        ((True, 2), TypeError)])
def test_bad_sizes_are_refused(bad, error):
    with pytest.raises(error, match="must be a positive integer"):
        causal_mask_bottom_right(*bad)
