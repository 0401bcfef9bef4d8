"""Markdown with MyST directives, written as a notebook's Markdown and code cells.

:func:`_parse` splits a page's Markdown into lines, code fences and
colon-fence directives; :class:`_Writer` turns them into the pieces of a
notebook (Markdown, code, the start and end of a solution); :func:`substitute`
fills in ``{{ name }}``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .roles import NotebookExportError, References, resolve_roles

_ADMONITIONS = {"note", "tip", "hint", "important", "warning", "caution", "attention", "danger",
                "error", "seealso"}
_DIRECTIVE = re.compile(r"^(?P<colons>:{3,})\{(?P<name>[a-z][\w:-]*)\}\s*(?P<arg>.*)$")
_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_OPTION = re.compile(r"^:(?P<key>[\w-]+):\s*(?P<value>.*)$")
_LABEL_LINE = re.compile(r"^\([\w:.-]+\)=\s*$")


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
    >>> substitute("This is version {{ version }}.", {"version": "2.5"})
    'This is version 2.5.'
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


__all__ = ["substitute"]
