"""check_gradient_step: the checker of one gradient step by hand (chapter 5)."""

import selfattention as sa


def test_check_gradient_step_names_each_mistake():
    c = 1.0
    g = sa.apple_sweet_gradient(c)
    s = sa.apple_sweet_loss(c)["weight"]
    assert sa.check_gradient_step(sa.gradient_step(c)).ok
    cases = {c + g: "up the gradient", g: "gradient itself", -g: "step alone",
             c + 2 * s * (1 - s) ** 2: "not 1/2", c + 4 * s * (1 - s) ** 2: "you left out the 1/sqrt(2)",
             5.0: "Not yet"}
    for value, words in cases.items():
        verdict = sa.check_gradient_step(value)
        assert not verdict.ok and words in verdict.message, (value, verdict.message)
    assert "learning rate" in sa.check_gradient_step(c - g, learning_rate=0.5).message
    assert not sa.check_gradient_step("abc").ok and not sa.check_gradient_step(float("nan")).ok
