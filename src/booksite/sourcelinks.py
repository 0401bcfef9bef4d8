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
"""

from __future__ import annotations

import importlib
import inspect

from docutils import nodes
from sphinx import addnodes
from sphinx.ext.viewcode import viewcode_anchor
from sphinx.transforms.post_transforms import SphinxPostTransform

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


def _follow_own_modules(app) -> None:
    # viewcode's event exists once viewcode is set up, which conf.py does after this extension
    if "viewcode-follow-imported" in app.events.events:
        app.connect("viewcode-follow-imported", own_module)
