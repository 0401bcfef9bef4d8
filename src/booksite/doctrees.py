"""Each page's saved doctree holds that page and nothing else.

The nodes that autodoc and napoleon make for the API pages (and some that
directives parse on their own) are made inside a second, nested docutils
document, and each keeps a pointer to it (``node._document``). That document's
settings carry Sphinx's whole build environment, so pickling a page's doctree
pickled the environment with it: every API page's doctree weighed 2 to 3.5 MB,
most of it other pages' labs and modules' sources, read again each time Sphinx
loads the doctree (the HTML and LaTeX writers, figure numbers, references).
After a page is read, its nodes point to the page's own document.
"""

from __future__ import annotations

from docutils import nodes


def adopt(doctree: nodes.document) -> int:
    """Point every node of ``doctree`` that names another document to ``doctree``; return how many.

    Examples
    --------
    A paragraph parsed in a nested document keeps a pointer to it when its section moves into the
    page: appending points the section to the page, not the section's children.

    >>> from docutils.utils import new_document
    >>> page, nested = new_document("page"), new_document("nested")
    >>> section, para = nodes.section(), nodes.paragraph("", "parsed in a nested document")
    >>> section += para
    >>> para.document = nested
    >>> page += section
    >>> para._document is nested
    True
    >>> adopt(page), para._document is page
    (1, True)
    """
    moved = 0
    for node in doctree.findall(include_self=False):
        if getattr(node, "_document", None) not in (None, doctree):
            node._document = doctree
            moved += 1
    return moved


def _adopt_read(app, doctree) -> None:
    adopt(doctree)


def setup_doctrees(app) -> None:
    """Connect :func:`adopt` to ``doctree-read``: it runs before Sphinx saves the doctree."""
    app.connect("doctree-read", _adopt_read)
