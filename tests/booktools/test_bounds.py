"""Bounds in prose round the safe way: up after "at most", down after "over"."""

from __future__ import annotations

import numpy as np
import pytest

from booktools.bounds import DOWN, NEAREST, UP, bound, holds, unit_of


def test_at_most_rounds_up_the_issue_example():
    assert bound(1.446e-4, "at most", digits=2) == "1.5e-04"
    assert bound(1.446e-4, "about", digits=2) == "1.4e-04"


def test_over_rounds_down_the_issue_example():
    assert bound(16_384_000_000 / 1e9, "over", decimals=1) == "16.3"
    assert bound(16_384_000_000 / 1e9, "about", decimals=1) == "16.4"


def test_an_exact_value_is_not_moved():
    assert bound(0.25, "at most", decimals=2) == "0.25"
    assert bound(0.25, "over", decimals=2) == "0.25"
    assert bound(1e-3, "at most", digits=1) == "1e-03"


def test_mantissa_that_rounds_to_ten_is_renormalised():
    assert bound(9.96e-5, "at most", digits=2) == "1.0e-04"


def test_grouping_and_negative_decimals():
    assert bound(136_755, "under", decimals=-3, grouping=True) == "137,000"
    assert bound(136_755, "over", decimals=-3, grouping=True) == "136,000"
    assert bound(1234.5, "about", decimals=0, grouping=True) == "1,234"


def test_zero_and_negative_zero():
    assert bound(0.0, "at most", digits=2) == "0"
    assert bound(-1e-9, "at most", decimals=2) == "0.00"


@pytest.mark.parametrize("word", UP + DOWN + NEAREST)
def test_every_bound_holds_on_random_values(word):
    rng = np.random.default_rng(0)
    for value in np.concatenate([rng.uniform(-5, 5, 200), 10.0 ** rng.uniform(-12, 12, 200)]):
        for fmt in ({"decimals": 2}, {"digits": 2}, {"digits": 3}):
            text = bound(value, word, **fmt)
            assert holds(text, value, word), (value, word, fmt, text)
            if word in NEAREST:
                scale = 10.0 ** -fmt["decimals"] if "decimals" in fmt else \
                    10.0 ** (np.floor(np.log10(abs(value))) - fmt["digits"] + 1)
                assert abs(float(text) - value) <= 0.5 * scale * (1 + 1e-9) + 1e-15 * abs(value)


def test_holds_catches_a_wrong_bound():
    assert not holds("1.4e-04", 1.446e-4, "at most")
    assert not holds("16.4", 16.384, "over")


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="unknown bound word 'roughly'"):
        bound(1.0, "roughly", decimals=1)
    with pytest.raises(ValueError, match="exactly one of"):
        bound(1.0, "about")
    with pytest.raises(ValueError, match="exactly one of"):
        bound(1.0, "about", decimals=1, digits=2)
    with pytest.raises(ValueError, match="not finite"):
        bound(float("nan"), "about", digits=2)
    with pytest.raises(ValueError, match="digits must be >= 1"):
        bound(1.0, "about", digits=0)


@pytest.mark.parametrize("text, value", [("6", 5.58), ("6", 6.4999), ("0.77", 0.768), ("0.77", 0.7749),
                                         ("1.4e-04", 1.446e-4), ("137,000", 136_755), ("2.50", 2.504),
                                         ("0", 0.4), ("-0.35", -0.3549)])
def test_about_holds_when_the_value_rounds_to_the_text(text, value):
    assert holds(text, value, "about")


@pytest.mark.parametrize("text, value", [("999", 1.0), ("6", 5.4), ("6", 6.51), ("0.77", 0.7649),
                                         ("0.77", 0.776), ("1.4e-04", 1.46e-4), ("137,000", 137_600),
                                         ("2.50", 2.506), ("0", 0.6), ("-0.35", -0.356)])
def test_about_fails_when_the_value_does_not_round_to_the_text(text, value):
    assert not holds(text, value, "about")


def test_unit_of_the_last_digit_shown():
    assert [float(unit_of(t)) for t in ("0.77", "6", "1.4e-04", "137,000", "1,234", "0", "2.50", "1e-03")] == \
        [0.01, 1.0, 1e-5, 1000.0, 1.0, 1.0, 0.01, 1e-3]
