"""Every fast function equals the reference, on random problems (Hypothesis).

The reference, :func:`selfattention.attention.scaled_dot_product_attention`,
is the formula and nothing else. The fast layer cuts the work into blocks of
queries and keys, spreads them over threads, may skip the row maximum, and
cuts matrix products small when BLAS is not held to one thread. None of this
may change the answer beyond rounding.

Hypothesis draws batch and head dimensions that broadcast, ``L`` and ``S``
up to 70 with block sizes from 1 to 40 (so most problems cross several
block boundaries, and end in a partial block), 1 to 3 threads or the
default, boolean masks, float masks with ``-inf``, causal attention with
``L != S``, a custom scale, rows whose keys are all masked, and values from
0.1 to 10 in size (small scores take the fixed shift, large ones the
running maximum).

Tolerance. Both sides round: a score of size ``s`` is off by about
``d_k * eps * s``, and softmax passes an absolute score error on to the
weights as the same relative error. So weights must agree within
``TOL_FACTOR * eps * (1 + s_max)`` and outputs within that times
``max |v|``, where ``eps`` is the dtype's machine epsilon and ``s_max`` the
largest ``|score|``. ``TOL_FACTOR = 64`` covers ``d_k <= 8`` with room for
the sums; a wrong block, a lost rescale or a missing row errs by a weight of
order 1.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from selfattention import attention, fast

from ..float64_reference import attend_f64

SETTINGS = settings(derandomize=True, database=None, deadline=None, max_examples=60)
TOL_FACTOR = 64


@st.composite
def problems(draw, dtype):
    """``(q, k, v, options)``: a random attention problem and the reference's keyword arguments."""
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=2, max_side=3))
    L, S = draw(st.integers(1, 70)), draw(st.integers(1, 70))
    d_k, d_v = draw(st.integers(1, 8)), draw(st.integers(1, 5))
    size = draw(st.sampled_from([0.1, 1.0, 3.0] if dtype == np.float32 else [0.1, 1.0, 10.0]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    q_b, k_b, v_b = shapes.input_shapes
    q = (rng.standard_normal(q_b + (L, d_k)) * size).astype(dtype)
    k = (rng.standard_normal(k_b + (S, d_k)) * size).astype(dtype)
    v = (rng.standard_normal(v_b + (S, d_v)) * size).astype(dtype)
    batch = np.broadcast_shapes(q_b, k_b)
    mask_shape = draw(st.sampled_from([(L, S), (S,), (1, S), batch + (L, S), (1,) * len(batch) + (L, 1)]))
    kind = draw(st.sampled_from(["none", "bool", "float", "zero-or-minus-inf", "rows-blocked"]))
    mask = None
    if kind == "bool":
        mask = rng.random(mask_shape) > draw(st.sampled_from([0.1, 0.5, 0.9]))
    elif kind == "float":
        mask = np.where(rng.random(mask_shape) > 0.3, rng.standard_normal(mask_shape) * 3, -np.inf)
    elif kind == "zero-or-minus-inf":
        mask = np.where(rng.random(mask_shape) > 0.4, 0.0, -np.inf)
    elif kind == "rows-blocked":  # some queries may attend to no key at all
        mask = rng.random((L, S)) > 0.3
        mask[rng.random(L) > 0.6] = False
    scale = draw(st.none() | st.sampled_from([1.0, 0.05, -0.7, 2.5, 0.0]))
    return q, k, v, dict(mask=mask, causal=draw(st.booleans()), scale=scale)


def speed_options(draw, blocks: tuple[str, ...]):
    """How the fast function computes: block sizes, threads, BLAS mode, fixed shift."""
    options = {name: draw(st.integers(1, 40)) for name in blocks}
    options["num_threads"] = draw(st.sampled_from([None, 1, 2, 3]))
    options["limit_blas"] = draw(st.booleans())
    options["fixed_shift"] = draw(st.booleans())
    return options


def tolerances(q, k, v, options, dtype):
    """``(weights_tol, out_tol)``: see the module docstring."""
    scale = options["scale"]
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    s_max = float(np.abs(np.einsum("...id,...jd->...ij", q.astype(np.float64), k) * scale).max())
    weights_tol = TOL_FACTOR * float(np.finfo(dtype).eps) * (1 + s_max)
    return weights_tol, weights_tol * max(1.0, float(np.abs(v).max()))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@SETTINGS
@given(data=st.data())
def test_fast_plain_attention_equals_the_reference(dtype, data):
    q, k, v, options = data.draw(problems(dtype))
    speed = speed_options(data.draw, ("query_block_size",))
    want_out, want_weights = attention.scaled_dot_product_attention(q, k, v, return_weights=True, **options)
    out, weights = fast.scaled_dot_product_attention(q, k, v, return_weights=True, **options, **speed)
    weights_tol, out_tol = tolerances(q, k, v, options, dtype)
    assert out.dtype == weights.dtype == dtype
    assert out.shape == want_out.shape and weights.shape == want_weights.shape
    np.testing.assert_allclose(weights, want_weights, rtol=0, atol=weights_tol)
    np.testing.assert_allclose(out, want_out, rtol=0, atol=out_tol)
    blocked = want_weights.sum(axis=-1) == 0  # queries that may attend to no key: exactly 0
    assert (weights.sum(axis=-1)[blocked] == 0).all()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@SETTINGS
@given(data=st.data())
def test_blockwise_attention_equals_the_reference(dtype, data):
    q, k, v, options = data.draw(problems(dtype))
    speed = speed_options(data.draw, ("block_size", "query_block_size"))
    want = attention.scaled_dot_product_attention(q, k, v, **options)
    got = fast.blockwise_attention(q, k, v, **options, **speed)
    _, out_tol = tolerances(q, k, v, options, dtype)
    assert got.dtype == dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=out_tol)


@SETTINGS
@given(data=st.data())
def test_the_reference_equals_an_independent_float64_computation(data):
    q, k, v, options = data.draw(problems(np.float64))
    mask, causal = options["mask"], options["causal"]
    allowed = bias = None
    if mask is not None and mask.dtype == bool:
        allowed = mask
    elif mask is not None:
        bias = mask
    if causal:
        tri = np.tri(q.shape[-2], k.shape[-2], dtype=bool)
        allowed = tri if allowed is None else (allowed & tri)
    out, weights = attention.scaled_dot_product_attention(q, k, v, return_weights=True, **options)
    want_out, want_weights = attend_f64(q, k, v, allowed=allowed, bias=bias, scale=options["scale"])
    weights_tol, out_tol = tolerances(q, k, v, options, np.float64)
    np.testing.assert_allclose(weights, want_weights, rtol=0, atol=weights_tol)
    np.testing.assert_allclose(out, want_out, rtol=0, atol=out_tol)
