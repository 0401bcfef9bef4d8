"""Each page gets a ``<meta name="description">``: its opening paragraph, shortened.

Search engines show it under the page's title, and Lighthouse's SEO audit asks
for it. A page can set its own with MyST front matter
(``html_meta: {description: ...}``); then this one is not added.
"""

from __future__ import annotations

import html

from docutils import nodes

#: Search results show about this many characters.
LIMIT = 160


def shorten(text: str, limit: int = LIMIT) -> str:
    """``text`` on one line, cut after a whole word so that it fits in ``limit`` characters.

    Examples
    --------
    >>> shorten("Self-attention lets   every word\\ntake some meaning.", 30)
    'Self-attention lets every…'
    >>> shorten("Short enough.")
    'Short enough.'
    """
    if limit < 2:
        raise ValueError(f"limit must be at least 2, got {limit}")
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


def opening_paragraph(doctree: nodes.Node) -> str:
    """Text of the first paragraph that sits directly in a section (not in a cell, note or table).

    Examples
    --------
    >>> from docutils.core import publish_doctree
    >>> tree = publish_doctree("Title\\n=====\\n\\n.. note:: Not this.\\n\\nThis one, *plainly*.\\n")
    >>> opening_paragraph(tree)
    'This one, plainly.'
    """
    for para in doctree.findall(nodes.paragraph):
        if isinstance(para.parent, (nodes.section, nodes.document)):
            return para.astext()
    return ""


def _add_description(app, pagename, templatename, context, doctree):
    if doctree is None or 'name="description"' in context.get("metatags", ""):
        return
    text = shorten(opening_paragraph(doctree)) or shorten(f"{context.get('title', pagename)}: a page of "
                                                            f"{app.config.project}.")
    if text:
        context["metatags"] = context.get("metatags", "") + \
            f'\n<meta name="description" content="{html.escape(text, quote=True)}" />'


def setup_pagemeta(app, *, page_context: int) -> None:
    """Add each page's description to its ``<meta>`` tags when the page is written (at ``page_context``).

    Examples
    --------
    >>> class App:  # a stand-in that records what the feature asks for
    ...     def connect(self, event, handler, priority=500): self.event = (event, priority)
    >>> app = App()
    >>> setup_pagemeta(app, page_context=500)
    >>> app.event
    ('html-page-context', 500)
    """
    app.connect("html-page-context", _add_description, priority=page_context)

