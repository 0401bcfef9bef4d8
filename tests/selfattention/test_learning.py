"""The loss of the apple/sweet head, its analytic gradients, and the training runs of "Go deeper"."""

from __future__ import annotations

import numpy as np
import pytest

import selfattention as sa
from selfattention import learning

EPS = 1e-6


def central(f, x: float) -> float:
    return (f(x + EPS) - f(x - EPS)) / (2 * EPS)


def numeric_gradient(mats: dict, name: str) -> np.ndarray:
    """Central finite differences of the head's loss for every entry of matrix ``name``."""
    grad = np.zeros_like(mats[name])
    for idx in np.ndindex(grad.shape):
        def loss_at(v, idx=idx):
            changed = {k: m.copy() for k, m in mats.items()}
            changed[name][idx] = v
            return sa.head_loss_and_gradients(changed["w_q"], changed["w_k"], changed["w_v"])["loss"]
        grad[idx] = central(loss_at, mats[name][idx])
    return grad


def test_the_syllabus_numbers_at_c_zero():
    r = sa.apple_sweet_loss(0.0)
    assert r["weight"] == 0.5 and r["loss"] == 0.5
    np.testing.assert_array_equal(r["output"], [0.5, 0.5])
    assert round(sa.apple_sweet_gradient(0.0), 4) == -0.3536


@pytest.mark.parametrize("c", [-3.0, -0.7, 0.0, 0.354, 1.0, 2.5, 6.0])
def test_c_gradient_equals_central_finite_differences(c):
    numeric = central(lambda v: sa.apple_sweet_loss(v)["loss"], c)
    np.testing.assert_allclose(sa.apple_sweet_gradient(c), numeric, rtol=1e-6, atol=1e-10)


@pytest.mark.parametrize("c", [-2.0, 0.0, 1.5])
def test_c_gradient_is_the_w_q_entry_of_the_full_gradient(c):
    g = sa.head_loss_and_gradients(learning.query_matrix(c), np.eye(2), np.eye(2))
    np.testing.assert_allclose(g["w_q"][1, 0], sa.apple_sweet_gradient(c), rtol=1e-12)
    np.testing.assert_allclose(g["loss"], sa.apple_sweet_loss(c)["loss"], rtol=1e-12)


def test_closed_form_loss_matches_the_head():
    for c in np.linspace(-4, 8, 25):
        s = 1 / (1 + np.exp(-c / np.sqrt(2)))
        r = sa.apple_sweet_loss(float(c))
        np.testing.assert_allclose([r["weight"], r["loss"]], [s, 2 * (1 - s) ** 2], rtol=1e-12)


def test_descent_raises_c_ever_more_slowly_and_the_loss_falls_but_never_reaches_zero():
    path = sa.descend(0.0, 200)
    steps = np.diff(path)
    assert (steps > 0).all() and (np.diff(steps) < 0).all()
    losses = [sa.apple_sweet_loss(float(c))["loss"] for c in path]
    assert (np.diff(losses) < 0).all() and losses[-1] > 0
    np.testing.assert_allclose(path[1], -learning.LEARNING_RATE * sa.apple_sweet_gradient(0.0))


@pytest.mark.parametrize("c0", [-4.0, -2.0])
def test_from_far_left_the_steps_first_grow_then_shrink_past_the_steepest_c(c0):
    # Chapter 5: the steps shrink only once s > 1/3; from a start left of steepest_c they grow first.
    path = sa.descend(c0, 60)
    steps = np.diff(path)
    top = int(np.argmax(steps))
    assert top > 0 and (np.diff(steps[:top + 1]) > 0).all() and (np.diff(steps[top:]) < 0).all()
    # The largest step starts next to the steepest point: it lies between the steps either side.
    assert path[top - 1] <= learning.steepest_c() <= path[top + 1]


def test_steepest_c_is_where_the_gradient_is_largest_and_s_is_one_third():
    c = learning.steepest_c()
    np.testing.assert_allclose(sa.apple_sweet_loss(c)["weight"], 1 / 3, rtol=1e-12)
    grid = np.linspace(-6.0, 6.0, 12_001)
    sizes = [abs(sa.apple_sweet_gradient(float(g))) for g in grid]
    assert abs(grid[int(np.argmax(sizes))] - c) < 2e-3


def test_descent_is_deterministic_and_matches_repeated_steps():
    a, b = sa.descend(0.0, 30), sa.descend(0.0, 30)
    np.testing.assert_array_equal(a, b)
    c = 0.0
    for _ in range(30):
        c = sa.gradient_step(c)
    assert c == a[-1]


@pytest.mark.parametrize("number", sorted(learning.RUNS))
def test_every_full_matrix_gradient_equals_finite_differences_in_each_runs_configuration(number):
    spec = learning.RUNS[number]
    mats = learning.start_matrices(spec["start"])
    # At the start and after some training (the gradients are checked where the run goes).
    trained = sa.train_head(mats["w_q"], mats["w_k"], mats["w_v"], train=spec["train"], steps=20)
    for state in (mats, {k: trained[k] for k in learning.MATRICES}):
        g = sa.head_loss_and_gradients(state["w_q"], state["w_k"], state["w_v"])
        for name in learning.MATRICES:
            np.testing.assert_allclose(g[name], numeric_gradient(state, name), rtol=1e-5, atol=1e-8,
                                       err_msg=f"run {number}, {name}")


def test_gradients_on_other_words_and_shapes_equal_finite_differences():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(4, 3))
    w_q, w_k, w_v = rng.normal(size=(3, 2)), rng.normal(size=(3, 2)), rng.normal(size=(3, 5))
    target = rng.normal(size=5)
    g = sa.head_loss_and_gradients(w_q, w_k, w_v, x, target, word=2)
    mats = {"w_q": w_q, "w_k": w_k, "w_v": w_v}
    for name in learning.MATRICES:
        grad = np.zeros_like(mats[name])
        for idx in np.ndindex(grad.shape):
            def loss_at(v, idx=idx, name=name):
                m = {k: a.copy() for k, a in mats.items()}
                m[name][idx] = v
                return sa.head_loss_and_gradients(m["w_q"], m["w_k"], m["w_v"], x, target, word=2)["loss"]
            grad[idx] = central(loss_at, mats[name][idx])
        np.testing.assert_allclose(g[name], grad, rtol=1e-5, atol=1e-8, err_msg=name)


@pytest.mark.parametrize("number", sorted(learning.RUNS))
def test_each_run_lowers_the_loss_and_is_deterministic(number):
    a, b = sa.training_run(number, steps=300), sa.training_run(number, steps=300)
    assert a["losses"][-1] < a["losses"][0] and a["losses"][-1] < 0.01
    assert (np.diff(a["losses"]) <= 1e-12).all()
    for key in ("w_q", "w_k", "w_v", "losses", "weights"):
        np.testing.assert_array_equal(a[key], b[key])


def test_run_one_keeps_w_v_fixed_and_only_w_v_training_keeps_the_weights():
    r = sa.training_run(1, steps=100)
    np.testing.assert_array_equal(r["w_v"], np.eye(2))
    v_only = sa.train_head(np.eye(2), np.eye(2), np.eye(2), train=["w_v"], steps=100)
    start_w = sa.attention_head(sa.apple_sweet()[0], np.eye(2), np.eye(2), np.eye(2), return_weights=True)[1]
    np.testing.assert_array_equal(v_only["weights"], start_w)
    assert v_only["loss"] < 1e-3


def test_the_random_starts_are_seeded_and_differ():
    a, b = learning.start_matrices(1), learning.start_matrices(2)
    np.testing.assert_array_equal(a["w_q"], learning.start_matrices(1)["w_q"])
    assert not np.allclose(a["w_q"], b["w_q"])


@pytest.mark.parametrize("call, error, words", [
    (lambda: sa.apple_sweet_loss("1"), TypeError, "c must be a real number"),
    (lambda: sa.apple_sweet_loss(float("inf")), ValueError, "c must be finite"),
    (lambda: sa.gradient_step(0.0, -1.0), ValueError, "learning_rate must be positive"),
    (lambda: sa.descend(0.0, 0), ValueError, "steps must be a positive integer"),
    (lambda: sa.descend(0.0, 2.5), TypeError, "steps must be a positive integer"),
    (lambda: sa.head_loss_and_gradients(np.eye(2), np.eye(2), np.eye(3)), ValueError, "w_v must have shape"),
    (lambda: sa.head_loss_and_gradients(np.eye(2), np.eye(2), np.eye(2), word=2), ValueError, "word must be a row"),
    (lambda: sa.head_loss_and_gradients(np.eye(2), np.eye(2), np.eye(2), word=1.0), TypeError, "word must be"),
    (lambda: sa.head_loss_and_gradients(np.eye(2), np.eye(2), np.eye(2), target=[1, 0, 0]), ValueError,
     "target must have shape"),
    (lambda: sa.train_head(np.eye(2), np.eye(2), np.eye(2), train=["w_x"]), ValueError, "train must name"),
    (lambda: learning.start_matrices(1.5), TypeError, "start must be"),
    (lambda: sa.training_run(5), ValueError, "number must be one of the runs"),
])
def test_bad_input_gets_a_clear_error(call, error, words):
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        call()
