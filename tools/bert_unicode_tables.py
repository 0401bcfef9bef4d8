"""Write ``src/selfattention/bert/_unicode_tables.py`` from the ``tokenizers`` package.

Usage: ``python tools/bert_unicode_tables.py`` (needs ``tokenizers==0.23.3``).

Hugging Face ``tokenizers`` classes characters with Unicode tables older
than Python's :mod:`unicodedata` (its punctuation, control and non-spacing
mark sets are those of an older Unicode version, and it keeps unassigned
characters). To give the same tokens in every Python, the pure-Python
tokenizer reads those sets from ranges written here, probed one code point
at a time from ``tokenizers`` itself. Where this Python's NFD or lower-casing
of a character differs from the reference, the reference's result is kept
as an exception. ``tests/selfattention/test_tokenizer.py`` checks every code
point against ``tokenizers`` again.
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

from tokenizers import normalizers, pre_tokenizers

OUT = Path(__file__).resolve().parents[1] / "src" / "selfattention" / "bert" / "_unicode_tables.py"
CODE_POINTS = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]


def ranges(cps: list[int]) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for cp in sorted(cps):
        if out and out[-1][1] == cp - 1:
            out[-1][1] = cp
        else:
            out.append([cp, cp])
    return [tuple(r) for r in out]


def probe():
    clean = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=False,
                                       strip_accents=False, lowercase=False)
    strip = normalizers.BertNormalizer(clean_text=False, handle_chinese_chars=False,
                                       strip_accents=True, lowercase=False)
    nfd, lower = normalizers.NFD(), normalizers.Lowercase()
    pre = pre_tokenizers.BertPreTokenizer()
    control, white, punct, mark = [], [], [], []
    nfd_exceptions, lower_exceptions = {}, {}
    for cp in CODE_POINTS:
        c = chr(cp)
        cleaned = clean.normalize_str("a" + c + "b")
        if cleaned == "ab":
            control.append(cp)
        elif cleaned == "a b" and c != " ":
            white.append(cp)
        words = [w for w, _ in pre.pre_tokenize_str("a" + c + "b")]
        if words == ["a", c, "b"] and not c.isascii():
            punct.append(cp)
        decomposed = nfd.normalize_str(c)
        if decomposed != unicodedata.normalize("NFD", c):
            nfd_exceptions[cp] = decomposed
        if strip.normalize_str(decomposed) == "" and decomposed == c:
            mark.append(cp)
        low = lower.normalize_str(c)
        if low != c.lower():
            lower_exceptions[cp] = low
    return control, white, punct, mark, nfd_exceptions, lower_exceptions


def assigned() -> list[int]:
    """The code points this Python's ``unicodedata`` knows (every category but ``Cn``)."""
    return [cp for cp in CODE_POINTS if unicodedata.category(chr(cp)) != "Cn"]


def main() -> int:
    import tokenizers

    control, white, punct, mark, nfd_exc, lower_exc = probe()
    entries = lambda d: "".join(f"    0x{k:04X}: {v!r},\n" for k, v in sorted(d.items()))  # noqa: E731
    fmt = lambda rs: "".join(f"    (0x{a:04X}, 0x{b:04X}),\n" for a, b in rs)  # noqa: E731
    text = f'''"""Character classes of Hugging Face ``tokenizers`` {tokenizers.__version__}, as code-point ranges.

Written by ``tools/bert_unicode_tables.py`` (do not edit); probed from
``tokenizers`` one code point at a time, under Python {sys.version.split()[0]}
(``unicodedata`` {unicodedata.unidata_version}). :mod:`selfattention.bert.tokenizer`
reads them, so a sentence gets the same tokens in every Python.
"""

#: Characters ``clean_text`` drops (control, format, private use, as ``tokenizers`` knows them).
CONTROL = (
{fmt(ranges(control))})

#: Characters counted as white space.
WHITE_SPACE = (
{fmt(ranges(white))})

#: Non-ASCII characters the pre-tokenizer cuts out as punctuation.
PUNCTUATION = (
{fmt(ranges(punct))})

#: Non-spacing marks, which accent stripping drops after NFD.
NONSPACING_MARKS = (
{fmt(ranges(mark))})

#: Characters whose NFD in ``tokenizers`` differs from this Python's: the reference's.
NFD_EXCEPTIONS = {{
{entries(nfd_exc)}}}

#: Characters whose lower case in ``tokenizers`` differs from this Python's: the reference's.
LOWER_EXCEPTIONS = {{
{entries(lower_exc)}}}

#: Characters assigned in this Python's Unicode ({unicodedata.unidata_version}); a newer Python's
#: ``unicodedata`` may decompose or lower-case the others, which the reference keeps as they are.
ASSIGNED = (
{fmt(ranges(assigned()))})
'''
    OUT.write_text(text, encoding="utf-8")
    print(f"{OUT}: {len(ranges(control))} control, {len(ranges(punct))} punctuation, "
          f"{len(ranges(mark))} mark ranges; {len(nfd_exc)} NFD, {len(lower_exc)} lower exceptions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
