"""Sphinx extension of the book: notebook downloads and a strict CSP.

* Every page that holds code cells can be downloaded as a Jupyter notebook
  (``_notebooks/<page>.ipynb``); a link to it sits under the page title.
* Every HTML page gets a Content-Security-Policy ``<meta>`` tag. Scripts run
  only from the site itself; the few inline scripts that the theme writes
  are allowed by their SHA-256 hash, computed here from the final HTML. The
  theme's two inline ``onclick`` handlers are moved to ``_static/sa/``.
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import nbformat

NOTEBOOK_DIR = "_notebooks"

#: The policy; ``{script_hashes}`` is filled in per page.
CSP = (
    "default-src 'self'; script-src 'self'{script_hashes}; "
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
    >>> "script-src 'self' 'sha256-" in out
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


def write_notebook(source: Path, target: Path, title: str) -> None:
    """Write the page at ``source`` as a Jupyter notebook at ``target``.

    The notebook is the page's own cells, without outputs, after a short
    note on what it needs to run outside the book.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "p.md").write_text("---\\nkernelspec:\\n  name: python3\\n  display_name: Python 3\\n"
    ...                             "---\\n# P\\n\\n```{code-cell} ipython3\\n1 + 1\\n```\\n")
    >>> write_notebook(d / "p.md", d / "p.ipynb", "P")
    >>> [c["cell_type"] for c in json.loads((d / "p.ipynb").read_text())["cells"]]
    ['markdown', 'markdown', 'code']
    """
    from myst_nb.core.read import read_myst_markdown_notebook

    nb = read_myst_markdown_notebook(source.read_text(encoding="utf-8"))
    note = (
        f"*This notebook is the chapter \u201c{title}\u201d of* Self-Attention, Computed. "
        "To run it, install the book's packages first: in a clone of the book's repository, "
        "`pip install -r requirements.txt -e .` (it needs `selfattention`, `booktools`, "
        "`numpy`, `matplotlib` and `myst-nb`)."
    )
    nb.cells.insert(0, nbformat.v4.new_markdown_cell(note))
    for i, cell in enumerate(nb.cells):  # stable ids: reproducible files
        cell["id"] = f"cell-{i}"
    nb.metadata.pop("jupytext", None)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")


def _check_balance(app, pagename, templatename, context, doctree):
    """Warn (an error with ``-W``) when a page's choice checks can be guessed."""
    from sphinx.util import logging

    from .selfcheck import balance_problems

    for problem in balance_problems(context.get("body", "")):
        logging.getLogger(__name__).warning(f"self-checks of {pagename}: {problem}",
                                            location=pagename)


def _add_download_link(app, pagename, templatename, context, doctree):
    if doctree is None or pagename not in _notebook_pages(app):
        return
    depth = pagename.count("/")
    href = "../" * depth + f"{NOTEBOOK_DIR}/{pagename}.ipynb"
    link = (
        f'<p class="sa-download"><a href="{href}" download>'
        "Download this chapter as a Jupyter notebook</a> (runs with the book's packages).</p>"
    )
    body = context.get("body", "")
    heading = re.search(r"</h1>", body)
    if heading:
        context["body"] = body[: heading.end()] + "\n" + link + body[heading.end():]


def _notebook_pages(app) -> set[str]:
    cache = getattr(app, "_sa_notebook_pages", None)
    if cache is None:
        cache = {d for d in app.env.found_docs if is_notebook(Path(app.env.doc2path(d)))}
        app._sa_notebook_pages = cache
    return cache


def _build_finished(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    for docname in sorted(_notebook_pages(app)):
        title = app.env.titles[docname].astext() if docname in app.env.titles else docname
        write_notebook(Path(app.env.doc2path(docname)), out / NOTEBOOK_DIR / f"{docname}.ipynb", title)
    for page in sorted(out.rglob("*.html")):
        if page.relative_to(out).parts[0].startswith("_"):
            continue  # theme template fragments in _static/, not pages
        text = page.read_text(encoding="utf-8")
        new = apply_csp(text)
        if new != text:
            page.write_text(new, encoding="utf-8")


def _translator_class():
    from sphinx.writers.html5 import HTML5Translator

    class BookHTMLTranslator(HTML5Translator):
        """HTML5 writer whose bibliography list holds list items.

        docutils gives each entry ``role="doc-biblioentry"`` inside
        ``role="list"``; that role is deprecated and a list may only hold
        ``listitem`` children (axe rule ``aria-required-children``).
        """

        def visit_citation(self, node):
            if not isinstance(node.previous_sibling(), type(node)):
                self.body.append('<div role="list" class="citation-list">\n')
            self.body.append(self.starttag(node, "div", classes=[node.tagname], role="listitem"))

    return BookHTMLTranslator


def setup(app):
    """Register the extension with Sphinx (``extensions`` in ``conf.py``).

    Examples
    --------
    >>> class App:  # a stand-in that records what the extension asks for
    ...     def __init__(self): self.events = []
    ...     def set_translator(self, name, cls, override): self.translator = (name, cls.__name__)
    ...     def connect(self, event, handler): self.events.append(event)
    >>> app = App()
    >>> setup(app)["parallel_read_safe"], app.translator, app.events
    (True, ('html', 'BookHTMLTranslator'), ['html-page-context', 'html-page-context', 'build-finished'])
    """
    app.set_translator("html", _translator_class(), override=True)
    app.connect("html-page-context", _check_balance)
    app.connect("html-page-context", _add_download_link)
    app.connect("build-finished", _build_finished)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
