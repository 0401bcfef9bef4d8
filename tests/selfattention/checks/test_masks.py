"""check_causal_mask: the causal mask of chapter 8."""

import numpy as np
import pytest

import selfattention as _sa

# check_causal_mask (chapter "Causal masking")

@pytest.mark.parametrize("n", [1, 3, 6])
def test_check_causal_mask_accepts_the_package_mask(n):
    verdict = _sa.check_causal_mask(_sa.causal_mask(n), n)
    assert verdict.ok and "itself included" in verdict.message


@pytest.mark.parametrize("build, text", [
    (lambda n: np.tri(n, k=-1, dtype=bool), "diagonal is blocked"),
    (lambda n: np.tri(n, dtype=bool).T, "upper triangle"),
    (lambda n: ~np.tri(n, dtype=bool), "swapped"),
    (lambda n: np.tri(n), "float64 numbers"),
    (lambda n: np.tri(n, dtype=int), "refuses an integer mask"),
    (lambda n: np.ones((n, n + 1), dtype=bool), "shape (4, 5)"),
    (lambda n: "mask", "array of booleans"),
])


def test_check_causal_mask_names_the_slip(build, text):
    verdict = _sa.check_causal_mask(build(4), 4)
    assert not verdict.ok and text in verdict.message


def test_check_causal_mask_points_at_a_wrong_cell():
    m = _sa.causal_mask(4).copy()
    m[3, 1] = False
    verdict = _sa.check_causal_mask(m)
    assert not verdict and "Row 3, column 1" in verdict.message and "token 3 may read token 1" in verdict.message


def test_check_causal_mask_refuses_a_bad_n():
    with pytest.raises(ValueError, match="positive integer"):
        _sa.check_causal_mask(np.ones((1, 1), dtype=bool), 0)
