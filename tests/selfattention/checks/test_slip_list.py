"""The list of "slips that real code ships" in book/api-checks.md says what the checkers print.

Each line of the list names a checker and one of its diagnoses and quotes a
message. The message must be, word for word, what that checker prints when
the case of ``test_diagnoses.CASES`` feeds it that slip.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .test_diagnoses import CASES

PAGE = Path(__file__).resolve().parents[3] / "book" / "api-checks.md"
LINE = re.compile(r"^- (?P<slip>.+?) → \{func\}`~selfattention\.(?P<checker>check_\w+)` `(?P<id>[\w.@*-]+)` → "
                  r"`(?P<message>[^`]+)`$")
#: The six slips of issue 41, in the page's order; the last has no checker.
SIX = ("Scaling by √d_model instead of √d_head",
       "Softmax over the wrong axis",
       "A causal mask that lets a token see the future",
       "A top-left mask when the queries are the last rows of the keys (decoding with a cache)",
       "RoPE pairs mixed between the interleaved and rotate-half layouts",
       "A mask applied after the softmax",
       "A padding mask applied to the queries instead of the keys")


def section() -> str:
    text = PAGE.read_text(encoding="utf-8")
    return text[text.index("## The slips that real code ships"):text.index("## The functions")]


def groups() -> dict[str, list[re.Match]]:
    """Each bold heading of the section, with the lines under it."""
    out: dict[str, list[re.Match]] = {}
    heading = None
    for line in section().splitlines():
        if line.startswith("**"):
            heading = line.split("**")[1]
            out[heading] = []
        elif line.startswith("- ") and heading is not None and LINE.match(line):
            out[heading].append(LINE.match(line))
    return out


def lines() -> list[re.Match]:
    return [m for found in groups().values() for m in found]


def test_the_page_lists_the_six_slips_in_order():
    headings = list(groups())
    assert [h for h in headings if h in SIX] == list(SIX)


@pytest.mark.parametrize("slip", SIX[:-1])
def test_each_slip_a_checker_can_see_has_a_line(slip):
    assert groups()[slip], f"no checker line under {slip!r}"


def test_the_padding_slip_says_why_no_checker_sees_it():
    text = section()
    after = text[text.index(SIX[-1]):]
    assert not groups()[SIX[-1]]
    assert after.split("**")[1].strip().startswith("No checker: no code exercise builds a padded batch")


def test_every_line_is_well_formed():
    bullets = [line for line in section().split("A checker sees only")[0].splitlines() if line.startswith("- ")]
    assert len(bullets) == len(lines()) > 20, [b for b in bullets if not LINE.match(b)]


@pytest.mark.parametrize("found", lines(), ids=lambda m: f"{m['checker']}/{m['id']}")
def test_each_line_quotes_what_its_checker_prints(found):
    key = (found["checker"], found["id"])
    assert key in CASES, f"{key} is not a declared diagnosis with a case"
    verdict = CASES[key]()
    assert not verdict.ok and verdict.slip == found["id"]
    assert verdict.message == found["message"]
