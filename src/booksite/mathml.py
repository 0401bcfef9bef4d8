"""Math rendered at build time as MathML: the pages need no math script.

A Sphinx math renderer (``html_math_renderer = "mathml"`` in ``conf.py``).
Each formula's LaTeX goes through docutils' own LaTeX-to-MathML converter
(:mod:`docutils.utils.math.latex2mathml`), and the page holds the MathML,
which Chromium, Firefox and Safari render natively (MathML Core). A formula
the converter cannot read is a build warning, so with ``-W`` the build fails
and names the page.

A few commands that MathJax knew and the converter does not are rewritten
first (:func:`normalise`). The book serves its own math font subset
(``_static/sa/fonts``) so that formulas look the same on every device.
"""

from __future__ import annotations

import re

from docutils import nodes
from docutils.utils.math import latex2mathml
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

#: Whole-formula environments that only wrap a formula: the converter reads their body.
_WRAPPERS = re.compile(
    r"^\s*\\begin\{(?P<env>equation|align|gather|multline|split|eqnarray)\*?\}(?P<body>.*)"
    r"\\end\{(?P=env)\*?\}\s*$", re.S)
_BIG = re.compile(r"\\(big|Big|bigg|Bigg)(?![lrma-zA-Z])\s*(?P<delim>\\\{|\\\}|\\[a-zA-Z]+|[()\[\]|./])")
_OPENERS = {"(", "[", "\\{", "\\langle", "\\lfloor", "\\lceil", "\\lvert", "\\lVert"}
_DOTS = re.compile(r"\\dots(?![a-zA-Z])")
_ORDINARY_MO = re.compile(r'<mo(?P<attrs>(?: stretchy="false")?)>(?P<op>[|/\u2016])</mo>')
_LABEL = re.compile(r"\\(label|nonumber|notag)(\{[^}]*\})?")
_MTEXT = re.compile(r"<mtext>(?P<text>[^<]*)</mtext>")
#: What a backslash escapes inside ``\text{...}``: LaTeX prints the character, the converter kept both.
_TEXT_ESCAPE = re.compile(r"\\(?P<char>[_%#$ {}]|&amp;)")


def normalise(latex: str) -> str:
    r"""Rewrite what the converter does not know into what it does.

    * ``\dots`` becomes ``\cdots`` between operators and ``\ldots`` elsewhere;
    * ``\big(`` and its kin become ``\bigl(`` or ``\bigr)``;
    * ``\label``, ``\nonumber`` and ``\notag`` go (Sphinx numbers equations);
    * a whole-formula environment (``align``, ``equation``, ...) is unwrapped.

    Examples
    --------
    >>> normalise(r"1 + 2 + \dots + 100")
    '1 + 2 + \\cdots + 100'
    >>> normalise(r"x_1, \dots, x_n")
    'x_1, \\ldots, x_n'
    >>> normalise(r"\max\big(a, b\big)")
    '\\max\\bigl(a, b\\bigr)'
    >>> normalise("\\begin{align}a &= b\\end{align}")
    'a &= b'
    """
    tex = _LABEL.sub("", latex)
    wrapped = _WRAPPERS.match(tex)
    if wrapped:
        tex = wrapped.group("body")

    def dots(m: re.Match) -> str:
        before = tex[: m.start()].rstrip()
        return r"\cdots" if before.endswith(("+", "-", "=", "<", ">", r"\cdot", r"\times")) else r"\ldots"

    tex = _DOTS.sub(dots, tex)

    def big(m: re.Match) -> str:
        delim = m.group("delim")
        side = "l" if delim in _OPENERS else "r"
        return f"\\{m.group(1)}{side}{delim}"

    return _BIG.sub(big, tex).strip()


def tex_to_mathml(latex: str, block: bool = False) -> str:
    r"""MathML for one formula, on one line (``<math>...</math>``).

    Parameters
    ----------
    latex : str
        The formula's LaTeX, without ``$`` or ``\[`` delimiters.
    block : bool
        True for a displayed formula (``display="block"``).

    Returns
    -------
    str
        A ``<math>`` element.

    Raises
    ------
    ValueError
        If docutils cannot convert the formula; the message quotes it.

    Examples
    --------
    >>> tex_to_mathml(r"\sqrt{d_k}")
    '<math xmlns="http://www.w3.org/1998/Math/MathML"><msqrt><msub><mi>d</mi><mi>k</mi></msub></msqrt></math>'
    >>> tex_to_mathml("a / b")[-66:]  # TeX spacing: / is an ordinary symbol
    '<mo stretchy="false" lspace="0" rspace="0">/</mo><mi>b</mi></math>'
    >>> tex_to_mathml(r"\text{kv\_heads}")  # an escaped character in text is that character
    '<math xmlns="http://www.w3.org/1998/Math/MathML"><mtext>kv_heads</mtext></math>'
    >>> tex_to_mathml(r"\foo{x}", block=True)
    Traceback (most recent call last):
    ...
    ValueError: cannot render the formula '\\foo{x}' as MathML: Unknown LaTeX command "\foo".
    """
    tex = normalise(latex)
    try:
        mathml = latex2mathml.tex2mathml(tex, as_block=block)
    except Exception as exc:  # the converter raises SyntaxError, ValueError, IndexError...
        raise ValueError(f"cannot render the formula {latex!r} as MathML: {exc}") from None
    # TeX sets | and / as ordinary symbols; MathML would space them as infix operators.
    mathml = _MTEXT.sub(lambda m: "<mtext>" + _TEXT_ESCAPE.sub(r"\g<char>", m["text"]) + "</mtext>", mathml)
    mathml = _ORDINARY_MO.sub(r'<mo\g<attrs> lspace="0" rspace="0">\g<op></mo>', mathml)
    # docutils indents its output; the layout ignores that white space, the page need not carry it.
    return re.sub(r">\n\s*<", "><", mathml).strip()


def _mathml_or_warn(translator, node, latex: str, block: bool) -> str:
    try:
        return tex_to_mathml(latex, block=block)
    except ValueError as exc:
        logging.getLogger(__name__).warning(str(exc), location=node)
        return f"<code>{translator.encode(latex)}</code>"


def visit_math(self, node: nodes.math) -> None:
    """Inline math: ``<span class="math">`` holding a ``<math>`` element."""
    self.body.append(self.starttag(node, "span", "", CLASS="math notranslate"))
    self.body.append(_mathml_or_warn(self, node, node.astext(), block=False) + "</span>")
    raise nodes.SkipNode


def visit_displaymath(self, node: nodes.math_block) -> None:
    """Displayed math: ``<div class="math">`` with the equation number, if any."""
    self.body.append(self.starttag(node, "div", CLASS="math notranslate"))
    if node.get("number") and not node.get("nowrap", False):
        number = get_node_equation_number(self, node)
        # No permalink inside the formula: a formula is never a tab stop ({eq} links reach it).
        self.body.append(f'<span class="eqno">({number})</span>')
    # Sphinx's convention: formulas separated by a blank line are aligned one per row.
    parts = [p.strip() for p in node.astext().split("\n\n") if p.strip()]
    latex = r" \\ ".join(parts) if len(parts) > 1 and not any(r"\\" in p for p in parts) else "\n".join(parts)
    self.body.append(_mathml_or_warn(self, node, latex, block=True) + "</div>\n")
    raise nodes.SkipNode


def setup_mathml(app) -> None:
    """Register the ``mathml`` renderer (``html_math_renderer = "mathml"`` in ``conf.py``).

    Examples
    --------
    >>> class App:  # a stand-in that records what the feature asks for
    ...     def add_html_math_renderer(self, name, inline, block): self.name = name
    >>> app = App()
    >>> setup_mathml(app)
    >>> app.name
    'mathml'
    """
    app.add_html_math_renderer("mathml", (visit_math, None), (visit_displaymath, None))

