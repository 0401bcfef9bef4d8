"""booktools: what the book's pages call, organised by kind.

A page's hidden cells call it to draw a figure, set a table, glue a number,
emit a lab or a self-check. It may import :mod:`selfattention`;
``selfattention`` never imports it. The machinery that makes the site
around the pages (Sphinx, notebooks, PDF, the in-browser Python) is
:mod:`booksite`, which may import this package, never the reverse.

=================================  =====================================================
module                             what it holds
=================================  =====================================================
:mod:`~booktools.badinputs`        bad inputs tried against the package, and their errors
:mod:`~booktools.bounds`           numbers after "at most", "about"...: rounded to stay true
:mod:`~booktools.figures`          figures by subject, one module each; all share
                                   :mod:`~booktools.figures.base` (start, finish, PNG)
:mod:`~booktools.formatting`       the one number format of tables, prose and labs
:mod:`~booktools.gluing`           glue computed numbers into a page's prose
:mod:`~booktools.head_weights`     one head's weights from its stored scores (labs and CLI)
:mod:`~booktools.html`             HTML blocks with JSON data, no scripts (labs, checks)
:mod:`~booktools.labs`             one module per JavaScript lab: its configuration
                                   and its test states
:mod:`~booktools.machine`          what a measurement ran on
:mod:`~booktools.pngfile`          a figure as the PNG a page shows, its text inside the image
:mod:`~booktools.selfcheck`        self-checks: questions with computed answers
:mod:`~booktools.show_attention`   the command line: ``python -m booktools.show_attention``
:mod:`~booktools.style`            the one figure style (colours, fonts, sizes)
:mod:`~booktools.tables`           numbered MyST tables
=================================  =====================================================

Examples
--------
The map lists every module of the package:

>>> import pkgutil, re, booktools
>>> mapped = re.findall(r":mod:`~booktools\\.(\\w+)`", booktools.__doc__)
>>> mapped == sorted(m.name for m in pkgutil.iter_modules(booktools.__path__))
True

A page cell formats a number the one way the book does:

>>> from booktools.formatting import fmt
>>> fmt(0.76805, 3)
'0.768'
"""
