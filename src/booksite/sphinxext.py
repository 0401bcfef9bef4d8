"""The pages' HTML: notebook downloads, a strict CSP and the bibliography's list roles.

* Every page that holds code cells can be downloaded as a Jupyter notebook
  that a student can use (``_notebooks/<page>.ipynb``), and a page with
  exercises also with its solutions (``_notebooks/<page>-solutions.ipynb``);
  see :mod:`booksite.notebooks`. Links sit under the page title and in
  every solution box.
* Every HTML page gets a Content-Security-Policy ``<meta>`` tag. Scripts run
  only from the site itself; the few inline scripts that the theme writes
  are allowed by their SHA-256 hash, computed here from the final HTML. The
  theme's two inline ``onclick`` handlers are moved to ``_static/sa/``.
  ``'wasm-unsafe-eval'`` lets the browser compile WebAssembly (the Python
  that runs a reader's cells, :mod:`booksite.runcells`); nothing else is
  evaluated, so neither ``'unsafe-eval'`` nor ``'unsafe-inline'`` is allowed.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from dataclasses import replace
from pathlib import Path

import nbformat
from myst_nb.core.read import read_myst_markdown_notebook
from sphinx.util import logging
from sphinx.writers.html5 import HTML5Translator

from booktools.selfcheck import balance_problems

from .citation import book_chapters as _chapters
from .notebooks import References, bib_citations, chapter_notebooks

NOTEBOOK_DIR = "_notebooks"

#: The policy; ``{script_hashes}`` is filled in per page.
CSP = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'{script_hashes}; worker-src 'self'; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-src 'none'"
)

_INLINE_SCRIPT = re.compile(r"<script(?P<attrs>[^>]*)>(?P<body>.*?)</script>", re.S)
_CSP_META = re.compile(r'<meta http-equiv="Content-Security-Policy"[^>]*>\n?')
_HANDLERS = {
    ' onclick="window.print()"': ' data-sa-action="print"',
    ' onclick="toggleFullScreen()"': ' data-sa-action="fullscreen"',
}
_ANY_HANDLER = re.compile(r"<[^>]*\son[a-z]+=\"", re.I)


def inline_script_hashes(html: str) -> list[str]:
    """CSP hash sources of the inline scripts that a browser would run.

    Data blocks (``type="application/json"``) are not run and need no hash.

    Examples
    --------
    >>> inline_script_hashes('<script>a()</script><script type="application/json">{}</script>')
    ["'sha256-qVpDBgj7bpq5hMAcGp3AOc79J3Y1Z4HvySTwKrWDoy4='"]
    """
    hashes = []
    for m in _INLINE_SCRIPT.finditer(html):
        attrs = m.group("attrs")
        if re.search(r"\bsrc=", attrs):
            continue
        kind = re.search(r'\btype="([^"]*)"', attrs)
        if kind and kind.group(1) not in ("text/javascript", "module"):
            continue
        digest = hashlib.sha256(m.group("body").encode("utf-8")).digest()
        source = f"'sha256-{base64.b64encode(digest).decode()}'"
        if source not in hashes:
            hashes.append(source)
    return hashes


def apply_csp(html: str) -> str:
    """Move known inline handlers to data attributes and add the CSP meta tag.

    Raises ``ValueError`` if an inline event handler is left, since the
    policy would block it.

    Examples
    --------
    >>> out = apply_csp('<head><meta charset="utf-8" />\\n</head><script>x()</script>')
    >>> "script-src 'self' 'wasm-unsafe-eval' 'sha256-" in out
    True
    >>> apply_csp(out) == out
    True
    """
    for old, new in _HANDLERS.items():
        html = html.replace(old, new)
    bad = _ANY_HANDLER.search(html)
    if bad:
        raise ValueError(f"inline event handler would be blocked by the CSP: {bad.group(0)[:80]}")
    html = _CSP_META.sub("", html)
    hashes = inline_script_hashes(html)
    policy = CSP.format(script_hashes="".join(" " + h for h in hashes))
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
    head = re.search(r"<meta charset=[^>]*>\n?", html)
    if head is None:
        raise ValueError("page has no <meta charset>: cannot place the CSP before scripts")
    return html[: head.end()] + meta + html[head.end():]


_OPTIONS_SCRIPT = re.compile(r'<script src="(?:\.\./)*_static/documentation_options\.js(?:\?v=[0-9a-f]+)?"></script>')


def inline_documentation_options(html: str, options_js: str) -> str:
    """Write Sphinx's ``documentation_options.js`` into the page instead of linking it.

    The file is a dozen lines, the same for every page, and a classic
    script in the head: the browser waits for it before it shows the page,
    one more round trip on a phone (Lighthouse counts about 300 ms on its
    slow 4G). Inline, it costs nothing; :func:`apply_csp`, which runs after,
    gives it its hash.

    Examples
    --------
    >>> page = '<head><script src="../_static/documentation_options.js?v=1a2b"></script></head>'
    >>> inline_documentation_options(page, "const DOCUMENTATION_OPTIONS = {};\\n")
    '<head><script>const DOCUMENTATION_OPTIONS = {};</script></head>'
    >>> inline_documentation_options("<head></head>", "x")
    '<head></head>'
    """
    code = options_js.strip()
    if not code:
        return html  # no file to inline: the link stays
    return _OPTIONS_SCRIPT.sub(lambda m: f"<script>{code}</script>", html, count=1)


def is_notebook(path: Path) -> bool:
    """A page is a notebook if its front matter names a kernel.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.md"
    >>> _ = p.write_text("---\\nkernelspec:\\n  name: python3\\n---\\n# X\\n")
    >>> is_notebook(p)
    True
    """
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---"):
        return False
    end = text.find("\n---", 3)
    return end > 0 and "kernelspec:" in text[:end]


def book_references(app):
    """The numbers, section titles and citations of the whole book, for notebooks."""
    env = app.env
    labels = env.domaindata["std"]["labels"]
    formats = dict(app.config.numfig_format)
    numbers, titles = {}, {}
    for label, (docname, labelid, title) in labels.items():
        titles[label] = title
        for figtype, ids in env.toc_fignumbers.get(docname, {}).items():
            if labelid in ids:
                fmt = formats.get(figtype, figtype.capitalize() + " %s")
                numbers[label] = fmt % ".".join(map(str, ids[labelid]))
    # Equations: "(3.1)" with numfig, as the {eq} role shows them.
    for label, (docname, number) in env.domaindata.get("math", {}).get("objects", {}).items():
        ids = env.toc_fignumbers.get(docname, {}).get("displaymath", {}).get(f"equation-{label}")
        numbers[label] = "(" + (".".join(map(str, ids)) if ids else str(number)) + ")"
    bibfiles = [Path(app.confdir) / f for f in app.config.bibtex_bibfiles]
    documents = {d: env.titles[d].astext() for d in env.found_docs if d in env.titles}
    return References(numbers=numbers, titles=titles, citations=bib_citations(bibfiles), documents=documents,
                      substitutions=dict(app.config.myst_substitutions))


def _executed_notebook(app, docname: str, executed_dir: Path):
    """The page with the outputs the build gave it.

    With ``nb_execution_mode = "cache"`` the outputs come from the execution
    cache: when a page is taken from the cache, myst-nb writes its copy in
    ``jupyter_execute/`` without outputs.
    """
    if app.config.nb_execution_mode == "cache":
        # Here, not at the top: jupyter-cache imports SQLAlchemy, a second of start-up that a
        # rebuild writing no notebook need not pay.
        from jupyter_cache import get_cache

        nb = read_myst_markdown_notebook(Path(app.env.doc2path(docname)).read_text(encoding="utf-8"))
        try:
            return get_cache(app.config.nb_execution_cache_path).merge_match_into_notebook(nb)[1]
        except KeyError:
            pass
    path = executed_dir / f"{docname}.ipynb"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: chapter notebooks need the executed page")
    return nbformat.read(path, as_version=4)


def write_chapter_notebooks(app, docname: str, refs) -> list[Path]:
    """Write the student notebook (and the solutions notebook) of one page.

    They are made from the page as the build executed it, which myst-nb
    leaves in ``jupyter_execute/`` beside the HTML output, with its glued
    values. Returns the paths written.
    """
    executed_dir = Path(app.outdir).parent / "jupyter_execute"
    executed = _executed_notebook(app, docname, executed_dir)
    glue_path = executed_dir / f"{docname}.glue.json"
    glue = {}
    if glue_path.exists():
        glue = {k: v["data"] for k, v in json.loads(glue_path.read_text(encoding="utf-8")).items()}
    title = app.env.titles[docname].astext() if docname in app.env.titles else docname
    stem = docname.split("/")[-1]
    student, solutions = chapter_notebooks(executed, replace(refs, glue=glue), title=title, stem=stem,
                                           book_dir=Path(app.srcdir))
    out = Path(app.outdir) / NOTEBOOK_DIR
    written = []
    for nb, name in ((student, f"{docname}.ipynb"), (solutions, f"{docname}-solutions.ipynb")):
        if nb is None:
            continue
        nbformat.validate(nb)
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")
        written.append(target)
    return written


def _check_balance(app, pagename, templatename, context, doctree):
    """Warn (an error with ``-W``) when a page's choice checks can be guessed."""
    for problem in balance_problems(context.get("body", "")):
        logging.getLogger(__name__).warning(f"self-checks of {pagename}: {problem}",
                                            location=pagename)


def page_has_solutions(path: Path) -> bool:
    """Whether a page holds a solution (a ``:::{solution}`` block), so it gets a solutions notebook.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.md"
    >>> _ = p.write_text("# X\\n\\n::::{solution} ex-1\\nIt is 3.\\n::::\\n")
    >>> page_has_solutions(p)
    True
    """
    return re.search(r"^:{3,}\{solution", path.read_text(encoding="utf-8"), re.M) is not None


def notebook_list(book: Path, chapters: dict[str, tuple[int, str]]) -> str:
    """The front page's list of chapter notebooks (MyST): each chapter, its notebook and its solutions.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> book = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (book / "a.md").write_text("# A\\n")
    >>> _ = (book / "b.md").write_text("# B\\n:::{solution} ex\\nyes\\n:::\\n")
    >>> print(notebook_list(book, {"a": (1, "A"), "b": (2, "B")}))
    - 1. {doc}`a`: {notebook}`a`
    - 2. {doc}`b`: {notebook}`b` and {notebook}`b-solutions`
    """
    return "\n".join(
        f"- {number}. {{doc}}`{page}`: {{notebook}}`{page}`"
        + (f" and {{notebook}}`{page}-solutions`" if page_has_solutions(book / f"{page}.md") else "")
        for page, (number, _title) in chapters.items())


_SOLUTION_BOX = re.compile(r'(<div class="solution dropdown admonition"[^>]*>.*?<section id="solution-content">)',
                           re.S)


def _add_download_link(app, pagename, templatename, context, doctree):
    if doctree is None or pagename not in _notebook_pages(app):
        return
    up = "../" * pagename.count("/")
    base = f"{up}{NOTEBOOK_DIR}/{pagename}"
    solved = page_has_solutions(Path(app.env.doc2path(pagename)))
    extra = (f', and <a href="{base}-solutions.ipynb" download>the same with the solutions</a>'
             if solved else "")

    kind = "chapter" if pagename in _chapters(app) else "page"
    link = (
        f'<p class="sa-download">Work through this {kind} in Jupyter: '
        f'<a href="{base}.ipynb" download>download it as a notebook</a>{extra}. '
        f"Its first cell says what to install "
        f'(<a href="{up}index.html#notebooks">how the notebooks run</a>).</p>'
    )
    body = context.get("body", "")
    heading = re.search(r"</h1>", body)
    if heading:
        body = body[: heading.end()] + "\n" + link + body[heading.end():]
    if solved:
        note = (f'<p class="sa-solutions-link"><a href="{base}-solutions.ipynb" download>'
                "Download every solution of this chapter as a notebook that runs</a>.</p>")
        body = _SOLUTION_BOX.sub(lambda m: m.group(1) + note, body)
    context["body"] = body


def _notebook_pages(app) -> set[str]:
    cache = getattr(app, "_sa_notebook_pages", None)
    if cache is None:
        cache = {d for d in app.env.found_docs if is_notebook(Path(app.env.doc2path(d)))}
        app._sa_notebook_pages = cache
    return cache


def _note_pages_read(app, env, docnames):
    app._sa_pages_read = list(docnames)


def pages_read(app) -> list[str] | None:
    """The pages that this build reads again (``None`` before Sphinx has said): the notebooks and
    viewcode's pages (:mod:`booksite.sourcelinks`) are written again when these may have changed them.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> app = SimpleNamespace()
    >>> pages_read(app) is None
    True
    >>> _note_pages_read(app, None, {"api"})
    >>> pages_read(app)
    ['api']
    """
    return getattr(app, "_sa_pages_read", None)


def _notebooks_stale(app) -> bool:
    """Whether this build read a page (a notebook may show any page's numbers) or a notebook is missing."""
    out = Path(app.outdir) / NOTEBOOK_DIR
    read = pages_read(app)
    return read is None or bool(read) or any(
        not (out / f"{docname}.ipynb").exists() for docname in _notebook_pages(app))


def _build_finished(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    if _notebooks_stale(app):
        refs = book_references(app)
        for docname in sorted(_notebook_pages(app)):
            write_chapter_notebooks(app, docname, refs)
    options = out / "_static" / "documentation_options.js"
    options_js = options.read_text(encoding="utf-8") if options.exists() else ""
    for page in sorted(out.rglob("*.html")):
        if page.relative_to(out).parts[0] == "_static":
            continue  # theme template fragments, not pages (viewcode's _modules/ pages are pages)
        text = page.read_text(encoding="utf-8")
        new = apply_csp(inline_documentation_options(text, options_js))
        if new != text:
            page.write_text(new, encoding="utf-8")


class BookHTMLTranslator(HTML5Translator):
    """HTML5 writer whose bibliography list holds list items and whose images load lazily.

    docutils gives each entry ``role="doc-biblioentry"`` inside
    ``role="list"``; that role is deprecated and a list may only hold
    ``listitem`` children (axe rule ``aria-required-children``).

    Every image gets ``loading="lazy"`` (an image that sets ``:loading:``
    keeps its own): a chapter's figures sit below its opening text, and a
    phone on a slow line that fetched them all at once would show that
    text later.
    """

    def visit_image(self, node):
        node.setdefault("loading", "lazy")
        super().visit_image(node)

    def visit_citation(self, node):
        if not isinstance(node.previous_sibling(), type(node)):
            self.body.append('<div role="list" class="citation-list">\n')
        self.body.append(self.starttag(node, "div", classes=[node.tagname], role="listitem"))


def setup_html(app, *, build_finished: int) -> None:
    """The HTML writer, the self-check balance, notebook downloads and, at ``build_finished``, the CSP.

    Examples
    --------
    >>> class App:  # a stand-in that records what the feature asks for
    ...     def __init__(self): self.events = []
    ...     def set_translator(self, name, cls, override): self.translator = (name, cls.__name__)
    ...     def connect(self, event, handler, priority=500): self.events.append((event, priority))
    >>> app = App()
    >>> setup_html(app, build_finished=500)
    >>> app.translator, app.events  # doctest: +NORMALIZE_WHITESPACE
    (('html', 'BookHTMLTranslator'), [('env-before-read-docs', 500), ('html-page-context', 500),
     ('html-page-context', 500), ('build-finished', 500)])
    """
    app.set_translator("html", BookHTMLTranslator, override=True)
    app.connect("env-before-read-docs", _note_pages_read)  # a rebuild that read no page rewrites no notebook
    app.connect("html-page-context", _check_balance)
    app.connect("html-page-context", _add_download_link)
    app.connect("build-finished", _build_finished, priority=build_finished)
