import numpy as np
import pytest

import selfattention.attention as attention
from selfattention import attention_scores, causal_mask, scaled_dot_product_attention, three_words

X = three_words()


def reference(q, k, v, allowed=None, scale=None):
    """Loop-free float64 reference with an explicit boolean mask."""
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ np.swapaxes(k, -1, -2) * scale
    if allowed is not None:
        s = np.where(allowed, s, -np.inf)
    m = np.max(s, axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    e = np.exp(s - m)
    tot = e.sum(-1, keepdims=True)
    w = np.divide(e, tot, out=np.zeros_like(e), where=tot > 0)
    return w @ v, w


def test_running_example_weights_and_outputs():
    out, w = scaled_dot_product_attention(X, X, X, return_weights=True)
    np.testing.assert_allclose(w[0], [0.768, 0.187, 0.045], atol=5e-4)
    np.testing.assert_allclose(w[1], [1 / 3] * 3, atol=1e-12)
    np.testing.assert_allclose(out[0], [1.72, 0.28], atol=5e-3)


def test_default_scale_is_one_over_sqrt_dk():
    s = attention_scores(X, X)
    np.testing.assert_allclose(s, X @ X.T / np.sqrt(2))


def test_scale_is_keyword_only_and_used():
    with pytest.raises(TypeError, match="takes 3 positional arguments but 6 were given"):
        scaled_dot_product_attention(X, X, X, None, False, 1.0)  # noqa: B026
    np.testing.assert_allclose(attention_scores(X, X, scale=1.0), X @ X.T)


def test_batch_and_head_dimensions_broadcast():
    rng = np.random.default_rng(1)
    q = rng.normal(size=(2, 3, 5, 4))
    k = rng.normal(size=(2, 3, 7, 4))
    v = rng.normal(size=(2, 3, 7, 6))
    out, w = scaled_dot_product_attention(q, k, v, return_weights=True)
    assert out.shape == (2, 3, 5, 6) and w.shape == (2, 3, 5, 7)
    ref_out, ref_w = reference(q, k, v)
    np.testing.assert_allclose(out, ref_out, atol=1e-12)
    np.testing.assert_allclose(w, ref_w, atol=1e-12)


def test_causal_mask_is_top_left_aligned_when_l_differs_from_s():
    np.testing.assert_array_equal(causal_mask(2, 4), [[1, 0, 0, 0], [1, 1, 0, 0]])
    np.testing.assert_array_equal(causal_mask(4, 2), [[1, 0], [1, 1], [1, 1], [1, 1]])


def test_causal_attention_blocks_future_keys():
    rng = np.random.default_rng(2)
    q, k, v = rng.normal(size=(3, 5, 4)), rng.normal(size=(3, 8, 4)), rng.normal(size=(3, 8, 2))
    out, w = scaled_dot_product_attention(q, k, v, causal=True, return_weights=True)
    assert (w[:, causal_mask(5, 8) == 0] == 0).all()
    ref_out, _ = reference(q, k, v, causal_mask(5, 8))
    np.testing.assert_allclose(out, ref_out, atol=1e-12)


def test_boolean_key_padding_mask():
    rng = np.random.default_rng(3)
    q, k, v = rng.normal(size=(2, 4, 3)), rng.normal(size=(2, 5, 3)), rng.normal(size=(2, 5, 3))
    keep = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], dtype=bool)[:, None, :]  # (2, 1, 5)
    out, w = scaled_dot_product_attention(q, k, v, mask=keep, return_weights=True)
    assert (w[0, :, 3:] == 0).all()
    np.testing.assert_allclose(out, reference(q, k, v, keep)[0], atol=1e-12)


def test_float_mask_is_added_to_scores():
    bias = np.array([0.0, -np.inf, 1.0])
    _, w = scaled_dot_product_attention(X, X, X, mask=bias, return_weights=True)
    s = X @ X.T / np.sqrt(2) + bias  # (3, 3): column 1 blocked, column 2 favoured
    e = np.exp(s - s.max(axis=1, keepdims=True))
    np.testing.assert_allclose(w, e / e.sum(axis=1, keepdims=True), atol=1e-12)
    np.testing.assert_array_equal(w[:, 1], 0)


def test_mask_and_causal_combine():
    keep = np.array([False, True, True])
    _, w = scaled_dot_product_attention(X, X, X, mask=keep, causal=True, return_weights=True)
    np.testing.assert_array_equal(w[0], [0, 0, 0])  # cat may see only itself, which is masked
    np.testing.assert_array_equal(w[1], [0, 1, 0])


def test_fully_masked_row_gives_zeros():
    keep = np.array([[False, False, False], [True, True, True], [True, False, False]])
    out, w = scaled_dot_product_attention(X, X, X, mask=keep, return_weights=True)
    assert np.isfinite(out).all() and np.isfinite(w).all()
    np.testing.assert_array_equal(out[0], [0, 0])
    np.testing.assert_array_equal(w[0], [0, 0, 0])
    np.testing.assert_array_equal(out[2], X[0])


def test_float32_in_gives_float32_out():
    x32 = X.astype(np.float32)
    out = scaled_dot_product_attention(x32, x32, x32)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, scaled_dot_product_attention(X, X, X), rtol=1e-6)


def test_large_scores_stay_finite():
    q = np.array([[100.0, 0.0], [0.0, -100.0]])
    out = scaled_dot_product_attention(q, q, q, scale=1.0)  # scores of magnitude 1e4
    assert np.isfinite(out).all()


@pytest.mark.parametrize(
    "args, kwargs, error, message",
    [
        ((np.ones(3), X, X), {}, ValueError, r"q must have shape \(\.\.\., L, d_k\).*got shape \(3,\)"),
        ((X, np.ones((3, 3)), X), {}, ValueError, r"k has d_k=3 but q has d_k=2 \(q: \(3, 2\), k: \(3, 3\)\)"),
        ((X, X, np.ones((4, 2))), {}, ValueError, r"v has S=4 rows but k has S=3"),
        ((X, X, X), {"mask": np.ones((2, 2), bool)}, ValueError,
         r"mask of shape \(2, 2\) does not broadcast to \(\.\.\., L, S\) = \(3, 3\)"),
        ((X, X, X), {"mask": np.array(["a", "b", "c"])}, TypeError, "mask must be boolean"),
        ((X, X, X), {"mask": np.tri(3, dtype=int)}, TypeError, r"for a 0/1 mask use mask.astype\(bool\)"),
        ((X, X, X), {"causal": "no"}, TypeError, "causal must be True or False"),
        ((np.ones((3, 0)), np.ones((3, 0)), X), {}, ValueError, "d_k=0"),
        ((X, np.ones((0, 2)), np.ones((0, 2))), {}, ValueError, "S=0 rows"),
        ((X * 1e200, X * 1e200, X), {}, ValueError, "overflow"),
        ((np.array([["a", "b"]]), X, X), {}, TypeError, "q must be numeric"),
        ((X, X, X + 1j), {}, TypeError, "v must be real"),
        ((X, np.where(X > 1, np.nan, X), X), {}, ValueError, r"k contains 2 NaN or inf"),
        ((X, X, np.where(X > 1, np.inf, X)), {}, ValueError, r"v contains 2 NaN or inf"),
        ((X, X, X), {"scale": "big"}, TypeError, "scale must be a real number"),
        ((X, X, X), {"scale": np.inf}, ValueError, "scale must be finite"),
        ((np.ones((2, 3, 2)), np.ones((4, 3, 2)), np.ones((4, 3, 2))), {}, ValueError, "do not broadcast"),
    ],
)
def test_bad_input_gets_a_clear_error(args, kwargs, error, message):
    with pytest.raises(error, match=message):
        scaled_dot_product_attention(*args, **kwargs)


@pytest.mark.parametrize(
    "L, S, error", [(0, None, ValueError), (2.5, None, TypeError), (3, -1, ValueError), (True, None, TypeError)]
)
def test_causal_mask_rejects_bad_sizes(L, S, error):
    with pytest.raises(error, match="positive integer"):
        causal_mask(L, S)


@pytest.mark.parametrize("dtype, size", [(np.float32, 1e20), (np.float64, 1e160)])
@pytest.mark.parametrize("sign", [1, -1], ids=["to-plus-inf", "to-minus-inf"])
def test_scores_that_overflow_raise_instead_of_returning_inf(dtype, size, sign):
    # -inf would be worse than +inf: softmax reads it as "blocked" and gives a wrong answer silently.
    q = np.full((2, 2), size, dtype)
    message = rf"the scores q @ k.T \* scale overflow {np.dtype(dtype).name} \(largest \|q\| = "
    with pytest.raises(ValueError, match=message):
        attention_scores(q, sign * q)
    with pytest.raises(ValueError, match=message):
        scaled_dot_product_attention(q, sign * q, q)


def test_scores_equal_an_independent_computation():
    rng = np.random.default_rng(4)
    q, k = rng.normal(size=(2, 5, 3)), rng.normal(size=(2, 6, 3))
    want = np.einsum("bid,bjd->bij", q, k) / np.sqrt(3)
    np.testing.assert_allclose(attention_scores(q, k), want, rtol=0, atol=1e-15)


@pytest.mark.parametrize("call", [
    lambda x: attention_scores(x, x),
    lambda x: scaled_dot_product_attention(x, x, x, causal=True, mask=np.ones((3, 3), bool)),
])
def test_a_call_checks_its_inputs_once(monkeypatch, call):
    calls = []
    for name in ("check_qkv", "check_scale", "check_mask"):
        checker = getattr(attention, name)

        def counted(*args, _checker=checker, _name=name, **kwargs):
            calls.append(_name)
            return _checker(*args, **kwargs)

        monkeypatch.setattr(attention, name, counted)
    call([[2.0, 0.0], [1.0, 1.0], [0.0, 2.0]])
    assert sorted(set(calls)) == sorted(calls), f"checked twice: {calls}"
    assert "check_qkv" in calls and "check_scale" in calls
