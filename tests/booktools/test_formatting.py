"""One number format for tables, prose and labs."""

import pytest

from booktools.formatting import DECIMALS, fmt, format_count


def test_fmt_rounds_to_fixed_decimals_and_never_shows_minus_zero():
    assert [fmt(v, 3) for v in (0.76805, 0.1875, -0.0004, 2)] == ["0.768", "0.188", "0.000", "2.000"]
    assert fmt(-1.25, 1) == "-1.2" and fmt(-0.04, 1) == "0.0"


@pytest.mark.parametrize("value, decimals, message", [
    (1.0, -1, "decimals must be >= 0"), (float("nan"), 2, "not finite"), (float("inf"), 2, "not finite")])
def test_fmt_rejects_bad_input(value, decimals, message):
    with pytest.raises(ValueError, match=message):
        fmt(value, decimals)


def test_decimals_cover_the_four_tables_of_the_labs():
    assert DECIMALS == {"x": 2, "scores": 2, "weights": 3, "output": 2}


def test_counts_are_written_with_commas_between_thousands():
    assert [format_count(c) for c in (0, 16, 999, 1000, 4096, 16_384_000_000)] == [
        "0", "16", "999", "1,000", "4,096", "16,384,000,000"]


@pytest.mark.parametrize("bad,error,message", [
    (-1, ValueError, "must be >= 0"), (2.0, TypeError, "must be an int"), (True, TypeError, "must be an int"),
    ("9", TypeError, "must be an int")])
def test_format_count_rejects_what_is_not_a_count(bad, error, message):
    with pytest.raises(error, match=message):
        format_count(bad)


def test_the_javascript_mirror_uses_the_same_rules():
    from pathlib import Path

    js = (Path(__file__).resolve().parents[2] / "book" / "_static" / "sa" / "format.js").read_text()
    assert "toFixed(decimals)" in js and 'replace(/^-/, "")' in js  # fmt (tested in tests/browser/test_lab_maths.py)
    assert "export function formatCount" in js  # format_count
