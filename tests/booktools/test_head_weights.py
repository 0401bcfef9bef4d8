"""One head's weights from its scores: the maths the explorer lab and the command line share."""

import numpy as np
import pytest

from booktools.head_weights import MEAN, check_stored_scores, head_weights
from booktools.labs.explorer import compact_scores
from selfattention import softmax

TOKENS = ["[CLS]", "the", "cat", "sat", "[SEP]"]


def random_scores(seed=0, layers=3, heads=4, L=len(TOKENS), scale=4.0):  # noqa: B008
    return np.random.default_rng(seed).normal(0.0, scale, size=(layers, heads, L, L)).astype(np.float32)


def test_head_weights_is_the_softmax_of_one_head():
    stored = compact_scores(random_scores())
    w = head_weights(stored, 2, 1)
    np.testing.assert_array_equal(w, softmax(stored[2, 1].astype(np.float64)))
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, atol=1e-12)


def test_temperature_divides_the_scores():
    stored = compact_scores(random_scores())
    for t in (0.25, 0.5, 2.0, 4.0):
        np.testing.assert_allclose(head_weights(stored, 0, 3, temperature=t),
                                   softmax(stored[0, 3].astype(np.float64) / t), rtol=1e-12)
    sharp, soft = head_weights(stored, 0, 0, temperature=0.25), head_weights(stored, 0, 0, temperature=4.0)
    assert (sharp.max(axis=-1) > soft.max(axis=-1)).all()  # a small T sharpens every row
    np.testing.assert_allclose(head_weights(stored, 0, 0, temperature=1e9), 1 / len(TOKENS), atol=1e-6)


def test_average_of_heads_is_the_mean_of_the_softmaxes_not_the_softmax_of_the_mean():
    stored = compact_scores(random_scores())
    for t in (1.0, 2.0):
        heads = [head_weights(stored, 1, h, temperature=t) for h in range(stored.shape[1])]
        np.testing.assert_allclose(head_weights(stored, 1, MEAN, temperature=t), np.mean(heads, axis=0),
                                   rtol=1e-12)
    assert not np.allclose(head_weights(stored, 1, MEAN),
                           softmax(stored[1].astype(np.float64).mean(axis=0)), atol=1e-3)


@pytest.mark.parametrize("layer, head, t, message", [
    (3, 0, 1.0, "layer must be 0..2"),
    (-1, 0, 1.0, "layer must be 0..2"),
    (True, 0, 1.0, "layer must be 0..2"),
    (0, 4, 1.0, "head must be 0..3 or 'mean'"),
    (0, "all", 1.0, "head must be 0..3 or 'mean'"),
    (0, 0, 0.0, "temperature must be a positive number"),
    (0, 0, float("inf"), "temperature must be a positive number"),
    (0, 0, True, "temperature must be a positive number"),
])
def test_head_weights_rejects_out_of_range_choices(layer, head, t, message):
    with pytest.raises(ValueError, match=message):
        head_weights(compact_scores(random_scores()), layer, head, temperature=t)


def test_float32_scores_give_float64_weights_equal_to_a_float64_softmax():
    s = random_scores()
    w = head_weights(s, 1, 2, temperature=2.0)
    assert w.dtype == np.float64
    np.testing.assert_allclose(w, softmax(s[1, 2].astype(np.float64) / 2.0), rtol=1e-13, atol=0)


@pytest.mark.parametrize("bad, message", [
    (np.zeros((2, 2)), r"must have shape \(layers, heads, L, L\)"),
    (np.zeros((1, 1, 2, 3)), r"must have shape"),
    (np.zeros((1, 0, 2, 2)), r"must have shape"),
    (np.full((1, 1, 2, 2), np.nan), "must be finite"),
    (np.array([[[["a", "b"], ["c", "d"]]]]), "must be real numbers"),
    (np.zeros((1, 1, 2, 2), complex), "must be real numbers"),
])
def test_bad_scores_get_a_clear_error(bad, message):
    with pytest.raises(ValueError, match=message):
        check_stored_scores(bad, "scores")
    with pytest.raises(ValueError, match=message):
        head_weights(bad, 0, 0)
