"""The code behind every figure and lab, one click away (issue 23).

Under every figure and every lab of a chapter, one line names the function
that made it and links to its source::

    Made by {func}`booktools.figures.plane.plot_words`.

The role links the name to its entry on the API pages (``api-figures``,
``api-labs``); ``booksite.sourcelinks`` adds the ``[source]`` link of
``sphinx.ext.viewcode`` beside it. The first tests read the pages' sources
(no build): every cell that shows a figure or a lab is followed by its line,
and the line names the function the cell calls. The last reads the built
site: every figure and lab is followed by its line, and both links resolve.
"""

from __future__ import annotations

import importlib
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[2] / "book"
CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(?P<body>.*?)^```[ \t]*$", re.M | re.S)
CALL = re.compile(r"^(?:\w+\s*=\s*)?(?P<name>plot_\w+|\w+_lab)\(", re.M)
MADE_BY = re.compile(r"\A\s*\n*Made by \{func\}`(?P<target>[\w.]+)`\.\n")


def shown_cells(text: str):
    """Each cell whose input is hidden and that shows a figure or a lab: (line, body, end)."""
    for m in CELL.finditer(text):
        body = m.group("body")
        header = body.split("\n---\n", 1)[0] if body.startswith("---\n") else body[:200]
        if "remove-input" not in header and "remove-input" not in body.partition("\n---\n")[0]:
            continue
        if "\n  figure:\n" in body or CALL.search(body):
            yield text[:m.start()].count("\n") + 1, body, m.end()


def chapter_sources():
    return sorted(p for p in BOOK.glob("*.md") if not p.name.startswith("_"))


def test_the_pages_show_figures_and_labs():
    cells = [c for page in chapter_sources() for c in shown_cells(page.read_text(encoding="utf-8"))]
    assert len(cells) >= 29   # 19 figures drawn by plot_ functions, 10 labs, and the command line's heatmap


@pytest.mark.parametrize("page", chapter_sources(), ids=lambda p: p.stem)
def test_every_figure_and_lab_names_the_function_that_made_it(page):
    text = page.read_text(encoding="utf-8")
    problems = []
    for line, body, end in shown_cells(text):
        m = MADE_BY.match(text[end:])
        if not m:
            problems.append(f"{page.name}:{line}: no 'Made by {{func}}`...`.' line after the cell")
            continue
        module, _, name = m.group("target").rpartition(".")
        function = getattr(importlib.import_module(module), name, None)
        if function is None or function.__module__ != module:
            problems.append(f"{page.name}:{line}: {m.group('target')} is not a function defined there")
        called = CALL.findall(body)
        if called and called != [name]:
            problems.append(f"{page.name}:{line}: the cell calls {called} but the line names {name}")
    assert problems == [], "\n".join(problems)


class _Blocks(HTMLParser):
    """The article's figures, labs and "Made by" lines, in page order, with their links."""

    def __init__(self):
        super().__init__()
        self.order, self.links, self._in_made_by = [], [], False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "figure":
            self.order.append(("figure", a.get("id", "")))
        elif tag == "div" and "sa-lab" in classes:
            self.order.append(("lab", a.get("id", "")))
        elif tag == "p" and "sa-made-by" in classes:
            self.order.append(("made-by", ""))
            self._in_made_by, self.links = True, []
        elif tag == "a" and self._in_made_by:
            self.links.append(a.get("href", ""))
            self.order[-1] = ("made-by", tuple(self.links))

    def handle_endtag(self, tag):
        if tag == "p":
            self._in_made_by = False


@pytest.mark.book
def test_every_figure_and_lab_links_its_api_entry_and_its_source(built_book):
    problems, checked = [], 0
    for page in chapter_sources():
        html_path = built_book / f"{page.stem}.html"
        parser = _Blocks()
        parser.feed(html_path.read_text(encoding="utf-8"))
        order = parser.order
        for i, (kind, ident) in enumerate(order):
            if kind == "made-by":
                continue
            checked += 1
            following = order[i + 1] if i + 1 < len(order) else ("end", "")
            if following[0] != "made-by":
                problems.append(f"{html_path.name}: {kind} {ident!r} has no 'Made by' line after it")
                continue
            links = following[1]
            api = [h for h in links if re.match(r"api-(figures|labs)\.html#booktools\.", h)]
            source = [h for h in links if h.startswith("_modules/booktools/")]
            if not (api and source):
                problems.append(f"{html_path.name}: {kind} {ident!r}: links {links}")
                continue
            file, _, anchor = source[0].partition("#")
            target = built_book / file
            if not target.exists() or f'id="{anchor}"' not in target.read_text(encoding="utf-8"):
                problems.append(f"{html_path.name}: {source[0]} does not resolve")
    assert checked >= 29
    assert problems == [], "\n".join(problems)
