"""One tokenizer everywhere: the browser's Python cuts a hard corpus as CPython and ``tokenizers`` do.

The book's pure-Python WordPiece tokenizer
(:class:`selfattention.bert.tokenizer.WordPieceTokenizer`) runs in two
Pythons: the one running these tests (the package's, and the build's), and
the newer one in the reader's browser (``_static/sa/run/runtime.js``, which
the explorer's Compute and the Run buttons use). The two have different
``unicodedata`` tables. One page load: the runtime's own Worker is started in
the page, given the site's ``tokenizer.json`` (the file the explorer reads),
and asked for the ids and tokens of every text of :data:`CORPUS`; they must
equal the package's here and those of Hugging Face ``tokenizers``.
"""

from __future__ import annotations

import base64
import json

import pytest

from tests.browser.conftest import RUN_IN_WORKER, PageWatch

pytestmark = pytest.mark.browser

PAGE = "attention-in-a-real-model.html"

#: Texts that are hard to cut the same way: each is a case where two Pythons, or
#: Python and Rust, could disagree.
CORPUS = [
    # Accents, precomposed and combining, and marks that NFD reorders.
    "Café naïve Ångström résumé Zoë façade",
    "Cafe\u0301 nai\u0308ve A\u030angstro\u0308m",
    "a\u0323\u0307 a\u0307\u0323 q\u0307\u0323 \u1e69",
    "Ελληνικά: ΟΔΟΣ Άλφα ΐ, Straße, İstanbul, ǅemal, ﬁne ﬀ",
    # CJK, kana, Hangul (composed and in jamo), full-width forms.
    "我爱猫。日本語のテキスト、カタカナ！",
    "한국어 텍스트 \u1100\u1161\u11a8 ＡＢＣ１２３",
    "\U00020000\U0002a700\U0002b740 \uf900\u2f800",
    # Emoji: plain, skin tone, ZWJ sequences, flags, keycaps, variation selectors.
    "I ❤️ 🐍! 👍🏽 👩‍👩‍👧‍👦 👨🏻‍💻 🏳️‍🌈 🇫🇷🇯🇵 1️⃣ #️⃣ ☃︎ ☃️",
    # Control, format and zero-width characters, NUL and U+FFFD.
    "zero\u200bwidth\u200cnon\u200djoiner\u2060word\ufeffjoined",
    "bell\x07 tab\there new\nline cr\r\n nul\x00 esc\x1b del\x7f c1\x85\x9f ?\ufffd!",
    "soft\u00adhyphen \u202eRTL override\u202c \u061carabic mark \U000e0001\U000e0041tag",
    # Spaces of every kind.
    "no\u00a0break\u2009thin\u3000ideographic\u2028line\u2029para\u1680ogham\u202fnarrow\u205fmath\x0bvt\x0cff",
    # Punctuation: ASCII, Unicode, symbols that are punctuation in ASCII only.
    "didn't \"quote\" «guillemets» — dash – ‘single’ …ellipsis ¿qué? ¡sí! $5+3^2=14 @home #tag ~tilde `tick`",
    "a.b,c;d:e!f?g(h)i[j]k{l}m<n>o/p\\q|r_s-t*u&v%w",
    # Long words: at, and past, the 100-character WordPiece limit.
    "a" * 100,
    "a" * 101,
    "supercalifragilisticexpialidocious " + "pneumonoultramicroscopicsilicovolcanoconiosis" * 3,
    ("é" * 101) + " " + ("e\u0301" * 50),
    # Unknown words, special tokens typed in the text.
    "Snowmen ☃ wave 🙂 kindly ⸻ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ꙮ",
    "[CLS] [MASK] is [SEP][PAD]x [UNK] [mask] [CLS",
    # Mixed case, digits, and text that a newer Unicode than the tables' knows.
    "McDonald's iPhone XMLHttpRequest camelCase UPPER lower MiXeD 3.14159 1,000,000 2nd",
    "new letters \ua7cb\ua7dc\u1c89 \U00016d68 \U000113c5 \U00016121 a\U0001e4ec\u0301 a\u0301\U0001e4ec \U00010efd",
    "",
    "   \t\n  ",
]

CODE = """import base64, json, sys, unicodedata
from selfattention.bert.tokenizer import WordPieceTokenizer, bert_normalize
with open("/home/reader/model/tokenizer.json", encoding="utf-8") as f:
    tok = WordPieceTokenizer.from_json(f.read())
corpus = json.loads(base64.b64decode("{corpus}").decode("utf-8"))
print(json.dumps({{"python": sys.version.split()[0], "unicode": unicodedata.unidata_version,
                  "encoded": [[list(e.ids), list(e.tokens)] for e in map(tok.encode, corpus)],
                  "normalized": [bert_normalize(t) for t in corpus]}}))
"""


def encoded(tok, texts):
    return [[list(e.ids), list(e.tokens)] for e in map(tok.encode, texts)]


@pytest.fixture(scope="module")
def browser_result(browser, site_url):
    context = browser.new_context()
    pg = context.new_page()
    pg.watch = PageWatch(pg, site_url)   # offline: every other host is blocked
    try:
        pg.goto(f"{site_url}/{PAGE}")
        corpus = base64.b64encode(json.dumps(CORPUS).encode("utf-8")).decode("ascii")
        res = pg.evaluate(RUN_IN_WORKER, [CODE.format(corpus=corpus),
                                          {"/home/reader/model/tokenizer.json": "_static/model/tokenizer.json"}])
        assert res["ok"], res["err"]
        assert pg.watch.console_errors == [] and pg.watch.foreign == []
        return json.loads(res["out"].strip().splitlines()[-1])
    finally:
        context.close()


def test_the_site_ships_the_packages_tokenizer(built_book):
    from selfattention.bert.tokenizer import WordPieceTokenizer
    from selfattention.minilm import load_tokenizer

    site = WordPieceTokenizer.from_json((built_book / "_static/model/tokenizer.json").read_text(encoding="utf-8"))
    assert encoded(site, CORPUS) == encoded(load_tokenizer(), CORPUS)


def test_the_corpus_is_cut_by_the_package_as_tokenizers_cuts_it():
    tokenizers = pytest.importorskip("tokenizers")
    from selfattention.bert.tokenizer import bert_normalize
    from selfattention.minilm import find_model_dir, load_tokenizer

    ref = tokenizers.Tokenizer.from_file(str(find_model_dir() / "tokenizer.json"))
    ref.no_padding()
    ref.no_truncation()
    want = [[list(e.ids), list(e.tokens)] for e in map(ref.encode, CORPUS)]
    assert encoded(load_tokenizer(), CORPUS) == want
    assert [bert_normalize(t) for t in CORPUS] == [ref.normalizer.normalize_str(t) for t in CORPUS]


def test_the_browsers_python_gives_the_same_ids_and_tokens(browser_result):
    import sys
    import unicodedata

    from selfattention.minilm import load_tokenizer

    here = encoded(load_tokenizer(), CORPUS)
    there = browser_result["encoded"]
    assert len(there) == len(CORPUS)
    wrong = [(text, h[1], t[1]) for text, h, t in zip(CORPUS, here, there, strict=True) if h != t]
    assert wrong == [], (f"CPython {sys.version.split()[0]} (Unicode {unicodedata.unidata_version}) and the "
                         f"browser's Python {browser_result['python']} (Unicode {browser_result['unicode']}) "
                         f"disagree on {len(wrong)} texts: {wrong[:3]}")
    # The normalized text too (the letters of a newer Unicode than the tables' become [UNK] either way).
    from selfattention.bert.tokenizer import bert_normalize

    moved = [t for t, n in zip(CORPUS, browser_result["normalized"], strict=True) if bert_normalize(t) != n]
    assert moved == [], f"the browser's Python normalizes {len(moved)} texts differently: {moved[:3]}"
    print(f"\nbrowser's Python {browser_result['python']}, Unicode {browser_result['unicode']}: "
          f"{sum(len(ids) for ids, _ in there)} tokens of {len(CORPUS)} texts, all equal, and the normalized texts")
