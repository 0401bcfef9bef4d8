"""booktools: the tooling that the book's pages use, organised by kind.

It may import :mod:`selfattention`; ``selfattention`` never imports it.

==============================  =====================================================
module                          what it holds
==============================  =====================================================
:mod:`~booktools.style`         the one figure style (colours, fonts, sizes)
:mod:`~booktools.figures`       figures by subject, one module each; all share
                                :mod:`~booktools.figures.base` (start, finish, PNG)
:mod:`~booktools.pngfile`       a figure as the PNG a page shows, its smallest text inside
:mod:`~booktools.tables`        numbered MyST tables
:mod:`~booktools.formatting`    the one number format of tables, prose and labs
:mod:`~booktools.labs`          one module per JavaScript lab: its configuration
                                and its test states
:mod:`~booktools.head_weights`  one head's weights from its scores (labs and CLI)
:mod:`~booktools.show_attention`  the command line: ``python -m booktools.show_attention``
:mod:`~booktools.badinputs`     bad inputs tried against the package
:mod:`~booktools.machine`       what a measurement ran on
:mod:`~booktools.selfcheck`     self-checks; :mod:`~booktools.gluing` glue helpers;
                                :mod:`~booktools.html` HTML blocks;
                                :mod:`~booktools.sphinxext` the Sphinx extension
==============================  =====================================================
"""
