"""The Python side of self-checks: markup, data, and clear errors for bad specs."""

import json
import re

import pytest

from booktools.selfcheck import (
    balance_problems,
    check_data,
    choose_check,
    format_answer,
    number_check,
    predict_check,
    shape_check,
    skip_test,
    too_few_decimals,
)

HINTS = ["first hint", "second hint, which says more"]


def data_of(block):
    raw = re.search(r'<script type="application/json" class="sa-check-data">(.*?)</script>', block.markup)
    return json.loads(raw.group(1).replace("<\\/", "</"))


def accepts(data, x):
    """The acceptance rule that selfcheck.js applies to the page's data."""
    return abs(x - data["answer"]) <= max(data["atol"], data["rtol"] * abs(data["answer"]))


# --- number checks: the tolerance written into the page ----------------------

def test_number_check_with_decimals_accepts_half_a_unit_of_the_last_decimal():
    d = data_of(number_check("a", "q?", 1.7206, decimals=2, hints=HINTS))
    assert d["shown"] == "1.72"
    assert d["atol"] == pytest.approx(0.005, rel=1e-6)
    assert accepts(d, 1.7206 + 0.00499) and accepts(d, 1.7206 - 0.00499)
    assert not accepts(d, 1.7206 + 0.00501) and not accepts(d, 1.7206 - 0.00501)


@pytest.mark.parametrize("atol", [0.01, 0.5, 1e-9, 3.0])
def test_number_check_writes_the_given_atol_into_the_page(atol):
    d = data_of(number_check("a", "q?", 4.0, atol=atol, hints=HINTS))
    assert d["atol"] == atol and d["rtol"] == 0.0
    assert accepts(d, 4.0 + 0.99 * atol) and accepts(d, 4.0 - 0.99 * atol)
    assert not accepts(d, 4.0 + 1.01 * atol) and not accepts(d, 4.0 - 1.01 * atol)


def test_number_check_writes_the_given_rtol_into_the_page():
    d = data_of(number_check("a", "q?", 200.0, rtol=0.01, hints=HINTS))
    assert d["rtol"] == 0.01 and d["atol"] == 0.0
    assert accepts(d, 201.99) and not accepts(d, 202.01)


def test_decimals_override_any_atol_or_rtol():
    d = data_of(number_check("a", "q?", 1.0, decimals=1, atol=3.0, rtol=0.5, hints=HINTS))
    assert d["atol"] == pytest.approx(0.05, rel=1e-6) and d["rtol"] == 0.0


def test_number_check_needs_a_tolerance():
    with pytest.raises(ValueError, match="needs a tolerance"):
        number_check("a", "q?", 1.0, hints=HINTS)


@pytest.mark.parametrize("kwargs", [{"atol": -1.0}, {"rtol": -0.1, "atol": 0.1}, {"atol": float("inf")}])
def test_number_check_rejects_a_negative_or_infinite_tolerance(kwargs):
    with pytest.raises(ValueError, match="atol and rtol must be finite"):
        number_check("a", "q?", 1.0, hints=HINTS, **kwargs)


@pytest.mark.parametrize("value, shown", [(1_000_000.0, "1,000,000"), (2.0, "2"), (72, "72"),
                                          (4.0, "4"), (0.25, "0.25"), (8.88e-16, "8.88e-16")])
def test_answers_are_shown_as_a_reader_writes_them(value, shown):
    assert format_answer(value) == shown
    assert data_of(number_check("a", "q?", value, atol=0.5, hints=HINTS))["shown"] == shown


# --- graduated hints and diagnoses --------------------------------------------

def test_hints_are_kept_in_order():
    assert data_of(number_check("a", "q?", 2.0, atol=0, hints=HINTS))["hints"] == HINTS


@pytest.mark.parametrize("hints, error, match", [
    ("just one string", TypeError, "list of at least 2"),
    (["only one"], ValueError, "at least 2 graduated"),
    (["same", "same"], ValueError, "must all differ"),
    (["fine", ""], ValueError, "non-empty"),
])
def test_hints_must_be_graduated(hints, error, match):
    with pytest.raises(error, match=match):
        number_check("a", "q?", 2.0, atol=0, hints=hints)
    with pytest.raises(error, match=match):
        shape_check("s", "q?", (2, 3), hints=hints)


def test_number_check_names_likely_wrong_answers():
    d = data_of(number_check("a", "cat · dog?", 2.0, atol=1e-9, hints=HINTS,
                             diagnoses={4: "That is cat · cat.", 0: "That is cat · car."}))
    assert d["diagnoses"] == [[4.0, "That is cat · cat."], [0.0, "That is cat · car."]]


def test_a_diagnosis_may_not_name_an_answer_that_counts_as_right():
    with pytest.raises(ValueError, match="would be accepted as right"):
        number_check("a", "q?", 1.72, decimals=2, hints=HINTS, diagnoses={1.721: "rounding"})


def test_shape_check_names_likely_wrong_shapes():
    d = data_of(shape_check("s", "q?", (5, 4), hints=HINTS, diagnoses={(4, 5): "Swapped."}))
    assert d["diagnoses"] == [[[4, 5], "Swapped."]]
    with pytest.raises(ValueError, match="would be accepted"):
        shape_check("s", "q?", (5, 4), hints=HINTS, diagnoses={(5, 4): "oops"})


@pytest.mark.parametrize("bad_id", ["A", "has space", "", "-x"])
def test_check_id_must_be_a_slug(bad_id):
    with pytest.raises(ValueError, match="check_id"):
        number_check(bad_id, "q?", 1.0, atol=0, hints=HINTS)


# --- choices ---------------------------------------------------------------------

WRONG = {"the wrong option": "hint for wrong", "another wrong one": "hint for another",
         "a third wrong option": "hint for third"}


def labels_of(block):
    return [t.strip() for t in re.findall(r'value="\d"> ([^<]*)</label>', block.markup)]


def test_choose_check_gives_each_wrong_option_its_own_hint():
    block = choose_check("c", "q?", "right", WRONG)
    d = data_of(block)
    assert labels_of(block) == d["options"]
    assert d["options"][d["answer"]] == "right" and d["hints"][d["answer"]] is None
    for option, hint in zip(d["options"], d["hints"], strict=True):
        if option != "right":
            assert hint == WRONG[option]


def test_options_are_shuffled_by_the_check_id_and_the_same_on_every_build():
    orders = {tuple(labels_of(choose_check(f"c{i}", "q?", "right", WRONG))) for i in range(12)}
    assert len(orders) > 3
    positions = {data_of(choose_check(f"c{i}", "q?", "right", WRONG))["answer"] for i in range(12)}
    assert positions == {0, 1, 2, 3}
    assert choose_check("c1", "q?", "right", WRONG).markup == choose_check("c1", "q?", "right", WRONG).markup


def test_the_right_option_may_not_be_the_longest():
    with pytest.raises(ValueError, match="right option is the longest"):
        choose_check("c", "q?", "a much longer right option than the others", {"short": "h", "also": "h"})
    with pytest.raises(ValueError, match="right option is the longest"):
        predict_check("p", "q?", "a much longer outcome", {"short": "h"}, reveal="r")
    choose_check("c", "q?", "same size", {"size same": "h"})  # a tie is fine


@pytest.mark.parametrize("wrong, error, match", [
    (["a", "b"], TypeError, "dict"),
    ({}, TypeError, "at least one"),
    ({"b": ""}, ValueError, "hint for 'b'"),
    ({"right": "h"}, ValueError, "must all differ"),
])
def test_wrong_options_need_their_hints(wrong, error, match):
    with pytest.raises(error, match=match):
        choose_check("c", "q?", "right", wrong)


def test_shape_check_shows_a_tuple():
    assert data_of(shape_check("s", "q?", (5, 5), hints=HINTS))["shown"] == "(5, 5)"
    assert data_of(shape_check("s", "q?", (3,), hints=HINTS))["shown"] == "(3,)"


def test_predict_check_keeps_its_result_in_the_answer_block():
    block = predict_check("p", "q?", "up", {"down": "It is a product of positives."},
                          reveal="It went up by 4.")
    d = data_of(block)
    assert d["reveal"] == "It went up by 4." and d["kind"] == "predict"
    assert d["hints"][1 - d["answer"]] == "It is a product of positives."


# --- the text a reader sees -------------------------------------------------------

def test_the_answer_reads_well_and_appears_once():
    block = number_check("a", "q?", 2.0, atol=0, hints=HINTS, explain="Two products, added")
    assert "The answer is: <strong>2</strong>. Two products, added." in block.markup
    assert block.markup.count("<strong>2</strong>") == 1
    block = predict_check("p", "q?", "up", {"down": "h"}, reveal="It went up by 4")
    assert "The answer is: <strong>up</strong>. It went up by 4." in block.markup


def test_question_text_is_escaped():
    block = number_check("a", "is 1 < 2 & \"so\"?", 1.0, atol=0, hints=HINTS)
    assert "is 1 &lt; 2 &amp; &quot;so&quot;?" in block.markup


def test_each_check_has_a_markdown_version_for_notebooks():
    md = choose_check("c", "Which?", "right", WRONG)._repr_markdown_()
    assert md.startswith("**Self-check (choose one).** Which?")
    assert all(f"- {option}" in md for option in [*WRONG, "right"])
    assert "<details><summary>Answer</summary>" in md and "The answer is: **right**." in md
    md = number_check("a", "q?", 2.0, atol=0, hints=HINTS)._repr_markdown_()
    assert md.index("Hint 1") < md.index("Hint 2") < md.index("Answer")


def test_fold_is_off_unless_asked():
    assert 'data-fold="false"' in number_check("a", "q?", 1.0, atol=0, hints=HINTS).markup
    assert 'data-fold="true"' in number_check("a", "q?", 1.0, atol=0, hints=HINTS, fold=True).markup


# --- skip tests and pages ------------------------------------------------------------

def test_skip_test_takes_three_to_five_checks():
    checks = [number_check(f"s{i}", "q?", 1.0, atol=0, hints=HINTS) for i in range(6)]
    with pytest.raises(ValueError, match="3 to 5"):
        skip_test(checks[:2])
    with pytest.raises(ValueError, match="3 to 5"):
        skip_test(checks)
    block = skip_test(checks[:3])
    assert block.markup.count('class="sa-check"') == 3
    assert "does not count" in block.markup
    assert block._repr_markdown_().count("**Self-check") == 3


def test_a_page_with_balanced_choices_has_no_problems():
    page = "".join(choose_check(f"c{i}", "q?", "right", WRONG).markup for i in range(4))
    assert [d["kind"] for d in check_data(page)] == ["choose"] * 4
    assert balance_problems(page) == []


def test_a_page_whose_answers_share_one_place_is_flagged():
    ids = [f"c{i}" for i in range(40) if data_of(choose_check(f"c{i}", "q?", "right", WRONG))["answer"] == 0]
    page = "".join(choose_check(i, "q?", "right", WRONG).markup for i in ids[:3])
    assert balance_problems(page) == ["all 3 choice checks have their right option in place 1: reorder some"]


def test_a_right_option_that_is_the_longest_is_flagged_at_page_level():
    block = choose_check("c", "q?", "right", {"wrong": "h"})
    page = block.markup.replace("&quot;options&quot;", "").replace('"right", "wrong"', '"right!!", "wrong"')
    page = page.replace('"wrong", "right"', '"wrong", "right!!"').replace('"shown": "right"', '"shown": "right!!"')
    assert balance_problems(page) == ["the right option is the longest: 'right!!'"]


# --- diagnoses that cannot collide, and answers rounded too far --------------

def test_diagnoses_may_be_a_list_of_pairs():
    d = data_of(number_check("a", "q?", 3, atol=0, hints=HINTS, diagnoses=[(2, "off by one"), (8, "the whole row")]))
    assert d["diagnoses"] == [[2.0, "off by one"], [8.0, "the whole row"]]


def test_two_equal_diagnoses_are_refused():
    # The review's case: row_n = 6, row_i = 3, so row_n - row_open = row_i - 1 = 2.
    row_n, row_i, row_open = 6, 3, 4
    with pytest.raises(ValueError, match="two diagnoses collide at 2"):
        number_check("a", "q?", row_open, atol=0, hints=HINTS,
                     diagnoses=[(row_i, "off by one"), (row_n, "whole row"),
                                (row_n - row_open, "blocked keys"), (row_i - 1, "one more")])


def test_diagnoses_within_the_tolerance_of_each_other_are_refused():
    with pytest.raises(ValueError, match="collide"):
        number_check("a", "q?", 1.0, decimals=2, hints=HINTS, diagnoses=[(1.412, "x"), (1.414, "y")])
    number_check("a", "q?", 1.0, decimals=2, hints=HINTS, diagnoses=[(1.40, "x"), (1.414, "y")])


def test_a_diagnosis_equal_to_the_answer_is_refused_in_a_list_too():
    with pytest.raises(ValueError, match="would be accepted as right"):
        number_check("a", "q?", 3, atol=0, hints=HINTS, diagnoses=[(3, "that is right")])


def test_two_equal_shape_diagnoses_are_refused():
    with pytest.raises(ValueError, match="collide"):
        shape_check("s", "q?", (2, 3), hints=HINTS, diagnoses=[((3, 2), "swapped"), ([3, 2], "again")])


@pytest.mark.parametrize("bad", ["nope", [(1, "a", "b")], 3])
def test_diagnoses_of_another_kind_are_a_type_error(bad):
    with pytest.raises(TypeError, match="dict or a list of pairs"):
        number_check("a", "q?", 3, atol=0, hints=HINTS, diagnoses=bad)


@pytest.mark.parametrize("typed, answer, decimals, expected", [
    ("0.12", 0.125, 3, True), ("0.13", 0.125, 3, True), ("0.73", 0.731, 3, True), (".7", 0.731, 3, True),
    ("1", 1.2, 2, True), ("1.7", 1.7206, 2, True), (" 0.12 ", 0.125, 3, True),
    ("0.125", 0.125, 3, False), ("0.11", 0.125, 3, False), ("0.7", 0.76, 2, False),
    ("0.12", 0.125, None, False), ("1.2e-1", 0.125, 3, False), ("abc", 0.125, 3, False),
    ("0.5", 0.5, 2, False), ("2", 2.0, 3, False), ("0.5", 0.504, 2, False), ("0.5", 0.51, 2, True),
])
def test_too_few_decimals(typed, answer, decimals, expected):
    assert too_few_decimals(typed, answer, decimals) is expected


@pytest.mark.parametrize("typed", ["0.5", ".5", "0.50", "0.500"])
def test_an_exact_answer_with_fewer_decimals_is_accepted_and_never_called_rounded(typed):
    # Review R4-9: Mistral's cache at 4096 tokens is exactly 0.5 GiB, asked with 2 decimals.
    d = data_of(number_check("a", "q?", 2**29 / 2**30, decimals=2, hints=HINTS))
    assert abs(float(typed) - d["answer"]) <= d["atol"]          # the check's own rule accepts it
    assert not too_few_decimals(typed, d["answer"], d["decimals"])  # so the "rounded" message never shows


def test_a_check_with_decimals_writes_how_many_are_asked_for():
    d = data_of(number_check("a", "q?", 0.125, decimals=3, hints=HINTS))
    assert d["decimals"] == 3 and "give 3 decimals" in d["fewer_decimals"]
    one = data_of(number_check("b", "q?", 0.5, decimals=1, hints=HINTS))
    assert "give 1 decimal," in one["fewer_decimals"]
    assert "decimals" not in data_of(number_check("c", "q?", 0.5, atol=0.1, hints=HINTS))


@pytest.mark.parametrize("decimals, label", [(0, "Your answer (a whole number)"), (1, "Your answer (1 decimal)"),
                                             (3, "Your answer (3 decimals)")])
def test_number_check_label_says_how_many_decimals_in_good_english(decimals, label):
    block = number_check("a", "q?", 1.25, decimals=decimals, hints=HINTS)
    assert f">{label}</label>" in block.markup
