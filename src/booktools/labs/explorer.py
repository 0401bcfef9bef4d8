"""The attention explorer lab of the chapter "Attention in a real model".

The page runs all-MiniLM-L6-v2 on a small gallery of sentences at build
time and hands the lab each sentence's tokens and pre-softmax scores. The
lab (``_static/sa/labs/explorer.js``) recomputes the weights from those
scores for any layer, head or temperature, so what it shows is exact for
the scores it holds.

To keep the page light the scores are stored compactly:

1. every row has its largest score subtracted (softmax does not change when
   one number is subtracted from a whole row, and the values that matter
   end up near 0, where a small float is most precise);
2. the result is rounded to float16 and written as little-endian bytes in
   base64.

The lab's test states (:func:`explorer_fixture`, which its browser tests
compute from the page's own configuration) hold the package's softmax of
exactly these stored scores.

The lab also takes the reader's own sentence: its "Compute" button runs
:func:`booktools.labs.explorer_browser.explore` in the book's in-browser
Python, on the model's float16 files that the site ships
(:func:`compute_config` says where). Nothing is downloaded before the
reader presses it. The lab shows those weights as it shows the gallery's,
and saves the heatmap on screen as PNG or SVG, named by
:func:`export_stem`.
"""

from __future__ import annotations

import base64
import numbers
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..formatting import DECIMALS, fmt
from ..head_weights import MEAN, check_stored_scores, head_weights
from ..html import HTMLBlock
from .contract import FALLBACK_CLASS, config_block
from .element import lab_element

#: The gallery: each sentence with the token whose row the lab shows first.
GALLERY = (
    ("The animal didn't cross the street because it was too wide.", "it"),
    ("The animal didn't cross the street because it was too tired.", "it"),
    ("We sat on the bank of the river.", "bank"),
    ("She deposited the money at the bank.", "bank"),
    ("The keys to the cabinet are on the table.", "are"),
    ("The cat sat on the mat.", "sat"),
    ("The cat chased the dog.", "chased"),
    ("I love cats.", "love"),
)

#: The temperature slider: smallest, largest and step, and where it starts.
TEMPERATURE = {"min": 0.25, "max": 4.0, "step": 0.05, "value": 1.0}

#: Where the lab starts: first sentence, layer 4, head 0.
DEFAULT = {"sentence": 0, "layer": 4, "head": 0}

#: Colour scale of the weights (viridis, colour-blind safe), from 0 to 1.
VIRIDIS = (
    "#440154", "#482475", "#414487", "#355f8d", "#2a788e", "#21918c",
    "#22a884", "#44bf70", "#7ad151", "#bddf26", "#fde725",
)

#: The longest sentence that "Compute" takes, in tokens with [CLS] and [SEP] (the model takes 512).
MAX_TOKENS = 128

#: Where the site keeps the model's files (``model.json`` lists them), from the site's root.
MODEL_SITE_DIR = "_static/model/"

#: Where the in-browser Python finds them.
MODEL_BROWSER_DIR = "/home/reader/model"

#: The command-line explorer, for a browser that cannot run the book's Python.
COMMAND = "python -m booktools.show_attention"

#: Longest sentence part of an export's file name, in characters.
STEM_WORDS = 40

_DTYPE = np.dtype("<f2")  # little-endian float16, as the lab reads it

# Read as text, never imported here: the browser's Python runs it.
_BROWSER_CODE = Path(__file__).with_name("explorer_browser.py")


def compact_scores(scores) -> np.ndarray:
    """Scores as the lab stores them: each row minus its maximum, in float16.

    Parameters
    ----------
    scores : array_like, shape (layers, heads, L, L)
        Pre-softmax scores, as ``Encoding.scores`` from
        :func:`selfattention.minilm.encode`.

    Returns
    -------
    numpy.ndarray of float16, shape (layers, heads, L, L)
        Every row's largest entry is 0 and the others are negative.

    Raises
    ------
    ValueError
        If ``scores`` is not 4-D with square last two axes, is empty, or
        holds NaN or inf.

    Examples
    --------
    >>> s = np.array([[[[1.0, 3.0], [2.0, 2.0]]]])   # (1, 1, 2, 2)
    >>> compact_scores(s)
    array([[[[-2.,  0.],
             [ 0.,  0.]]]], dtype=float16)
    >>> compact_scores(np.zeros((2, 2)))
    Traceback (most recent call last):
    ...
    ValueError: scores must have shape (layers, heads, L, L), got (2, 2)
    """
    s = check_stored_scores(scores, "scores")
    shifted = s - s.max(axis=-1, keepdims=True)  # (layers, heads, L, L), row max 0
    return shifted.astype(np.float16)


def encode_scores(stored) -> str:
    """The stored scores as base64 text: little-endian float16, C order.

    Parameters
    ----------
    stored : array_like, shape (layers, heads, L, L)
        Scores from :func:`compact_scores` (any float is rounded to float16).

    Returns
    -------
    str
        Base64 of ``2 * stored.size`` bytes.

    Raises
    ------
    ValueError
        As :func:`compact_scores`.

    Examples
    --------
    >>> encode_scores(np.zeros((1, 1, 1, 1)))
    'AAA='
    >>> text = encode_scores(np.array([[[[-2.0, 0.0], [0.0, -0.5]]]]))
    >>> decode_scores(text, (1, 1, 2, 2))[0, 0]
    array([[-2. ,  0. ],
           [ 0. , -0.5]], dtype=float16)
    """
    s = check_stored_scores(stored, "stored")
    return base64.b64encode(s.astype(_DTYPE).tobytes(order="C")).decode("ascii")


def decode_scores(text: str, shape: Sequence[int]) -> np.ndarray:
    """Read scores written by :func:`encode_scores`.

    Parameters
    ----------
    text : str
        Base64 text.
    shape : sequence of int
        ``(layers, heads, L, L)``.

    Returns
    -------
    numpy.ndarray of float16
        The stored scores, in ``shape``.

    Raises
    ------
    ValueError
        If ``text`` is not base64 or does not hold ``prod(shape)`` numbers.

    Examples
    --------
    >>> decode_scores("AAA=", (1, 1, 1, 1))
    array([[[[0.]]]], dtype=float16)
    >>> decode_scores("AAA=", (1, 1, 2, 2))
    Traceback (most recent call last):
    ...
    ValueError: the text holds 1 float16 numbers but shape (1, 1, 2, 2) needs 4
    """
    try:
        raw = base64.b64decode(text, validate=True)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"scores text is not valid base64: {exc}") from None
    shape = tuple(int(n) for n in shape)
    need = int(np.prod(shape))
    if len(raw) != 2 * need:
        raise ValueError(
            f"the text holds {len(raw) // 2} float16 numbers but shape {shape} needs {need}"
        )
    return np.frombuffer(raw, dtype=_DTYPE).reshape(shape).astype(np.float16)


def gallery_entry(sentence: str, tokens: Sequence[str], scores, *, focus) -> dict:
    """One sentence of the lab's gallery: text, tokens, first row and stored scores.

    Parameters
    ----------
    sentence : str
        The sentence, as typed.
    tokens : sequence of str
        Its ``L`` tokens, ``[CLS]`` to ``[SEP]``.
    scores : array_like, shape (layers, heads, L, L)
        Its pre-softmax scores.
    focus : str or int, keyword-only
        The token whose row the lab shows while no token is pointed at: a
        token that occurs once, or a position.

    Returns
    -------
    dict
        ``text``, ``tokens``, ``focus`` (a position), ``shape`` and
        ``scores`` (base64 from :func:`encode_scores` of
        :func:`compact_scores`).

    Raises
    ------
    ValueError
        If the scores do not match the tokens, or ``focus`` is not found
        exactly once or is out of range.

    Examples
    --------
    >>> e = gallery_entry("Hi.", ["[CLS]", "hi", ".", "[SEP]"], np.zeros((1, 2, 4, 4)), focus="hi")
    >>> e["focus"], e["shape"], len(e["scores"])
    (1, [1, 2, 4, 4], 88)
    >>> gallery_entry("Hi.", ["[CLS]", "hi", "[SEP]"], np.zeros((1, 2, 4, 4)), focus=0)
    Traceback (most recent call last):
    ...
    ValueError: scores of shape (1, 2, 4, 4) do not match 3 tokens
    """
    if not isinstance(sentence, str) or not sentence.strip():
        raise ValueError(f"sentence must be a non-empty string, got {sentence!r}")
    tokens = [str(t) for t in tokens]
    stored = compact_scores(scores)
    if stored.shape[-1] != len(tokens):
        raise ValueError(f"scores of shape {stored.shape} do not match {len(tokens)} tokens")
    return {
        "text": sentence,
        "tokens": tokens,
        "focus": _position(tokens, focus),
        "shape": list(stored.shape),
        "scores": encode_scores(stored),
    }


def compute_config(max_tokens: int = MAX_TOKENS) -> dict:
    """What the lab's "Compute" button needs: the code it runs and where the model is.

    Parameters
    ----------
    max_tokens : int, default ``MAX_TOKENS``
        The longest sentence accepted, in tokens (at most the model's 512).

    Returns
    -------
    dict
        ``max_tokens``; ``model`` (the site's folder of the model files,
        :data:`MODEL_SITE_DIR`); ``dir`` (the same files in the browser's
        Python, :data:`MODEL_BROWSER_DIR`); ``code`` (the source of
        :mod:`booktools.labs.explorer_browser`) and ``call`` (the function
        to call, :func:`~booktools.labs.explorer_browser.explore`);
        ``command`` (:data:`COMMAND`).

    Raises
    ------
    ValueError
        If ``max_tokens`` is not a whole number from 3 to 512.

    Examples
    --------
    >>> c = compute_config()
    >>> c["max_tokens"], c["model"], c["call"], "def explore(" in c["code"]
    (128, '_static/model/', 'explore', True)
    >>> compute_config(600)
    Traceback (most recent call last):
    ...
    ValueError: max_tokens must be a whole number from 3 to 512, got 600
    """
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, numbers.Integral) or not 3 <= max_tokens <= 512:
        raise ValueError(f"max_tokens must be a whole number from 3 to 512, got {max_tokens!r}")
    return {
        "max_tokens": int(max_tokens),
        "model": MODEL_SITE_DIR,
        "dir": MODEL_BROWSER_DIR,
        "code": _BROWSER_CODE.read_text(encoding="utf-8"),
        "call": "explore",
        "command": COMMAND,
    }


def export_stem(sentence: str, layer: int, head, temperature: float) -> str:
    """The name, without extension, of the lab's exported heatmap.

    The sentence is slugged (accents dropped, lower case, every run of other
    characters one ``-``) and cut at a word to :data:`STEM_WORDS`
    characters; the lab's JavaScript names its files the same way.

    Parameters
    ----------
    sentence : str
        The sentence shown.
    layer : int
        The layer shown.
    head : int or "mean"
        The head shown, or the average of the layer's heads.
    temperature : float
        The temperature ``T`` shown.

    Returns
    -------
    str
        ``attention-<sentence>-layer<l>-head<h>-t<T>`` (``average`` for the
        mean of the heads, ``T`` with two decimals).

    Examples
    --------
    >>> export_stem("The animal didn't cross the street because it was too wide.", 4, 0, 1.0)
    'attention-the-animal-didn-t-cross-the-street-layer4-head0-t1.00'
    >>> export_stem("Café, déjà vu!", 0, "mean", 0.25)
    'attention-cafe-deja-vu-layer0-headaverage-t0.25'
    >>> export_stem("\\u6771\\u4eac", 5, 11, 2)   # "Tokyo" in kanji: no letter a to z
    'attention-sentence-layer5-head11-t2.00'
    """
    plain = "".join(c for c in unicodedata.normalize("NFKD", sentence) if not unicodedata.combining(c))
    slug = re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")
    if len(slug) > STEM_WORDS:
        cut = slug[:STEM_WORDS + 1]
        slug = cut[:cut.rfind("-")] if "-" in cut else slug[:STEM_WORDS]
    head_name = "average" if head == MEAN else str(int(head))
    return f"attention-{slug or 'sentence'}-layer{int(layer)}-head{head_name}-t{float(temperature):.2f}"


def explorer_config(entries: Sequence[dict], *, sentence: int = DEFAULT["sentence"],
                    layer: int = DEFAULT["layer"], head=DEFAULT["head"], compute: dict | None = None) -> dict:
    """The lab's JSON configuration.

    Parameters
    ----------
    entries : sequence of dict
        Sentences from :func:`gallery_entry`; all with the same number of
        layers and heads.
    sentence, layer : int, keyword-only
        Where the lab starts (and where its reset button returns).
    head : int or "mean", keyword-only
        The head the lab starts on.
    compute : dict, optional, keyword-only
        From :func:`compute_config`: the lab gets a text box and a
        "Compute" button for the reader's own sentence. Without it, the
        lab shows the gallery only.

    Returns
    -------
    dict
        ``sentences``, ``layers``, ``heads``, ``start`` (sentence, layer,
        head), ``temperature`` (:data:`TEMPERATURE`), ``decimals``
        (:data:`~booktools.formatting.DECIMALS`), ``colours``
        (:data:`VIRIDIS`, from weight 0 to weight 1), ``mean`` (the
        value of the "average of heads" choice), ``stem_words``
        (:data:`STEM_WORDS`) and, if given, ``compute``.

    Raises
    ------
    ValueError
        If there are no entries, they disagree on layers and heads, or the
        start is out of range.

    Examples
    --------
    >>> e = gallery_entry("Hi.", ["[CLS]", "hi", ".", "[SEP]"], np.zeros((2, 3, 4, 4)), focus=1)
    >>> c = explorer_config([e], sentence=0, layer=1, head="mean")
    >>> c["layers"], c["heads"], c["start"]
    (2, 3, {'sentence': 0, 'layer': 1, 'head': 'mean'})
    >>> explorer_config([e], layer=2)
    Traceback (most recent call last):
    ...
    ValueError: layer must be 0..1, got 2
    """
    entries = list(entries)
    if not entries:
        raise ValueError("the explorer needs at least one sentence")
    sizes = {tuple(e["shape"][:2]) for e in entries}
    if len(sizes) != 1:
        raise ValueError(f"every sentence must have the same layers and heads, got {sorted(sizes)}")
    layers, heads = sizes.pop()
    if not 0 <= sentence < len(entries):
        raise ValueError(f"sentence must be 0..{len(entries) - 1}, got {sentence!r}")
    if not 0 <= layer < layers:
        raise ValueError(f"layer must be 0..{layers - 1}, got {layer!r}")
    if head != MEAN and not 0 <= head < heads:
        raise ValueError(f"head must be 0..{heads - 1} or {MEAN!r}, got {head!r}")
    return {
        "sentences": entries,
        "layers": layers,
        "heads": heads,
        "start": {"sentence": sentence, "layer": layer, "head": head},
        "temperature": dict(TEMPERATURE),
        "decimals": DECIMALS["weights"],
        "colours": list(VIRIDIS),
        "mean": MEAN,
        "stem_words": STEM_WORDS,
        **({"compute": dict(compute)} if compute is not None else {}),
    }


def explorer_lab(config: dict, *, lab_id: str = "explorer-lab") -> HTMLBlock:
    """The lab's element: its configuration and a text for readers without JavaScript.

    Parameters
    ----------
    config : dict
        From :func:`explorer_config`.
    lab_id : str, default "explorer-lab", keyword-only
        The ``id`` of the element.

    Returns
    -------
    HTMLBlock
        ``<div class="sa-lab" data-lab="explorer" id=...>`` holding a
        ``<script type="application/json" class="sa-lab-config">`` block.

    Raises
    ------
    ValueError
        If ``config`` has no sentences.

    Examples
    --------
    >>> e = gallery_entry("Hi.", ["[CLS]", "hi", ".", "[SEP]"], np.zeros((1, 1, 4, 4)), focus=1)
    >>> explorer_lab(explorer_config([e], layer=0)).markup[:58]
    '<div class="sa-lab" data-lab="explorer" id="explorer-lab">'
    """
    if not config.get("sentences"):
        raise ValueError("config has no sentences; build it with explorer_config")
    fallback = (
        f'<p class="{FALLBACK_CLASS}">This explorer needs JavaScript. Without it, the '
        "figures of this page show the same weights for a few sentences, and the "
        "command below computes them for any sentence.</p>"
    )
    return lab_element("explorer", lab_id, config, fallback)


def explorer_states(config: dict) -> list[dict]:
    """The lab's test states, each with the numbers the lab must show.

    Each state names the chooser settings (``sentence``, ``layer``,
    ``head``, ``temperature``), an optional token to ``lock`` (click) and
    then one to ``hover``; ``row`` is the token whose row is shown (the
    locked one, else the hovered one, else the sentence's ``focus``). The
    numbers come from :func:`booktools.head_weights.head_weights` of the scores
    decoded from ``config`` itself, formatted as the lab formats them.

    Parameters
    ----------
    config : dict
        From :func:`explorer_config`.

    Returns
    -------
    list of dict
        ``name``, ``action``, ``row``, ``matrix`` (``L`` rows of ``L``
        strings) and ``strip`` (the shown row, as strings).

    Raises
    ------
    ValueError
        If ``config`` has fewer than 3 sentences or a sentence has fewer
        than 3 tokens (the states need them).

    Examples
    --------
    >>> e = [gallery_entry(f"S{i}.", ["[CLS]", "a", "b", "[SEP]"],
    ...                    np.arange(32.0).reshape(2, 1, 4, 4) % 5, focus=1) for i in range(3)]
    >>> states = explorer_states(explorer_config(e, layer=1))
    >>> states[0]["name"], states[0]["row"], states[0]["strip"]
    ('start', 1, ['0.032', '0.087', '0.237', '0.644'])
    """
    sentences = config["sentences"]
    if len(sentences) < 3 or min(len(e["tokens"]) for e in sentences) < 3:
        raise ValueError("the explorer's test states need 3 sentences of at least 3 tokens")
    start = config["start"]
    last_layer, last_head = config["layers"] - 1, config["heads"] - 1
    s0, l0, h0 = start["sentence"], start["layer"], start["head"]
    focus0 = sentences[s0]["focus"]
    other = (focus0 + 1) % len(sentences[s0]["tokens"])
    third = (focus0 + 2) % len(sentences[s0]["tokens"])
    cases = [
        ("start", {}),
        ("another sentence", {"sentence": (s0 + 2) % len(sentences)}),
        ("another layer and head", {"sentence": (s0 + 3) % len(sentences), "layer": 0,
                                    "head": min(3, last_head)}),
        ("average of heads", {"layer": last_layer, "head": MEAN}),
        ("temperature 0.5", {"temperature": 0.5}),
        ("temperature 2, average of heads", {"sentence": (s0 + 2) % len(sentences),
                                             "layer": min(2, last_layer), "head": MEAN,
                                             "temperature": 2.0}),
        ("hover a token", {"hover": other}),
        ("lock a token", {"lock": other}),
        ("locked row ignores hover", {"lock": focus0, "hover": third}),
        ("lock at temperature 0.25", {"head": 0, "temperature": 0.25, "lock": third}),
    ]
    states = []
    for name, change in cases:
        action = {"sentence": s0, "layer": l0, "head": h0, "temperature": 1.0,
                  "lock": None, "hover": None, **change}
        entry = sentences[action["sentence"]]
        stored = decode_scores(entry["scores"], entry["shape"])
        w = head_weights(stored, action["layer"], action["head"], temperature=action["temperature"])
        row = next(i for i in (action["lock"], action["hover"], entry["focus"]) if i is not None)
        matrix = [[fmt(v, config["decimals"]) for v in r] for r in w]
        states.append({"name": name, "action": action, "row": row, "matrix": matrix,
                       "strip": matrix[row]})
    return states


def explorer_fixture(config: dict) -> dict:
    """What the browser tests compare the lab with, for the lab configured by ``config``.

    The tests read ``config`` from the built page and call this function:
    the expected numbers never ship in the public page.

    Parameters
    ----------
    config : dict
        From :func:`explorer_config` (or the page's JSON of it).

    Returns
    -------
    dict
        ``tokens`` (of every sentence) and ``states``
        (:func:`explorer_states`).

    Raises
    ------
    ValueError
        As :func:`explorer_states`.

    Examples
    --------
    >>> e = [gallery_entry(f"S{i}.", ["[CLS]", "a", "b", "[SEP]"], np.zeros((2, 1, 4, 4)),
    ...                    focus=1) for i in range(3)]
    >>> f = explorer_fixture(explorer_config(e, layer=1))
    >>> f["tokens"][0], len(f["states"])
    (['[CLS]', 'a', 'b', '[SEP]'], 10)
    """
    return {"tokens": [e["tokens"] for e in config["sentences"]], "states": explorer_states(config)}


def payload_kb(config: dict) -> float:
    """Size of the lab's configuration as the page stores it, in KB (1024 bytes).

    Examples
    --------
    >>> e = gallery_entry("Hi.", ["[CLS]", "hi", ".", "[SEP]"], np.zeros((1, 1, 4, 4)), focus=1)
    >>> round(payload_kb(explorer_config([e], layer=0)), 1)
    0.5
    """
    return len(config_block(config).encode("utf-8")) / 1024


# ---------------------------------------------------------------------------
# Private helpers
# ---------------------------------------------------------------------------


def _position(tokens: list[str], token) -> int:
    """Position of ``token`` (a string found once, or an index) in ``tokens``."""
    if isinstance(token, str):
        hits = [i for i, t in enumerate(tokens) if t == token]
        if len(hits) != 1:
            raise ValueError(f"focus {token!r} must occur once in {tokens}, found {len(hits)}")
        return hits[0]
    if isinstance(token, bool) or not isinstance(token, numbers.Integral) or not 0 <= token < len(tokens):
        raise ValueError(f"focus must be a token or a position 0..{len(tokens) - 1}, got {token!r}")
    return int(token)


__all__ = [
    "COMMAND",
    "DEFAULT",
    "GALLERY",
    "MAX_TOKENS",
    "MODEL_BROWSER_DIR",
    "MODEL_SITE_DIR",
    "STEM_WORDS",
    "TEMPERATURE",
    "VIRIDIS",
    "compact_scores",
    "compute_config",
    "decode_scores",
    "encode_scores",
    "explorer_config",
    "export_stem",
    "explorer_fixture",
    "explorer_lab",
    "explorer_states",
    "gallery_entry",
    "payload_kb",
]
