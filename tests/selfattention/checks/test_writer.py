"""check_top_p and check_bits_per_character: the two exercises of chapter "A model that writes"."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import selfattention as sa
from selfattention.checks import writer
from selfattention.checks._compare import EPS32, close

CHARS, PROBS, P = sa.top_p_example()
ORDER = np.argsort(-PROBS, kind="stable")                             # m, f, s, b, r, c, t, w


def keep(ids, probs=PROBS):
    kept = np.zeros_like(probs)
    kept[ids] = probs[ids]
    return kept / kept.sum()


RIGHT = keep(ORDER[:3])                                                # m, f, s: 0.3 + 0.2 + 0.15 reach 0.6

B_CHARS, B_TEXT, B_PROBS = sa.bits_example()
B_NEXT = B_PROBS[np.arange(6), [B_CHARS.index(c) for c in B_TEXT[1:]]]  # (6,)
BPC = float(np.mean(-np.log2(B_NEXT)))


def slips_of(check, *args):
    """The slips a checker compares against, by spying on its call of compare."""
    seen = {}

    def spy(*a, **k):
        seen.update(k, expected=a[1])
        return compare(*a, **k)

    compare = writer.compare
    writer.compare = spy
    try:
        check(*args)
    finally:
        writer.compare = compare
    return seen["expected"], [(np.asarray(v, dtype=np.float64), slip) for v, slip, _ in seen["slips"] if v is not None]


# --- the examples --------------------------------------------------------------------------------------------


def test_the_top_p_example_keeps_three_characters_far_from_the_edge():
    total = np.cumsum(PROBS[ORDER])
    assert [CHARS[i] for i in ORDER[:3]] == ["m", "f", "s"]
    assert total[1] < P < total[2] and min(P - total[1], total[2] - P) >= 0.05   # float32 cannot move the edge
    assert len(set(PROBS.tolist())) == PROBS.size                      # no tie: the tie order cannot matter
    assert CHARS == "".join(sorted(CHARS)) and abs(PROBS.sum() - 1) < 1e-12


def test_the_bits_example_rows_are_distributions_and_the_model_misses_once():
    assert B_PROBS.shape == (len(B_TEXT) - 1, len(B_CHARS))
    np.testing.assert_allclose(B_PROBS.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert (B_PROBS > 0).all()
    missed = np.flatnonzero(B_NEXT < B_PROBS.max(axis=1))
    assert missed.tolist() == [3]                                      # after "the ", the model bets on t, not c


@pytest.mark.parametrize("check, args", [(sa.check_top_p, (RIGHT,)), (sa.check_bits_per_character, (BPC,))],
                         ids=["top_p", "bits"])
def test_every_slip_of_the_examples_gives_another_answer(check, args):
    expected, slips = slips_of(check, *args)
    for value, slip in slips:
        assert not close(value, expected, EPS32), slip
    for (a, s1), (b, s2) in itertools.combinations(slips, 2):
        assert s1 == s2 or not close(a, b, EPS32), (s1, s2)


def test_the_examples_are_new_arrays_each_call():
    sa.top_p_example()[1][:] = 0
    sa.bits_example()[2][:] = 0
    assert sa.top_p_example()[1].sum() == pytest.approx(1) and sa.bits_example()[2].sum() == pytest.approx(6)


# --- check_top_p ----------------------------------------------------------------------------------------------


def test_the_right_answer_is_the_writers_own_top_p():
    np.testing.assert_allclose(sa.writer.next_distribution(np.log(PROBS), top_p=P), RIGHT, rtol=1e-12, atol=1e-15)
    assert sa.check_top_p(sa.writer.next_distribution(np.log(PROBS), top_p=P)).ok


@pytest.mark.parametrize("form", [list, tuple, np.float32, np.float64], ids=["list", "tuple", "float32", "float64"])
def test_top_p_accepts_every_form_of_the_right_answer(form):
    answer = RIGHT.astype(form) if form in (np.float32, np.float64) else form(RIGHT.tolist())
    verdict = sa.check_top_p(answer)
    assert verdict.ok and verdict.message == ("Right: top-p with p = 0.6 keeps 3 of the 8 characters, and every "
                                              "probability matches."), verdict.message


def test_top_p_keeps_the_lower_id_on_a_tie_as_the_writer_does():
    probs = np.array([0.2, 0.4, 0.4])                                   # reach 0.3 with one of the two 0.4
    assert sa.check_top_p([0.0, 1.0, 0.0], probs, 0.3).ok
    assert not sa.check_top_p([0.0, 0.0, 1.0], probs, 0.3).ok


def test_top_p_keeps_the_character_that_reaches_p_exactly():
    probs = np.array([0.5, 0.25, 0.25])                                 # 0.5 + 0.25 is exactly 0.75 in binary
    assert sa.check_top_p([2 / 3, 1 / 3, 0.0], probs, 0.75).ok
    assert sa.check_top_p([1.0, 0.0, 0.0], probs, 0.5).ok


def test_top_p_with_p_1_keeps_everything():
    assert sa.check_top_p(PROBS, p=1.0).ok
    assert sa.check_top_p(PROBS * 0.5, p=1.0).slip == "not-one"
    assert sa.check_top_p(PROBS[:-1], p=1.0).slip == "shape"           # no character is cut: no tip for it


@pytest.mark.parametrize("answer, message", [
    (keep(ORDER[:3]) * 0.65, "did not renormalise: divide their probabilities by their total, 0.65."),
    (keep(ORDER[:2]), "You stopped one character short"),
    (keep(ORDER[:4]), "You kept one character too many"),
    (keep(ORDER[1:]), "You kept the least likely characters"),
    (keep([0, 1, 2, 3]), "in the characters' own order"),
    (keep(ORDER[:5]), "That keeps the 5 most likely characters, a fixed number (top-k)"),
    (keep(ORDER[:1]), "That keeps only the most likely character (greedy)"),
    (RIGHT[RIGHT > 0], "kept has shape (3,) but should be (8,): one probability per character (8), in the order "
                       "of chars, 0 for those cut. Keep a 0 for every character cut."),
    (RIGHT * 1.1, "Your probabilities add up to 1.1, not 1"),
])
def test_top_p_slips_get_their_message(answer, message):
    verdict = sa.check_top_p(answer)
    assert not verdict.ok and message in verdict.message, verdict.message


@pytest.mark.parametrize("offset", [1e-3, 3e-5, 1e-9])
def test_a_total_off_by_a_little_is_printed_with_enough_digits_to_differ(offset):
    answer = RIGHT.copy()
    answer[np.argmax(answer)] *= 1 + offset
    verdict = sa.check_top_p(answer)
    shown = verdict.message.split("add up to ")[1].split(",")[0]
    assert verdict.slip == "not-one" and float(shown) != 1.0, verdict.message


def test_a_wrong_value_that_adds_up_to_1_is_a_wrong_value():
    answer = RIGHT.copy()
    answer[[2, 3]] = answer[[3, 2]]                                     # m and f swapped
    verdict = sa.check_top_p(answer)
    assert verdict.slip == "value" and "at position 2: 0.4615 where 0.3077 was expected" in verdict.message


@pytest.mark.parametrize("kwargs, error, message", [
    ({"probs": [0.5, 0.6]}, ValueError, "probs must be probabilities"),
    ({"probs": [[0.5, 0.5]]}, ValueError, "probs must be one distribution"),
    ({"probs": [-0.5, 1.5]}, ValueError, "probs must be probabilities"),
    ({"probs": ["a", "b"]}, TypeError, "probs must be numeric"),
    ({"p": 0.0}, ValueError, "p must be above 0 and at most 1"),
    ({"p": 1.5}, ValueError, "p must be above 0"),
    ({"p": True}, TypeError, "p must be a number"),
    ({"p": "0.6"}, TypeError, "p must be a number"),
])
def test_top_p_bad_inputs_raise(kwargs, error, message):
    with pytest.raises(error, match=message):
        sa.check_top_p(RIGHT, **kwargs)


# --- check_bits_per_character ---------------------------------------------------------------------------------


def test_bits_right_answer_in_every_form():
    for answer in (BPC, np.float32(BPC), np.float64(BPC), [BPC][0], np.array(BPC)):
        verdict = sa.check_bits_per_character(answer)
        assert verdict.ok, verdict.message
    assert sa.check_bits_per_character(BPC).message == ("Right: 1.1813 bits per character, the mean of -log2 p "
                                                        "over the 6 characters the model guessed.")


def test_bits_ln_is_the_right_answer_times_ln_2():
    assert sa.check_bits_per_character(BPC * math.log(2)).slip == "ln"
    assert sa.check_bits_per_character(BPC * math.log10(2)).slip == "log10"


@pytest.mark.parametrize("answer, slip", [
    (np.sum(-np.log(B_NEXT)), "sum"),                                  # two slips: the first named
    (np.mean(np.log(B_NEXT)), "sign"),
    (np.sum(-np.log2(B_NEXT)) / 7 * math.log(2), "count-first"),
])
def test_two_slips_at_once_get_the_first_named(answer, slip):
    assert sa.check_bits_per_character(answer).slip == slip


def test_bits_works_for_another_text():
    probs = np.array([[0.5, 0.5], [0.25, 0.75]])
    assert sa.check_bits_per_character(np.mean([1.0, -np.log2(0.75)]), "ab", "aab", probs).ok
    assert sa.check_bits_per_character(np.mean([1.0, 2.0]), "ab", "aab", probs).slip == "read-char"


@pytest.mark.parametrize("kwargs, error, message", [
    ({"chars": "ab"}, ValueError, "give chars, text and probs together"),
    ({"chars": ["a", "b"], "text": "ab", "probs": [[0.5, 0.5]]}, TypeError, "chars must be a str"),
    ({"chars": "ab", "text": 12, "probs": [[0.5, 0.5]]}, TypeError, "text must be a str"),
    ({"chars": "aab", "text": "ab", "probs": [[0.5, 0.5]]}, ValueError, "chars must hold each character once"),
    ({"chars": "ab", "text": "a", "probs": np.ones((0, 2))}, ValueError, "text must hold at least 2 characters"),
    ({"chars": "ab", "text": "abc", "probs": np.ones((2, 2)) / 2}, ValueError, r"\['c'\] are not in chars"),
    ({"chars": "ab", "text": "ab", "probs": [0.5, 0.5]}, ValueError, "probs must have shape"),
    ({"chars": "ab", "text": "ab", "probs": [[0.5, 0.6]]}, ValueError, "probs must hold one distribution per row"),
    ({"chars": "ab", "text": "ab", "probs": [[1.0, 0.0]]}, ValueError, "a probability above 0"),
    ({"chars": "ab", "text": "ab", "probs": [["x", "y"]]}, TypeError, "probs must be numeric"),
])
def test_bits_bad_inputs_raise(kwargs, error, message):
    with pytest.raises(error, match=message):
        sa.check_bits_per_character(BPC, **kwargs)
