"""The one MyST table class and its two builders."""

import numpy as np
import pytest

from booktools.tables import Table, cell, code, number_table, text_table


def test_number_table_formats_every_value_with_its_decimals():
    t = number_table(np.array([[0.7680, 0.18700], [-0.0001, 2]]), ["cat", "dog"], ["a", "b"], 2, "Cap", "tbl-x")
    assert t.rows == [["**cat**", "0.77", "0.19"], ["**dog**", "0.00", "2.00"]]
    assert t.header == ["word", "a", "b"]
    assert t.markdown().splitlines()[:5] == [":::{table} Cap", ":name: tbl-x", ":align: center", "",
                                             "| word | a | b |"]
    assert "|---|---:|---:|" in t.markdown()
    assert t._repr_markdown_() == t.markdown()


def test_text_table_keeps_the_cells_as_given():
    t = text_table([["61.0 GiB", "4,096"]], ["long"], ["float32", "n"], "Cap", "tbl-y", corner="what")
    assert t.rows == [["**long**", "61.0 GiB", "4,096"]] and t.header == ["what", "float32", "n"]


def test_plain_table_has_no_alignment_and_is_not_centred():
    md = Table(["a", "b"], [["1", "2"]], "Cap", "tbl-z").markdown()
    assert ":align:" not in md and "|---|---|" in md


@pytest.mark.parametrize("make, message", [
    (lambda: number_table(np.zeros((2, 3)), ["a", "b"], ["x", "y"], 1, "c", "n"), "do not match"),
    (lambda: number_table(np.zeros(3), ["a"], ["x", "y", "z"], 1, "c", "n"), "do not match"),
    (lambda: text_table([["1"]], ["a", "b"], ["x"], "c", "n"), "2 rows of 1"),
    (lambda: Table(["a"], [["1", "2"]], "c", "n"), "every row must have 1 cells"),
    (lambda: Table(["a", "b"], [["1", "2"]], "c", "n", align="lx"), "align must have one of"),
    (lambda: Table(["a", "b"], [["1", "2"]], "c", "n", align="l"), "align must have one of"),
])
def test_shapes_that_do_not_match_raise(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_pipes_newlines_and_backticks_are_escaped_in_cells():
    assert cell("a | b\nc") == r"a \| b c"
    assert code("x | y") == r"`x \| y`"
    assert code("use `q`") == "`` use `q` ``"
