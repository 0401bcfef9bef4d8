"""Tables computed by the package, rendered as numbered MyST tables."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .numbers import fmt


class MystTable:
    """A table that a page displays as a numbered, captioned MyST table.

    myst-nb renders the ``text/markdown`` output as MyST (the book sets
    ``nb_render_markdown_format = "myst"``), so the table gets a number and
    can be referenced with ``{numref}``.

    Examples
    --------
    >>> t = MystTable([[1.0, 0.5]], ["cat"], ["a", "b"], 1, "Two numbers", "tbl-demo")
    >>> print(t.markdown())
    :::{table} Two numbers
    :name: tbl-demo
    :align: center
    <BLANKLINE>
    | word | a | b |
    |---|---:|---:|
    | **cat** | 1.0 | 0.5 |
    :::
    """

    def __init__(self, values, row_labels: Sequence[str], col_labels: Sequence[str],
                 decimals: int, caption: str, name: str, corner: str = "word"):
        values = np.asarray(values, dtype=float)
        if values.ndim != 2 or values.shape != (len(row_labels), len(col_labels)):
            raise ValueError(
                f"values of shape {values.shape} do not match "
                f"{len(row_labels)} row labels and {len(col_labels)} column labels"
            )
        self.values, self.rows, self.cols = values, list(row_labels), list(col_labels)
        self.decimals, self.caption, self.name, self.corner = decimals, caption, name, corner

    def markdown(self) -> str:
        """The table as a MyST ``table`` directive."""
        lines = [f":::{{table}} {self.caption}", f":name: {self.name}", ":align: center", ""]
        lines.append("| " + " | ".join([self.corner, *self.cols]) + " |")
        lines.append("|---|" + "---:|" * len(self.cols))
        for label, row in zip(self.rows, self.values):
            cells = [fmt(v, self.decimals) for v in row]
            lines.append("| " + " | ".join([f"**{label}**", *cells]) + " |")
        lines.append(":::")
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        return self.markdown()
