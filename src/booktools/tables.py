"""Tables a page displays as numbered, captioned MyST tables.

One class, :class:`Table`, writes the MyST ``table`` directive. Two helpers
build the usual shapes: :func:`number_table` (a row label, then numbers with
a fixed count of decimals) and :func:`text_table` (a row label, then cells
that are already text). :func:`cell` and :func:`code` make any text safe
inside a cell.

myst-nb renders a cell's ``text/markdown`` output as MyST (the book sets
``nb_render_markdown_format = "myst"``), so each table gets a number and a
``{numref}`` target.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from .formatting import fmt

_ALIGN = {"l": "---", "r": "---:", "c": ":---:"}


class Table:
    """A numbered, captioned MyST table whose cells are used as given.

    Parameters
    ----------
    header : sequence of str
        The column headings.
    rows : sequence of sequence of str
        The rows, each with one cell per heading (Markdown, e.g. ``**cat**``).
    caption : str
        The caption.
    name : str
        The label for ``{numref}``.
    align : str, optional, keyword-only
        One letter per column: ``"l"``, ``"r"`` or ``"c"``. By default the
        columns carry no alignment.
    center : bool, default False, keyword-only
        Centre the table on the page.

    Raises
    ------
    ValueError
        If a row or ``align`` does not have one entry per heading.

    Examples
    --------
    >>> t = Table(["a", "b"], [["1", "x \\\\| y"]], "Demo", "tbl-demo")
    >>> print(t.markdown())
    :::{table} Demo
    :name: tbl-demo
    <BLANKLINE>
    | a | b |
    |---|---|
    | 1 | x \\| y |
    :::
    >>> Table(["a", "b"], [["1"]], "Demo", "tbl-demo")
    Traceback (most recent call last):
    ...
    ValueError: every row must have 2 cells like the header, got [1]
    """

    def __init__(self, header: Sequence[str], rows: Sequence[Sequence[str]], caption: str, name: str,
                 *, align: str | None = None, center: bool = False):
        header = [str(h) for h in header]
        rows = [[str(c) for c in row] for row in rows]
        if any(len(r) != len(header) for r in rows):
            raise ValueError(f"every row must have {len(header)} cells like the header, "
                             f"got {[len(r) for r in rows]}")
        if align is not None and (len(align) != len(header) or set(align) - set(_ALIGN)):
            raise ValueError(f"align must have one of l, r, c per column ({len(header)}), got {align!r}")
        self.header, self.rows, self.caption, self.name = header, rows, caption, name
        self.align, self.center = align, center

    def markdown(self) -> str:
        """The table as a MyST ``table`` directive.

        Examples
        --------
        >>> print(Table(["n", "n²"], [["2", "4"]], "Squares", "tbl-sq", align="lr", center=True).markdown())
        :::{table} Squares
        :name: tbl-sq
        :align: center
        <BLANKLINE>
        | n | n² |
        |---|---:|
        | 2 | 4 |
        :::
        """
        lines = [f":::{{table}} {self.caption}", f":name: {self.name}"]
        if self.center:
            lines.append(":align: center")
        lines.append("")
        lines.append("| " + " | ".join(self.header) + " |")
        rule = [_ALIGN[a] for a in self.align] if self.align else ["---"] * len(self.header)
        lines.append("|" + "|".join(rule) + "|")
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        lines.append(":::")
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        return self.markdown()


def number_table(values, row_labels: Sequence[str], col_labels: Sequence[str], decimals: int,
                 caption: str, name: str, corner: str = "word") -> Table:
    """A centred table of numbers: a bold label per row, then the row's values.

    Parameters
    ----------
    values : array_like, shape (rows, columns)
        The numbers, formatted with :func:`~booktools.formatting.fmt`.
    row_labels, col_labels : sequence of str
        One label per row and per column.
    decimals : int
        Decimals of every number.
    caption, name : str
        As :class:`Table`.
    corner : str, default "word"
        The heading above the row labels.

    Returns
    -------
    Table

    Raises
    ------
    ValueError
        If ``values`` does not have one row per row label and one column
        per column label.

    Examples
    --------
    >>> print(number_table([[1.0, 0.5]], ["cat"], ["a", "b"], 1, "Two numbers", "tbl-demo").markdown())
    :::{table} Two numbers
    :name: tbl-demo
    :align: center
    <BLANKLINE>
    | word | a | b |
    |---|---:|---:|
    | **cat** | 1.0 | 0.5 |
    :::
    """
    values = np.asarray(values, dtype=float)
    if values.ndim != 2 or values.shape != (len(row_labels), len(col_labels)):
        raise ValueError(
            f"values of shape {values.shape} do not match "
            f"{len(row_labels)} row labels and {len(col_labels)} column labels"
        )
    cells = [[fmt(v, decimals) for v in row] for row in values]
    return text_table(cells, row_labels, col_labels, caption, name, corner=corner)


def text_table(cells, row_labels: Sequence[str], col_labels: Sequence[str], caption: str, name: str,
               corner: str = "") -> Table:
    """A centred table of text: a bold label per row, then cells used as given.

    For cells such as ``"61.0 GiB"`` or ``"4,096"``; the cells are
    right-aligned like numbers.

    Parameters
    ----------
    cells : sequence of sequence of str
        One row of cells per row label, one cell per column label.
    row_labels, col_labels : sequence of str
        One label per row and per column.
    caption, name : str
        As :class:`Table`.
    corner : str, default ""
        The heading above the row labels.

    Returns
    -------
    Table

    Raises
    ------
    ValueError
        If ``cells`` does not have one row per row label, each with one
        cell per column label.

    Examples
    --------
    >>> print(text_table([["16", "64"]], ["n²"], ["4", "8"], "Counts", "tbl-c", corner="n").markdown())
    :::{table} Counts
    :name: tbl-c
    :align: center
    <BLANKLINE>
    | n | 4 | 8 |
    |---|---:|---:|
    | **n²** | 16 | 64 |
    :::
    """
    cells = [[str(c) for c in row] for row in cells]
    if len(cells) != len(row_labels) or any(len(r) != len(col_labels) for r in cells):
        raise ValueError(
            f"cells must have {len(row_labels)} rows of {len(col_labels)} entries, "
            f"got {[len(r) for r in cells]}"
        )
    rows = [[f"**{label}**", *row] for label, row in zip(row_labels, cells)]
    return Table([corner, *col_labels], rows, caption, name, align="l" + "r" * len(col_labels), center=True)


def cell(text: str) -> str:
    """Make ``text`` safe inside a Markdown table cell: one line, ``|`` escaped.

    Examples
    --------
    >>> print(cell("a | b\\nc"))
    a \\| b c
    """
    return " ".join(str(text).split("\n")).replace("|", r"\|")


def code(text: str) -> str:
    """``text`` as inline code for a table cell, whatever backticks it holds.

    Examples
    --------
    >>> print(code("x must be numeric"))
    `x must be numeric`
    >>> print(code("a `b` | c"))
    `` a `b` \\| c ``
    """
    text = " ".join(str(text).split("\n"))
    runs = [len(r) for r in re.findall(r"`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or runs else ""
    return cell(f"{fence}{pad}{text}{pad}{fence}")
