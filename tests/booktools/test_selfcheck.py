"""The Python side of self-checks: markup, data, and clear errors for bad specs."""

import json
import re

import pytest

from booktools.selfcheck import choose_check, number_check, predict_check, shape_check, skip_test


def data_of(block):
    raw = re.search(r'<script type="application/json" class="sa-check-data">(.*?)</script>', block.markup)
    return json.loads(raw.group(1).replace("<\\/", "</"))


def test_number_check_with_decimals_accepts_half_a_unit_of_the_last_decimal():
    d = data_of(number_check("a", "q?", 1.7206, decimals=2, hint="h"))
    assert d["shown"] == "1.72"
    assert d["atol"] == pytest.approx(0.005, rel=1e-6)


def test_number_check_needs_a_tolerance():
    with pytest.raises(ValueError, match="needs a tolerance"):
        number_check("a", "q?", 1.0, hint="h")


@pytest.mark.parametrize("bad_id", ["A", "has space", "", "-x"])
def test_check_id_must_be_a_slug(bad_id):
    with pytest.raises(ValueError, match="check_id"):
        number_check(bad_id, "q?", 1.0, atol=0, hint="h")


def test_choose_check_keeps_the_given_order_and_hints():
    block = choose_check("c", "q?", ["b", "a", "c"], 1, hint="h", hints=["x", None, "z"])
    labels = re.findall(r'value="(\d)"> (\w)</label>', block.markup)
    assert labels == [("0", "b"), ("1", "a"), ("2", "c")]
    assert data_of(block)["hints"] == ["x", None, "z"]


@pytest.mark.parametrize("answer", [3, -1, "1"])
def test_choose_check_rejects_an_answer_out_of_range(answer):
    with pytest.raises(ValueError, match="answer must be an index"):
        choose_check("c", "q?", ["a", "b", "c"], answer, hint="h")


def test_shape_check_shows_a_tuple():
    assert data_of(shape_check("s", "q?", (5, 5), hint="h"))["shown"] == "(5, 5)"
    assert data_of(shape_check("s", "q?", (3,), hint="h"))["shown"] == "(3,)"


def test_predict_check_hides_its_result_in_the_answer_block():
    block = predict_check("p", "q?", ["up", "down"], 0, reveal="It went up by 4.")
    assert data_of(block)["reveal"] == "It went up by 4."
    assert 'data-kind="predict"' in block.markup


def test_fold_is_off_unless_asked():
    assert 'data-fold="false"' in number_check("a", "q?", 1.0, atol=0, hint="h").markup
    assert 'data-fold="true"' in number_check("a", "q?", 1.0, atol=0, hint="h", fold=True).markup


def test_skip_test_takes_three_to_five_checks():
    checks = [number_check(f"s{i}", "q?", 1.0, atol=0, hint="h") for i in range(6)]
    with pytest.raises(ValueError, match="3 to 5"):
        skip_test(checks[:2])
    with pytest.raises(ValueError, match="3 to 5"):
        skip_test(checks)
    assert skip_test(checks[:3]).markup.count('class="sa-check"') == 3


def test_question_text_is_escaped():
    block = number_check("a", "is 1 < 2 & \"so\"?", 1.0, atol=0, hint="h")
    assert "is 1 &lt; 2 &amp; &quot;so&quot;?" in block.markup
