"""The one compare step: a right float32 answer passes, a near miss fails, and a refusal shows the difference.

For every checker of numbers, :data:`RIGHT` builds the right answer from
inputs in a given dtype, the way a reader would (NumPy in float64, or float32
as ``torch.Tensor.numpy()`` gives). The tests then check that

* the float64 and the float32 answers are accepted;
* the answer rounded to 2 decimals, and the answer off by 1e-3 at one
  value, are refused;
* a refusal for a value prints two numbers that differ.
"""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest

import selfattention as sa
from selfattention import checks, minilm
from selfattention.bert import attention_from_to
from selfattention.checks._compare import (
    EPS16,
    EPS32,
    EPS64,
    REGISTRY,
    TOLERANCE,
    Diagnoses,
    close,
    compare,
    precision,
    rounded_to,
    tolerance,
    two_numbers,
)


def softmax(s, axis=-1):
    """The reader's own softmax, in the dtype of ``s``."""
    e = np.exp(s - s.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def as_(dtype, *arrays):
    return [np.asarray(a, dtype=dtype) for a in arrays]


def scores(dtype):
    (x,) = as_(dtype, sa.three_words())
    return x @ x.T / np.sqrt(dtype(2))


def head_scores(dtype):
    x, w_q, w_k = as_(dtype, sa.three_words(), np.eye(2), [[0, 0], [1, 0]])
    q, k = x @ w_q, x @ w_k
    return q @ k.T / np.sqrt(dtype(2))


def blend(dtype):
    (x,) = as_(dtype, sa.three_words())
    return softmax(x @ x[2] / np.sqrt(dtype(2))) @ x


def scaled_row(dtype):
    q, k = as_(dtype, *sa.scaling_example())
    return k @ q / np.sqrt(dtype(64))


def cross(dtype):
    x_q, x_kv, w_q, w_k, _ = sa.cat_is_sleeping()
    x_q, x_kv, w_q, w_k = as_(dtype, x_q, x_kv, w_q, w_k)
    return softmax((x_q @ w_q) @ (x_kv @ w_k).T / np.sqrt(dtype(2)))


X2, W2 = [0.5, -1.0, 2.0, 0.25, -0.5], 0.8


def rnn(dtype):
    x = np.asarray(X2, dtype=dtype)
    h, out = dtype(0), []
    for x_t in x:
        h = np.tanh(dtype(W2) * h + x_t)
        out.append(h)
    return np.array(out, dtype=dtype)


Q12 = np.random.default_rng(3).normal(size=(3, 4))


def split(dtype):
    return Q12.astype(dtype).reshape(3, 2, 2).transpose(1, 0, 2)


def step(dtype):
    c = dtype(1.0)
    s = 1 / (1 + np.exp(-c / np.sqrt(dtype(2))))
    g = -2 * np.sqrt(dtype(2)) * s * (1 - s) ** 2
    return np.asarray(c - dtype(0.5) * g, dtype=dtype)


def rope_one(dtype):
    x = np.arange(1, 7, dtype=dtype)
    angle = dtype(3) * dtype(10_000) ** (-np.arange(0, 6, 2, dtype=dtype) / dtype(6))
    c, s = np.cos(angle), np.sin(angle)
    return np.stack([x[0::2] * c - x[1::2] * s, x[0::2] * s + x[1::2] * c], axis=-1).reshape(6)


@functools.cache
def river(dtype):
    enc = minilm.encode(checks.model.RIVER)
    return attention_from_to(enc.attentions, enc.tokens, "bank", ["river"])[..., 0].astype(dtype)


def strongest(answer):
    table = river(np.float64)
    return sa.check_strongest_head(answer, np.unravel_index(table.argmax(), table.shape))


def decode(dtype):
    q, k, v, k_cache, v_cache = as_(dtype, *sa.decode_example())
    K, V = np.vstack([k_cache, k]), np.vstack([v_cache, v])  # (5, 4): the cache, then the new rows
    scores = q @ K.T / np.sqrt(dtype(4))
    scores = np.where(np.tri(2, 5, k=3, dtype=bool), scores, dtype(-np.inf))  # bottom-right causal mask
    return softmax(scores) @ V


def induction_score(dtype):
    """Head 1.0's induction score, with the weights cast to ``dtype`` before the mean."""
    from selfattention.checks.induction import exercise_batch
    from selfattention.induction import circuits, forward, load

    batch = exercise_batch()
    w = forward(load()["params"], batch.tokens)[1][1]["weights"][:, 0].astype(dtype)
    b, t, j = circuits.induction_targets(batch)
    return np.asarray(w[b, t, j].mean(dtype=dtype))


def ablated_loss(dtype):
    """The second copy's loss with head 0.0 switched off, in ``dtype``."""
    from selfattention.checks.induction import exercise_batch
    from selfattention.induction import copy_losses, load

    return np.asarray(copy_losses(load()["params"], exercise_batch(), ablate=[(0, 0)])[1], dtype=dtype)


def layer1(dtype):
    """Layer 1 of MiniLM, computed in the dtype (the model's own arrays are float32)."""
    x = minilm.encode(checks.block.SENTENCE).hidden_states[1].astype(dtype)
    weights = {k: v.astype(dtype) for k, v in minilm.load_weights().items() if k.startswith("encoder.layer.1.")}
    # bert_layer computes in float32: a float16 answer is its result rounded to float16.
    return sa.bert.bert_layer(x, weights, 1, minilm.load_config())[0].astype(dtype)


def top_p(dtype):
    """The top-p example's kept distribution in ``dtype``: m, f and s reach p = 0.6."""
    _, probs, _ = sa.top_p_example()
    (probs,) = as_(dtype, probs)
    kept = np.zeros_like(probs)
    kept[[3, 2, 5]] = probs[[3, 2, 5]]
    return kept / kept.sum()


def bits(dtype):
    chars, text, probs = sa.bits_example()
    (probs,) = as_(dtype, probs)
    p = probs[np.arange(6), [chars.index(c) for c in text[1:]]]
    return np.asarray(np.mean(-np.log2(p)), dtype=dtype)


#: checker name -> (make the right answer in a dtype, check an answer).
RIGHT = {
    "check_scores": (scores, sa.check_scores),
    "check_head_scores": (head_scores, sa.check_head_scores),
    "check_blend": (blend, sa.check_blend),
    "check_scaled_row": (scaled_row, sa.check_scaled_row),
    "check_cross_weights": (cross, sa.check_cross_weights),
    "check_decode_step": (decode, sa.check_decode_step),
    "check_rnn_states": (rnn, lambda a: sa.check_rnn_states(a, X2, W2)),
    "check_split_heads": (split, lambda a: sa.check_split_heads(a, Q12)),
    "check_gradient_step": (step, lambda a: sa.check_gradient_step(a, learning_rate=0.5)),
    "check_strongest_head": (river, strongest),
    "check_rope": (rope_one, sa.check_rope),
    "check_induction_score": (induction_score, sa.check_induction_score),
    "check_ablated_loss": (ablated_loss, sa.check_ablated_loss),
    "check_bert_layer": (layer1, sa.check_bert_layer),
    "check_top_p": (top_p, sa.check_top_p),
    "check_bits_per_character": (bits, sa.check_bits_per_character),
}

#: The checkers of RIGHT whose answer is one number.
ONE_NUMBER = {"check_induction_score", "check_ablated_loss", "check_bits_per_character"}

#: The checkers that compare exactly (booleans and counts), call the reader's function, or judge what the
#: reader's matrices do (check_wiring: tests/selfattention/test_wiring.py, in float64 and float32).
NOT_IN_RIGHT = {"check_causal_mask", "check_head_counts", "check_score_memory", "check_window_count", "check_head",
                "check_wiring"}

DTYPES = [np.float64, np.float32]


def test_every_checker_of_numbers_is_tested_here():
    assert set(RIGHT) | NOT_IN_RIGHT == set(REGISTRY)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_right_answer_is_accepted_in_float64_and_float32(name, dtype):
    make, check = RIGHT[name]
    answer = make(dtype)
    assert answer.dtype == dtype
    verdict = check(answer)
    assert verdict.ok, verdict.message


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_right_answer_computed_in_float16_is_judged_with_float16s_rounding(name):
    make, check = RIGHT[name]
    answer = make(np.float16)
    assert answer.dtype == np.float16
    verdict = check(answer)
    assert verdict.ok, verdict.message
    # the same numbers as float32 are judged with float32's eps, and refused: the refusal this fixes
    # (one number may round to a float16 within float32's tolerance: head 1.0's score does, by 6e-7)
    if name not in ONE_NUMBER:
        assert not check(answer.astype(np.float32)).ok or np.array_equal(answer, make(np.float64))


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_float16_answer_off_by_five_percent_is_refused(name):
    make, check = RIGHT[name]
    answer = make(np.float16).copy()
    i = np.argmax(np.abs(answer))
    answer.flat[i] += np.float16(0.05 * (abs(float(answer.flat[i])) + 1))
    verdict = check(answer)
    assert not verdict.ok, verdict.message


def test_check_head_accepts_a_head_computed_in_float16():
    def head(X, W_Q, W_K, W_V):
        X, W_Q, W_K, W_V = as_(np.float16, X, W_Q, W_K, W_V)
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        return softmax(Q @ K.T / np.sqrt(np.float16(Q.shape[-1]))) @ V

    assert sa.check_head(head).ok


MASKED = Diagnoses("check_masked_demo", "Right.", {}, generic=["not-finite", "value"], register=False)


def test_an_expected_infinity_is_matched_by_the_same_infinity_only():
    e = np.array([[1.0, -np.inf], [0.5, 2.0]])    # masked scores
    assert compare(e.copy(), e, MASKED, name="scores", layout="").ok
    assert compare(e.astype(np.float32), e, MASKED, name="scores", layout="").ok
    assert close(np.array([np.inf]), np.array([np.inf]), EPS64)
    verdict = compare(np.where(np.isinf(e), -1e9, e), e, MASKED, name="scores", layout="")
    assert verdict.slip == "value" and "-1e+09 where -inf was expected" in verdict.message, verdict.message
    assert compare(-e, e, MASKED, name="scores", layout="").slip == "not-finite"     # +inf where -inf is expected


def test_an_expected_infinity_does_not_widen_the_tolerance_of_the_other_values():
    e = np.array([1.0, -np.inf])
    assert np.isfinite(tolerance(e, EPS64)).all() and tolerance(e, EPS64)[1] == 0
    verdict = compare(np.array([1.001, -np.inf]), e, MASKED, name="scores", layout="")
    assert verdict.slip == "value" and "1.001 where 1 was expected" in verdict.message, verdict.message


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_float32_answer_turned_into_a_python_list_is_judged_as_float64(name):
    make, check = RIGHT[name]
    assert check(make(np.float64).tolist()).ok


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("name", sorted(RIGHT))
def test_an_answer_rounded_to_2_decimals_is_refused(name, dtype):
    make, check = RIGHT[name]
    verdict = check(make(dtype).round(2))
    assert not verdict.ok and verdict.slip == "rounded", verdict.message


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("name", sorted(RIGHT))
def test_an_answer_off_by_a_thousandth_is_refused(name, dtype):
    make, check = RIGHT[name]
    answer = make(dtype).copy()
    answer.flat[-1] += dtype(1e-3)
    verdict = check(answer)
    assert not verdict.ok, verdict.message


NUMBERS = re.compile(r"(?:is|:) (-?[\d.]+(?:e[+-]?\d+)?) where (-?[\d.]+(?:e[+-]?\d+)?) was expected")


# check_top_p says first that such an answer no longer adds up to 1, with digits enough to differ
# (tests/selfattention/checks/test_writer.py).
@pytest.mark.parametrize("offset", [1e-3, 3e-5, 1e-9])
@pytest.mark.parametrize("name", sorted(set(RIGHT) - {"check_gradient_step", "check_top_p"}))
def test_a_refused_value_is_printed_with_enough_digits_to_differ(name, offset):
    make, check = RIGHT[name]
    answer = make(np.float64).copy()
    answer.flat[np.argmax(np.abs(answer))] *= 1 + offset
    verdict = check(answer)
    assert verdict.slip in ("value", "later-wrong", "first-wrong", "head-wrong"), verdict.message
    got, expected = NUMBERS.search(verdict.message).groups()
    assert got != expected, verdict.message


@pytest.mark.parametrize("offset", [1e-3, 3e-5, 1e-9])
def test_check_head_prints_enough_digits_to_differ(offset):
    def head(X, W_Q, W_K, W_V):
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        return softmax(Q @ K.T / np.sqrt(Q.shape[-1])) @ V * (1 + offset)

    verdict = sa.check_head(head)
    got, expected = NUMBERS.search(verdict.message).groups()
    assert verdict.slip == "value" and got != expected, verdict.message


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
def test_check_head_accepts_a_head_computed_in_float32_or_float64(dtype):
    def head(X, W_Q, W_K, W_V):
        X, W_Q, W_K, W_V = as_(dtype, X, W_Q, W_K, W_V)
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        return softmax(Q @ K.T / np.sqrt(dtype(Q.shape[-1]))) @ V

    assert sa.check_head(head).ok


@pytest.mark.parametrize("change", [lambda o: o.round(2), lambda o: o + 1e-3], ids=["rounded", "off"])
def test_check_head_refuses_a_near_miss(change):
    def head(X, W_Q, W_K, W_V):
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        return change(softmax(Q @ K.T / np.sqrt(Q.shape[-1])) @ V)

    assert not sa.check_head(head).ok


def test_the_issue_example_is_accepted_and_its_near_misses_are_not():
    X = sa.three_words()
    assert sa.check_scores((X @ X.T / np.sqrt(2)).astype(np.float32)).ok
    verdict = sa.check_scores((X @ X.T / np.sqrt(2)).astype(np.float32) + np.float32(1e-3))
    assert not verdict.ok and "2.828 where 2.828" not in verdict.message


def test_counts_and_masks_are_exact():
    assert sa.check_window_count(95_950).ok and sa.check_window_count(95_950.0).ok
    assert not sa.check_window_count(95_950.5).ok and not sa.check_window_count(95_951).ok
    assert not sa.check_score_memory(sa.cost.score_bytes(32_768, "bf16", heads=32) + 1).ok
    mask = sa.causal_mask(4).copy()
    mask[0, 1] = True
    assert not sa.check_causal_mask(mask).ok


# --- the helper itself --------------------------------------------------------------------------


def test_precision_follows_the_answer_dtype():
    assert precision(np.zeros(2, np.float32)) == EPS32 == 2.0**-23
    assert precision(np.zeros(2, np.float16)) == EPS16 == 2.0**-10
    assert precision(np.zeros(2)) == EPS64 == 2.0**-52
    assert precision(np.zeros(2, int)) == EPS64


def test_the_tolerance_formula():
    e = np.array([0.0, 1.0, -4.0])
    np.testing.assert_allclose(tolerance(e, EPS32), 100 * 2.0**-23 * np.array([4.0, 5.0, 8.0]), rtol=1e-15)
    np.testing.assert_allclose(tolerance(e, EPS64), 100 * 2.0**-52 * np.array([4.0, 5.0, 8.0]), rtol=1e-15)
    np.testing.assert_allclose(tolerance(e, EPS16), 10 * 2.0**-10 * np.array([4.0, 5.0, 8.0]), rtol=1e-15)


def test_close_just_inside_and_just_outside():
    e = np.array([1.0, 2.0])
    tol = tolerance(e, EPS32)
    assert close(e + 0.99 * tol, e, EPS32) and close(e - 0.99 * tol, e, EPS32)
    assert not close(e + [1.01 * tol[0], 0], e, EPS32)
    assert not close(e, e[:1], EPS32) and not close(e, None, EPS32)


@pytest.mark.parametrize("a, b", [(2.8284, 2.8284271247461903), (2.82842712, 2.8284271247461903),
                                  (1.0, 1.0 + 2**-52), (-0.5, -0.5000001), (1e-20, 1.0000001e-20), (3, 4)])
def test_two_numbers_always_differ_when_the_numbers_do(a, b):
    shown_a, shown_b = two_numbers(a, b)
    assert shown_a != shown_b
    assert float(shown_a) == pytest.approx(a, rel=1e-4) and float(shown_b) == pytest.approx(b, rel=1e-4)


def test_two_numbers_keeps_four_digits_when_they_suffice():
    assert two_numbers(0.12345, 0.5) == ("0.1235", "0.5")


def test_rounded_to_names_the_decimals():
    e = np.array([np.pi, np.e])
    assert [rounded_to(e.round(d), e, EPS64) for d in range(5)] == [0, 1, 2, 3, 4]
    assert rounded_to(e, e, EPS64) is None and rounded_to(e + 0.3, e, EPS64) is None


#: The checkers that compare no value with a tolerance, and the threshold their docstring states instead.
THRESHOLD = {"check_wiring": "reaches 90% of"}


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_checker_states_its_tolerance_in_the_same_words(name):
    doc = " ".join(getattr(sa, name).__doc__.split())
    if name in THRESHOLD:
        assert THRESHOLD[name] in doc and TOLERANCE not in doc, name
        return
    exact = "Booleans and counts are compared exactly."
    assert TOLERANCE in doc or exact in doc, name
    if name in RIGHT or name == "check_head":
        assert TOLERANCE in doc, name
