"""The code behind every figure and lab, one click away: a ``[source]`` link beside its name.

A page names the function that drew a figure or built a lab in one line
under it, written with the Python domain's role::

    Made by {func}`~booktools.figures.plane.plot_words`.

The role links the name to its entry in the API reference
(``api-figures`` and ``api-labs``). This post-transform adds, right after the name,
the ``[source]`` link of :mod:`sphinx.ext.viewcode`: the module's
highlighted source, opened at the function. Only a paragraph that starts
with "Made by" and names a function of :mod:`booktools.figures`,
:mod:`booktools.labs` or :mod:`booktools.show_attention` gets it, and the paragraph gets the class
``sa-made-by`` for its style. Builders without viewcode pages (LaTeX)
drop the link and keep the name.

viewcode's overview page, ``_modules/index.html``, lists the modules with a
submodule's ``<ul>`` straight inside its parent's ``<ul>`` (axe rule
``list``); :func:`nested_module_list` writes it again with each sublist
inside its parent's item. A module whose functions the API pages document
under two names (``selfattention.split_heads`` and
``selfattention.learning.query_matrix``) gets from viewcode ``[docs]`` links
that join one name's page to the other's prefix, an anchor that page does not
hold; :func:`_mend_backlinks` points each at the entry of the same object.
And when an incremental build reads again a page that documents code, every
source page is written again (:func:`_drop_stale_source_pages`): viewcode
alone would keep a page whose module did not change, with its ``[docs]``
links as they were.
"""

from __future__ import annotations

import html
import importlib
import inspect
import re
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.ext.viewcode import viewcode_anchor
from sphinx.transforms.post_transforms import SphinxPostTransform

from .sphinxext import pages_read

#: What a "Made by" line starts with.
MADE_BY = "Made by "
#: The modules whose functions make the book's figures and labs.
MAKERS = ("booktools.figures.", "booktools.labs.", "booktools.show_attention.")


def maker_target(ref: addnodes.pending_xref) -> str | None:
    """The dotted name of a figure or lab function that ``ref`` names, if it does."""
    if ref.get("refdomain") != "py" or ref.get("reftype") not in ("func", "obj"):
        return None
    target = ref.get("reftarget", "")
    return target if target.startswith(MAKERS) else None


class SourceLinks(SphinxPostTransform):
    """Put viewcode's ``[source]`` link after the function named by each "Made by" line."""

    default_priority = 5  # before the references are resolved (10) and viewcode's anchors (100)

    def run(self, **kwargs) -> None:
        for paragraph in list(self.document.findall(nodes.paragraph)):
            if not paragraph.astext().startswith(MADE_BY):
                continue
            for ref in list(paragraph.findall(addnodes.pending_xref)):
                target = maker_target(ref)
                if target is None:
                    continue
                module = target.rpartition(".")[0]
                # viewcode's page of the module names each object by its name inside the module
                anchor = viewcode_anchor(reftarget="_modules/" + module.replace(".", "/"),
                                         refid=target[len(module) + 1:], refdoc=ref["refdoc"])
                ref.parent.insert(ref.parent.index(ref) + 1, [nodes.Text(" "), anchor])
                paragraph["classes"].append("sa-made-by")
                for literal in ref.findall(nodes.literal):
                    break_after_dots(literal)


def break_after_dots(literal: nodes.literal) -> None:
    """Let a long dotted name break only after a dot (``<wbr>``), not inside ``lab()`` on a phone.

    Examples
    --------
    >>> name = nodes.literal("", "booktools.labs.grid.grid_lab()")
    >>> break_after_dots(name)
    >>> [child.astext() for child in name.children]
    ['booktools.', '<wbr>', 'labs.', '<wbr>', 'grid.', '<wbr>', 'grid_lab()']
    """
    parts = [part for part in re.split(r"(?<=\.)", literal.astext()) if part]
    if len(parts) < 2:
        return
    children = []
    for i, part in enumerate(parts):
        children += [nodes.raw("", "<wbr>", format="html")] * (i > 0) + [nodes.Text(part)]
    literal.children = []
    literal.extend(children)


def own_module(app, modname: str, attribute: str) -> str | None:
    """The module viewcode should show for ``modname.attribute``: its own, if it is a value.

    viewcode follows a documented name to the module that defines it, by its
    ``__module__``. A value such as a colormap has none of its own, so its
    class's is taken, and the site would publish that library's source
    (``MASK_CMAP`` made a page of ``matplotlib.colors``). A function, class
    or module keeps viewcode's own rule (``None``).

    Examples
    --------
    >>> own_module(None, "booktools.figures.masks", "MASK_CMAP")
    'booktools.figures.masks'
    >>> own_module(None, "booktools.figures.masks", "plot_masks") is None
    True
    """
    try:
        value = importlib.import_module(modname)
        for part in attribute.split("."):
            value = getattr(value, part)
    except (ImportError, AttributeError):
        return None
    if inspect.isroutine(value) or inspect.isclass(value) or inspect.ismodule(value):
        return None
    return modname


def setup_sourcelinks(app) -> None:
    """The ``[source]`` links; ``conf.py`` turns on :mod:`sphinx.ext.viewcode`, which writes the pages."""
    app.add_post_transform(SourceLinks)
    app.connect("builder-inited", _follow_own_modules)
    app.connect("html-page-context", _nest_module_index)
    app.connect("html-collect-pages", _drop_stale_source_pages, priority=400)   # before viewcode's (500)


def _drop_stale_source_pages(app) -> list:
    """Before viewcode writes its pages: if a page read again in this build documents Python objects,
    delete every source page of the last build, so that viewcode writes them all again.

    A source page's ``[docs]`` links point into the API pages, but viewcode writes a module's page
    again only when the module's file is newer than the page. So when an API page changed and the
    module did not, an incremental build kept links to entries that had moved or gone (a fresh build
    never had the problem: it has no old pages).
    """
    read = set(pages_read(app) or ())   # booksite.sphinxext notes them (env-before-read-docs)
    if stale_source_pages(app.env.get_domain("py").objects.values(), read):
        for page in (Path(app.outdir) / "_modules").rglob("*.html"):
            page.unlink()
    return []


def stale_source_pages(entries, read: set[str]) -> bool:
    """Whether viewcode's pages may link to entries as they were: a page read again documents code.

    Examples
    --------
    >>> from types import SimpleNamespace as Entry
    >>> entries = [Entry(docname="api"), Entry(docname="api-labs")]
    >>> stale_source_pages(entries, {"weighted-average", "api-labs"})
    True
    >>> stale_source_pages(entries, {"weighted-average"})
    False
    """
    return any(entry.docname in read for entry in entries)


_MODULE_ITEM = re.compile(r'<li><a href="([^"]*)">([^<]*)</a></li>')


def nested_module_list(body: str) -> str:
    """viewcode's list of modules with each submodule's list inside its parent's item.

    Examples
    --------
    >>> body = ('<h1>All modules</h1>\\n<ul><li><a href="a.html">a</a></li>\\n'
    ...         '<ul><li><a href="a/b.html">a.b</a></li>\\n</ul><li><a href="c.html">c</a></li>\\n</ul>')
    >>> print(nested_module_list(body))
    <h1>All modules</h1>
    <ul>
    <li><a href="a.html">a</a>
    <ul>
    <li><a href="a/b.html">a.b</a></li>
    </ul></li>
    <li><a href="c.html">c</a></li>
    </ul>
    >>> nested_module_list("<p>no list</p>")
    '<p>no list</p>'
    """
    start = body.find("<ul>")
    items = _MODULE_ITEM.findall(body, start)
    if start < 0 or not items:
        return body
    root: list = []
    stack: list[tuple[str, list]] = [("", root)]  # (module name, its children), outermost first
    for href, name in items:
        while len(stack) > 1 and not html.unescape(name).startswith(stack[-1][0] + "."):
            stack.pop()
        children: list = []
        stack[-1][1].append((href, name, children))
        stack.append((html.unescape(name), children))
    return body[:start] + _module_list(root)


def _module_list(entries: list) -> str:
    items = "".join(f'<li><a href="{href}">{name}</a>' + (f"\n{_module_list(children)}" if children else "")
                    + "</li>\n" for href, name, children in entries)
    return f"<ul>\n{items}</ul>"


def _nest_module_index(app, pagename, templatename, context, doctree) -> None:
    if pagename == "_modules/index" and "body" in context:
        context["body"] = nested_module_list(context["body"])
    elif pagename.startswith("_modules/") and "body" in context:
        context["body"] = _mend_backlinks(app, pagename, context["body"])


_BACKLINK = re.compile(r'(<div class="viewcode-block" id="([^"]+)">\n<a class="viewcode-back" href=")'
                       r'([^"#]*)#([^"]*)(">)')


def python_object(dotted: str):
    """The object a dotted name names (a module, then attributes), or ``None``.

    Examples
    --------
    >>> python_object("selfattention.learning.query_matrix").__name__
    'query_matrix'
    >>> python_object("selfattention.no_such_name") is None
    True
    """
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for part in parts[cut:]:
                value = getattr(value, part)
        except AttributeError:
            return None
        return value
    return None


def _mend_backlinks(app, pagename: str, body: str) -> str:
    """Each ``[docs]`` link whose anchor no entry has, pointed at an entry of the same object."""
    objects = app.env.get_domain("py").objects
    module = pagename.removeprefix("_modules/").replace("/", ".")

    def mend(m: re.Match) -> str:
        name, page, anchor = m.group(2), m.group(3), m.group(4)
        if anchor in objects and app.builder.get_relative_uri(pagename, objects[anchor].docname) == page:
            return m.group(0)
        target = python_object(f"{module}.{name}")
        same = [(app.builder.get_relative_uri(pagename, entry.docname), entry.node_id)
                for full, entry in objects.items()
                if full.endswith("." + name) and target is not None and python_object(full) is target]
        same.sort(key=lambda found: found[0] != page)  # an entry on the page viewcode chose, first
        return f"{m.group(1)}{same[0][0]}#{same[0][1]}{m.group(5)}" if same else m.group(0)

    return _BACKLINK.sub(mend, body)


def _follow_own_modules(app) -> None:
    # viewcode's event exists once viewcode is set up, which conf.py does after this extension
    if "viewcode-follow-imported" in app.events.events:
        app.connect("viewcode-follow-imported", own_module)
