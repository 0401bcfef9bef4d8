"""The bibliography's labels: author and year ("Vaswani et al., 2017"), as the text cites, not [1]-[10].

pybtex's plain style with author-year labels, registered with pybtex under
the names that ``conf.py`` gives sphinxcontrib-bibtex
(``bibtex_default_style = "plain_author_year"``).
"""

from __future__ import annotations

from importlib.metadata import distributions

from pybtex.backends.plaintext import Backend as PlainText
from pybtex.plugin import register_plugin
from pybtex.richtext import Text
from pybtex.style.formatting.plain import Style as PlainStyle
from pybtex.style.labels import BaseLabelStyle

#: The names of the label style and of the formatting style that uses it.
LABEL_STYLE = "author_year"
STYLE = "plain_author_year"


def author_year(last_names: list[str], year: str, key: str = "") -> str:
    """The label of one entry from its authors' last names and its year.

    Examples
    --------
    >>> author_year(["Vaswani", "Shazeer", "Parmar"], "2017")
    'Vaswani et al., 2017'
    >>> author_year(["Jain", "Wallace"], "2019"), author_year(["Elman"], "1990")
    ('Jain and Wallace, 2019', 'Elman, 1990')
    """
    who = (last_names[0] if len(last_names) == 1 else " and ".join(last_names) if len(last_names) == 2
           else f"{last_names[0]} et al." if last_names else key)
    return f"{who}, {year}"


def disambiguate(labels: list[str]) -> list[str]:
    """Labels that agree get a, b, ... in order.

    Examples
    --------
    >>> disambiguate(["Bahdanau et al., 2015", "Vaswani et al., 2017", "Bahdanau et al., 2015"])
    ['Bahdanau et al., 2015a', 'Vaswani et al., 2017', 'Bahdanau et al., 2015b']
    """
    out = list(labels)
    for label in set(labels):
        same = [i for i, other in enumerate(labels) if other == label]
        if len(same) > 1:
            for n, i in enumerate(same):
                out[i] = f"{label}{'abcdefghijklmnopqrstuvwxyz'[n]}"
    return out


class AuthorYearLabels(BaseLabelStyle):
    """'Vaswani et al., 2017', 'Jain and Wallace, 2019'; a, b, ... when two agree."""

    def format_labels(self, sorted_entries):
        text = PlainText()  # made once: render_as("text") would look the backend up by name for every name
        labels = []
        for entry in sorted_entries:
            people = entry.persons.get("author") or entry.persons.get("editor") or []
            last = [Text.from_latex(" ".join(p.last_names)).render(text) for p in people]
            labels.append(author_year(last, entry.fields.get("year", "n.d."), entry.key))
        yield from disambiguate(labels)


class AuthorYearStyle(PlainStyle):
    """pybtex's plain style with :class:`AuthorYearLabels`."""

    default_label_style = LABEL_STYLE


def register_installed_plugins() -> int:
    """Register every pybtex plugin that an installed package declares, in one pass; return how many.

    pybtex finds a plugin by scanning the entry points of every installed
    distribution, each time it needs one: about a hundred scans per build,
    since sphinxcontrib-bibtex formats every bibliography on every build.
    Registered at run time, each is found at once.
    """
    found = {(ep.group, ep.name): ep for dist in distributions() for ep in dist.entry_points
             if ep.group.startswith("pybtex.")}
    for (group, name), ep in sorted(found.items()):
        register_plugin(group, name, ep.load(), force=True)
    return len(found)


def setup_bibliography(app) -> None:
    """Register pybtex's plugins and the author-year styles, before sphinxcontrib-bibtex reads the references.

    Examples
    --------
    >>> from pybtex.plugin import find_plugin
    >>> setup_bibliography(None)
    >>> find_plugin("pybtex.style.formatting", STYLE).__name__
    'AuthorYearStyle'
    """
    register_installed_plugins()
    register_plugin("pybtex.style.labels", LABEL_STYLE, AuthorYearLabels, force=True)
    register_plugin("pybtex.style.formatting", STYLE, AuthorYearStyle, force=True)
