"""The book is one course, read in order: each chapter needs only what comes before it.

1. A chapter's "What you'll need" links only chapters that come BEFORE it in the toctree
   (appendices such as the notation page may be linked from anywhere).
2. The front page's "assumes" column (``CHAPTERS`` of ``book/index.md``) names the same chapters
   as each chapter's own "What you'll need".
3. The notation page's "introduced in" column names, for each symbol of its tables of sizes and
   of vectors and matrices, the first chapter (in toctree order) whose prose or maths uses it;
   every symbol of a chapter's "Keep in mind" that the notation page lists is checked this way.
"""

from __future__ import annotations

import re
from functools import cache

import pytest

from tests.book.pages import BOOK, source_pages
from tests.book.test_front_page import toctree_pages

NEED = re.compile(r"\*\*What you'll need:\*\*(.*?)(?:\n\s*\n|\n```)", re.S)
DOC = re.compile(r"\{doc\}`(?:[^`<]*<)?([\w-]+)>?`")
REF = re.compile(r"\{ref\}`(?:[^`<]*<)?([\w-]+)>?`")
LABEL = re.compile(r"^\(([\w-]+)\)=\s*$", re.M)


@cache
def labels() -> dict[str, str]:
    """Every ``(label)=`` of the book, with the page that holds it."""
    return {label: path.stem for path in source_pages()
            for label in LABEL.findall(path.read_text(encoding="utf-8"))}


def linked_pages(text: str) -> list[str]:
    """The pages a piece of MyST links with {doc} or {ref}, in order, without repeats."""
    pages = DOC.findall(text) + [labels().get(label, f"?{label}") for label in REF.findall(text)]
    return list(dict.fromkeys(pages))


def what_you_need(page: str) -> str:
    text = (BOOK / f"{page}.md").read_text(encoding="utf-8")
    found = NEED.search(text)
    assert found, f"{page}: no **What you'll need:** paragraph"
    return found.group(1)


def needed_chapters(page: str) -> list[str]:
    """The chapters a chapter's "What you'll need" links (the appendices left out)."""
    return [p for p in linked_pages(what_you_need(page)) if p in toctree_pages()]


def front_page_assumes() -> dict[str, list[str]]:
    """Each chapter's "assumes" entry of the front page's CHAPTERS, as the chapters it names (ch:<page>)."""
    text = (BOOK / "index.md").read_text(encoding="utf-8")
    block = text[text.index("CHAPTERS = ["):text.index("]\n", text.index("CHAPTERS = ["))]
    rows = re.findall(r'\(\s*"[^"]+",\s*"([\w-]+)",\s*((?:"[^"]*"\s*)+)\)', block)
    return {page: re.findall(r"ch:([\w-]+)", "".join(re.findall(r'"([^"]*)"', needs))) for page, needs in rows}


@pytest.mark.parametrize("page", toctree_pages())
def test_what_you_need_links_only_earlier_chapters(page):
    order = toctree_pages()
    later = [p for p in linked_pages(what_you_need(page))
             if p.startswith("?") or (p in order and order.index(p) >= order.index(page))]
    assert later == [], f"{page}: its What you'll need links {later}, which do not come before it"


def test_every_link_of_what_you_need_is_a_page_of_the_book():
    pages = {p.stem for p in source_pages()}
    unknown = {page: [p for p in linked_pages(what_you_need(page)) if p not in pages] for page in toctree_pages()}
    assert {k: v for k, v in unknown.items() if v} == {}


@pytest.mark.parametrize("page", toctree_pages())
def test_front_page_assumes_what_the_chapter_says_it_needs(page):
    assumes = front_page_assumes()
    assert page in assumes, f"{page}: no row in CHAPTERS of index.md"
    assert sorted(assumes[page]) == sorted(needed_chapters(page)), (
        f"{page}: the front page assumes {assumes[page]}, the chapter's What you'll need links "
        f"{needed_chapters(page)}")


def test_the_front_page_names_each_chapter_by_its_own_title():
    """The front page's CHAPTERS (its table, the citations, the PDF's test) give each chapter's heading."""
    from booksite.citation import chapters

    listed = chapters((BOOK / "index.md").read_text(encoding="utf-8"))
    headings = {page: re.search(r"^# (.+)$", (BOOK / f"{page}.md").read_text(encoding="utf-8"), re.M).group(1)
                for page in listed}
    assert {page: title for page, (_, title) in listed.items()} == headings


# --- 3. The notation page's "introduced in" ---------------------------------------------------

#: How each symbol of the notation page's tables is written in the book's maths, as a regular
#: expression that must not match any other symbol (h, not h_t; d_k, not d_kv).
SYMBOLS = {
    "$L$": r"(?<![\\\w{])L(?![\w])",
    "$S$": r"(?<![\\\w{])S(?![\w])",
    "$n$": r"(?<![\\\w{])n(?![\w])",
    "$d_\\text{model}$": r"d_\\text\{model\}",
    "$d_k$": r"d_k(?![\w])",
    "$d_v$": r"d_v(?![\w])",
    "$h$": r"(?<![\\\w{])h(?![\w_])",
    "$d_\\text{head}$": r"d_\\text\{head\}",
    "$\\text{kv}\\_\\text{heads}$": r"kv\}?\\_(?:\\text\{)?heads",
    "$d_\\text{ff}$": r"d_\\text\{ff\}",
    "$B$": r"(?<![\\\w{])B(?![\w])",
    "$N$": r"(?<![\\\w{])N(?![\w])",
    "$E$": r"(?<![\\\w{])E(?![\w])",
    "$X$": r"(?<![\\\w{])X(?![\w])",
    "$W_V$": r"W_V",
    "$W_1$, $W_2$": r"W_1(?![\w])",
    "$\\gamma$, $\\beta$": r"\\gamma(?![\w])",
    "$\\odot$": r"\\odot",
    "$W_O$": r"W_O",
    "$M$": r"(?<![\\\w{])M(?![\w])",
    "$I$": r"(?<![\\\w{])I(?![\w])",
    "$T$": r"(?<![\\\w{])T(?![\w])",
    "$T$ (temperature)": r"(?<![\\\w{])T(?![\w])",
}
#: Symbols of the tables the test does not look for, with why.
UNCHECKED = {
    "$x$": "a lower-case x is also every page's name for an input in passing (x + Attn(x), x_t)",
}
MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$", re.S)
CELL = re.compile(r"```\{code-cell\}.*?\n```", re.S)
KEEP = re.compile(r":::\{admonition\} Keep in mind\n(.*?)\n:::\n", re.S)


def maths(page: str) -> str:
    """The maths of a chapter's prose (code cells left out), as one string."""
    text = CELL.sub(" ", (BOOK / f"{page}.md").read_text(encoding="utf-8"))
    return " ".join(MATH.findall(text))


def notation_rows() -> list[tuple[str, list[str]]]:
    """(symbol, the pages of its "introduced in" cell) of the tables of sizes and of vectors."""
    text = (BOOK / "notation.md").read_text(encoding="utf-8")
    tables = text[text.index("## Sizes and counts"):text.index("## Letters of one chapter")]
    rows = []
    for row in re.split(r"^\* - ", tables, flags=re.M)[1:]:
        cells = re.split(r"^  - ", row, flags=re.M)
        symbol, introduced = cells[0].strip(), cells[-1]
        rows.append((symbol, DOC.findall(introduced)))
    return rows


def letter(symbol: str) -> str:
    """A symbol's maths, its step index dropped: "$T$ (temperature)" -> "T", "$h_t$" -> "h"."""
    maths = re.search(r"\$([^$]+)\$", symbol)
    return re.sub(r"_t$", "", maths.group(1)) if maths else symbol.strip()


def other_meanings(symbol: str) -> set[str]:
    """The chapters where the symbol's letter means something else, as the notation page says.

    Another row of the tables with the same letter ($T$, steps; $T$, temperature) is introduced in
    its own chapter, and the table of letters of one chapter names where a letter means something
    only there ($h_t$ of the recurrent network).
    """
    text = (BOOK / "notation.md").read_text(encoding="utf-8")
    own = letter(symbol)
    pages = {p[0] for s, p in notation_rows() if s != symbol and p and letter(s) == own}
    letters = text[text.index("## Letters of one chapter"):]
    for row in re.split(r"^\* - ", letters, flags=re.M)[1:]:
        cells = re.split(r"^  - ", row, flags=re.M)
        if own in {letter(m) for m in re.findall(r"\$[^$]+\$", cells[0])}:
            pages.update(DOC.findall(cells[-1]))
    return pages


def first_use(symbol: str) -> str | None:
    pattern = re.compile(SYMBOLS[symbol])
    skip = other_meanings(symbol)
    for page in toctree_pages():
        if page in skip:
            continue
        if pattern.search(maths(page)):
            return page
    return None


def test_every_symbol_of_the_tables_has_a_pattern():
    symbols = [s for s, _ in notation_rows() if s.startswith("$") and (s.count("$") == 2 or s in SYMBOLS)]
    assert [s for s in symbols if s not in SYMBOLS and s not in UNCHECKED] == []


@pytest.mark.parametrize("symbol", list(SYMBOLS))
def test_introduced_in_names_the_first_chapter_that_uses_the_symbol(symbol):
    introduced = dict(notation_rows())
    assert symbol in introduced, f"{symbol} is not in the notation page's tables"
    first = first_use(symbol)
    assert first is not None, f"{symbol}: no chapter uses it"
    assert introduced[symbol][:1] == [first], (
        f"{symbol}: the notation page says introduced in {introduced[symbol]}, but {first} uses it first")


@pytest.mark.parametrize("page", toctree_pages())
def test_the_symbols_of_keep_in_mind_are_on_the_notation_page_from_their_first_chapter(page):
    keep = KEEP.search((BOOK / f"{page}.md").read_text(encoding="utf-8"))
    if keep is None:
        pytest.skip(f"{page} has no Keep in mind")
    used = [s for s, p in SYMBOLS.items()
            if re.search(p, " ".join(MATH.findall(keep.group(1)))) and page not in other_meanings(s)]
    introduced = dict(notation_rows())
    order = toctree_pages()
    wrong = [s for s in used
             if not introduced.get(s) or order.index(introduced[s][0]) > order.index(page)]
    assert wrong == [], f"{page}: its Keep in mind uses {wrong} before the notation page says they come"
