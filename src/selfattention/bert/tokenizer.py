"""The model's WordPiece tokenizer, in pure Python, read from its ``tokenizer.json``.

all-MiniLM-L6-v2 cuts a sentence into tokens in five steps, each a small
function below, as Hugging Face ``tokenizers`` defines them:

1. :func:`split_added_tokens` -- the special tokens (``[CLS]``, ``[MASK]``
   ...) typed in the text are kept whole, before anything else;
2. :func:`bert_normalize` -- clean the text (control characters out, every
   white space a plain space), put spaces round CJK ideographs, strip
   accents, lower-case;
3. :func:`bert_pre_tokenize` -- split on white space, and cut every
   punctuation character out as a word of its own;
4. :func:`wordpiece` -- cut each word into the longest pieces found in the
   vocabulary, from the left, ``##`` marking a piece that continues a word;
   a word with no such cut, or longer than 100 characters, is ``[UNK]``;
5. ``[CLS]`` before and ``[SEP]`` after (the post-processor's template).

:class:`WordPieceTokenizer` holds the vocabulary and the settings, and
:meth:`WordPieceTokenizer.encode` runs the five steps. Only the standard
library's ``unicodedata`` is used, so the same code runs in the book's
in-browser Python. The tests check it equal to ``tokenizers`` on arbitrary
Unicode text.

Examples
--------
>>> vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "the": 3, "cat": 4, "s": 5, "##s": 6, ".": 7}
>>> tok = WordPieceTokenizer(vocab)
>>> tok.encode("The cats.")
Encoded(ids=(1, 3, 4, 6, 7, 2), tokens=('[CLS]', 'the', 'cat', '##s', '.', '[SEP]'))
"""

from __future__ import annotations

import bisect
import json
import re
import types
import unicodedata
from collections.abc import Mapping
from typing import NamedTuple

from . import _unicode_tables

#: Code-point ranges that BERT counts as CJK ideographs (as ``tokenizers`` writes them).
CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B920, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)



def _starts_ends(ranges) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Two sorted tuples, the first and last code point of each range, for :func:`_in_ranges`."""
    return tuple(lo for lo, _ in ranges), tuple(hi for _, hi in ranges)


def _in_ranges(cp: int, table: tuple[tuple[int, ...], tuple[int, ...]]) -> bool:
    i = bisect.bisect_right(table[0], cp) - 1
    return i >= 0 and cp <= table[1][i]


_CONTROL = _starts_ends(_unicode_tables.CONTROL)
_WHITE_SPACE = _starts_ends(_unicode_tables.WHITE_SPACE)
_PUNCTUATION = _starts_ends(_unicode_tables.PUNCTUATION)
_MARKS = _starts_ends(_unicode_tables.NONSPACING_MARKS)
_ASSIGNED = _starts_ends(_unicode_tables.ASSIGNED)


def _known(c: str) -> bool:
    """Whether the tables' Unicode assigns ``c``: a newer ``unicodedata`` must not decompose or lower it."""
    return _in_ranges(ord(c), _ASSIGNED)

#: Unicode white space that ``clean_text`` drops as control characters; the pre-tokenizer splits on them.
_CONTROL_SPACES = "\x0b\x0c\x85"


class Encoded(NamedTuple):
    """A tokenized text: the ids and the tokens they stand for, ``[CLS]`` to ``[SEP]``."""

    ids: tuple[int, ...]
    tokens: tuple[str, ...]


# ---------------------------------------------------------------------------
# One character
# ---------------------------------------------------------------------------


def is_whitespace(c: str) -> bool:
    """Whether BERT turns a character into a plain space (white space that is not a control character).

    Examples
    --------
    >>> is_whitespace(" "), is_whitespace("\\u3000"), is_whitespace("a")
    (True, True, False)
    """
    return c == " " or _in_ranges(ord(c), _WHITE_SPACE)


def is_control(c: str) -> bool:
    """Whether ``clean_text`` drops a character: a control, format or private-use one.

    Tab, newline and carriage return are white space, not control. The set
    is the one ``tokenizers`` uses (see ``selfattention/bert/_unicode_tables.py``),
    so a character that was unassigned in its Unicode version is kept.

    Examples
    --------
    >>> is_control("\\x00"), is_control("\\u200b"), is_control("\\n"), is_control("a")
    (True, True, False, False)
    """
    return _in_ranges(ord(c), _CONTROL)


def is_cjk(c: str) -> bool:
    """Whether a character is a CJK ideograph, which BERT makes a word of its own.

    Examples
    --------
    >>> cat, ne = "\\u732b", "\\u306d"   # a CJK ideograph ("cat"), a hiragana syllable
    >>> is_cjk(cat), is_cjk(ne), is_cjk("a")
    (True, False, False)
    """
    cp = ord(c)
    return any(lo <= cp <= hi for lo, hi in CJK_RANGES)


def is_punctuation(c: str) -> bool:
    """Whether BERT cuts a character out as a word: ASCII punctuation or Unicode punctuation (``P*``).

    ASCII counts every printable non-alphanumeric character, so ``$``, ``+``
    and ``^`` (symbols in Unicode) are punctuation here too.

    Examples
    --------
    >>> [is_punctuation(c) for c in "a,$«—"]
    [False, True, True, True, True]
    """
    if c.isascii():
        return c.isprintable() and not c.isalnum() and c != " "
    return _in_ranges(ord(c), _PUNCTUATION)


# ---------------------------------------------------------------------------
# The steps
# ---------------------------------------------------------------------------


def clean_text(text: str) -> str:
    """Drop NUL, U+FFFD and control characters; turn every white space into ``" "``.

    Examples
    --------
    >>> clean_text("a\\tb\\x00c\\u00a0d")
    'a bc d'
    """
    return "".join(
        " " if is_whitespace(c) else c
        for c in text
        if c not in "\x00\ufffd" and not is_control(c)
    )


def pad_cjk(text: str) -> str:
    """Put a space before and after every CJK ideograph.

    Examples
    --------
    >>> i, love, cat = "\\u6211", "\\u7231", "\\u732b"   # three CJK ideographs
    >>> pad_cjk(i + love + cat + "s") == f" {i}  {love}  {cat} s"
    True
    """
    return "".join(f" {c} " if is_cjk(c) else c for c in text)


def strip_accents(text: str) -> str:
    """Decompose (NFD) and drop the non-spacing marks (category ``Mn``).

    Examples
    --------
    >>> strip_accents("café naïve Ångström")
    'cafe naive Angstrom'
    """
    return "".join(c for c in nfd(text) if not _in_ranges(ord(c), _MARKS))


def nfd(text: str) -> str:
    """Unicode's canonical decomposition (NFD), as ``tokenizers`` does it.

    ``unicodedata.normalize``, except for the few characters that this
    Python's Unicode decomposes and the reference's does not, and for the
    characters that the tables' Unicode does not assign: a newer Python
    (the browser's) may decompose or reorder those, and the reference keeps
    them as they are, so they are kept here too.

    Examples
    --------
    >>> [hex(ord(c)) for c in nfd("é")]
    ['0x65', '0x301']
    """
    if text.isascii():
        return text
    exceptions = _unicode_tables.NFD_EXCEPTIONS
    pieces, start = [], 0
    for i, c in enumerate(text):
        if ord(c) in exceptions or not _known(c):
            kept = exceptions.get(ord(c), c)
            pieces += [unicodedata.normalize("NFD", text[start:i]), kept]
            start = i + 1
    return "".join(pieces) + unicodedata.normalize("NFD", text[start:])


def lowercase(text: str) -> str:
    """Lower-case one character at a time (so a final ``Σ`` gives ``σ``, as ``tokenizers`` does).

    A character that the tables' Unicode does not assign is kept, unless
    the reference lower-cases it, whatever this Python's ``unicodedata`` says.

    Examples
    --------
    >>> lowercase("ΟΔΟΣ Straße")
    'οδοσ straße'
    """
    exceptions = _unicode_tables.LOWER_EXCEPTIONS
    return "".join(exceptions.get(ord(c)) or (c.lower() if _known(c) else c) for c in text)


def bert_normalize(text: str, *, clean: bool = True, cjk: bool = True,
                   accents: bool = True, lower: bool = True) -> str:
    """BERT's normalizer: :func:`clean_text`, :func:`pad_cjk`, :func:`strip_accents`, :func:`lowercase`.

    Parameters
    ----------
    text : str
        The text.
    clean, cjk, accents, lower : bool, keyword-only
        Which steps to run (all, for all-MiniLM-L6-v2; ``accents`` strips them).

    Returns
    -------
    str

    Examples
    --------
    >>> cat = "\\u732b"   # a CJK ideograph
    >>> bert_normalize("Café\\u00a0" + cat + "!") == f"cafe  {cat} !"
    True
    """
    if clean:
        text = clean_text(text)
    if cjk:
        text = pad_cjk(text)
    if accents:
        text = strip_accents(text)
    if lower:
        text = lowercase(text)
    return text


def bert_pre_tokenize(text: str) -> list[str]:
    """Split on white space, then cut every punctuation character out as a word.

    Examples
    --------
    >>> bert_pre_tokenize("didn't   stop... now")
    ['didn', "'", 't', 'stop', '.', '.', '.', 'now']
    """
    words: list[str] = []
    word = ""
    for c in text:
        space = is_whitespace(c) or c in _CONTROL_SPACES
        if space or is_punctuation(c):
            if word:
                words.append(word)
            word = ""
            if not space:
                words.append(c)
        else:
            word += c
    if word:
        words.append(word)
    return words


def wordpiece(word: str, vocab: Mapping[str, int], *, unk_token: str = "[UNK]",
              prefix: str = "##", max_chars: int = 100) -> list[str]:
    """Cut one word into the longest vocabulary pieces, from the left.

    Parameters
    ----------
    word : str
        One word of :func:`bert_pre_tokenize`.
    vocab : Mapping of str to int
        The vocabulary.
    unk_token : str, keyword-only
        The token for a word that cannot be cut.
    prefix : str, keyword-only
        What marks a piece that continues a word.
    max_chars : int, keyword-only
        A longer word is ``unk_token`` whole.

    Returns
    -------
    list of str
        The pieces, or ``[unk_token]``.

    Examples
    --------
    >>> vocab = {"un": 0, "##aff": 1, "##able": 2, "a": 3}
    >>> wordpiece("unaffable", vocab)
    ['un', '##aff', '##able']
    >>> wordpiece("unaffablez", vocab)  # no piece for "z": the whole word is unknown
    ['[UNK]']
    >>> wordpiece("a" * 101, vocab)
    ['[UNK]']
    """
    if len(word) > max_chars:
        return [unk_token]
    pieces: list[str] = []
    start = 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else prefix + word[start:end]
            if piece in vocab:
                pieces.append(piece)
                start = end
                break
        else:
            return [unk_token]
    return pieces


def split_added_tokens(text: str, added: Mapping[str, int]) -> list[tuple[str, bool]]:
    """Cut the special tokens typed in the text out, before it is normalized.

    Returns
    -------
    list of (str, bool)
        The pieces in order; ``True`` marks an added token.

    Examples
    --------
    >>> split_added_tokens("a [MASK] b", {"[MASK]": 103})
    [('a ', False), ('[MASK]', True), (' b', False)]
    """
    if not added:
        return [(text, False)] if text else []
    # Longest first: the leftmost, longest match wins, as in ``tokenizers``.
    pattern = re.compile("|".join(re.escape(t) for t in sorted(added, key=lambda t: (-len(t), t))))
    pieces: list[tuple[str, bool]] = []
    start = 0
    for m in pattern.finditer(text):
        if m.start() > start:
            pieces.append((text[start:m.start()], False))
        pieces.append((m.group(), True))
        start = m.end()
    if start < len(text):
        pieces.append((text[start:], False))
    return pieces


# ---------------------------------------------------------------------------
# The tokenizer
# ---------------------------------------------------------------------------


class WordPieceTokenizer:
    """BERT's tokenizer: a vocabulary and the settings of ``tokenizer.json``.

    Parameters
    ----------
    vocab : Mapping of str to int
        Token to id; must hold ``unk_token``, ``cls_token`` and ``sep_token``.
    unk_token, cls_token, sep_token : str, keyword-only
        The unknown word, and the tokens put before and after the text.
    prefix : str, keyword-only
        What marks a continuing piece (``"##"``).
    max_chars : int, keyword-only
        Longest word, in characters, that is cut into pieces.
    lowercase, strip_accents, clean_text, handle_chinese_chars : bool, keyword-only
        The normalizer's steps.
    added_tokens : Mapping of str to int, keyword-only
        Tokens matched whole in the raw text (``[CLS]``, ``[MASK]`` ...).

    Raises
    ------
    TypeError
        If ``vocab`` is not a mapping of str to int.
    ValueError
        If a special token is not in ``vocab`` or ``max_chars`` is not positive.

    Examples
    --------
    >>> tok = WordPieceTokenizer({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "hi": 3})
    >>> tok.encode("Hi hello")
    Encoded(ids=(1, 3, 0, 2), tokens=('[CLS]', 'hi', '[UNK]', '[SEP]'))
    >>> WordPieceTokenizer({"hi": 3})
    Traceback (most recent call last):
    ...
    ValueError: vocab has no unk_token '[UNK]'
    """

    def __init__(self, vocab: Mapping[str, int], *, unk_token: str = "[UNK]",
                 cls_token: str = "[CLS]", sep_token: str = "[SEP]", prefix: str = "##",
                 max_chars: int = 100, lowercase: bool = True, strip_accents: bool = True,
                 clean_text: bool = True, handle_chinese_chars: bool = True,
                 added_tokens: Mapping[str, int] | None = None):
        if not isinstance(vocab, Mapping):
            raise TypeError(f"vocab must be a mapping of token to id, got {type(vocab).__name__}")
        for token, i in vocab.items():
            if not isinstance(token, str) or isinstance(i, bool) or not isinstance(i, int):
                raise TypeError(f"vocab must map str to int, got {token!r}: {i!r}")
        for name, token in (("unk_token", unk_token), ("cls_token", cls_token), ("sep_token", sep_token)):
            if token not in vocab:
                raise ValueError(f"vocab has no {name} {token!r}")
        if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 1:
            raise ValueError(f"max_chars must be a positive integer, got {max_chars!r}")
        self.vocab = types.MappingProxyType(dict(vocab))
        self.unk_token, self.cls_token, self.sep_token = unk_token, cls_token, sep_token
        self.prefix, self.max_chars = prefix, max_chars
        self.steps = {"clean": bool(clean_text), "cjk": bool(handle_chinese_chars),
                      "accents": bool(strip_accents), "lower": bool(lowercase)}
        self.added_tokens = types.MappingProxyType(dict(added_tokens or {}))

    @classmethod
    def from_json(cls, source) -> WordPieceTokenizer:
        """The tokenizer a ``tokenizer.json`` describes (its text, or the parsed mapping).

        Only what BERT's file uses is accepted: a ``WordPiece`` model, a
        ``BertNormalizer``, a ``BertPreTokenizer``, and a template that puts
        one special token before and one after the text. Anything else is a
        ``ValueError``, never a tokenizer that cuts differently.

        Parameters
        ----------
        source : str, bytes or Mapping
            The file's JSON text, or the mapping ``json.loads`` makes of it.

        Returns
        -------
        WordPieceTokenizer

        Raises
        ------
        TypeError
            If ``source`` is none of these.
        ValueError
            If the JSON is invalid or describes another kind of tokenizer.

        Examples
        --------
        >>> from selfattention.minilm import find_model_dir
        >>> tok = WordPieceTokenizer.from_json((find_model_dir() / "tokenizer.json").read_text("utf-8"))
        >>> tok.encode("Hello, world!").tokens
        ('[CLS]', 'hello', ',', 'world', '!', '[SEP]')
        >>> WordPieceTokenizer.from_json('{"model": {"type": "BPE"}}')
        Traceback (most recent call last):
        ...
        ValueError: tokenizer.json: model type is 'BPE', expected 'WordPiece'
        """
        if isinstance(source, (bytes, bytearray)):
            source = bytes(source).decode("utf-8")
        if isinstance(source, str):
            try:
                source = json.loads(source)
            except json.JSONDecodeError as exc:
                raise ValueError(f"tokenizer.json is not valid JSON: {exc}") from None
        if not isinstance(source, Mapping):
            raise TypeError(
                f"source must be the JSON text of tokenizer.json or its mapping, got {type(source).__name__}"
            )
        return cls(**_settings(source))

    def encode(self, text: str) -> Encoded:
        """Tokenize ``text``: ``[CLS]``, its WordPiece tokens, ``[SEP]``.

        Parameters
        ----------
        text : str
            Any text (empty gives ``[CLS] [SEP]``).

        Returns
        -------
        Encoded
            ``ids`` and ``tokens``, of the same length.

        Raises
        ------
        TypeError
            If ``text`` is not a string.

        Examples
        --------
        >>> tok = WordPieceTokenizer({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "[MASK]": 3, "a": 4})
        >>> tok = WordPieceTokenizer(tok.vocab, added_tokens={"[MASK]": 3})
        >>> tok.encode("A [MASK] a").tokens
        ('[CLS]', 'a', '[MASK]', 'a', '[SEP]')
        >>> tok.encode(3)
        Traceback (most recent call last):
        ...
        TypeError: text must be a string, got int
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a string, got {type(text).__name__}")
        tokens = [self.cls_token]
        for piece, is_added in split_added_tokens(text, self.added_tokens):
            if is_added:
                tokens.append(piece)
                continue
            for word in bert_pre_tokenize(bert_normalize(piece, **self.steps)):
                tokens += wordpiece(word, self.vocab, unk_token=self.unk_token,
                                    prefix=self.prefix, max_chars=self.max_chars)
        tokens.append(self.sep_token)
        ids = tuple(self.added_tokens[t] if t in self.added_tokens else self.vocab[t] for t in tokens)
        return Encoded(ids, tuple(tokens))

    def __repr__(self) -> str:
        return f"WordPieceTokenizer(<{len(self.vocab)} tokens>, steps={self.steps})"


def _settings(spec: Mapping) -> dict:
    """The keyword arguments of :class:`WordPieceTokenizer` that a ``tokenizer.json`` gives."""
    def want(part: str, value, expected) -> None:
        if value != expected:
            raise ValueError(f"tokenizer.json: {part} is {value!r}, expected {expected!r}")

    model = spec.get("model") or {}
    want("model type", model.get("type"), "WordPiece")
    if not isinstance(model.get("vocab"), Mapping):
        raise ValueError("tokenizer.json: model has no vocab mapping")
    norm = spec.get("normalizer") or {}
    want("normalizer type", norm.get("type"), "BertNormalizer")
    want("pre_tokenizer type", (spec.get("pre_tokenizer") or {}).get("type"), "BertPreTokenizer")
    post = spec.get("post_processor") or {}
    want("post_processor type", post.get("type"), "TemplateProcessing")
    single = post.get("single") or []
    kinds = [next(iter(part), None) for part in single]
    want("post_processor single template", kinds, ["SpecialToken", "Sequence", "SpecialToken"])
    added = {}
    for entry in spec.get("added_tokens") or []:
        for flag in ("normalized", "lstrip", "rstrip", "single_word"):
            if entry.get(flag):
                raise ValueError(f"tokenizer.json: added token {entry.get('content')!r} has {flag}=true, "
                                 "which this tokenizer does not implement")
        added[entry["content"]] = entry["id"]
    lower = bool(norm.get("lowercase", True))
    accents = norm.get("strip_accents")
    return {
        "vocab": model["vocab"],
        "unk_token": model.get("unk_token", "[UNK]"),
        "prefix": model.get("continuing_subword_prefix", "##"),
        "max_chars": model.get("max_input_chars_per_word", 100),
        "cls_token": single[0]["SpecialToken"]["id"],
        "sep_token": single[2]["SpecialToken"]["id"],
        "lowercase": lower,
        "strip_accents": lower if accents is None else bool(accents),
        "clean_text": bool(norm.get("clean_text", True)),
        "handle_chinese_chars": bool(norm.get("handle_chinese_chars", True)),
        "added_tokens": added,
    }


__all__ = [
    "CJK_RANGES",
    "Encoded",
    "WordPieceTokenizer",
    "bert_normalize",
    "bert_pre_tokenize",
    "clean_text",
    "is_cjk",
    "is_control",
    "is_punctuation",
    "is_whitespace",
    "lowercase",
    "nfd",
    "pad_cjk",
    "split_added_tokens",
    "strip_accents",
    "wordpiece",
]
