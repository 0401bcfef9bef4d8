"""booksite: the machinery that makes the site, the notebooks and the PDF around the pages.

A page's code cells call :mod:`booktools` and :mod:`selfattention`, never this
package. ``booksite`` may import both; neither imports it. It is one Sphinx
extension (``extensions = [..., "booksite"]`` in ``conf.py``): :func:`setup`
turns on each feature with its ``setup_<feature>(app)``.

===============================  ======================================================
module                           what it holds
===============================  ======================================================
:mod:`~booksite.bibliography`    the bibliography's author-year labels (a pybtex style)
:mod:`~booksite.buildlog`        a build log without false alarms (kernel keys, config dumps)
:mod:`~booksite.citation`        how to cite the book and each chapter (``CITATION.cff``)
:mod:`~booksite.doctrees`        each page's saved doctree holds that page only
:mod:`~booksite.execution`       the notebook execution cache, kept per version of the code
:mod:`~booksite.labdata`         large lab configurations move from the page to a file
:mod:`~booksite.mathml`          formulas written as MathML at build time
:mod:`~booksite.modelweights`    the real model's float16 weights for the in-browser explorer
:mod:`~booksite.navcache`        the sidebar of the source pages, made once per folder depth
:mod:`~booksite.notebooks`       the chapter notebooks a student downloads (with solutions): a package
:mod:`~booksite.pagemeta`        each page's ``<meta name="description">``
:mod:`~booksite.pdf`             the PDF: labs photographed in Chromium, then figures
:mod:`~booksite.publish`         cite boxes, Open Graph tags, redirects, sitemap, footer date
:mod:`~booksite.runcells`        Run buttons: a page's cells run in the reader's browser
:mod:`~booksite.runtime`         the in-browser Python's files, from one pinned wheel
:mod:`~booksite.serve`           the built site served on 127.0.0.1 (PDF, tools, tests)
:mod:`~booksite.sitecss`         one purged stylesheet per page
:mod:`~booksite.sourcelinks`     a ``[source]`` link beside the function that made a figure or lab
:mod:`~booksite.sphinxext`       the HTML writer, notebook downloads and the strict CSP
:mod:`~booksite.wasmfile`        a WebAssembly module's sections, read and rewritten (the snapshot, the stubs)
===============================  ======================================================

Examples
--------
The map lists every module of the package:

>>> import pkgutil, re, booksite
>>> mapped = re.findall(r":mod:`~booksite\\.(\\w+)`", booksite.__doc__)
>>> mapped == sorted(m.name for m in pkgutil.iter_modules(booksite.__path__))
True

When the build ends, the features work in this order (Sphinx runs lower
priorities first, and handlers of one priority in the order they were
connected):

>>> class App:  # a stand-in that records the handlers; the rest does nothing
...     def __init__(self): self.handlers = []
...     def connect(self, event, handler, priority=500):
...         self.handlers.append((priority, len(self.handlers), event, handler.__module__))
...     def __getattr__(self, name): return lambda *args, **kwargs: None
>>> app = App()
>>> setup(app)["parallel_read_safe"]
True
>>> [module for _, _, event, module in sorted(app.handlers) if event == "build-finished"]
['booksite.publish', 'booksite.sphinxext', 'booksite.runcells', 'booksite.modelweights', 'booksite.labdata',
 'booksite.sitecss', 'booksite.publish', 'booksite.publish']
"""

from __future__ import annotations

#: Sphinx's default priority of an event handler; lower runs first.
DEFAULT = 500


def setup(app):
    """Register every feature of the site with Sphinx: the one place where their order is set.

    Where two features handle the same event, the priorities below say which
    runs first; the theme's handlers run at :data:`DEFAULT`, after ours of the
    same priority (the theme is set up last).
    """
    # Imported here, as sphinx-design does: ``import booksite`` (and ``python -m booksite.runtime``,
    # ``booksite.serve`` in the tools) stays quick, since the features import Sphinx, myst-nb and pybtex.
    from .bibliography import setup_bibliography  # deferred: see above
    from .buildlog import setup_buildlog  # deferred: see above
    from .doctrees import setup_doctrees  # deferred: see above
    from .execution import setup_execution  # deferred: see above
    from .labdata import setup_labdata  # deferred: see above
    from .mathml import setup_mathml  # deferred: see above
    from .modelweights import setup_modelweights  # deferred: see above
    from .navcache import setup_navcache  # deferred: see above
    from .pagemeta import setup_pagemeta  # deferred: see above
    from .pdf import setup_pdf  # deferred: see above
    from .publish import setup_publish  # deferred: see above
    from .runcells import setup_runcells  # deferred: see above
    from .sitecss import setup_sitecss  # deferred: see above
    from .sourcelinks import setup_sourcelinks  # deferred: see above
    from .sphinxext import setup_html  # deferred: see above

    setup_buildlog(app)      # first: the kernels' keys and the log's filters
    setup_execution(app)     # config-inited: the cache database, before the parallel readers start
    setup_doctrees(app)      # doctree-read: nodes made in a nested document point to their page
    setup_bibliography(app)  # the pybtex styles that conf.py names, before the references are read
    setup_mathml(app)
    setup_sourcelinks(app)   # a post-transform: "Made by" lines get viewcode's [source] link
    # html-page-context: the description first, then the Open Graph tags that repeat it.
    setup_pagemeta(app, page_context=DEFAULT)
    # html-page-context, before the theme's handlers render the sidebar: the source pages share theirs.
    setup_navcache(app, page_context=DEFAULT - 100)
    # build-finished: the redirect pages and the 404 page's <base> before the CSP, which every page gets.
    # build-finished, last of all (after sitecss): the 404 page's addresses rewritten from the site root.
    setup_publish(app, page_context=DEFAULT + 100, build_finished=DEFAULT - 100, root_addresses=DEFAULT + 450)
    setup_html(app, build_finished=DEFAULT)  # the chapter notebooks, then the CSP of every page
    setup_runcells(app)      # build-finished: copies the runtime files into the site
    setup_modelweights(app)  # build-finished: copies the model's float16 files into the site
    setup_labdata(app)       # build-finished: large lab configurations move to files
    # Last: the theme rewrites _static/pygments.css in its own build-finished handler.
    setup_sitecss(app, build_finished=DEFAULT + 400)
    setup_pdf(app)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
