"""The cost helpers: exact counts and bytes, and sane measurements."""

import math
import tracemalloc

import numpy as np
import pytest

from selfattention import cost, scaled_dot_product_attention
from selfattention.fast import blockwise_attention


def test_score_count_is_n_squared_or_n_times_m():
    assert cost.score_count(1) == 1
    assert cost.score_count(1000) == 1_000_000
    assert cost.score_count(128_000) == 128_000**2  # exact, no float rounding
    assert cost.score_count(3, 5) == 15


def test_doubling_the_length_quadruples_the_scores():
    assert cost.score_count(2048) == 4 * cost.score_count(1024)


@pytest.mark.parametrize("dtype, size", [("float32", 4), ("fp32", 4), ("bf16", 2), ("bfloat16", 2),
                                         ("float16", 2), ("float64", 8), (np.float32, 4),
                                         (np.dtype("float64"), 8), ("BF16", 2)])
def test_dtype_bytes_knows_float32_bf16_and_numpy_dtypes(dtype, size):
    assert cost.dtype_bytes(dtype) == size


def test_score_bytes_per_head_and_for_a_whole_model():
    assert cost.score_bytes(4096) == 4096 * 4096 * 4  # float32 by default: 64 MiB
    assert cost.score_bytes(4096, "bf16") == 4096 * 4096 * 2
    assert cost.score_bytes(4096, "bf16", heads=32, layers=32) == 4096 * 4096 * 2 * 32 * 32
    assert cost.score_bytes(10, m=20) == 10 * 20 * 4
    assert cost.score_bytes(128_000, "float32") == 2 * cost.score_bytes(128_000, "bf16")


def test_attention_flops_is_four_n_squared_d():
    assert cost.attention_flops(1024, 64) == 4 * 1024**2 * 64
    assert cost.attention_flops(10, 8, m=20, d_v=4) == 2 * 10 * 20 * 8 + 2 * 10 * 20 * 4


@pytest.mark.parametrize("n_bytes, text", [(0, "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"),
                                           (64 * 2**20, "64.0 MiB"), (1.5 * 2**30, "1.5 GiB"),
                                           (128_000**2 * 4, "61.0 GiB"), (2**40, "1.0 TiB"),
                                           (2**60, "1024.0 PiB")])
def test_format_bytes_uses_binary_units(n_bytes, text):
    assert cost.format_bytes(n_bytes) == text


@pytest.mark.parametrize("call, error, message", [
    (lambda: cost.score_count(0), ValueError, "n must be a positive integer"),
    (lambda: cost.score_count(2.5), TypeError, "n must be a positive integer"),
    (lambda: cost.score_count(True), TypeError, "n must be a positive integer"),
    (lambda: cost.score_count(4, -1), ValueError, "m must be a positive integer"),
    (lambda: cost.score_bytes(4, "float31"), TypeError, "dtype must be a NumPy dtype or one of"),
    (lambda: cost.score_bytes(4, heads=0), ValueError, "heads must be a positive integer"),
    (lambda: cost.score_bytes(4, layers="2"), TypeError, "layers must be a positive integer"),
    (lambda: cost.attention_flops(4, 0), ValueError, "d must be a positive integer"),
    (lambda: cost.format_bytes(-1), ValueError, "n_bytes must be a finite number >= 0"),
    (lambda: cost.format_bytes(math.inf), ValueError, "n_bytes must be a finite number >= 0"),
    (lambda: cost.format_bytes("1 GB"), TypeError, "n_bytes must be a real number"),
])
def test_bad_arguments_raise_errors_naming_them(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_loglog_slope_recovers_the_exponent():
    n = [256, 512, 1024, 2048]
    assert cost.loglog_slope(n, [x**2 for x in n]) == pytest.approx(2.0, abs=1e-12)
    assert cost.loglog_slope(n, [3 * x for x in n]) == pytest.approx(1.0, abs=1e-12)
    assert cost.loglog_slope(n, [7.0] * 4) == pytest.approx(0.0, abs=1e-12)
    noisy = [x**2 * f for x, f in zip(n, [1.1, 0.9, 1.05, 0.97])]
    assert cost.loglog_slope(n, noisy) == pytest.approx(2.0, abs=0.1)


@pytest.mark.parametrize("sizes, values, message", [
    ([1, 2], [1.0], "same length"),
    ([4, 4], [1.0, 2.0], "two different sizes"),
    ([0, 2], [1.0, 2.0], "sizes must all be positive"),
    ([1, 2], [1.0, -2.0], "values must all be positive"),
    ([1, 2], [1.0, math.nan], "values must all be positive"),
])
def test_loglog_slope_rejects_what_has_no_log(sizes, values, message):
    with pytest.raises(ValueError, match=message):
        cost.loglog_slope(sizes, values)


def test_peak_memory_sees_numpy_arrays_and_leaves_tracing_as_it_was():
    assert not tracemalloc.is_tracing()
    assert cost.peak_memory(np.ones, (1000, 1000)) >= 8_000_000  # 8 MB of float64
    assert not tracemalloc.is_tracing()
    tracemalloc.start()
    try:
        assert cost.peak_memory(np.zeros, 500_000) >= 4_000_000
        assert tracemalloc.is_tracing()  # still on for whoever started it
    finally:
        tracemalloc.stop()


def test_peak_memory_counts_temporaries_that_are_freed_again():
    def temporary():
        big = np.ones(1_000_000)  # 8 MB, gone before returning
        return float(big.sum())

    assert cost.peak_memory(temporary) >= 8_000_000


def test_best_time_is_the_shortest_of_the_repeats(monkeypatch):
    clock = [0.0]  # a fake clock: each call takes the next of these many seconds
    durations = iter([5.0, 2.0, 3.0, 4.0])
    calls = []

    def fn(x):
        calls.append(x)
        clock[0] += next(durations)

    monkeypatch.setattr(cost.time, "perf_counter", lambda: clock[0])
    assert cost.best_time(fn, 1, repeat=4) == 2.0
    assert calls == [1, 1, 1, 1]
    with pytest.raises(ValueError, match="repeat must be a positive integer"):
        cost.best_time(print, repeat=0)
    with pytest.raises(TypeError, match="fn must be callable"):
        cost.best_time(42)


def test_measure_gives_one_row_per_size_in_order():
    rows = cost.measure(lambda q, k, v: q @ k.T, [32, 64, 128], repeat=2)
    assert [r.n for r in rows] == [32, 64, 128]
    assert all(isinstance(r, cost.Measurement) for r in rows)
    assert all(r.seconds > 0 and r.peak_bytes > 0 for r in rows)
    assert rows[-1].peak_bytes >= 128 * 128 * 4  # the float32 score matrix


def test_measure_calls_setup_outside_the_measurement():
    def setup(n):
        return np.ones(n * 1000)  # one argument, not a tuple: allowed

    rows = cost.measure(np.sum, [100, 200], setup=setup, repeat=1)
    assert [r.n for r in rows] == [100, 200]
    assert all(r.peak_bytes < 100_000 for r in rows)  # the input itself is not counted


def test_measured_memory_of_plain_attention_grows_like_n_squared_and_blockwise_like_n():
    sizes = [256, 512, 1024, 2048]  # as in the chapter "The cost of full context"
    plain = cost.measure(scaled_dot_product_attention, sizes, repeat=1)
    blocks = cost.measure(lambda q, k, v: blockwise_attention(q, k, v, block_size=256, num_threads=1),
                          sizes, repeat=1)
    slope_plain = cost.loglog_slope(sizes, [r.peak_bytes for r in plain])
    slope_blocks = cost.loglog_slope(sizes, [r.peak_bytes for r in blocks])
    assert 1.8 <= slope_plain <= 2.2, slope_plain
    assert slope_blocks < 1.3, slope_blocks
    assert plain[-1].peak_bytes >= cost.score_bytes(2048)
    assert blocks[-1].peak_bytes * 10 < plain[-1].peak_bytes


def test_attention_inputs_are_seeded_float32_by_default():
    q, k, v = cost.attention_inputs(10, 8)
    assert q.shape == k.shape == v.shape == (10, 8)
    assert q.dtype == np.float32
    np.testing.assert_array_equal(q, cost.attention_inputs(10, 8)[0])
    assert cost.attention_inputs(4, dtype=np.float64)[0].dtype == np.float64


@pytest.mark.parametrize("kwargs, error, message", [
    ({"sizes": []}, ValueError, "sizes must hold at least one size"),
    ({"sizes": [0]}, ValueError, "each of sizes must be a positive integer"),
    ({"sizes": [8], "setup": 3}, TypeError, "setup must be callable"),
    ({"sizes": [8], "repeat": 0}, ValueError, "repeat must be a positive integer"),
])
def test_measure_rejects_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        cost.measure(scaled_dot_product_attention, **kwargs)
    with pytest.raises(TypeError, match="fn must be callable"):
        cost.measure("attention", [8])
