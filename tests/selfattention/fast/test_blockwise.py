"""blockwise_attention gives plain attention's numbers, block by block."""

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import selfattention.fast.blockwise as bw
from selfattention.attention import scaled_dot_product_attention as plain
from selfattention.fast import blockwise_attention, threads

from ..float64_reference import attend_f64

# Tolerances against the reference: rounding differs (the scale is folded
# into q, sums are taken in another order), nothing else. Values of v are
# about 1 in size, so these are relative errors too. float64 keeps 16
# digits (eps 2.2e-16); the measured worst error on these tests is about
# 2e-15, so 2e-14 leaves a factor 10 and still fails a float64 computation
# that sums in float32 (errors of 1e-7). float32 keeps 7 digits (eps 1.2e-7).
TOL = {np.float64: 2e-14, np.float32: 2e-6}


def assert_same(got, want, dtype):
    assert got.shape == want.shape
    assert got.dtype == want.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL[dtype])


@pytest.fixture(params=[True, False], ids=["blas-limited", "blas-small-products"])
def limit_blas(request):
    """Both ways of keeping BLAS on one thread per task."""
    return request.param


def random_case(seed):
    """A random problem: sizes not multiples of the blocks, L != S, batch dims, a mask."""
    rng = np.random.default_rng(seed)
    L, S = (int(x) for x in rng.integers(1, 120, size=2))
    d, d_v = (int(x) for x in rng.integers(1, 20, size=2))
    batch = [(), (2,), (2, 3)][seed % 3]
    dtype = [np.float64, np.float32][seed % 2]
    q = rng.standard_normal(batch + (L, d)).astype(dtype)
    k = rng.standard_normal(batch[-1:] + (S, d)).astype(dtype)  # broadcasts over the batch
    v = rng.standard_normal(batch + (S, d_v)).astype(dtype)
    mask = [
        None,
        rng.random((L, S)) > 0.4,  # boolean, may block whole rows
        np.where(rng.random((S,)) > 0.3, rng.standard_normal(S), -np.inf),  # float, per key
        rng.random(batch + (1, S)) > 0.5,  # per batch entry
    ][seed % 4]
    kwargs = dict(
        mask=mask,
        causal=bool(rng.integers(2)),
        block_size=int(rng.integers(1, 50)),
        query_block_size=int(rng.integers(1, 50)),
        num_threads=int(rng.integers(1, 4)),
    )
    return q, k, v, kwargs, dtype


@pytest.mark.parametrize("seed", range(24))
def test_equals_plain_attention_on_random_shapes_masks_and_blocks(seed, limit_blas):
    q, k, v, kwargs, dtype = random_case(seed)
    want = plain(q, k, v, mask=kwargs["mask"], causal=kwargs["causal"])
    assert_same(blockwise_attention(q, k, v, limit_blas=limit_blas, **kwargs), want, dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("causal", [False, True])
def test_equals_plain_attention_when_n_is_not_a_multiple_of_the_block(dtype, causal):
    rng = np.random.default_rng(5)
    q, k, v = rng.standard_normal((3, 2, 4, 203, 16)).astype(dtype)  # batch 2, 4 heads, 203 words
    got = blockwise_attention(q, k, v, causal=causal, block_size=64, query_block_size=50, num_threads=2)
    assert_same(got, plain(q, k, v, causal=causal), dtype)


@pytest.mark.parametrize("L, S", [(1, 1), (255, 1023), (256, 1024), (257, 1025), (600, 2100)])
@pytest.mark.parametrize("causal", [False, True])
def test_float64_equals_an_independent_reference_across_the_default_blocks(L, S, causal):
    # The default blocks are 256 queries and 1024 keys: these sizes end just
    # before, on and just after a block, and cross several.
    rng = np.random.default_rng(L + S)
    q, k, v = rng.standard_normal((L, 16)), rng.standard_normal((S, 16)), rng.standard_normal((S, 4))
    got = blockwise_attention(q, k, v, causal=causal, num_threads=2)
    want, _ = attend_f64(q, k, v, allowed=np.tri(L, S, dtype=bool) if causal else None)
    assert_same(got, want, np.float64)


@pytest.mark.parametrize("L, S", [(7, 40), (40, 7), (1, 1), (33, 33)])
def test_causal_is_top_left_aligned_when_lengths_differ(L, S):
    rng = np.random.default_rng(L * 100 + S)
    q, k, v = rng.standard_normal((L, 8)), rng.standard_normal((S, 8)), rng.standard_normal((S, 3))
    got = blockwise_attention(q, k, v, causal=True, block_size=4, query_block_size=5)
    assert_same(got, plain(q, k, v, causal=True), np.float64)
    # query 0 sees key 0 only, so it copies v[0]
    np.testing.assert_allclose(got[0], v[0], rtol=1e-12)


def test_float32_in_gives_float32_out_and_float64_stays_float64():
    x32 = np.random.default_rng(1).standard_normal((50, 8)).astype(np.float32)
    assert blockwise_attention(x32, x32, x32, block_size=16).dtype == np.float32
    assert blockwise_attention(x32.astype(np.float64), x32, x32).dtype == np.float64
    assert blockwise_attention([[1, 2]], [[3, 4]], [[5, 6]]).dtype == np.float64


def test_mask_with_more_leading_dims_broadcasts_the_output_like_plain():
    rng = np.random.default_rng(2)
    q, k, v = rng.standard_normal((3, 30, 6))
    mask = rng.random((4, 30, 30)) > 0.3  # 4 masks for one q, k, v
    got = blockwise_attention(q, k, v, mask=mask, block_size=8)
    assert got.shape == (4, 30, 6)
    assert_same(got, plain(q, k, v, mask=mask), np.float64)


def test_boolean_mask_and_causal_combine():
    rng = np.random.default_rng(3)
    q, k, v = rng.standard_normal((3, 45, 5))
    mask = rng.random((45, 45)) > 0.5
    got = blockwise_attention(q, k, v, mask=mask, causal=True, block_size=7, query_block_size=9)
    assert_same(got, plain(q, k, v, mask=mask, causal=True), np.float64)


def test_float_mask_is_added_per_block_and_huge_negatives_block():
    rng = np.random.default_rng(4)
    q, k, v = rng.standard_normal((3, 40, 6)).astype(np.float32)
    mask = rng.standard_normal((40, 40))
    mask[:, ::3] = -1e300  # -inf once cast to float32, like in the plain function
    got = blockwise_attention(q, k, v, mask=mask, block_size=16)
    assert_same(got, plain(q, k, v, mask=mask), np.float32)


@pytest.mark.parametrize(
    "mask",
    [np.zeros((6, 10), bool), np.full((6, 10), -np.inf)],
    ids=["boolean-all-false", "float-all-minus-inf"],
)
def test_fully_masked_rows_give_zero_not_nan(mask):
    rng = np.random.default_rng(6)
    q, k, v = rng.standard_normal((6, 4)), rng.standard_normal((10, 4)), rng.standard_normal((10, 3))
    mask = mask.copy()
    mask[::2] = True if mask.dtype == bool else 0.0  # rows 0, 2, 4 may attend
    got = blockwise_attention(q, k, v, mask=mask, block_size=3)
    np.testing.assert_array_equal(got[1::2], 0.0)
    assert np.isfinite(got).all()
    assert_same(got, plain(q, k, v, mask=mask), np.float64)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_scores_of_magnitude_1e4_stay_finite(dtype):
    rng = np.random.default_rng(7)
    q = (rng.standard_normal((60, 16)) * 50).astype(dtype)  # scores up to about 1e4
    k = (rng.standard_normal((70, 16)) * 50).astype(dtype)
    v = rng.standard_normal((70, 5)).astype(dtype)
    scores = q.astype(np.float64) @ k.T.astype(np.float64) / 4
    assert 5e3 < np.abs(scores).max() < 2e4
    got = blockwise_attention(q, k, v, block_size=8)
    assert np.isfinite(got).all()
    # Nearly one-hot weights: each output is close to one row of v.
    assert_same(got, plain(q, k, v), dtype)


@pytest.mark.parametrize("sign", [1, -1], ids=["to-plus-inf", "to-minus-inf"])
def test_scores_that_overflow_raise_the_same_value_error_as_plain(sign):
    q = np.full((4, 2), 1e20, np.float32)  # finite, but q @ k.T is not, in float32
    message = r"the scores q @ k.T \* scale overflow float32 \(largest \|q\| = 1e\+20"
    with pytest.raises(ValueError, match=message):
        plain(q, sign * q, q)
    with pytest.raises(ValueError, match=message):
        blockwise_attention(q, sign * q, q)


def test_a_float_mask_that_pushes_a_score_to_plus_inf_raises_like_plain():
    x = np.full((2, 1), 1e19, np.float32)  # scores 1e38: finite
    mask = np.full((2, 2), 3e38)
    with pytest.raises(ValueError, match=r"NaN or \+inf; shape \(2, 2\)"):
        plain(x, x, x, mask=mask, scale=1.0)
    with pytest.raises(ValueError, match=r"NaN or \+inf; shape \(2, 2\)"):
        blockwise_attention(x, x, x, mask=mask, scale=1.0)


def test_all_thread_counts_give_identical_results(limit_blas):
    rng = np.random.default_rng(8)
    q, k, v = rng.standard_normal((3, 300, 32)).astype(np.float32)
    kwargs = dict(causal=True, block_size=64, query_block_size=48, limit_blas=limit_blas)
    one = blockwise_attention(q, k, v, num_threads=1, **kwargs)
    for n in (2, 3):
        many = blockwise_attention(q, k, v, num_threads=n, **kwargs)
        np.testing.assert_allclose(many, one, rtol=0, atol=2e-7)  # float32: BLAS may sum in another order


def test_blas_thread_setting_is_restored_after_a_threaded_call():
    before = [lib["num_threads"] for lib in threads.blas_info()]
    if not before:
        pytest.skip("threadpoolctl sees no BLAS library of NumPy's")
    x = np.random.default_rng(9).standard_normal((64, 8))
    blockwise_attention(x, x, x, block_size=16, query_block_size=16, num_threads=2)
    assert [lib["num_threads"] for lib in threads.blas_info()] == before


def test_calls_from_several_threads_at_once_agree():
    rng = np.random.default_rng(10)
    q, k, v = rng.standard_normal((3, 200, 16))
    want = plain(q, k, v, causal=True)
    with ThreadPoolExecutor(3) as pool:
        outs = list(pool.map(lambda _: blockwise_attention(q, k, v, causal=True, block_size=32, num_threads=2),
                             range(6)))
    for got in outs:
        assert_same(got, want, np.float64)


def test_a_failing_task_raises_in_the_caller_and_the_pool_still_works():
    q = np.full((64, 2), 1e20, np.float32)
    with pytest.raises(ValueError, match=r"the scores q @ k\.T \* scale overflow float32"):
        blockwise_attention(q, q, q, block_size=8, query_block_size=8, num_threads=2)
    x = np.random.default_rng(11).standard_normal((64, 4))
    assert_same(blockwise_attention(x, x, x, block_size=8, num_threads=2), plain(x, x, x), np.float64)
    assert threading.active_count() < 20  # one shared pool, not a new one per call


@pytest.mark.parametrize("L, S, block", [(100, 100, 16), (10, 100, 16), (100, 10, 4), (64, 64, 64)])
def test_causal_reads_no_key_block_that_lies_after_the_query_block(L, S, block):
    for r0 in range(0, L, 7):
        r1 = min(r0 + 7, L)
        blocks = bw._key_blocks(r0, r1, S, block, causal=True)
        assert all(c0 < r1 for c0, _ in blocks)  # every block holds a key some query may see
        assert blocks[-1][1] == min(r1, S)  # and all of them are read
        covered = [j for c0, c1 in blocks for j in range(c0, c1)]
        assert covered == list(range(min(r1, S)))
    assert bw._key_blocks(0, 10, 100, 16, causal=False)[-1] == (96, 100)


def test_memory_grows_like_n_times_block_not_n_squared():
    from selfattention.cost import peak_memory

    def peak(n):
        x = np.random.default_rng(12).standard_normal((n, 16)).astype(np.float32)
        return peak_memory(blockwise_attention, x, x, x, block_size=64, query_block_size=64, num_threads=1)

    # What one call holds, in float32 numbers: the output (n, 16), the values
    # with their column of ones (n, 17), and per query block a (64, 64) tile
    # of scores, the running sums (64, 17) twice, the scaled queries (64, 16).
    def expected(n):
        return 4 * (n * 16 + n * 17 + 64 * 64 + 2 * 64 * 17 + 64 * 16 + 4 * 64)

    for n in (256, 2048):  # measured: 18 KiB and 26 KiB more (the bounds, the task list, Python objects)
        assert expected(n) <= peak(n) < expected(n) + 32 * 1024
    assert peak(2048) < 2048 * 2048 * 4 / 40  # the n*n float32 scores would be 16 MiB


def test_empty_query_list_gives_an_empty_result():
    k = np.ones((5, 3))
    got = blockwise_attention(np.ones((0, 3)), k, np.ones((5, 2)))
    assert got.shape == (0, 2)


def test_running_example_matches_the_book():
    x = [[2, 0], [1, 1], [0, 2]]
    np.testing.assert_allclose(
        blockwise_attention(x, x, x, block_size=1), plain(x, x, x), rtol=1e-12, atol=1e-15
    )


@pytest.mark.parametrize(
    "args, kwargs, error, message",
    [
        (((3, 4), (5, 3), (5, 2)), {}, ValueError, r"k has d_k=3 but q has d_k=4"),
        (((3, 4), (5, 4), (6, 2)), {}, ValueError, r"v has S=6 rows but k has S=5"),
        (((4,), (5, 4), (5, 2)), {}, ValueError, r"q must have shape \(\.\.\., L, d_k\)"),
        (((3, 4), (0, 4), (0, 2)), {}, ValueError, r"S=0"),
        (((3, 4), (5, 4), (5, 2)), {"mask": np.ones((3, 4), bool)}, ValueError,
         r"mask of shape \(3, 4\) does not broadcast to \(\.\.\., L, S\) = \(3, 5\)"),
        (((3, 4), (5, 4), (5, 2)), {"mask": np.ones((3, 5), int)}, TypeError, r"mask must be boolean"),
        (((3, 4), (5, 4), (5, 2)), {"mask": np.full((3, 5), np.nan)}, ValueError, r"not NaN or \+inf"),
        (((3, 4), (5, 4), (5, 2)), {"block_size": 0}, ValueError, r"block_size must be a positive integer"),
        (((3, 4), (5, 4), (5, 2)), {"block_size": 2.5}, TypeError, r"block_size must be a positive integer"),
        (((3, 4), (5, 4), (5, 2)), {"query_block_size": -1}, ValueError, r"query_block_size"),
        (((3, 4), (5, 4), (5, 2)), {"num_threads": 0}, ValueError, r"num_threads must be a positive"),
        (((3, 4), (5, 4), (5, 2)), {"causal": "yes"}, TypeError, r"causal must be True or False"),
        (((3, 4), (5, 4), (5, 2)), {"scale": float("nan")}, ValueError, r"scale must be finite"),
        (((3, 4), (5, 4), (5, 2)), {"scale": "big"}, TypeError, r"scale must be a real number"),
    ],
)
def test_bad_inputs_raise_clear_errors_naming_the_argument(args, kwargs, error, message):
    q, k, v = (np.ones(shape) for shape in args)
    with pytest.raises(error, match=message):
        blockwise_attention(q, k, v, **kwargs)


def test_nan_in_an_input_is_rejected_with_its_name():
    x = np.ones((3, 2))
    bad = x.copy()
    bad[1, 1] = np.nan
    with pytest.raises(ValueError, match=r"v contains 1 NaN or inf value\(s\); shape \(3, 2\)"):
        blockwise_attention(x, x, bad)
    with pytest.raises(TypeError, match="q must be numeric"):
        blockwise_attention([["a", "b"]], x, x)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_fixed_shift_shortcut_and_the_running_max_agree(dtype):
    rng = np.random.default_rng(11)
    q, k, v = rng.standard_normal((3, 2, 150, 16)).astype(dtype)
    kwargs = dict(causal=True, block_size=32, query_block_size=40)
    shortcut = blockwise_attention(q, k, v, **kwargs)
    running = blockwise_attention(q, k, v, fixed_shift=False, **kwargs)  # running max everywhere
    assert_same(shortcut, running, dtype)
    want, _ = attend_f64(q, k, v, allowed=np.tri(150, dtype=bool))
    for got in (shortcut, running):
        np.testing.assert_allclose(got, want, rtol=0, atol=TOL[dtype])
