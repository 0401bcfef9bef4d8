"""Publishing extras of the site: cite boxes, OpenGraph tags, a sitemap, a 404 page, the footer.

A Sphinx extension (``extensions`` in ``conf.py``):

* every chapter named in the ``CHAPTERS`` list of ``book/index.md`` ends
  with a "Cite this chapter" box whose BibTeX comes from
  :func:`booksite.citation.chapter_bibtex`: a new chapter gets it as soon as
  the front page lists its page;
* every page gets OpenGraph ``<meta>`` tags (title, description, site name,
  type and, when the site has an address, its URL); they load nothing;
* with an address (``html_baseurl``), the build writes ``sitemap.xml``;
* every address in ``404.html`` is made absolute from the site's root
  (:func:`root_addresses`): the server shows that page at any missing
  address, however deep, so relative links would point nowhere. The root is
  the path of the site's address, or ``/`` without one (``make serve``);
* the PDF's front matter (``book/_pdf.md``, the LaTeX root) is not published
  in the HTML site;
* :func:`build_date` is the date shown in the footer: ``SOURCE_DATE_EPOCH``
  if set, else the date of the last commit, so two builds of one commit agree.
"""

from __future__ import annotations

import datetime as _dt
import html
import os
import platform
import re
import shutil
import subprocess
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from urllib.parse import urlsplit

from docutils import nodes

from .citation import book_chapters as _chapters
from .citation import chapter_bibtex
from .sphinxext import NOTEBOOK_DIR

#: Pages with no place in the sitemap (they are not content).
NOT_IN_SITEMAP = {"404", "search", "genindex"}
#: Pages that only the PDF uses (book/_pdf.md, its front matter): not in the site or its search index.
PDF_ONLY_PAGES = {"_pdf"}
#: The files the HTML builder writes for them, removed from the site.
PDF_ONLY = ("_pdf.html", "_sources/_pdf.md.txt")

_RELATIVE_ADDRESS = re.compile(r'(?P<attr>\s(?:href|src|action|data-content_root)=")(?P<url>[^"]*)"')


def root_addresses(page: str, root: str) -> str:
    """``page`` with every relative address made absolute from ``root`` (the site's own path).

    Fragments (``#top``) and addresses with a scheme or a leading ``/`` stay as they are.

    Examples
    --------
    >>> root_addresses('<a href="index.html">x</a><a href="#main">y</a><img src="_static/a.svg">', "/")
    '<a href="/index.html">x</a><a href="#main">y</a><img src="/_static/a.svg">'
    >>> root_addresses('<html data-content_root="./"><a href="https://e.org/">e</a>', "/book/")
    '<html data-content_root="/book/"><a href="https://e.org/">e</a>'
    """
    if not (root.startswith("/") and root.endswith("/")):
        raise ValueError(f"root must start and end with '/', got {root!r}")

    def one(m: re.Match) -> str:
        url = m.group("url")
        if url.startswith(("#", "/")) or re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", url):
            return m.group(0)
        url = url.removeprefix("./")
        return f'{m.group("attr")}{root}{url}"'

    return _RELATIVE_ADDRESS.sub(one, page)


def build_date(root: Path) -> str:
    """The date the site says it was built, as YYYY-MM-DD; deterministic for one commit.

    ``SOURCE_DATE_EPOCH`` (reproducible builds) wins; else the committer date
    of ``HEAD``; else "unknown date".

    Examples
    --------
    >>> import os, pathlib
    >>> os.environ["SOURCE_DATE_EPOCH"] = "1764374400"
    >>> build_date(pathlib.Path("."))
    '2025-11-29'
    >>> del os.environ["SOURCE_DATE_EPOCH"]
    """
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        return _dt.datetime.fromtimestamp(int(epoch), tz=_dt.UTC).date().isoformat()
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%cs"], cwd=root, capture_output=True,
                             text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        out = ""
    return out or "unknown date"


def cite_box(bibtex: str, number: int, title: str) -> str:
    """HTML of the "Cite this chapter" box: a heading, one sentence and the BibTeX.

    Examples
    --------
    >>> box = cite_box("@misc{x,\\n  title = {A & B}\\n}", 3, "A & B")
    >>> 'id="cite-this-chapter"' in box and "{A &amp; B}" in box
    True
    """
    return (
        '<div class="sa-cite">\n'
        '<h2 id="cite-this-chapter">Cite this chapter</h2>\n'
        f"<p>To cite chapter {number}, “{html.escape(title)}”, in a paper or a syllabus, use this "
        "entry. It names the version of the book you read; the front page has the entry for the "
        "whole book.</p>\n"
        '<div class="highlight-bibtex notranslate"><div class="highlight"><pre tabindex="0">'
        f"{html.escape(bibtex)}</pre></div></div>\n</div>\n"
    )


def opengraph_tags(*, title: str, site_name: str, description: str, url: str = "",
                   locale: str = "en_GB") -> str:
    """OpenGraph ``<meta>`` tags of one page (link previews; nothing is loaded).

    Examples
    --------
    >>> print(opengraph_tags(title="A", site_name="S", description='say "hi"', url="https://e.org/a.html"))
    <meta property="og:title" content="A" />
    <meta property="og:type" content="article" />
    <meta property="og:site_name" content="S" />
    <meta property="og:locale" content="en_GB" />
    <meta property="og:description" content="say &quot;hi&quot;" />
    <meta property="og:url" content="https://e.org/a.html" />
    """
    tags = [("og:title", title), ("og:type", "article"), ("og:site_name", site_name), ("og:locale", locale)]
    if description:
        tags.append(("og:description", description))
    if url:
        tags.append(("og:url", url))
    return "\n".join(f'<meta property="{name}" content="{html.escape(value, quote=True)}" />'
                     for name, value in tags)


def sitemap_xml(base_url: str, pages: list[str], lastmod: str = "") -> str:
    """A sitemap (sitemaps.org 0.9) of ``pages`` (paths relative to ``base_url``).

    Examples
    --------
    >>> print(sitemap_xml("https://e.org/b/", ["index.html", "a.html"], "2026-11-29"))
    <?xml version="1.0" encoding="UTF-8"?>
    <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <url><loc>https://e.org/b/</loc><lastmod>2026-11-29</lastmod></url>
      <url><loc>https://e.org/b/a.html</loc><lastmod>2026-11-29</lastmod></url>
    </urlset>
    """
    if not base_url.endswith("/"):
        raise ValueError(f"base_url must end with '/', got {base_url!r}")
    mod = f"<lastmod>{lastmod}</lastmod>" if re.fullmatch(r"\d{4}-\d\d-\d\d", lastmod) else ""
    rows = [f"  <url><loc>{html.escape(base_url + ('' if p == 'index.html' else p))}</loc>{mod}</url>"
            for p in pages]
    return "\n".join(['<?xml version="1.0" encoding="UTF-8"?>',
                      '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">', *rows, "</urlset>"]) + "\n"


#: The packages whose versions the status page lists: the maths, the book, the execution.
STATUS_PACKAGES = ("selfattention", "numpy", "matplotlib", "sphinx", "myst-nb", "myst-parser", "sphinx-book-theme",
                   "sphinxcontrib-bibtex", "jupyter-cache", "nbclient", "ipykernel", "docutils")


def package_versions_table(packages=STATUS_PACKAGES) -> str:
    """A MyST table of the installed version of each package, with Python's.

    Examples
    --------
    >>> print(package_versions_table(["numpy"]).splitlines()[2].startswith("| Python | 3."))
    True
    """
    rows = ["| package | version |", "|---|---|", f"| Python | {platform.python_version()} |"]
    for name in packages:
        try:
            rows.append(f"| {name} | {version(name)} |")
        except PackageNotFoundError:
            rows.append(f"| {name} | not installed |")
    return "\n".join(rows)


def read_redirects(path: Path) -> dict[str, str]:
    """``old.html -> new.html`` from ``book/_redirects.txt`` (one ``old new`` pair a line, # comments).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "_redirects.txt"
    >>> _ = p.write_text("# moved\\nold-name.html new-name.html\\n")
    >>> read_redirects(p)
    {'old-name.html': 'new-name.html'}
    """
    found = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                old, new = line.split()
                found[old] = new
    return found


def redirect_page(target: str, title: str, root: str = "") -> str:
    """A page that sends the reader to ``target`` (no script: a meta refresh and a link).

    ``root`` is the way from the page to the site's root (``""`` or ``"../"``...): the page names the
    book's icon, so that a browser does not ask for a ``/favicon.ico`` the site does not have (a 404 in
    the reader's console while the refresh waits).

    Examples
    --------
    >>> page = redirect_page("new.html", "Book")
    >>> "url=new.html" in page, '<link rel="icon" href="_static/favicon.svg">' in page
    (True, True)
    """
    target = html.escape(target, quote=True)
    icon = html.escape(f"{root}_static/favicon.svg", quote=True)
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="refresh" content="0; url={target}">\n<link rel="canonical" href="{target}">\n'
            f'<link rel="icon" href="{icon}">\n'
            f"<title>{html.escape(title)}: this page has moved</title>\n</head>\n"
            f'<body><main><p>This page has moved to <a href="{target}">{target}</a>.</p></main></body>\n</html>\n')


def _page_context(app, pagename, templatename, context, doctree):
    base = app.config.html_baseurl
    if base and not base.endswith("/"):
        base += "/"
    metatags = context.get("metatags", "")
    desc = (re.search(r'<meta name="description" content="([^"]*)"', metatags)
            or re.search(r'<meta content="([^"]*)" name="description"', metatags))
    title = re.sub(r"<[^>]+>", "", context.get("title", "")) or app.config.project
    context["metatags"] = context.get("metatags", "") + "\n" + opengraph_tags(
        title=html.unescape(title), site_name=app.config.project,
        description=html.unescape(desc.group(1)) if desc else "",
        url=f"{base}{pagename}.html" if base else "")
    meta = app.config.sa_citation
    if doctree is None or meta is None or pagename not in _chapters(app):
        return
    number, chapter_title = _chapters(app)[pagename]
    box = cite_box(chapter_bibtex(meta, number=number, title=chapter_title, page=pagename), number,
                   chapter_title)
    context["body"] = context.get("body", "") + box


def _build_finished(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    for old, new in read_redirects(Path(app.srcdir) / "_redirects.txt").items():
        if old.endswith(".ipynb"):
            continue  # a moved notebook: _moved_notebooks copies it once the notebooks are written
        if not (out / new).exists():
            raise FileNotFoundError(f"_redirects.txt sends {old} to {new}, which the build did not make")
        (out / old).write_text(redirect_page(new, app.config.project, "../" * old.count("/")), encoding="utf-8")
    for name in PDF_ONLY:
        (out / name).unlink(missing_ok=True)
    base = app.config.html_baseurl
    if base:
        base = base if base.endswith("/") else base + "/"
        pages = sorted(f"{d}.html" for d in app.env.found_docs if d not in NOT_IN_SITEMAP | PDF_ONLY_PAGES)
        (out / "sitemap.xml").write_text(sitemap_xml(base, pages, app.config.sa_build_date), encoding="utf-8")


def _moved_notebooks(app, exception):
    """A notebook cannot send its reader on: the old address of a moved chapter's notebook serves the new one."""
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    for old, new in read_redirects(Path(app.srcdir) / "_redirects.txt").items():
        if old.endswith(".ipynb"):
            if not (out / new).exists():
                raise FileNotFoundError(f"_redirects.txt sends {old} to {new}, which the build did not make")
            shutil.copyfile(out / new, out / old)


def _root_addresses_of_404(app, exception):
    """Last of all (after the CSS bundles and the CSP): 404.html's addresses from the site's root."""
    if exception is not None or app.builder.format != "html":
        return
    page404 = Path(app.outdir) / "404.html"
    if page404.exists():
        base = app.config.html_baseurl
        root = (urlsplit(base).path or "/") if base else "/"
        text = page404.read_text(encoding="utf-8")
        page404.write_text(root_addresses(text, root.rstrip("/") + "/"), encoding="utf-8")


def _pdf_only_pages_are_never_outdated(app):
    """The HTML builder calls a page out of date when its file is missing, and ``_build_finished``
    removes the PDF-only pages' files on purpose: without this, every build, even one with
    nothing changed, would write them again. They are still written when their source changes.
    """
    builder = app.builder
    if builder.format != "html":
        return
    original = builder.get_outdated_docs

    def get_outdated_docs():
        outdated = original()
        if isinstance(outdated, str):  # "all source files", for a changed configuration
            return outdated
        return [d for d in outdated if d not in PDF_ONLY_PAGES]

    builder.get_outdated_docs = get_outdated_docs


def _index_titles_of_unsearched_pages(app):
    """A page with ``nosearch`` keeps its title in the search index, though not its text.

    Sphinx indexes such a page with an empty title, so each of its functions
    appears in the results as "(Python function, in )". Here its title (and
    only its title) is fed to the index. The PDF's own pages are not indexed.
    """
    builder = app.builder
    original = getattr(builder, "index_page", None)
    if original is None or getattr(original, "_sa_titles", False):
        return
    from docutils import nodes
    from sphinx.util.docutils import new_document

    def index_page(pagename, doctree, title):
        if pagename in PDF_ONLY_PAGES:
            return None
        metadata = builder.env.metadata.get(pagename, {})
        if builder.indexer is None or not title or not ({"nosearch", "no-search"} & set(metadata)):
            return original(pagename, doctree, title)
        only_title = new_document("")
        section = nodes.section(ids=["title"])
        section += nodes.title(title, title)
        only_title += section
        builder.indexer.feed(pagename, builder.env.doc2path(pagename, base=False), title, only_title)

    index_page._sa_titles = True
    builder.index_page = index_page


def notebook_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{notebook}`page``` links the notebook of a page (``page-solutions``: with its solutions).

    Online the link is relative (``_notebooks/page.ipynb``); in the PDF it is
    made absolute with the site's address (:class:`NotebookLinksInPrint`).
    """
    page = text.strip()
    if not re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", page):
        msg = inliner.reporter.error(f"notebook role: {page!r} is not a page name", line=lineno)
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    label = "the notebook with the solutions" if page.endswith("-solutions") else "the student notebook"
    ref = nodes.reference(rawtext, label, refuri=f"{NOTEBOOK_DIR}/{page}.ipynb", classes=["sa-notebook"])
    return [ref], []


def _absolute_notebook_links(app, doctree, docname):
    """In the PDF (LaTeX builder) a notebook link points at the published site, if it has an address."""
    if app.builder.format != "latex" or not app.config.html_baseurl:
        return
    base = app.config.html_baseurl if app.config.html_baseurl.endswith("/") else app.config.html_baseurl + "/"
    for ref in doctree.findall(nodes.reference):
        if "sa-notebook" in ref.get("classes", []) and not ref["refuri"].startswith("http"):
            ref["refuri"] = base + ref["refuri"]


def setup_publish(app, *, page_context: int, build_finished: int, root_addresses: int) -> None:
    """Cite boxes and Open Graph tags (at ``page_context``), redirects and the sitemap (at ``build_finished``),
    the 404 page's addresses from the site root and the moved notebooks (at ``root_addresses``, after the
    notebooks are written).

    Examples
    --------
    >>> class App:  # a stand-in that records what the feature asks for
    ...     def __init__(self): self.events, self.values = [], []
    ...     def add_config_value(self, name, default, rebuild): self.values.append(name)
    ...     def connect(self, event, handler, priority=500): self.events.append((event, priority))
    ...     def add_role(self, name, role): self.role = name
    >>> app = App()
    >>> setup_publish(app, page_context=600, build_finished=400, root_addresses=950)
    >>> app.values, app.events, app.role  # doctest: +NORMALIZE_WHITESPACE
    (['sa_citation', 'sa_build_date'],
     [('html-page-context', 600), ('build-finished', 400), ('build-finished', 950), ('build-finished', 950),
      ('builder-inited', 500),
      ('builder-inited', 500), ('doctree-resolved', 500)], 'notebook')
    """
    app.add_config_value("sa_citation", None, "html")
    app.add_config_value("sa_build_date", "", "html")
    app.connect("html-page-context", _page_context, priority=page_context)
    app.connect("build-finished", _build_finished, priority=build_finished)
    app.connect("build-finished", _root_addresses_of_404, priority=root_addresses)
    app.connect("build-finished", _moved_notebooks, priority=root_addresses)
    app.connect("builder-inited", _index_titles_of_unsearched_pages)
    app.connect("builder-inited", _pdf_only_pages_are_never_outdated)
    app.connect("doctree-resolved", _absolute_notebook_links)
    app.add_role("notebook", notebook_role)

