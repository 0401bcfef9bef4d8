"""A page that sends the reader to a chapter for an idea names a chapter that teaches it.

The rule. A *pointer* is a phrase of a page's prose (its text, directives and
captions; not its code) that names an idea and links a chapter with
``{doc}``, in one of two forms:

* ``the X of {doc}`page```, as in "the cross-entropy of {doc}`learning-where-to-look`";
* ``the X, as in {doc}`page```, as in "with a KV cache, as in {doc}`one-word-at-a-time`".

``the`` stands for a determiner: the, a, an, its or their. ``X`` is the one
to four words between the nearest such determiner and "of" (or the comma),
less a count in front ("the two checkers of" points for "checkers").
A form with no determiner within four words, or whose ``X`` holds anything
but words (a number, a formula), names no idea and is no pointer. A pronoun
at the end of ``X`` (one, ones, those) points back at the words before it,
with an "is" or "are" between them dropped: "the weights are those of
{doc}`weighted-average`" is a pointer for "weights"; "the one of
{doc}`weighted-average`" names no idea and is no pointer.

The test: the linked page's prose contains ``X``. Case, emphasis and roles
are ignored (``{term}`KV cache``` reads "KV cache"), a hyphen matches a
space, and a final "s" may be there or not (X = "masks" matches "mask").
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from tests.book.pages import source_pages
from tests.book.prose import prose_lines

DETERMINERS = {"the", "a", "an", "its", "their"}
PRONOUNS = {"one", "ones", "those", "that", "this", "it"}
COUNTS = {"two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "both", "first", "second",
          "third", "last"}
MAX_WORDS = 4
WORD = re.compile(r"[\w'’-]+")

_DOC = re.compile(r"\{doc\}`(?:[^`<]*<)?([\w/-]+)>?`")
_ROLE = re.compile(r"\{([\w:-]+)\}`([^`<]*?)(?:\s*<[^`]*>)?`")
_MATH = re.compile(r"\$\$.*?\$\$|\$[^$]*\$")
_POINTER = re.compile(r"(?P<before>[^.;:!?()]*?)(?P<form>\s+of|,\s+as\s+in)\s+\{doc\}`(?P<page>[^`]+)`")


def _plain(text: str) -> str:
    """Prose with ``{doc}`` links kept, other roles read as their text, math and glued values as ``#``."""
    text = _MATH.sub(" # ", text)

    def role(m: re.Match) -> str:
        name, shown = m.group(1), m.group(2)
        if name == "doc":
            return m.group(0)
        return " # " if name.startswith("glue") or name in {"numref", "eq", "cite:p", "cite:t"} else shown

    text = _ROLE.sub(role, text)
    text = re.sub(r"\*+([^*]+)\*+", r"\1", text)            # emphasis
    return re.sub(r"\s+", " ", text)


@cache
def page_prose(path: Path) -> str:
    """A page's prose as one line of plain text."""
    return _plain(" ".join(pl.raw.strip() for pl in prose_lines(path)))


def _normal(text: str) -> str:
    return re.sub(r"[\s-]+", " ", _DOC.sub(r" \1 ", text).lower().replace("’", "'")).strip()


def pointers(text: str) -> list[tuple[str, str]]:
    """The pointers of a page's plain prose: (X, page) pairs, by the rule of this module's docstring."""
    found = []
    for m in _POINTER.finditer(text):
        words = m.group("before").split()[::-1]              # nearest word first
        term = []
        for word in words[:MAX_WORDS + 1]:
            if word.lower() in DETERMINERS:
                break
            if not WORD.fullmatch(word) or word == "#":
                term = None
                break
            term.insert(0, word)
        else:
            term = None                                        # no determiner near enough
        while term and len(term) > 1 and term[0].lower() in COUNTS:   # "the two checkers of": checkers
            term = term[1:]
        if term and term[-1].lower() in PRONOUNS:                 # "the weights are those of": the weights
            term = term[:-1]
            if term and term[-1].lower() in {"is", "are"}:
                term = term[:-1]
        if term and len(term) <= MAX_WORDS:
            found.append((" ".join(term), m.group("page")))
    return found


def contains_term(prose: str, term: str) -> bool:
    """Whether ``prose`` holds ``term``, by the rule's matching (case, hyphens, a final s)."""
    haystack, t = f" {_normal(prose)} ", _normal(term)
    forms = {t, t[:-1] if t.endswith("s") else t + "s"}
    return any(re.search(rf"(?<![\w]){re.escape(f)}(?![\w])", haystack) for f in forms)


PAGES = source_pages()
ALL_POINTERS = [(page, term, target) for page in PAGES for term, target in pointers(page_prose(page))]


def test_the_book_has_pointers_to_check():
    # The forms are common enough that a rule that found none would be broken, not satisfied.
    assert len(ALL_POINTERS) > 20
    assert any(term == "cross-entropy" for _, term, _ in ALL_POINTERS)


@pytest.mark.parametrize("page, term, target", ALL_POINTERS,
                         ids=[f"{p.stem}:{t}->{d}" for p, t, d in ALL_POINTERS])
def test_a_pointer_names_a_chapter_whose_page_contains_the_idea(page, term, target):
    linked = (page.parent / target).with_suffix(".md").resolve()
    assert linked.is_file(), f"{page.name}: {{doc}}`{target}` names no page"
    assert contains_term(page_prose(linked), term), (
        f'{page.name} points at {target} for "{term}", but that page never says "{term}": point at the '
        "chapter that teaches it, or teach it there")


@pytest.mark.parametrize("text, expected", [
    ("a loss of log 16 (the cross-entropy of {doc}`learning-where-to-look`, with",
     [("cross-entropy", "learning-where-to-look")]),
    ("the tokens already written (the {term}`KV cache` of {doc}`x`).", [("KV cache", "x")]),
    ("reads it with a KV cache, as in {doc}`one-word-at-a-time`, and", [("KV cache", "one-word-at-a-time")]),
    ("they are the *shares* of {doc}`words-are-islands`).", [("shares", "words-are-islands")]),
    ("the {func}`multi-head attention <selfattention.multi_head_attention>` of {doc}`several-heads`",
     [("multi-head attention", "several-heads")]),
    ("exactly the one of {doc}`weighted-average`", []),                      # a pronoun: no idea named
    ("so the weights are those of {doc}`weighted-average`, and", [("weights", "weighted-average")]),
    ("the two checkers of {doc}`two-heads-that-copy` are", [("checkers", "two-heads-that-copy")]),
    ("with $d_h$ = {glue:text}`d_head:d`, as in {doc}`several-heads`", []),   # no words: no pointer
    ("The chapter {doc}`weighted-average` takes each move apart", []),        # a chapter, not an idea of it
    ("then $h$ separate heads of {doc}`one-head-in-code`", []),               # no determiner near enough
])
def test_the_rule_finds_the_pointers_it_describes(text, expected):
    assert pointers(_plain(text)) == expected


def test_the_match_ignores_case_hyphens_markup_and_a_plural_s():
    prose = _plain("The loss of a guess is its **cross entropy**; each {term}`mask <mask>` blocks keys.")
    assert contains_term(prose, "Cross-entropy") and contains_term(prose, "masks")
    assert not contains_term(prose, "KV cache") and not contains_term(prose, "ask")


def test_a_pointer_to_a_page_without_the_term_fails(tmp_path):
    (tmp_path / "teacher.md").write_text("# Teacher\n\nThis page teaches the squared distance.\n", encoding="utf-8")
    (tmp_path / "reader.md").write_text("# Reader\n\nA loss (the cross-entropy of {doc}`teacher`).\n",
                                        encoding="utf-8")
    [(term, target)] = pointers(page_prose(tmp_path / "reader.md"))
    assert (term, target) == ("cross-entropy", "teacher")
    assert not contains_term(page_prose(tmp_path / f"{target}.md"), term)
    assert contains_term(page_prose(tmp_path / f"{target}.md"), "squared distance")
