"""padding_mask blocks the padded keys of each sentence, and only those."""

from __future__ import annotations

import numpy as np
import pytest

import selfattention as sa


def test_right_padding_blocks_the_keys_after_each_sentence():
    m = sa.padding_mask([3, 1, 0], S=4)
    assert m.shape == (3, 1, 4) and m.dtype == np.bool_
    np.testing.assert_array_equal(m[:, 0].astype(int), [[1, 1, 1, 0], [1, 0, 0, 0], [0, 0, 0, 0]])


def test_left_padding_blocks_the_keys_before_each_sentence():
    m = sa.padding_mask([3, 1], S=4, side="left")
    np.testing.assert_array_equal(m[:, 0].astype(int), [[0, 1, 1, 1], [0, 0, 0, 1]])


def test_padded_length_defaults_to_the_longest_sentence():
    assert sa.padding_mask([2, 5, 3]).shape == (3, 1, 5)
    assert sa.padding_mask(np.array([1], dtype=np.int8)).shape == (1, 1, 1)


def test_padding_mask_gives_padded_keys_weight_exactly_zero():
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(3, 3, 5, 4))   # three of (batch 3, S 5, d 4)
    lengths = [5, 3, 1]
    mask = sa.padding_mask(lengths)
    out, w = sa.scaled_dot_product_attention(q, k, v, mask=mask, return_weights=True)
    for b, n in enumerate(lengths):
        assert (w[b, :, n:] == 0).all()
        np.testing.assert_allclose(w[b].sum(axis=-1), 1.0, rtol=1e-12)
        # The same as attending to the sentence alone, without its padding.
        alone = sa.scaled_dot_product_attention(q[b], k[b, :n], v[b, :n])
        np.testing.assert_allclose(out[b], alone, rtol=1e-12, atol=1e-14)


def test_left_padding_with_causal_mask_gives_zero_rows_for_the_padding_queries():
    q = k = v = np.ones((1, 4, 2))
    out, w = sa.scaled_dot_product_attention(q, k, v, mask=sa.padding_mask([2], S=4, side="left"),
                                             causal=True, return_weights=True)
    assert (w[0, :2] == 0).all() and (out[0, :2] == 0).all()
    np.testing.assert_allclose(w[0, 2:].sum(axis=-1), 1.0)
    assert np.isfinite(out).all()


@pytest.mark.parametrize("lengths, kwargs, error, text", [
    ([2.0, 3.0], {}, TypeError, "integers"),
    ([True, False], {}, TypeError, "integers"),
    ([[2, 3]], {}, ValueError, "1-D"),
    ([], {}, ValueError, "non-empty"),
    ([2, -1], {}, ValueError, "negative"),
    ([2, 5], {"S": 4}, ValueError, "longer than the padded length S=4"),
    ([2], {"S": 0}, ValueError, "positive integer"),
    ([2], {"S": 2.0}, TypeError, "positive integer"),
    ([2], {"side": "middle"}, ValueError, "'right' or 'left'"),
    ([2], {"side": 1}, TypeError, "'right' or 'left'"),
])
def test_bad_input_gets_a_clear_error(lengths, kwargs, error, text):
    with pytest.raises(error, match=text):
        sa.padding_mask(lengths, **kwargs)
