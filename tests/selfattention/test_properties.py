"""Properties that hold for every input, checked on random shapes and values.

Hypothesis draws the batch and head dimensions, ``L``, ``S``, ``d_k``,
``d_v``, the numbers and the masks. Every test runs the same examples on
every run (``derandomize=True``), so a failure can always be reproduced.
"""

from __future__ import annotations

import hypothesis.extra.numpy as hnp
import numpy as np
from hypothesis import given, settings, target
from hypothesis import strategies as st

from selfattention import causal_mask, scaled_dot_product_attention, softmax

from .float64_reference import attend_f64 as reference

#: Deterministic runs, no example database written to disk, no deadline (a
#: slow CI machine must not fail a correct test), and few enough examples
#: that the whole module runs in a few seconds.
PROPERTY_SETTINGS = settings(derandomize=True, database=None, deadline=None, max_examples=30)

#: Inputs of the float64 tests lie in [-BOUND, BOUND]. With ``d_k <= 4`` a
#: scaled score is at most 200 in size, so two scores of a row differ by at
#: most 400 and ``exp(-400) ~ 1e-174`` is still a normal float64: a key that
#: is allowed always gets a weight > 0, which the mask tests rely on.
BOUND = 10.0

#: Two float64 computations of the same result that round in a different
#: order. float64 keeps about 16 digits (eps = 2.2e-16). A score of size 200
#: carries an absolute rounding error of about d_k * eps * 200 ~ 2e-13;
#: softmax turns an absolute score error into the same relative weight
#: error, and outputs up to BOUND = 10 multiply it by 10: ~2e-12. 1e-10
#: leaves 50 times that, and a wrong formula errs by far more.
F64_ATOL = 1e-10

#: float32 against a float64 reference. float32 keeps about 7 digits
#: (eps = 1.2e-7). The float32 inputs lie in [-F32_BOUND, F32_BOUND], so with
#: ``d_k <= 4`` a score is at most 32 in size and is off by at most about
#: d_k * eps * 32 ~ 1.5e-5 (a worst case; rounding errors partly cancel, and
#: a targeted search of 4000 examples found at most 5e-7). Softmax passes an
#: absolute score error on to the weights as the same relative error, and
#: the outputs, averages of v, multiply it by max|v|. So weights must agree
#: within FLOAT32_ATOL and outputs within FLOAT32_ATOL * max(1, max|v|).
#: Doing the softmax in float16 (eps = 1e-3) makes this test fail.
F32_BOUND = 4.0
FLOAT32_ATOL = 2e-5

#: q @ k.T, k, v with broadcastable batch (and head) dimensions in front.
SIGNATURE = "(l,d),(s,d),(s,e)->(l,e)"


# ---------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------


def _floats(bound: float, width: int = 64):
    return st.floats(-bound, bound, allow_nan=False, allow_infinity=False, width=width)


@st.composite
def qkv(draw, dtype=np.float64, bound=BOUND):
    """q (..., L, d_k), k (..., S, d_k), v (..., S, d_v); every side 1 to 4."""
    shapes = draw(hnp.mutually_broadcastable_shapes(
        signature=SIGNATURE, max_dims=2, min_side=1, max_side=4))
    width = 32 if dtype == np.float32 else 64
    return tuple(draw(hnp.arrays(dtype, shape, elements=_floats(bound, width)))
                 for shape in shapes.input_shapes)


def scores_shape(q, k) -> tuple:
    """(..., L, S): the shape of the scores and of the weights."""
    return np.broadcast_shapes(q.shape[:-2], k.shape[:-2]) + (q.shape[-2], k.shape[-2])


@st.composite
def shapes_broadcasting_to(draw, shape):
    """A shape that broadcasts to ``shape`` without changing it, e.g. (S,) or (1, L, S)."""
    n = draw(st.integers(0, len(shape)))
    return tuple(draw(st.sampled_from([side, 1])) for side in shape[len(shape) - n:])


def bool_masks(shape):
    """Boolean masks of any shape that broadcasts to ``shape`` (the scores' shape)."""
    return hnp.arrays(np.bool_, shapes_broadcasting_to(shape))


def lower_triangle(L: int, S: int) -> np.ndarray:
    """Query i may see key j when j <= i (top-left aligned), built from indices."""
    return np.arange(S)[None, :] <= np.arange(L)[:, None]


# ---------------------------------------------------------------------------
# Weights
# ---------------------------------------------------------------------------


@PROPERTY_SETTINGS
@given(qkv())
def test_weights_are_nonnegative_and_every_row_sums_to_one(inputs):
    _, weights = scaled_dot_product_attention(*inputs, return_weights=True)
    assert (weights >= 0).all()
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=0, atol=F64_ATOL)


@PROPERTY_SETTINGS
@given(st.data())
def test_masked_rows_sum_to_one_or_are_all_zero_when_every_key_is_blocked(data):
    q, k, v = data.draw(qkv())
    mask = data.draw(bool_masks(scores_shape(q, k)))
    _, weights = scaled_dot_product_attention(q, k, v, mask=mask, return_weights=True)
    sees_a_key = np.broadcast_to(mask, weights.shape).any(axis=-1)  # (..., L)
    sums = weights.sum(axis=-1)
    np.testing.assert_allclose(sums[sees_a_key], 1.0, rtol=0, atol=F64_ATOL)
    assert (weights[~sees_a_key] == 0).all()


@PROPERTY_SETTINGS
@given(st.data())
def test_matches_an_independent_float64_reference(data):
    q, k, v = data.draw(qkv())
    shape = scores_shape(q, k)
    mask = data.draw(st.none() | bool_masks(shape))
    causal = data.draw(st.booleans())
    allowed = np.ones(shape, dtype=bool)
    if mask is not None:
        allowed = allowed & mask
    if causal:
        allowed = allowed & lower_triangle(*shape[-2:])
    out, weights = scaled_dot_product_attention(q, k, v, mask=mask, causal=causal,
                                                return_weights=True)
    ref_out, ref_weights = reference(q, k, v, allowed=allowed)
    np.testing.assert_allclose(weights, ref_weights, rtol=0, atol=F64_ATOL)
    np.testing.assert_allclose(out, ref_out, rtol=0, atol=F64_ATOL)


# ---------------------------------------------------------------------------
# Invariances
# ---------------------------------------------------------------------------


@PROPERTY_SETTINGS
@given(st.data())
def test_adding_a_constant_to_a_row_of_scores_changes_no_weight(data):
    scores = data.draw(hnp.arrays(
        np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=5),
        elements=_floats(100.0) | st.just(-np.inf)))  # -inf: a blocked score
    shift = data.draw(hnp.arrays(np.float64, scores.shape[:-1] + (1,), elements=_floats(100.0)))
    np.testing.assert_allclose(softmax(scores + shift), softmax(scores), rtol=0, atol=F64_ATOL)


@PROPERTY_SETTINGS
@given(st.data())
def test_adding_one_vector_to_every_key_changes_nothing(data):
    # Every score of query i grows by the same q_i . u: a constant per row.
    q, k, v = data.draw(qkv())
    u = data.draw(hnp.arrays(np.float64, k.shape[-1], elements=_floats(BOUND)))
    np.testing.assert_allclose(scaled_dot_product_attention(q, k + u, v),
                               scaled_dot_product_attention(q, k, v), rtol=0, atol=F64_ATOL)


@PROPERTY_SETTINGS
@given(st.data())
def test_permuting_keys_together_with_values_leaves_the_output_unchanged(data):
    q, k, v = data.draw(qkv())
    mask = data.draw(st.none() | bool_masks(scores_shape(q, k)))
    S = k.shape[-2]
    perm = np.array(data.draw(st.permutations(range(S))))
    mask_p = None
    if mask is not None:  # the mask's key axis moves with the keys
        mask_p = mask[..., perm] if mask.ndim and mask.shape[-1] == S else mask
    out = scaled_dot_product_attention(q, k, v, mask=mask)
    out_p = scaled_dot_product_attention(q, k[..., perm, :], v[..., perm, :], mask=mask_p)
    np.testing.assert_allclose(out_p, out, rtol=0, atol=F64_ATOL)


@PROPERTY_SETTINGS
@given(st.data())
def test_permuting_the_queries_permutes_the_output_rows(data):
    q, k, v = data.draw(qkv())
    mask = data.draw(st.none() | bool_masks(scores_shape(q, k)))
    L = q.shape[-2]
    perm = np.array(data.draw(st.permutations(range(L))))
    mask_p = None
    if mask is not None:  # the mask's query axis moves with the queries
        mask_p = mask[..., perm, :] if mask.ndim >= 2 and mask.shape[-2] == L else mask
    out = scaled_dot_product_attention(q, k, v, mask=mask)
    out_p = scaled_dot_product_attention(q[..., perm, :], k, v, mask=mask_p)
    np.testing.assert_allclose(out_p, out[..., perm, :], rtol=0, atol=F64_ATOL)


@PROPERTY_SETTINGS
@given(qkv())
def test_a_batched_call_equals_a_loop_over_the_batch(inputs):
    q, k, v = inputs
    out = scaled_dot_product_attention(q, k, v)
    batch = out.shape[:-2]
    for idx in np.ndindex(batch):
        one = [np.broadcast_to(a, batch + a.shape[-2:])[idx] for a in (q, k, v)]  # 2-D each
        np.testing.assert_allclose(out[idx], scaled_dot_product_attention(*one),
                                   rtol=0, atol=F64_ATOL)


@PROPERTY_SETTINGS
@given(qkv())
def test_every_output_lies_between_the_smallest_and_largest_value(inputs):
    q, k, v = inputs
    out = scaled_dot_product_attention(q, k, v)  # (..., L, d_v)
    values = np.broadcast_to(v, out.shape[:-2] + v.shape[-2:])  # (..., S, d_v)
    assert (out >= values.min(axis=-2, keepdims=True) - F64_ATOL).all()
    assert (out <= values.max(axis=-2, keepdims=True) + F64_ATOL).all()


# ---------------------------------------------------------------------------
# Precision and range
# ---------------------------------------------------------------------------


@PROPERTY_SETTINGS
@given(st.data())
def test_float32_agrees_with_a_float64_reference(data):
    q, k, v = data.draw(qkv(dtype=np.float32, bound=F32_BOUND))
    mask = data.draw(st.none() | bool_masks(scores_shape(q, k)))
    out, weights = scaled_dot_product_attention(q, k, v, mask=mask, return_weights=True)
    assert out.dtype == np.float32 and weights.dtype == np.float32
    ref_out, ref_weights = reference(q, k, v, allowed=mask)  # float64
    error = float(np.abs(weights - ref_weights).max())
    target(error, label="float32 weight error")  # let Hypothesis hunt for the worst case
    np.testing.assert_allclose(weights, ref_weights, rtol=0, atol=FLOAT32_ATOL)
    v_size = max(1.0, float(np.abs(v).max()))
    np.testing.assert_allclose(out, ref_out, rtol=0, atol=FLOAT32_ATOL * v_size)


@PROPERTY_SETTINGS
@given(st.data())
def test_scores_up_to_1e4_in_size_give_finite_weights_and_outputs(data):
    dtype = data.draw(st.sampled_from([np.float32, np.float64]))
    q, k, v = data.draw(qkv(dtype=dtype, bound=100.0))
    d_k = q.shape[-1]
    scale = 1.0 / d_k  # |score| <= d_k * 100 * 100 / d_k = 1e4
    scores = np.einsum("...id,...jd->...ij", q.astype(np.float64), k) * scale
    target(float(np.abs(scores).max()), label="largest |score|")
    assert np.abs(scores).max() <= 1e4 * (1 + 1e-6)
    out, weights = scaled_dot_product_attention(q, k, v, scale=scale, return_weights=True)
    assert np.isfinite(out).all() and np.isfinite(weights).all()
    assert out.dtype == dtype
    tol = FLOAT32_ATOL if dtype == np.float32 else F64_ATOL
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=0, atol=tol)


@PROPERTY_SETTINGS
@given(st.data())
def test_softmax_of_scores_up_to_1e4_is_finite_and_keeps_their_order(data):
    dtype = data.draw(st.sampled_from([np.float32, np.float64]))
    width = 32 if dtype == np.float32 else 64
    scores = data.draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=1, max_dims=3, max_side=6),
                                  elements=_floats(1e4, width)))
    weights = softmax(scores)
    assert weights.dtype == dtype and np.isfinite(weights).all()
    tol = FLOAT32_ATOL if dtype == np.float32 else F64_ATOL
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=0, atol=tol)
    higher = scores[..., :, None] > scores[..., None, :]  # (..., n, n)
    assert (weights[..., :, None] >= weights[..., None, :])[higher].all()


# ---------------------------------------------------------------------------
# Masks
# ---------------------------------------------------------------------------


@PROPERTY_SETTINGS
@given(st.data())
def test_a_boolean_mask_blocks_exactly_its_false_entries(data):
    q, k, v = data.draw(qkv())
    mask = data.draw(bool_masks(scores_shape(q, k)))
    _, weights = scaled_dot_product_attention(q, k, v, mask=mask, return_weights=True)
    allowed = np.broadcast_to(mask, weights.shape)
    assert (weights[~allowed] == 0).all()
    assert (weights[allowed] > 0).all()  # BOUND keeps every allowed weight above 0


@PROPERTY_SETTINGS
@given(st.integers(1, 6), st.integers(1, 6))
def test_causal_mask_is_the_lower_triangle_from_the_top_left_corner(L, S):
    mask = causal_mask(L, S)
    assert mask.dtype == np.bool_ and mask.shape == (L, S)
    np.testing.assert_array_equal(mask, lower_triangle(L, S))


@PROPERTY_SETTINGS
@given(qkv())
def test_causal_attention_gives_weight_only_to_earlier_keys(inputs):
    q, k, v = inputs
    L, S = q.shape[-2], k.shape[-2]
    out, weights = scaled_dot_product_attention(q, k, v, causal=True, return_weights=True)
    earlier = np.broadcast_to(lower_triangle(L, S), weights.shape)
    assert (weights[~earlier] == 0).all()
    assert (weights[earlier] > 0).all()
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=0, atol=F64_ATOL)  # row 0 sees key 0
    out_m = scaled_dot_product_attention(q, k, v, mask=lower_triangle(L, S))
    np.testing.assert_array_equal(out, out_m)


@PROPERTY_SETTINGS
@given(st.data())
def test_fully_masked_rows_give_output_zero_never_nan(data):
    q, k, v = data.draw(qkv())
    shape = scores_shape(q, k)
    mask = data.draw(hnp.arrays(np.bool_, shape)).copy()
    blocked = data.draw(st.lists(st.integers(0, shape[-2] - 1), min_size=1, unique=True))
    mask[..., blocked, :] = False  # these queries see no key at all
    # pytest turns NumPy's RuntimeWarnings (0/0, inf - inf) into errors here.
    out, weights = scaled_dot_product_attention(q, k, v, mask=mask, return_weights=True)
    assert np.isfinite(out).all() and np.isfinite(weights).all()
    assert (out[..., blocked, :] == 0).all()
    assert (weights[..., blocked, :] == 0).all()


@PROPERTY_SETTINGS
@given(st.data())
def test_a_minus_inf_float_mask_equals_the_boolean_mask(data):
    q, k, v = data.draw(qkv())
    mask = data.draw(bool_masks(scores_shape(q, k)))
    float_mask = np.where(mask, 0.0, -np.inf)
    out_b, weights_b = scaled_dot_product_attention(q, k, v, mask=mask, return_weights=True)
    out_f, weights_f = scaled_dot_product_attention(q, k, v, mask=float_mask,
                                                    return_weights=True)
    # Exactly equal: s + 0.0 is s and s + (-inf) is -inf, the same scores.
    np.testing.assert_array_equal(weights_f, weights_b)
    np.testing.assert_array_equal(out_f, out_b)


@PROPERTY_SETTINGS
@given(st.data())
def test_a_float_mask_is_added_to_the_scores(data):
    q, k, v = data.draw(qkv())
    shape = scores_shape(q, k)
    bias = data.draw(hnp.arrays(np.float64, shapes_broadcasting_to(shape),
                                elements=_floats(BOUND)))
    out, weights = scaled_dot_product_attention(q, k, v, mask=bias, return_weights=True)
    ref_out, ref_weights = reference(q, k, v, bias=bias)
    np.testing.assert_allclose(weights, ref_weights, rtol=0, atol=F64_ATOL)
    np.testing.assert_allclose(out, ref_out, rtol=0, atol=F64_ATOL)


@PROPERTY_SETTINGS
@given(st.data())
def test_mask_and_causal_together_allow_only_keys_both_allow(data):
    q, k, v = data.draw(qkv())
    shape = scores_shape(q, k)
    mask = data.draw(bool_masks(shape))
    both = mask & lower_triangle(*shape[-2:])
    out, weights = scaled_dot_product_attention(q, k, v, mask=mask, causal=True,
                                                return_weights=True)
    out_b, weights_b = scaled_dot_product_attention(q, k, v, mask=both, return_weights=True)
    np.testing.assert_array_equal(weights, weights_b)
    np.testing.assert_array_equal(out, out_b)
