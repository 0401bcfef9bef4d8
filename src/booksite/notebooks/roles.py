"""Inline roles, resolved: glued numbers, references, citations and API links as the book shows them.

:class:`References` holds what the book build knows (numbers, titles,
citations, glued values); :func:`resolve_roles` turns each MyST role of a
line into its text; :func:`bib_citations` reads the bibliography's author-year
names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

_ROLE = re.compile(r"\{(?P<role>[a-z][\w:-]*)\}`(?P<content>[^`]*)`")
_TITLED = re.compile(r"^(?P<text>.*?)\s*<(?P<label>[^<>]+)>$", re.S)


@dataclass
class References:
    """What the book build knows that a notebook cannot compute.

    Attributes
    ----------
    numbers : dict
        Label to its numbered name, e.g. ``{"fig-x": "Figure 3"}``.
    titles : dict
        Label to the title of its section or chapter.
    citations : dict
        BibTeX key to ``(authors, year, entry)``: ``("Vaswani et al.",
        "2017", "Vaswani, A. et al. (2017). Attention Is All You Need. ...")``.
    glue : dict
        Glued key to its MIME bundle, as myst-nb stored it.
    documents : dict
        Page name to its title, for ``{doc}`` links: ``{"weighted-average": "A weighted average"}``.
    substitutions : dict
        The values of ``{{ name }}`` in the pages (``myst_substitutions`` of ``conf.py``).
    """

    numbers: dict[str, str] = field(default_factory=dict)
    titles: dict[str, str] = field(default_factory=dict)
    citations: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    glue: dict[str, dict] = field(default_factory=dict)
    documents: dict[str, str] = field(default_factory=dict)
    substitutions: dict[str, str] = field(default_factory=dict)


class NotebookExportError(ValueError):
    """The page uses something the notebook export cannot turn into plain Markdown."""


def _format_glue(bundle: dict, spec: str) -> str:
    from myst_nb.core.variables import format_plain_text

    text = bundle.get("text/plain")
    if text is None:
        raise NotebookExportError("glued value has no text/plain")
    text = "".join(text) if isinstance(text, list) else text
    return format_plain_text(text, spec)


_PY_ROLES = {f"{p}{r}" for p in ("", "py:") for r in ("func", "class", "mod", "data", "attr", "meth", "obj")}


def resolve_roles(text: str, refs: References, cited: list[str] | None = None) -> str:
    """Replace every MyST role in ``text`` by the text the book shows.

    Parameters
    ----------
    text : str
        Markdown with roles such as ``{glue:text}`w:.3f```.
    refs : References
        The numbers, titles, citations and glued values of the book build.
    cited : list of str, optional
        Collects the BibTeX keys cited, for a list of references.

    Returns
    -------
    str

    Raises
    ------
    NotebookExportError
        For an unknown role, label, citation or glued key.

    Examples
    --------
    >>> refs = References(numbers={"fig-a": "Figure 2"}, glue={"w": {"text/plain": "0.76805"}},
    ...                   citations={"v17": ("Vaswani et al.", "2017", "...")})
    >>> resolve_roles("w = {glue:text}`w:.3f` ({numref}`fig-a`), after {cite:t}`v17`.", refs)
    'w = 0.768 (Figure 2), after Vaswani et al. (2017).'
    >>> resolve_roles("Press {kbd}`?` {cite:p}`v17`.", refs)
    'Press <kbd>?</kbd> (Vaswani et al., 2017).'
    >>> refs.numbers["eq-scores"] = "(3.1)"
    >>> resolve_roles("{term}`keys <key>`, {func}`~selfattention.softmax` and {eq}`eq-scores`", refs)
    'keys, `softmax()` and (3.1)'
    >>> refs.documents["weighted-average"] = "A weighted average"
    >>> resolve_roles("as in {doc}`weighted-average`, or {doc}`that chapter <weighted-average>`", refs)
    'as in “A weighted average”, or that chapter'
    """
    cited = [] if cited is None else cited

    def one(m: re.Match) -> str:
        role, content = m.group("role"), m.group("content")
        if role in ("glue", "glue:text", "glue:md"):
            key, _, spec = content.partition(":") if role != "glue:md" else (content, "", "")
            if key not in refs.glue:
                raise NotebookExportError(f"glued key {key!r} is not in the executed notebook")
            if role == "glue:md":
                md = refs.glue[key].get("text/markdown", "")
                return "".join(md) if isinstance(md, list) else md
            return _format_glue(refs.glue[key], spec)
        if role in ("numref", "ref", "doc", "eq"):
            titled = _TITLED.match(content)
            text, label = (titled.group("text"), titled.group("label")) if titled else (None, content)
            if role == "numref":
                if label not in refs.numbers:
                    raise NotebookExportError(f"{{numref}} to {label!r}, which has no number")
                name = refs.numbers[label]
                return text.replace("%s", name.split()[-1]) if text else name
            if role == "ref":
                if text:
                    return text
                if label not in refs.titles:
                    raise NotebookExportError(f"{{ref}} to {label!r}, which has no title")
                return f"“{refs.titles[label]}”"
            if role == "eq" and not text:
                if label not in refs.numbers:
                    raise NotebookExportError(f"{{eq}} to {label!r}, which has no number")
                return refs.numbers[label]
            if role == "doc" and not text:
                page = label.lstrip("/").removesuffix(".md")
                if page not in refs.documents:
                    raise NotebookExportError(f"{{doc}} to {label!r}, which is not a page of the book")
                return f"“{refs.documents[page]}”"
            return text or label
        if role == "notebook":  # a notebook download (booksite.publish): its file name
            return f"`{content}.ipynb`"
        if role == "term":  # a glossary link: its text
            titled = _TITLED.match(content)
            return titled.group("text") if titled else content
        if role in _PY_ROLES:  # an API link: the name as code
            titled = _TITLED.match(content)
            if titled:
                return f"`{titled.group('text')}`"
            name = content.lstrip("~!")
            name = name.rsplit(".", 1)[-1] if content.startswith("~") else name
            return f"`{name}()`" if role.endswith("func") else f"`{name}`"
        if role.startswith("cite"):
            keys = [k.strip() for k in content.split(",")]
            missing = [k for k in keys if k not in refs.citations]
            if missing:
                raise NotebookExportError(f"citation keys {missing} are not in the bibliography")
            cited.extend(k for k in keys if k not in cited)
            entries = [refs.citations[k] for k in keys]
            if role in ("cite:t", "cite:ts"):
                return "; ".join(f"{who} ({year})" for who, year, _ in entries)
            return "(" + "; ".join(f"{who}, {year}" for who, year, _ in entries) + ")"
        if role == "kbd":
            return f"<kbd>{content}</kbd>"
        if role == "math":
            return f"${content}$"
        raise NotebookExportError(f"the notebook export does not know the role {{{role}}}")

    return _ROLE.sub(one, text)


def bib_citations(bibfiles: Iterable[Path]) -> dict[str, tuple[str, str, str]]:
    """Author–year names and one-line entries for every BibTeX entry.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.bib"
    >>> _ = p.write_text("@article{a1, title={A Title}, author={Doe, Jane and Roe, R. and Poe, E.},"
    ...                  " journal={J}, year={2020}}")
    >>> bib_citations([p])["a1"]
    ('Doe et al.', '2020', 'Doe, J., Roe, R. and Poe, E. (2020). A Title. J.')
    """
    from pybtex.database import parse_file
    from pybtex.richtext import Text

    def clean(text: str) -> str:
        return Text.from_latex(text).render_as("text").strip()

    out = {}
    for path in bibfiles:
        for key, entry in parse_file(str(path)).entries.items():
            people = entry.persons.get("author", [])
            last = [clean(" ".join(p.last_names)) for p in people]
            if len(last) == 1:
                who = last[0]
            elif len(last) == 2:
                who = f"{last[0]} and {last[1]}"
            else:
                who = f"{last[0]} et al."
            year = entry.fields.get("year", "n.d.")
            names = [f"{clean(' '.join(p.last_names))}, "
                     + " ".join(clean(n)[0] + "." for n in p.first_names + p.middle_names if clean(n))
                     for p in people]
            authors = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names)
            venue = entry.fields.get("journal") or entry.fields.get("booktitle") or entry.fields.get("publisher", "")
            title = clean(entry.fields.get("title", ""))
            full = f"{authors} ({year}). {title}." + (f" {clean(venue)}." if venue else "")
            out[key] = (who, year, full)
    return out


__all__ = ["NotebookExportError", "References", "bib_citations", "resolve_roles"]
