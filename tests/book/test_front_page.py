"""The front page an instructor needs, and chapters that say what they assume.

- The BibTeX entry uses standard fields only and names the version and date
  of pyproject.toml and CITATION.cff.
- The chapter table of the front page lists every chapter page of the book as
  written, and the planned chapters without links.
- Every chapter opens with what it assumes, and no chapter names a planned
  chapter as if it existed.
"""

from __future__ import annotations

import re
import runpy
import tomllib
from pathlib import Path

import pytest

from tests.book.pages import BOOK, source_pages
from tests.book.prose import prose_lines

ROOT = BOOK.parent
# The standard fields of a BibTeX @misc entry (classic BibTeX's plain.bst), plus the key.
MISC_FIELDS = {"author", "title", "howpublished", "month", "year", "note"}


def conf() -> dict:
    return runpy.run_path(str(ROOT / "conf.py"))


def bibtex_fields(entry: str) -> dict[str, str]:
    return dict(re.findall(r"^\s*(\w+)\s*=\s*(.+?),?\s*$", entry, re.M))


def test_bibtex_entry_is_a_misc_with_standard_fields_only():
    entry = conf()["_BIBTEX"]
    assert re.search(r"^@misc\{\w+,$", entry, re.M)
    fields = bibtex_fields(entry)
    assert set(fields) <= MISC_FIELDS, set(fields) - MISC_FIELDS
    assert {"author", "title", "year", "note"} <= set(fields)


def test_bibtex_names_the_pyproject_version_and_the_citation_cff_date():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    date = re.search(r"^date-released:\s*\"?([\d-]+)\"?", (ROOT / "CITATION.cff").read_text(), re.M).group(1)
    fields = bibtex_fields(conf()["_BIBTEX"])
    assert f"Version {version}" in fields["note"] and date in fields["note"]
    assert fields["year"] == f"{{{date[:4]}}}"
    assert conf()["release_date"] == date


def chapter_table() -> list[tuple[str, str | None]]:
    """(title, page or None) of the front page's CHAPTERS list, read from its source."""
    text = (BOOK / "index.md").read_text(encoding="utf-8")
    block = text[text.index("CHAPTERS = ["):text.index("]\n", text.index("CHAPTERS = ["))]
    return [(title, None if page == "None" else page.strip('"'))
            for title, page in re.findall(r'\(\s*"([^"]+)",\s*("[\w-]+"|None)', block)]


def toctree_pages() -> list[str]:
    text = (BOOK / "index.md").read_text(encoding="utf-8")
    body = re.search(r"```\{toctree\}\n(.*?)```", text, re.S).group(1)
    return [line.strip() for line in body.splitlines() if line.strip() and not line.startswith(":")]


def chapter_pages() -> list[Path]:
    """The chapters: every page with a "What you'll need" line (not the front page or appendices)."""
    return [BOOK / f"{page}.md" for _, page in chapter_table() if page]


def test_front_page_lists_every_chapter_of_the_book_and_the_planned_ones():
    table = chapter_table()
    written = [page for _, page in table if page]
    appendices = {"testing", "api", "api-model-and-speed", "glossary", "references", "status"}
    assert written == [p for p in toctree_pages() if p not in appendices]
    assert len(table) > len(written), "the planned chapters are missing from the front page"


@pytest.mark.parametrize("path", chapter_pages(), ids=lambda p: p.name)
def test_every_chapter_opens_with_what_it_assumes(path):
    text = path.read_text(encoding="utf-8")
    first_section = text.index("\n## ")
    assert "**What you'll need:**" in text[:first_section]


@pytest.mark.parametrize("path", [p for p in source_pages() if p.name != "index.md"], ids=lambda p: p.name)
def test_no_page_names_a_chapter_that_is_not_written(path):
    planned = [title.split(":")[0] for title, page in chapter_table() if not page]
    prose = " ".join(pl.raw for pl in prose_lines(path))
    named = [t for t in planned if t.lower() in prose.lower()]
    vague = re.findall(r"\b(?:next|later|coming|following) chapter\b|\bchapter on \w+|\bthe chapter \"", prose, re.I)
    assert named == [] and vague == [], f"{path.name} points at unwritten chapters: {named + vague}"
