"""The sidebar of viewcode's source pages, made once for each depth of folder.

The theme's sidebar lists the book's table of contents on every page; Sphinx makes
it for each page (the templates' ``toctree()``), in about 70 ms. No toctree lists
a source page (``_modules/...``), so no entry of their sidebar is marked as the
current page, and two source pages get the same sidebar but for the ``../`` in
front of each link, which depends only on how many folders deep the page lies.
There are about a hundred source pages, written one after the other at the end of
every build: :func:`share_source_sidebar` makes their sidebar once per depth.

Examples
--------
>>> calls = []
>>> def toctree(**kwargs):
...     calls.append(kwargs)
...     return "<ul>...</ul>"
>>> class Builder: pass
>>> class App: builder = Builder()
>>> app, pages = App(), ["_modules/a/b", "_modules/c/d", "_modules/index"]
>>> contexts = [{"toctree": toctree} for _ in pages]
>>> for page, context in zip(pages, contexts):
...     share_source_sidebar(app, page, "page.html", context, None)
>>> [context["toctree"](collapse=True) for context in contexts]
['<ul>...</ul>', '<ul>...</ul>', '<ul>...</ul>']
>>> len(calls)          # once for the pages two folders deep, once for the one a folder deep
2
"""

from __future__ import annotations

#: Where the sidebars made during one build are kept: an attribute of that build's builder.
KEPT = "_sa_source_sidebars"
#: The folder of viewcode's source pages.
SOURCE_PAGES = "_modules/"


def share_source_sidebar(app, pagename, templatename, context, doctree) -> None:
    """On a source page, make the templates' ``toctree()`` give the sidebar already made for
    another page of the same depth (with the same arguments), or make it and keep it."""
    if not pagename.startswith(SOURCE_PAGES) or "toctree" not in context:
        return
    kept = getattr(app.builder, KEPT, None)
    if kept is None:
        kept = {}
        setattr(app.builder, KEPT, kept)
    make, depth = context["toctree"], pagename.count("/")

    def toctree(**kwargs):
        key = (depth, tuple(sorted(kwargs.items())))
        if key not in kept:
            kept[key] = make(**kwargs)
        return kept[key]

    context["toctree"] = toctree


def setup_navcache(app, *, page_context: int) -> None:
    """Connect :func:`share_source_sidebar` to ``html-page-context`` at ``page_context``: before the
    theme's handlers, which render the sidebar to find out whether it is empty."""
    app.connect("html-page-context", share_source_sidebar, priority=page_context)
