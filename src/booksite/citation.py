"""How to cite the book and each chapter: BibTeX from one source of truth.

* ``CITATION.cff`` (read by reference managers and GitHub) holds the title,
  the authors, the release date and, once the book has one, its address;
* the version is the package's (:data:`selfattention.__version__`);
* a chapter's number and title come from the ``CHAPTERS`` list of
  ``book/index.md``, the same list that draws the front page's table.

``conf.py`` builds the book's entry with :func:`book_bibtex`, and the Sphinx
extension (:mod:`booksite.sphinxext`) puts a "Cite this chapter" box with
:func:`chapter_bibtex` at the end of every chapter in that list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

_MONTHS = "jan feb mar apr may jun jul aug sep oct nov dec".split()
_CHAPTER = re.compile(r'^\s*\(\s*"(?P<title>[^"]+)",\s*(?:"(?P<page>[\w-]+)"|None)', re.M)


@dataclass(frozen=True)
class BookMeta:
    """What a citation of the book names."""

    title: str
    authors: str
    version: str
    date_released: str  # YYYY-MM-DD
    url: str = ""  # the site's address ending in "/", or "" while it has none

    @property
    def year(self) -> str:
        return self.date_released[:4]

    @property
    def month(self) -> str:
        return _MONTHS[int(self.date_released[5:7]) - 1]


def read_cff(path: Path) -> dict:
    """``CITATION.cff`` as a dictionary (it is YAML)."""
    return yaml.safe_load(Path(path).read_text(encoding="utf-8"))


def book_meta(cff: dict, version: str, url: str = "") -> BookMeta:
    """The book's metadata from the fields of ``CITATION.cff``.

    ``url`` (the site's address) wins over the ``url`` field of the file.

    Examples
    --------
    >>> cff = {"title": "T", "authors": [{"name": "The T authors"}], "date-released": "2026-11-29"}
    >>> meta = book_meta(cff, "1.0", url="https://example.org/t")
    >>> meta.authors, meta.year, meta.month, meta.url
    ('The T authors', '2026', 'nov', 'https://example.org/t/')
    """
    people = []
    for person in cff["authors"]:
        people.append(person.get("name") or f"{person['family-names']}, {person['given-names']}")
    url = url or cff.get("url", "")
    if url and not url.endswith("/"):
        url += "/"
    return BookMeta(title=cff["title"], authors=" and ".join(people), version=version,
                    date_released=str(cff["date-released"]), url=url)


def _author_field(authors: str) -> str:
    # A group name in extra braces, so that BibTeX does not split it into first and last names.
    return "{" + authors + "}" if "," not in authors else authors


def _entry(kind: str, key: str, fields: list[tuple[str, str]]) -> str:
    width = max(len(name) for name, _ in fields)
    lines = [f"@{kind}{{{key},"]
    lines += [f"  {name:<{width}} = {value}," for name, value in fields]
    lines[-1] = lines[-1].rstrip(",")
    return "\n".join([*lines, "}"])


def book_bibtex(meta: BookMeta, subtitle: str = "An Executable Textbook") -> str:
    """A ``@misc`` BibTeX entry for the whole book (standard fields only).

    Examples
    --------
    >>> meta = BookMeta("Self-Attention, Computed", "The authors", "1.0", "2026-11-29")
    >>> print(book_bibtex(meta))
    @misc{selfattention_computed,
      author = {{The authors}},
      title  = {Self-Attention, Computed: An Executable Textbook},
      year   = {2026},
      month  = nov,
      note   = {Version 1.0, released 2026-11-29}
    }
    """
    fields = [("author", "{" + _author_field(meta.authors) + "}"),
              ("title", f"{{{meta.title}: {subtitle}}}")]
    if meta.url:
        fields.append(("howpublished", f"{{\\url{{{meta.url}}}}}"))
    fields += [("year", f"{{{meta.year}}}"), ("month", meta.month),
               ("note", f"{{Version {meta.version}, released {meta.date_released}}}")]
    return _entry("misc", "selfattention_computed", fields)


def chapter_bibtex(meta: BookMeta, *, number: int, title: str, page: str,
                   subtitle: str = "An Executable Textbook") -> str:
    """An ``@incollection`` BibTeX entry for one chapter of the book.

    Parameters
    ----------
    meta : BookMeta
        The book's metadata (:func:`book_meta`).
    number : int
        The chapter's number in the book's plan (1 for the first).
    title : str
        The chapter's title.
    page : str
        The chapter's page name (its slug), e.g. ``"weighted-average"``.

    Examples
    --------
    >>> meta = BookMeta("Self-Attention, Computed", "The authors", "1.0", "2026-11-29", "https://e.org/b/")
    >>> print(chapter_bibtex(meta, number=3, title="A weighted average", page="weighted-average"))
    @incollection{selfattention_computed_weighted_average,
      author       = {{The authors}},
      title        = {A weighted average},
      booktitle    = {Self-Attention, Computed: An Executable Textbook},
      chapter      = {3},
      publisher    = {{The authors}},
      howpublished = {\\url{https://e.org/b/weighted-average.html}},
      year         = {2026},
      month        = nov,
      note         = {Version 1.0, released 2026-11-29}
    }
    """
    if number < 1:
        raise ValueError(f"chapter number must be at least 1, got {number}")
    if not re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", page):
        raise ValueError(f"page must be a slug such as 'weighted-average', got {page!r}")
    author = "{" + _author_field(meta.authors) + "}"
    fields = [("author", author), ("title", f"{{{title}}}"), ("booktitle", f"{{{meta.title}: {subtitle}}}"),
              ("chapter", f"{{{number}}}"), ("publisher", author)]
    if meta.url:
        fields.append(("howpublished", f"{{\\url{{{meta.url}{page}.html}}}}"))
    fields += [("year", f"{{{meta.year}}}"), ("month", meta.month),
               ("note", f"{{Version {meta.version}, released {meta.date_released}}}")]
    return _entry("incollection", "selfattention_computed_" + page.replace("-", "_"), fields)


def chapters(index_source: str) -> dict[str, tuple[int, str]]:
    """Each written chapter's page, with its number and title, from ``CHAPTERS`` in ``book/index.md``.

    Planned chapters (page ``None``) keep their number but have no page.

    Examples
    --------
    >>> src = 'CHAPTERS = [\\n    ("Words", "words", "x"),\\n    ("Later", None, "y"),\\n    ("Last", "last", "z"),\\n]'
    >>> chapters(src)
    {'words': (1, 'Words'), 'last': (3, 'Last')}
    """
    block = re.search(r"^CHAPTERS = \[(?P<body>.*?)^\]", index_source, re.M | re.S)
    if block is None:
        raise ValueError("book/index.md has no CHAPTERS = [...] list")
    found = {}
    for number, m in enumerate(_CHAPTER.finditer(block.group("body")), start=1):
        if m.group("page"):
            found[m.group("page")] = (number, m.group("title"))
    return found


def book_chapters(app) -> dict[str, tuple[int, str]]:
    """The book's chapters, ``{page: (number, title)}``, read once per build from ``index.md``."""
    cache = getattr(app, "_sa_chapters", None)
    if cache is None:
        cache = chapters((Path(app.srcdir) / "index.md").read_text(encoding="utf-8"))
        app._sa_chapters = cache
    return cache
