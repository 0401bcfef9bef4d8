"""Every bad input of booktools.badinputs gets a clear TypeError or ValueError."""

from __future__ import annotations

import inspect
import re
import types

import pytest

import selfattention as sa
from booktools import badinputs
from booktools.badinputs import (
    CASES,
    EXPECTED_ERRORS,
    BadInput,
    bad_input_table,
    names_argument,
    run_case,
)
from booktools.tables import code

#: Messages known not to name the argument, by case description. Each is a
#: strict xfail: once the package names the argument, the test fails until
#: the entry is removed.
KNOWN_UNNAMED = {
    "a weight holding NaN":
        "check_bert_weights checks names and shapes only; a later layer reports x",
}

#: Public names that take no input that could be wrong.
NO_BAD_INPUT = {
    "three_words": "takes no argument",
    "i_love_cats": "takes no argument",
    "cat_is_sleeping": "takes no argument",
    "apple_sweet": "takes no argument",
    "Feedback": "a record that stores any verdict and message",
    "BertOutput": "a record (NamedTuple) of the arrays bert_forward computed",
    "check_head": "any argument, a function or not, gets feedback, never an error",
    "TinyDecoder": "a record (NamedTuple) of the weights tiny_decoder makes",
    "decode_example": "the exercise's fixed inputs, from a seed",
    "top_p_example": "takes no argument: the exercise's fixed inputs",
    "bits_example": "takes no argument: the exercise's fixed inputs",
}


def _case_id(case: BadInput) -> str:
    return f"{case.function}-{case.argument}-{CASES.index(case)}"


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_every_bad_input_raises_a_type_or_value_error(case):
    with pytest.raises((TypeError, ValueError)):
        case.call()


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=KNOWN_UNNAMED[c.description]))
     if c.description in KNOWN_UNNAMED else c for c in CASES],
    ids=_case_id,
)
def test_every_error_message_names_the_argument(case):
    with pytest.raises((TypeError, ValueError)) as info:
        case.call()
    assert names_argument(str(info.value), case.argument), str(info.value)


def test_known_unnamed_messages_are_cases():
    assert set(KNOWN_UNNAMED) <= {c.description for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_the_argument_at_fault_is_a_parameter_of_the_function(case):
    params = inspect.signature(getattr(sa, case.function)).parameters
    assert case.argument in params


def test_every_public_function_gets_bad_inputs():
    public = {name for name in sa.__all__
              if callable(getattr(sa, name)) and not isinstance(getattr(sa, name), types.ModuleType)}
    tried = {c.function for c in CASES}
    assert public - set(NO_BAD_INPUT) - tried == set()
    assert tried <= public


def test_cases_have_distinct_descriptions_per_function():
    keys = [(c.function, c.description) for c in CASES]
    assert len(keys) == len(set(keys))


def test_a_call_that_raises_nothing_is_recorded_as_no_error():
    outcome = run_case(BadInput("causal_mask", "a good input", "L", (2,)))
    assert (outcome.error, outcome.message) == ("", "")


def test_the_table_refuses_an_input_that_raises_nothing():
    with pytest.raises(AssertionError, match="no error"):
        bad_input_table([BadInput("causal_mask", "a good input", "L", (2,))])


def test_the_table_refuses_an_input_that_raises_another_kind_of_error(monkeypatch):
    def boom(x):
        return 1 / 0

    monkeypatch.setattr(sa, "boom", boom, raising=False)
    with pytest.raises(AssertionError, match="ZeroDivisionError"):
        bad_input_table([BadInput("boom", "zero", "x", (0,))])
    assert EXPECTED_ERRORS == ("TypeError", "ValueError")


def test_the_table_is_a_numbered_myst_table_with_one_row_per_case():
    text = bad_input_table()._repr_markdown_()
    lines = text.splitlines()
    assert lines[0].startswith(":::{table} ") and lines[1] == ":name: tbl-bad-inputs"
    assert lines[-1] == ":::"
    rows = [ln for ln in lines if ln.startswith("| ")]
    assert len(rows) == 1 + len(CASES)  # the header, then one row per case
    for row in rows:  # an unescaped | would add a column
        assert len(re.findall(r"(?<!\\)\|", row)) == 4, row


def test_every_message_shows_in_the_table():
    text = bad_input_table().markdown()
    for outcome in badinputs.run_cases():
        assert code(outcome.message) in text
