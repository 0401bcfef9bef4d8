"""check_rope: the right vector passes, each slip of the exercise gets its own message."""

from __future__ import annotations

import numpy as np
import pytest

import selfattention as sa


def test_the_right_vector_passes_for_other_vectors_and_positions():
    x = np.array([0.5, -1.0, 2.0, 0.0])
    assert sa.check_rope(sa.rope(x, [7])[0], x, 7)
    assert sa.check_rope(x, x, 0)          # position 0 turns nothing


@pytest.mark.parametrize("answer, words", [
    (sa.rope_rotate_half(np.arange(1.0, 7.0), [3])[0], "rotate half"),
    (sa.rope(np.arange(1.0, 7.0), [4])[0], "(m + 1)"),
    (sa.rope(np.arange(1.0, 7.0), [3], base=500_000.0)[0], "wrong base (500000)"),
])
def test_each_slip_gets_its_own_message(answer, words):
    verdict = sa.check_rope(answer)
    assert not verdict.ok and words in verdict.message


@pytest.mark.parametrize("x, position, kind", [
    (np.ones(5), 3, ValueError),
    (np.ones((2, 4)), 3, ValueError),
    (np.ones(4), -1, ValueError),
    (np.ones(4), 1.5, ValueError),
    (["a", "b"], 1, TypeError),
])
def test_a_malformed_exercise_is_an_error(x, position, kind):
    with pytest.raises(kind):
        sa.check_rope(np.ones(4), x, position)
