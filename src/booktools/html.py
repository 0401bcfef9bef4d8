"""Small HTML outputs for pages: blocks of markup with JSON data, no scripts.

The labs' element is :func:`booktools.labs.element.lab_element`.
"""

from __future__ import annotations

import html
import json


def json_data(data, css_class: str) -> str:
    """A ``<script type="application/json">`` data block (never executed).

    ``</`` is escaped so the data cannot close the element early, and keys
    are sorted so the page is byte-for-byte reproducible.

    Examples
    --------
    >>> json_data({"b": 1, "a": "</script>"}, "sa-config")
    '<script type="application/json" class="sa-config">{"a": "<\\\\/script>", "b": 1}</script>'
    """
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, allow_nan=False)
    text = text.replace("</", "<\\/")
    return f'<script type="application/json" class="{css_class}">{text}</script>'


def esc(text: str) -> str:
    """Escape text for HTML content and attributes.

    Examples
    --------
    >>> esc('a < b & "c"')
    'a &lt; b &amp; &quot;c&quot;'
    """
    return html.escape(str(text), quote=True)


class HTMLBlock:
    """Markup that a notebook cell displays as ``text/html``.

    ``markdown``, if given, is the same content for a plain notebook (no
    scripts, no styles): the book's HTML pages show the markup, and the
    chapter's downloadable notebook shows the Markdown.

    Examples
    --------
    >>> HTMLBlock("<p>hi</p>")._repr_html_()
    '<p>hi</p>'
    >>> HTMLBlock("<p>hi</p>", markdown="hi")._repr_markdown_()
    'hi'
    """

    def __init__(self, markup: str, markdown: str | None = None):
        self.markup = markup
        self.markdown = markdown

    def _repr_html_(self) -> str:
        return self.markup

    def _repr_markdown_(self) -> str | None:
        return self.markdown

    def __repr__(self) -> str:  # what a plain-text reader sees
        return "<interactive element: open the book's HTML page to use it>"
