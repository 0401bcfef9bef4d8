"""Spread of dot products, softmax with a temperature, and saturation (selfattention.scaling)."""

import numpy as np
import pytest

import selfattention as sa
from selfattention.scaling import dot_product_std, saturation, softmax_jacobian, softmax_with_temperature

N = 10_000


def std_tolerance(d_k: int, n: int) -> float:
    """Five standard errors of a sample std of q · k, relative to its true value sqrt(d_k).

    q · k is a sum of d_k products of independent standard normals. A product
    has variance 1 and fourth moment 3 * 3 = 9, so the sum has kurtosis
    3 + 6 / d_k. The sample variance of n draws then has relative standard
    error sqrt((kurtosis - 1) / n), and the sample std half of that. Five of
    them: a correct measurement fails about once in two million runs.
    """
    kurtosis = 3 + 6 / d_k
    return 5 * 0.5 * np.sqrt((kurtosis - 1) / n)


@pytest.mark.parametrize("d_k", [1, 2, 64, 512])
def test_measured_std_is_sqrt_d_k_within_sampling_error(d_k):
    np.testing.assert_allclose(dot_product_std(d_k, N, rng=1), np.sqrt(d_k), rtol=std_tolerance(d_k, N))


@pytest.mark.parametrize("d_k", [2, 64, 512])
def test_dividing_by_sqrt_d_k_brings_the_std_back_to_1(d_k):
    np.testing.assert_allclose(dot_product_std(d_k, N, scaled=True, rng=2), 1.0, rtol=std_tolerance(d_k, N))


def test_the_tolerance_is_tight_enough_to_catch_a_division_by_d_k():
    # Dividing by d_k instead of sqrt(d_k) gives std 1 / sqrt(d_k): over 5 times the tolerance, even at d_k = 2.
    assert abs(1 / np.sqrt(2) - 1) > 5 * std_tolerance(2, N)


def test_same_seed_same_measurement_and_a_generator_is_used_as_given():
    assert dot_product_std(8, 500, rng=3) == dot_product_std(8, 500, rng=3)
    assert dot_product_std(8, 500, rng=3) != dot_product_std(8, 500, rng=4)
    g1, g2 = np.random.default_rng(5), np.random.default_rng(5)
    assert dot_product_std(8, 500, rng=g1) == dot_product_std(8, 500, rng=g2)
    assert dot_product_std(8, 500, rng=g1) != dot_product_std(8, 500, rng=np.random.default_rng(5))  # g1 moved on


def test_drawing_in_many_small_chunks_measures_the_same_spread(monkeypatch):
    monkeypatch.setattr(sa.scaling, "_CHUNK", 1000)  # 7 pairs of 64 numbers per chunk
    first = dot_product_std(64, N, rng=9)
    assert first == dot_product_std(64, N, rng=9)
    np.testing.assert_allclose(first, 8.0, rtol=std_tolerance(64, N))
    rows = sa.scaling._random_rows(64, 30, 10, np.random.default_rng(0))
    assert rows.shape == (30, 10)


def test_temperature_1_is_plain_softmax():
    s = np.random.default_rng(0).normal(0, 3, (4, 7))
    np.testing.assert_allclose(softmax_with_temperature(s, 1.0), sa.softmax(s), rtol=1e-15)


def test_temperature_sqrt_d_k_is_the_scaled_attention_of_the_three_words():
    x = sa.three_words()
    raw = x @ x.T                                         # (3, 3) unscaled scores
    _, w = sa.scaled_dot_product_attention(x, x, x, return_weights=True)
    np.testing.assert_allclose(softmax_with_temperature(raw, np.sqrt(2)), w, rtol=1e-14)
    np.testing.assert_allclose(softmax_with_temperature(raw[0], 1.0)[0], 0.867, atol=5e-4)  # cat, unscaled


def test_a_small_temperature_approaches_one_hot_and_a_large_one_equal_shares():
    row = np.array([4.0, 2.0, 0.0, 3.5])
    for t, gap in ((0.5, 0.3), (0.1, 0.01), (0.01, 1e-20)):
        w = softmax_with_temperature(row, t)
        assert np.abs(w - [1, 0, 0, 0]).max() < gap
    np.testing.assert_allclose(softmax_with_temperature(row, 1e6), 0.25, atol=1e-6)


def test_weights_get_sharper_as_the_temperature_falls():
    row = np.array([4.0, 2.0, 0.0])
    largest = [softmax_with_temperature(row, t).max() for t in (8.0, 4.0, 2.0, 1.0, 0.5, 0.25)]
    assert np.all(np.diff(largest) > 0)


def test_blocked_scores_stay_at_zero_at_any_temperature():
    w = softmax_with_temperature([1.0, -np.inf, 0.0], 0.3)
    assert w[1] == 0.0 and np.isclose(w.sum(), 1.0)


def test_jacobian_matches_finite_differences():
    s = np.array([0.3, -1.2, 2.0, 0.5])
    jac = softmax_jacobian(s)
    h = 1e-6
    numeric = np.column_stack([(sa.softmax(s + h * e) - sa.softmax(s - h * e)) / (2 * h) for e in np.eye(4)])
    np.testing.assert_allclose(jac, numeric, atol=1e-9)


def test_jacobian_rows_sum_to_zero_and_it_is_symmetric():
    s = np.random.default_rng(1).normal(0, 2, (3, 5))
    jac = softmax_jacobian(s)                            # (3, 5, 5)
    assert jac.shape == (3, 5, 5)
    np.testing.assert_allclose(jac.sum(axis=-1), 0.0, atol=1e-15)
    np.testing.assert_allclose(jac, np.swapaxes(jac, -1, -2), atol=0)


def test_jacobian_of_equal_scores_has_the_known_size_and_of_a_dominant_score_vanishes():
    n = 5
    # diag(1/n) - 1/n²: its squared entries add up to (n - 1) / n².
    np.testing.assert_allclose(np.sqrt((softmax_jacobian(np.zeros(n)) ** 2).sum()), np.sqrt(n - 1) / n)
    assert np.abs(softmax_jacobian([50.0, 0.0, 0.0])).max() < 1e-20


def test_without_scaling_softmax_saturates_as_d_k_grows():
    d_ks = [1, 4, 16, 64, 256]
    raw = saturation(d_ks, n_rows=400, rng=0)
    assert np.all(np.diff(raw["largest_weight"]) > 0) and raw["largest_weight"][-1] > 0.9
    assert raw["gradient_size"][-1] < raw["gradient_size"][0] / 3


def test_with_scaling_the_largest_weight_and_gradient_stay_put():
    d_ks = [1, 4, 16, 64, 256]
    scaled = saturation(d_ks, n_rows=400, scaled=True, rng=0)
    assert np.ptp(scaled["largest_weight"]) < 0.1 and np.ptp(scaled["gradient_size"]) < 0.05
    np.testing.assert_array_equal(scaled["d_k"], d_ks)


def test_without_scaling_the_query_gradient_grows_while_the_score_gradient_fades():
    # The chain rule brings in d s / d q = K (no division) or K / sqrt(d_k): the query's gradient
    # J K is not small just because J is.
    d_ks = [1, 16, 256]
    raw = saturation(d_ks, n_rows=400, rng=0)
    scaled = saturation(d_ks, n_rows=400, scaled=True, rng=0)
    assert raw["gradient_size"][-1] < scaled["gradient_size"][-1] / 3
    assert raw["query_gradient_size"][-1] > 3 * scaled["query_gradient_size"][-1]
    assert np.all(np.diff(raw["query_gradient_size"]) > 0)


def test_the_rows_give_the_means_and_the_same_seed_draws_the_same_rows():
    raw = saturation([4, 64], n_rows=300, rng=5)
    scaled = saturation([4, 64], n_rows=300, scaled=True, rng=5)
    for out in (raw, scaled):
        assert out["query_gradient_rows"].shape == out["largest_weight_rows"].shape == (2, 300)
        np.testing.assert_allclose(out["query_gradient_rows"].mean(axis=1), out["query_gradient_size"], rtol=1e-12)
        np.testing.assert_allclose(out["largest_weight_rows"].mean(axis=1), out["largest_weight"], rtol=1e-12)
    # The same rows with and without the division: the order of each row's weights is the same.
    assert (raw["largest_weight_rows"] >= scaled["largest_weight_rows"]).all()


def test_without_scaling_the_median_query_gradient_is_far_smaller_though_the_mean_is_larger():
    # The mean of J K is carried by the few rows whose two largest scores nearly tie; in the typical
    # row J shrinks faster than K grows.
    raw = saturation([512], n_rows=1000, rng=1)
    scaled = saturation([512], n_rows=1000, scaled=True, rng=1)
    r, s = raw["query_gradient_rows"][0], scaled["query_gradient_rows"][0]
    assert r.mean() > 3 * s.mean()
    assert np.median(r) < np.median(s) / 50 and (r < s).mean() > 0.6
    not_sharp = raw["largest_weight_rows"][0] < 0.9
    assert not_sharp.mean() < 0.25 and r[not_sharp].sum() > 0.75 * r.sum()


def test_query_gradient_is_the_jacobian_times_the_keys_over_the_scale():
    gen = np.random.default_rng(3)
    q, k = gen.standard_normal(8), gen.standard_normal((10, 8))
    out = saturation([8], n_keys=10, n_rows=1, scaled=True, rng=np.random.default_rng(3))
    jq = softmax_jacobian(k @ q / np.sqrt(8)) @ k / np.sqrt(8)                 # (10, 8)
    np.testing.assert_allclose(out["query_gradient_size"][0], np.linalg.norm(jq), rtol=1e-12)
    # Finite differences: d w / d q, column by column.
    eps, w = 1e-6, lambda x: sa.softmax(k @ x / np.sqrt(8))
    fd = np.stack([(w(q + eps * e) - w(q - eps * e)) / (2 * eps) for e in np.eye(8)], axis=1)
    np.testing.assert_allclose(fd, jq, atol=1e-8)


def test_without_scaling_almost_every_losing_key_is_faint():
    raw = saturation([1, 256], n_rows=400, rng=0)
    scaled = saturation([1, 256], n_rows=400, scaled=True, rng=0)
    assert raw["faint_share"][0] == scaled["faint_share"][0]
    assert raw["faint_share"][-1] > 0.9 and scaled["faint_share"][-1] < 0.1


def test_d_k_1_is_the_same_with_and_without_scaling():
    raw, scaled = saturation([1], n_rows=50, rng=4), saturation([1], n_rows=50, scaled=True, rng=4)
    assert raw["largest_weight"][0] == scaled["largest_weight"][0]


@pytest.mark.parametrize("call, error, message", [
    (lambda: dot_product_std(0), ValueError, "d_k must be a positive integer"),
    (lambda: dot_product_std(2.5), TypeError, "d_k must be a positive integer"),
    (lambda: dot_product_std(4, 1), ValueError, "n_samples must be at least 2"),
    (lambda: dot_product_std(4, scaled=1), TypeError, "scaled must be True or False"),
    (lambda: dot_product_std(4, rng="seed"), TypeError, "rng must be a numpy.random.Generator"),
    (lambda: dot_product_std(4, rng=-1), ValueError, "rng: a seed must be >= 0"),
    (lambda: softmax_with_temperature([1.0, 2.0], 0.0), ValueError, "temperature must be finite and > 0"),
    (lambda: softmax_with_temperature([1.0, 2.0], -1.0), ValueError, "temperature must be finite and > 0"),
    (lambda: softmax_with_temperature([1.0, 2.0], np.inf), ValueError, "temperature must be finite and > 0"),
    (lambda: softmax_with_temperature([1.0, 2.0], "hot"), TypeError, "temperature must be a real number"),
    (lambda: softmax_with_temperature(["a", "b"]), TypeError, "scores must be numeric"),
    (lambda: softmax_with_temperature([1j, 0.0]), TypeError, "scores must be real"),
    (lambda: softmax_with_temperature(3.0), ValueError, "scores must have at least 1 dimension"),
    (lambda: softmax_jacobian([0.0, np.nan]), ValueError, r"scores contains NaN or \+inf"),
    (lambda: saturation([]), ValueError, "d_ks must hold at least one size"),
    (lambda: saturation([4, 0]), ValueError, "d_ks must be a positive integer"),
    (lambda: saturation([4], n_keys=1), ValueError, "n_keys must be at least 2"),
    (lambda: saturation([4.5]), TypeError, "d_ks must be a positive integer"),
    (lambda: saturation([4], faint=1.0), ValueError, r"faint must be in \(0, 1\)"),
    (lambda: saturation([4], faint="low"), TypeError, "faint must be a real number"),
])
def test_bad_input_gets_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()
