"""The text the writer learns from: the book's own prose, frozen as a snapshot.

The book's text is licensed CC BY 4.0 (see ``LICENSE-TEXT.md``), so a model
trained on it, and the snapshot itself, may ship with the package. The
snapshot is frozen: editing a page later does not change the corpus, and so
not the model. :func:`read_corpus` reads it, as package data
(``corpus.txt.gz``, UTF-8).

:func:`page_prose` turns one MyST page into plain prose, and :func:`book_prose`
does so for the pages of :data:`PAGES`, in that order: the front page, the
glossary, then the chapters from first to last. Code cells, display maths,
tables, labels and directive options go; the prose inside notes, dropdowns
and exercises stays. Roles become their text (``{term}`scores <score>``` is
"scores", ``{doc}`notation``` the page's title); inline maths loses its
dollars and its simplest LaTeX becomes characters (``\\sqrt{d_k}`` is
"√d_k"). A sentence whose words the build fills in (a glued number, a
citation by name, a cross-reference without its own text) or whose maths
stays LaTeX is left out, so that no sentence has a hole.

:func:`split_corpus` keeps the last tenth, cut at a line, as the held-out
text: the end of the last chapters, which the model never reads while it
learns.

``python -m selfattention.writer corpus`` writes a new snapshot from
``book/``.
"""

from __future__ import annotations

import gzip
import re
from importlib import resources
from pathlib import Path

#: The pages of the corpus, in order: the front page, the glossary, then the chapters.
PAGES = ("index", "glossary", "words-are-islands", "why-not-left-to-right", "weighted-average",
         "queries-keys-values", "learning-where-to-look", "why-divide-by-sqrt-dk", "one-head-in-code",
         "causal-masking", "self-and-cross-attention", "where-each-word-stands", "several-heads",
         "attention-in-a-real-model", "the-cost-of-full-context", "one-word-at-a-time",
         "two-heads-that-copy", "the-whole-block")
#: The shipped snapshot, beside this file.
SNAPSHOT = Path(__file__).with_name("corpus.txt.gz")
#: The share of the text kept for held-out measurements: its end.
HELD_OUT = 0.1

_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "varepsilon": "ε", "epsilon": "ε",
          "theta": "θ", "lambda": "λ", "mu": "μ", "pi": "π", "sigma": "σ", "tau": "τ", "phi": "φ",
          "Phi": "Φ", "Sigma": "Σ", "Delta": "Δ", "omega": "ω"}
_SYMBOLS = {"times": "×", "cdot": "·", "odot": "⊙", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥",
            "to": "→", "rightarrow": "→", "in": "∈", "approx": "≈", "ne": "≠", "neq": "≠", "ldots": "…",
            "dots": "…", "cdots": "…", "infty": "∞", "sum": "Σ", "top": "ᵀ", "log": "log", "exp": "exp",
            "max": "max", "min": "min", "sqrt": "√", ",": " ", ";": " ", "quad": " ", "qquad": " ",
            "lvert": "|", "rvert": "|", "|": "‖", "{": "{", "}": "}", "%": "%"}
# Roles that need the build to fill in their words: the sentence is left out.
_HOLE = re.compile(r"\{(glue|glue:text|glue:figure|cite:t|cite:ts|page)\}`|\{\{|^Made by ")
_ROLE = re.compile(r"\{([a-z:-]+)\}`([^`]*)`")
_CITE = re.compile(r"\s*\{cite(?::p|:ps)?\}`[^`]*`")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"“(*`{\[$])")


def _latex(math: str) -> str | None:
    """Inline maths as characters, or None if it stays LaTeX (then the sentence is left out)."""
    s = math
    for _ in range(3):  # nested \text{...} and \sqrt{...}
        s = re.sub(r"\\(?:text|mathrm|operatorname|mathbf|mathit|boldsymbol)\{([^{}]*)\}", r"\1", s)
        s = re.sub(r"\\sqrt\{([^{}]*)\}", lambda m: "√" + (m[1] if len(m[1]) <= 3 else f"({m[1]})"), s)
        s = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"\1/\2", s)
    s = re.sub(r"\\([A-Za-z]+|[,;|{}%])", lambda m: _GREEK.get(m[1], _SYMBOLS.get(m[1], "\\" + m[1])), s)
    s = re.sub(r"\^\{?\\?top\}?|\^T\b", "ᵀ", s)
    s = s.replace("{", "").replace("}", "").replace("~", " ")
    return None if "\\" in s else re.sub(r"\s+", " ", s).strip()


def _role(kind: str, text: str, titles: dict[str, str]) -> str | None:
    """A role's words, or None if the build would have to fill them in."""
    label = re.fullmatch(r"(.*?)\s*<([^>]*)>", text, flags=re.S)
    shown, target = (label[1], label[2]) if label else (None, text)
    if kind in ("term", "kbd", "abbr"):
        return shown or target
    if kind == "doc":
        return shown or titles.get(target.strip("/").split("/")[-1])
    if kind == "ref":
        return shown
    if kind in ("func", "mod", "class", "meth", "attr", "data", "py:func", "py:class"):
        return shown or target.lstrip("~").split(".")[-1]
    if kind == "numref":
        return "the figure" if not shown or "%s" in shown else shown
    if kind == "eq":
        return "the equation"
    if kind == "math":
        return _latex(text)
    return None


def _sentence(raw: str, titles: dict[str, str]) -> str | None:
    """One sentence of MyST as plain text, or None if it has a hole."""
    if _HOLE.search(raw):
        return None
    s = _CITE.sub("", raw)
    out, pos = [], 0
    for m in _ROLE.finditer(s):
        words = _role(m[1], m[2], titles)
        if words is None:
            return None
        out += [s[pos:m.start()], words]
        pos = m.end()
    s = "".join(out) + s[pos:]
    pieces = re.split(r"(?<!\\)\$([^$]+)\$", s)
    for i in range(1, len(pieces), 2):
        pieces[i] = _latex(pieces[i])
        if pieces[i] is None:
            return None
    s = "".join(pieces)
    s = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", s)  # links and images: their text
    s = re.sub(r"`([^`]*)`", r"\1", s)  # inline code: its text
    s = re.sub(r"\*\*|__|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])", "", s)  # bold and italics
    s = re.sub(r"</?[A-Za-z][\w-]*(\s[^<>]*)?/?>", "", s)  # inline HTML tags
    return s


def _paragraph(raw: str, titles: dict[str, str]) -> str:
    """A paragraph of MyST, sentence by sentence; sentences with holes left out."""
    kept = [t for t in (_sentence(s, titles) for s in _SENTENCE_END.split(raw.strip())) if t]
    return re.sub(r"\s+", " ", " ".join(kept)).strip()


def _title(markdown: str) -> str | None:
    m = re.search(r"^# (.+)$", markdown, flags=re.M)
    return m[1].strip() if m else None


def _blocks(markdown: str):
    """The page's prose blocks (paragraphs, headings, list items), markup still in, code and maths out."""
    lines = markdown.splitlines()
    if lines and lines[0].strip() == "---":  # front matter
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), 0)
        lines = lines[end + 1:]
    block, fence, glossary, in_math, in_comment = [], None, False, False, False
    for line in lines:
        stripped = line.strip()
        if in_comment:
            in_comment = "-->" not in stripped
            continue
        if fence is not None:  # inside a fenced block: only the glossary's terms are prose
            if stripped == fence:
                fence, glossary = None, False
                yield from ([" ".join(block)] if block else [])
                block = []
            elif glossary and not stripped.startswith(":"):
                if stripped and not line.startswith(" "):
                    yield from ([" ".join(block)] if block else [])
                    block = [stripped + ":"]
                elif stripped:
                    block.append(stripped)
            continue
        if in_math:
            in_math = not stripped.startswith("$$")
            continue
        opened = re.match(r"^(`{3,}|~{3,})\s*(\{[^}]*\})?", stripped)
        if stripped.startswith("<!--"):
            in_comment = "-->" not in stripped
        elif opened:
            fence, glossary = opened[1], opened[2] == "{glossary}"
        elif stripped.startswith("$$"):
            in_math = not (len(stripped) > 2 and stripped.rstrip().endswith("$$") and stripped != "$$")
        elif re.match(r"^:{3,}", stripped):  # a colon fence: keep a title, drop the fence
            yield from ([" ".join(block)] if block else [])
            block = []
            title = re.sub(r"^:{3,}\s*(\{[^}]*\})?\s*", "", stripped)
            name = re.match(r"^:{3,}\s*\{([^}]*)\}", stripped)
            if title and name and name[1] in ("admonition", "dropdown", "note", "tip", "warning", "important"):
                yield title
        elif (not stripped or stripped.startswith(("|", "+++", "```")) or re.match(r"^\(.*\)=$", stripped)
              or re.match(r"^:[\w-]+:", stripped)):
            yield from ([" ".join(block)] if block else [])
            block = []
        elif stripped.startswith("#"):
            yield from ([" ".join(block)] if block else [])
            block = []
            yield stripped.lstrip("#").strip()
        elif re.match(r"^([-*+]|\d+\.)\s", stripped):  # a list item starts a block of its own
            yield from ([" ".join(block)] if block else [])
            block = [stripped]
        else:
            block.append(stripped)
    if block:
        yield " ".join(block)


def page_prose(markdown: str, titles: dict[str, str] | None = None) -> str:
    """One MyST page as plain prose: one line per paragraph, heading or list item.

    Parameters
    ----------
    markdown : str
        The page's source.
    titles : dict of str to str, optional
        Each page's title, by its name, for ``{doc}`` roles without their
        own text; such a role to a page not listed leaves its sentence out.

    Returns
    -------
    str
        The prose, lines joined by ``"\\n"``, ending with one.

    Raises
    ------
    TypeError
        If ``markdown`` is not a string.

    Examples
    --------
    >>> page = '''# Softmax
    ...
    ... (ch-softmax)=
    ... Each {term}`score <score>` becomes a weight: $e^x$ over the total, as in
    ... {doc}`notation`. The first weight is {glue:text}`w0:.3f`.
    ...
    ... ```{code-cell} ipython3
    ... import numpy as np
    ... ```
    ...
    ... :::{note} Why exponentiate?
    ... So that **every** weight is positive {cite:p}`bishop2006`.
    ... :::
    ... '''
    >>> print(page_prose(page, {"notation": "Notation"}), end="")
    Softmax
    Each score becomes a weight: e^x over the total, as in Notation.
    Why exponentiate?
    So that every weight is positive.
    """
    if not isinstance(markdown, str):
        raise TypeError(f"markdown must be a str, got {type(markdown).__name__}")
    titles = titles or {}
    lines = [p for p in (_paragraph(b, titles) for b in _blocks(markdown)) if p]
    return "".join(line + "\n" for line in lines)


def book_prose(book_dir, pages=PAGES) -> str:
    """The prose of the pages ``pages``, read from ``book_dir``, in that order.

    Parameters
    ----------
    book_dir : str or Path
        The book's folder of ``.md`` pages.
    pages : sequence of str, default PAGES
        Page names, without ``.md``.

    Returns
    -------
    str

    Raises
    ------
    FileNotFoundError
        If a page is not there.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = (Path(folder) / "a.md").write_text("# One\\n\\nSee {doc}`b`.\\n", encoding="utf-8")
    ...     _ = (Path(folder) / "b.md").write_text("# Two\\n\\nBack to {doc}`a`.\\n", encoding="utf-8")
    ...     print(book_prose(folder, ["a", "b"]), end="")
    One
    See Two.
    Two
    Back to One.
    """
    book_dir = Path(book_dir)
    sources = {name: (book_dir / f"{name}.md").read_text(encoding="utf-8") for name in pages}
    titles = {p.stem: t for p in sorted(book_dir.glob("*.md")) if (t := _title(p.read_text(encoding="utf-8")))}
    return "".join(page_prose(sources[name], titles) for name in pages)


def write_snapshot(text: str, path=SNAPSHOT) -> int:
    """Write ``text`` as a gzipped UTF-8 snapshot (reproducible: no time stamp); return its bytes.

    Raises
    ------
    TypeError
        If ``text`` is not a string.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = write_snapshot("Attention is a weighted average.\\n", Path(folder) / "c.txt.gz")
    ...     read_corpus(Path(folder) / "c.txt.gz")
    'Attention is a weighted average.\\n'
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    data = gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)
    Path(path).write_bytes(data)
    return len(data)


def read_corpus(path=None) -> str:
    """The frozen corpus: the book's prose as it was when the snapshot was taken.

    Parameters
    ----------
    path : str or Path, optional
        A snapshot written by :func:`write_snapshot`. By default the shipped
        one, read as package data (so it is found inside a zip too).

    Returns
    -------
    str

    Examples
    --------
    >>> text = read_corpus()
    >>> text.splitlines()[0]
    'Self-Attention, Computed'
    """
    raw = (resources.files(__package__) / SNAPSHOT.name).read_bytes() if path is None else Path(path).read_bytes()
    return gzip.decompress(raw).decode("utf-8")


def split_corpus(text: str, held_out: float = HELD_OUT) -> tuple[str, str]:
    """The training text and the held-out text: the last ``held_out`` share, cut after a newline.

    Parameters
    ----------
    text : str
    held_out : float, default 0.1
        Between 0 and 1 (both excluded).

    Returns
    -------
    train, held : str
        ``train + held == text``.

    Raises
    ------
    TypeError
        If ``text`` is not a string or ``held_out`` not a number.
    ValueError
        If ``held_out`` is not strictly between 0 and 1, or either part would be empty.

    Examples
    --------
    >>> split_corpus("one\\ntwo\\nthree\\nfour\\n", 0.3)
    ('one\\ntwo\\n', 'three\\nfour\\n')
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if isinstance(held_out, bool) or not isinstance(held_out, (int, float)):
        raise TypeError(f"held_out must be a number between 0 and 1, got {held_out!r}")
    if not 0 < held_out < 1:
        raise ValueError(f"held_out must be between 0 and 1 (both excluded), got {held_out}")
    cut = int(round(len(text) * (1 - held_out)))
    newline = text.rfind("\n", 0, cut)
    cut = newline + 1 if newline >= 0 else cut
    if not 0 < cut < len(text):
        raise ValueError(f"held_out={held_out} leaves an empty part of a text of {len(text)} characters")
    return text[:cut], text[cut:]
