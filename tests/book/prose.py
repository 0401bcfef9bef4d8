"""Read the prose of a MyST page: the text a reader reads, without code, math or markup.

The tests of ``test_prose.py`` use it to find numbers typed into prose, bound
words ("at most", "over", "about") and glue roles. Figure captions and alt
text, which live in the metadata of code cells, count as prose too.

Run it as a script to list every typed number of the book:
``python -m tests.book.prose [files]``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^(`{3,}|:{3,})(\{[\w:-]+\})?")
# Directives whose body is prose a reader reads; every other fenced block is code or data.
PROSE_DIRECTIVES = {
    "note", "tip", "warning", "important", "admonition", "dropdown", "exercise", "solution",
    "hint", "seealso", "attention", "caution", "margin", "sidebar", "topic", "table", "figure",
}
# A role with its content: {glue:text}`key:.3f`, {numref}`fig-x`, {math}`x^2`, {kbd}`?`.
ROLE = re.compile(r"\{[\w:-]+\}`[^`]*`")
STRIP = [re.compile(p) for p in (
    r"\{[\w:-]+\}`[^`]*`",         # roles (glued numbers, references, math, keys)
    r"``[^`]*``", r"`[^`]*`",      # inline code
    r"\$\$.*?\$\$", r"\$[^$]*\$",  # inline math
    r"\]\([^)]*\)",                # link targets
    r"<[^>]+>",                    # html tags
    r"^\([\w-]+\)=\s*$",           # labels: (ch-cost)=
)]
# A number as a reader sees it: 3, 0.768, 16,384, 1e-5, 35%, 1/3.
NUMBER = re.compile(r"(?<![\w.])\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][-+]?\d+)?%?(?![\w])")
LIST_ITEM = re.compile(r"^\s*\d+\.\s")  # "1. " starting a numbered list is markup


@dataclass(frozen=True)
class ProseLine:
    """One line of prose: where it is, the raw text, and the text with markup removed."""

    path: Path
    lineno: int
    raw: str
    text: str


def _strip(line: str) -> str:
    for pattern in STRIP:
        line = pattern.sub(" ", line)
    return line


def _cell_metadata_prose(lines: list[str]) -> Iterator[tuple[int, str]]:
    """Caption and alt text in the YAML metadata of one code cell: (index, text) pairs.

    A value may continue on the lines indented below its key.
    """
    key_indent, current = None, None
    for i, line in enumerate(lines):
        m = re.match(r"^(\s*)(caption|alt):\s*(.*)$", line)
        if m:
            key_indent, current = len(m.group(1)), True
            yield i, m.group(3)
            continue
        indent = len(line) - len(line.lstrip())
        if current and line.strip() and indent > key_indent:
            yield i, line.strip()
        else:
            current = False


def prose_lines(path: Path) -> Iterator[ProseLine]:
    """Every line of prose of a page, with code, math, labels and options removed."""
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    if lines and lines[0].strip() == "---":          # the page's front matter
        i = 1
        while i < len(lines) and lines[i].strip() != "---":
            i += 1
        i += 1
    stack: list[tuple[str, bool]] = []                # (fence, is prose)
    in_math = False
    while i < len(lines):
        line, s = lines[i], lines[i].strip()
        m = FENCE.match(s)
        if m and not in_math:
            fence, name = m.group(1), (m.group(2) or "").strip("{}")
            if stack and s == stack[-1][0]:
                stack.pop()
            elif s[len(fence):].strip() or not stack:
                if name == "code-cell":               # a code cell: only its figure metadata is prose
                    j = i + 1
                    meta: list[str] = []
                    if j < len(lines) and lines[j].strip() == "---":
                        j += 1
                        while j < len(lines) and lines[j].strip() != "---":
                            meta.append(lines[j])
                            j += 1
                    for k, text in _cell_metadata_prose(meta):
                        yield ProseLine(path, i + 3 + k, meta[k], _strip(text))
                    stack.append((fence, False))
                else:
                    is_prose = name.split(":")[0] in PROSE_DIRECTIVES or name.startswith("solution")
                    stack.append((fence, is_prose))
                    title = s[m.end():].strip()       # a directive's title is prose
                    if is_prose and title and all(p for _, p in stack):
                        yield ProseLine(path, i + 1, line, _strip(title))
            i += 1
            continue
        i += 1
        if not all(prose for _, prose in stack):
            continue
        if s.startswith("$$"):
            if not (s.endswith("$$") and len(s) > 2):
                in_math = not in_math
            continue
        if in_math or s.startswith(":") or s.startswith("+++"):
            continue  # math, directive options, cell breaks
        yield ProseLine(path, i, line, _strip(LIST_ITEM.sub(" ", line)))


def typed_numbers(path: Path) -> Iterator[tuple[ProseLine, str]]:
    """Every number typed into the prose of a page: (line, number) pairs."""
    for pl in prose_lines(path):
        for m in NUMBER.finditer(pl.text):
            yield pl, m.group(0)


def main(args: list[str]) -> int:
    root = Path(__file__).resolve().parents[2] / "book"
    files = [Path(a) for a in args] or sorted(root.glob("*.md"))
    count = 0
    for f in files:
        for pl, number in typed_numbers(f):
            count += 1
            print(f"{f}:{pl.lineno}: {number!r:>10}  {pl.raw.strip()[:110]}")
    print(f"{count} typed numbers in prose")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
