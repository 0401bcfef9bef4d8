"""booktools: the tooling that the book's pages use.

Figure style, figures, tables and number formatting for *Self-Attention,
Computed*. It may import :mod:`selfattention`; ``selfattention`` never
imports it.
"""
