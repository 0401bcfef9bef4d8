"""The pure-Python WordPiece tokenizer gives the ids of Hugging Face ``tokenizers``."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from booktools.labs.explorer import GALLERY
from selfattention import minilm
from selfattention.bert import tokenizer as T

tokenizers = pytest.importorskip("tokenizers")

#: The property test's number of cases; derandomized, so every run tries the same ones.
PROPERTY_EXAMPLES = 2000
PROPERTY_SETTINGS = settings(derandomize=True, database=None, deadline=None, max_examples=PROPERTY_EXAMPLES)

CODE_POINTS = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]


@pytest.fixture(scope="module")
def model_dir():
    return minilm.find_model_dir()


@pytest.fixture(scope="module")
def reference(model_dir):
    tok = tokenizers.Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    return tok


@pytest.fixture(scope="module")
def ours(model_dir):
    return T.WordPieceTokenizer.from_json((model_dir / "tokenizer.json").read_text(encoding="utf-8"))


def assert_same(ours, reference, text):
    expected = reference.encode(text)
    got = ours.encode(text)
    assert (got.tokens, got.ids) == (tuple(expected.tokens), tuple(expected.ids)), repr(text)


# ---------------------------------------------------------------------------
# Every code point, one at a time
# ---------------------------------------------------------------------------


def _batches(size=4096):
    for i in range(0, len(CODE_POINTS), size):
        yield [chr(cp) for cp in CODE_POINTS[i:i + size]]


def test_every_code_point_is_normalized_as_tokenizers_does():
    norm = tokenizers.normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True,
                                                 strip_accents=None, lowercase=True)
    for chars in _batches():
        text = "".join("a" + c for c in chars) + "a"
        if norm.normalize_str(text) != T.bert_normalize(text):   # find the character at fault
            bad = [c for c in chars if norm.normalize_str("a" + c + "a") != T.bert_normalize("a" + c + "a")]
            pytest.fail(f"normalized differently: {[hex(ord(c)) for c in bad[:20]]}")


def test_every_code_point_is_pre_tokenized_as_tokenizers_does():
    pre = tokenizers.pre_tokenizers.BertPreTokenizer()
    for chars in _batches():
        text = "".join("a" + c for c in chars) + "a"
        if [w for w, _ in pre.pre_tokenize_str(text)] != T.bert_pre_tokenize(text):
            bad = [c for c in chars
                   if [w for w, _ in pre.pre_tokenize_str("a" + c + "a")] != T.bert_pre_tokenize("a" + c + "a")]
            pytest.fail(f"split differently: {[hex(ord(c)) for c in bad[:20]]}")


# ---------------------------------------------------------------------------
# Whole texts
# ---------------------------------------------------------------------------

#: Pieces the property test strings together: words, accents, CJK, emoji, digits,
#: punctuation runs, special tokens, control and space characters, long words.
FRAGMENTS = st.sampled_from([
    "the", "The", "CAT", "cats", "bank", "unaffable", "Hyperparameterisation", "didn't",
    "café", "naïve", "Ångström", "ÉCOLE", "résumé", "straße", "ΟΔΟΣ", "İstanbul", "Ωμέγα",
    "猫", "我爱你", "日本語", "𠀀", "ひらがな", "カタカナ", "한국어",
    "🙂", "👩‍👩‍👧", "🇫🇷", "❤️", "3.14", "2024", "١٢٣", "½", "Ⅻ",
    "...", "?!", "—", "«»", "(", ")", "[", "]", "$+^`|~", "'", '"', "-", "_", "@#",
    "[CLS]", "[SEP]", "[MASK]", "[UNK]", "[PAD]", "[mask]", "[CLS", "[[SEP]]",
    " ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u3000", "\u2028", "\x0b", "\x85",
    "\x00", "\x07", "\u200b", "\u200d", "\ufeff", "\ufffd", "\ue000", "\u0301", "e\u0301",
    "a" * 100, "a" * 101, "ab" * 60, "x" * 250,
])
TEXTS = st.one_of(
    st.text(max_size=40),
    st.lists(st.one_of(FRAGMENTS, st.text(max_size=6)), max_size=12).map("".join),
    st.lists(FRAGMENTS, max_size=12).map(" ".join),
)


@PROPERTY_SETTINGS
@given(text=TEXTS)
def test_ids_and_tokens_equal_tokenizers_on_arbitrary_text(ours, reference, text):
    assert_same(ours, reference, text)


@pytest.mark.parametrize("sentence", [s for s, _ in GALLERY])
def test_the_explorers_sentences_get_the_tokenizers_ids(ours, reference, sentence):
    assert_same(ours, reference, sentence)


@pytest.mark.parametrize("text", [
    "", " ", "\t\n", "\x00\x00", "\ufffd",
    "Hello, world!",
    "The animal didn't cross the street because it was too tired.",
    "Café au lait, naïve résumé — 3.14 × 2 = 6.28 (approximately).",
    "你好 world\tand\nnewlines, plus an emoji 🙂 and \"quotes\".",
    "supercalifragilisticexpialidocious",
    "a" * 100, "a" * 101, "é" * 101,                 # the length limit counts characters
    "[CLS] [SEP] [MASK] [UNK] [PAD]", "x[MASK]y", "[MASK][MASK]", "[mask]",
    "$5+3^2=14|~`", "...!!!???", "‘quoted’ «guillemets» „low“",
    "ΣΊΣΥΦΟΣ", "İ", "ﬁnance", "Ⅻ", "①②", "ℌ",
    "\u1734", "\U00011938", "\u0890",                # where this Python's Unicode differs from tokenizers'
    "\U000e0001\U000e0020", "\U0010ffff", "\ue000",
])
def test_hand_picked_edge_cases_equal_tokenizers(ours, reference, text):
    assert_same(ours, reference, text)


# ---------------------------------------------------------------------------
# The steps, and reading tokenizer.json
# ---------------------------------------------------------------------------


def test_a_word_past_the_length_limit_is_one_unknown_token(ours):
    assert ours.encode("a" * 101).tokens == ("[CLS]", "[UNK]", "[SEP]")
    assert ours.encode("a" * 100).tokens != ("[CLS]", "[UNK]", "[SEP]")


def test_an_unmatchable_word_is_one_unknown_token_whatever_its_pieces():
    vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "ab": 3, "##c": 4}
    tok = T.WordPieceTokenizer(vocab)
    assert tok.encode("abc abd").tokens == ("[CLS]", "ab", "##c", "[UNK]", "[SEP]")


def test_settings_come_from_tokenizer_json(model_dir):
    spec = json.loads((model_dir / "tokenizer.json").read_text(encoding="utf-8"))
    spec["normalizer"]["lowercase"] = False          # strip_accents is null: it follows lowercase
    tok = T.WordPieceTokenizer.from_json(spec)
    assert tok.steps == {"clean": True, "cjk": True, "accents": False, "lower": False}
    spec["model"]["max_input_chars_per_word"] = 3
    assert T.WordPieceTokenizer.from_json(spec).encode("the cat").tokens == ("[CLS]", "the", "cat", "[SEP]")
    assert T.WordPieceTokenizer.from_json(spec).encode("cats").tokens == ("[CLS]", "[UNK]", "[SEP]")


@pytest.mark.parametrize(("change", "message"), [
    (lambda s: s["model"].update(type="BPE"), "model type is 'BPE'"),
    (lambda s: s["normalizer"].update(type="NFKC"), "normalizer type is 'NFKC'"),
    (lambda s: s.update(pre_tokenizer={"type": "Whitespace"}), "pre_tokenizer type is 'Whitespace'"),
    (lambda s: s["post_processor"].update(single=s["post_processor"]["single"][1:]), "single template"),
    (lambda s: s["added_tokens"][0].update(normalized=True), "normalized=true"),
    (lambda s: s["model"].update(vocab=[]), "no vocab mapping"),
    (lambda s: s["model"].update(unk_token="<unk>"), "no unk_token '<unk>'"),
])
def test_a_tokenizer_json_of_another_kind_is_refused(model_dir, change, message):
    spec = json.loads((model_dir / "tokenizer.json").read_text(encoding="utf-8"))
    change(spec)
    with pytest.raises(ValueError, match=message):
        T.WordPieceTokenizer.from_json(spec)


def test_bad_sources_and_texts_get_clear_errors(ours):
    with pytest.raises(ValueError, match="not valid JSON"):
        T.WordPieceTokenizer.from_json("{not json")
    with pytest.raises(TypeError, match="source must be the JSON text"):
        T.WordPieceTokenizer.from_json(3)
    with pytest.raises(TypeError, match="text must be a string"):
        ours.encode(b"bytes")
    with pytest.raises(TypeError, match="vocab must map str to int"):
        T.WordPieceTokenizer({"[UNK]": "0"})
    with pytest.raises(ValueError, match="max_chars must be a positive integer"):
        T.WordPieceTokenizer({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2}, max_chars=0)


def test_the_tokenizer_needs_only_the_standard_library():
    import ast
    import inspect

    for module in (T, T._unicode_tables):
        tree = ast.parse(inspect.getsource(module))
        roots = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for alias in node.names}
        roots |= {node.module.split(".")[0] for node in ast.walk(tree)
                  if isinstance(node, ast.ImportFrom) and node.module and node.level == 0}
        assert roots <= {"__future__", "bisect", "json", "re", "types", "unicodedata", "collections",
                         "typing"}, roots


def test_a_newer_unicodedata_does_not_change_characters_the_tables_do_not_assign(monkeypatch):
    """The browser's newer Python decomposes and reorders letters of Unicode 15 and 16; the reference does not.

    A stand-in ``unicodedata`` decomposes KIRAT RAI VOWEL SIGN AI (U+16D68, Unicode 16) as
    Unicode 16 does, and puts a Nag Mundari mark (U+1E4EC, combining class 232 since
    Unicode 15) after U+0301 (class 230); the tokenizer keeps both as ``tokenizers`` does.
    """
    import unicodedata

    newer = {"\U00016d68": "\U00016d67\U00016d67", "a\U0001e4ec\u0301": "a\u0301\U0001e4ec"}

    class Newer:
        unidata_version = "16.0.0"

        @staticmethod
        def normalize(form, text):
            for old, new in newer.items():
                text = text.replace(old, new)
            return unicodedata.normalize(form, text)

    assert not T._known("\U00016d68") and not T._known("\U0001e4ec") and T._known("\u0301")
    monkeypatch.setattr(T, "unicodedata", Newer)
    assert T.nfd("\U00016d68 é") == "\U00016d68 e\u0301"
    assert T.nfd("a\U0001e4ec\u0301") == "a\U0001e4ec\u0301"
    assert T.lowercase("\ua7cb\U00016d68") == "\u0264\U00016d68"   # the reference's lower case, from the table
