"""The "Q, K, V" lab of the chapter "Queries, keys and values".

The reader edits the words ``X`` and the three matrices ``W_Q``, ``W_K``,
``W_V`` and watches the queries, keys, values, scores, weights and outputs
update; a badge says whether the score table is symmetric, and pointing at
(or focusing) a score says which query and which key made it. The page
emits the lab's element (:func:`qkv_lab`) with its configuration
(:func:`qkv_config`); ``_static/sa/labs/qkv.js`` draws it. The browser tests
compute the test states from that configuration (:func:`qkv_fixture`): the
package's tables, formatted exactly as the lab must show them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import selfattention as sa

from ..formatting import DECIMALS, fmt
from .contract import FALLBACK_CLASS
from .element import lab_element

#: An arrow key in a number box moves its value by this much.
STEP = 0.1
#: A typed number counts only if its size is at most this; otherwise the box is marked invalid.
LIMIT = 100.0
#: Two scores closer than this count as equal for the symmetry badge.
SYMMETRY_ATOL = 1e-9

_EYE = [[1.0, 0.0], [0.0, 1.0]]
_SWAP = [[0.0, 1.0], [1.0, 0.0]]
_ONE_WAY = [[0.0, 0.0], [1.0, 0.0]]
_ONLY_X = [[1.0, 0.0], [0.0, 0.0]]

#: The lab's presets: (id, button label, W_Q, W_K, W_V). Each one also puts the words back.
PRESETS = (
    ("identity", "identity", _EYE, _EYE, _EYE),
    ("swap", "swap the keys", _EYE, _SWAP, _EYE),
    ("one-way", "one-way keys", _EYE, _ONE_WAY, _EYE),
    ("only-x", "V keeps the first number", _EYE, _EYE, _ONLY_X),
)
_MATRICES = ("w_q", "w_k", "w_v")


def preset_matrices(preset_id: str) -> dict[str, np.ndarray]:
    """The three matrices of a preset, by its id.

    Parameters
    ----------
    preset_id : str
        One of the ids of :data:`PRESETS`.

    Returns
    -------
    dict
        ``"w_q"``, ``"w_k"`` and ``"w_v"``, each a (2, 2) array.

    Raises
    ------
    ValueError
        If there is no such preset.

    Examples
    --------
    >>> preset_matrices("one-way")["w_k"]
    array([[0., 0.],
           [1., 0.]])
    """
    for pid, _, *mats in PRESETS:
        if pid == preset_id:
            return {name: np.array(m) for name, m in zip(_MATRICES, mats)}
    raise ValueError(f"no preset {preset_id!r}; the presets are {[p[0] for p in PRESETS]}")


def qkv_lab(x, words: Sequence[str], *, lab_id: str = "qkv-lab"):
    """The "Q, K, V" lab: edit X and the three matrices, watch every table update.

    Parameters
    ----------
    x : array_like, shape (3, 2)
        The starting words, one row each.
    words : sequence of str
        One name per row of ``x``.
    lab_id : str, default "qkv-lab", keyword-only
        The ``id`` of the lab's element.

    Returns
    -------
    HTMLBlock
        The lab's element with its JSON configuration and a short text for
        readers without JavaScript.

    Raises
    ------
    ValueError
        As :func:`qkv_config`.

    Examples
    --------
    >>> lab = qkv_lab(sa.three_words(), sa.WORDS)
    >>> lab.markup.startswith('<div class="sa-lab" data-lab="qkv" id="qkv-lab">')
    True
    """
    fallback = (f'<p class="{FALLBACK_CLASS}">This lab needs JavaScript. Without it, the tables '
                "of this chapter show the same steps for the presets.</p>")
    return lab_element("qkv", lab_id, qkv_config(x, words), fallback)


def qkv_config(x, words: Sequence[str]) -> dict:
    """The JSON configuration of the "Q, K, V" lab.

    The lab starts from the words ``x`` and the identity preset.

    Parameters
    ----------
    x : array_like, shape (n, 2)
        The starting words.
    words : sequence of str
        One name per row of ``x``.

    Returns
    -------
    dict
        ``words``, ``x``, ``w_q``, ``w_k``, ``w_v`` (the start), ``d_k``,
        ``decimals`` (the book's :data:`~booktools.formatting.DECIMALS`),
        ``step``, ``limit``, ``symmetry_atol`` and ``presets`` (each with an
        ``id``, a ``label`` and its three matrices).

    Raises
    ------
    ValueError
        If ``x`` is not ``(n, 2)`` with one row per word, or a word name is
        empty or repeated.

    Examples
    --------
    >>> c = qkv_config(sa.three_words(), sa.WORDS)
    >>> [p["label"] for p in c["presets"]]
    ['identity', 'swap the keys', 'one-way keys', 'V keeps the first number']
    >>> c["presets"][2]["w_k"], c["d_k"]
    ([[0.0, 0.0], [1.0, 0.0]], 2)
    """
    x, words = _check(x, words)
    start = preset_matrices("identity")
    return {
        "words": words,
        "x": x.tolist(),
        **{name: m.tolist() for name, m in start.items()},
        "d_k": x.shape[1],
        "decimals": dict(DECIMALS),
        "step": STEP,
        "limit": LIMIT,
        "symmetry_atol": SYMMETRY_ATOL,
        "presets": [{"id": pid, "label": label, **dict(zip(_MATRICES, mats))}
                    for pid, label, *mats in PRESETS],
    }


def qkv_tables(x, w_q, w_k, w_v, words: Sequence[str], *, projections: bool = True) -> dict:
    """What the lab shows for one state: its tables as strings, and the symmetry badge.

    Parameters
    ----------
    x : array_like, shape (n, 2)
        The words.
    w_q, w_k, w_v : array_like, shape (2, 2)
        The matrices.
    words : sequence of str
        One name per row of ``x``.
    projections : bool, default True, keyword-only
        The lab's checkbox "use projections": when False, the words are
        their own queries, keys and values (the matrices are ignored).

    Returns
    -------
    dict
        ``"q"``, ``"k"``, ``"v"``, ``"scores"``, ``"weights"`` and
        ``"output"`` as lists of rows of strings (formatted with
        :func:`~booktools.formatting.fmt` and
        :data:`~booktools.formatting.DECIMALS`; Q, K and V as ``"x"``), and
        ``"symmetric"``: whether every score equals its mirror to
        :data:`SYMMETRY_ATOL`.

    Raises
    ------
    ValueError
        As :func:`qkv_config`, or if a matrix is malformed.

    Examples
    --------
    >>> m = preset_matrices("one-way")
    >>> t = qkv_tables(sa.three_words(), m["w_q"], m["w_k"], m["w_v"], sa.WORDS)
    >>> t["weights"][0], t["symmetric"]
    (['0.045', '0.187', '0.768'], False)
    >>> qkv_tables(sa.three_words(), m["w_q"], m["w_k"], m["w_v"], sa.WORDS, projections=False)["symmetric"]
    True
    """
    x, _ = _check(x, words)
    if not projections:
        w_q = w_k = w_v = np.eye(x.shape[1])
    t = sa.head_trace(x, w_q, w_k, w_v)
    kinds = {"q": "x", "k": "x", "v": "x", "scores": "scores", "weights": "weights", "output": "output"}
    out = {name: [[fmt(v, DECIMALS[kind]) for v in row] for row in t[name]] for name, kind in kinds.items()}
    out["symmetric"] = bool(np.abs(t["scores"] - t["scores"].T).max() <= SYMMETRY_ATOL)
    return out


def score_explanation(x, w_q, w_k, w_v, words: Sequence[str], a: int, b: int, *, projections: bool = True) -> str:
    """The sentence the lab shows while score (``a``, ``b``) is pointed at or focused.

    Parameters
    ----------
    x, w_q, w_k, w_v, words, projections
        As :func:`qkv_tables`.
    a, b : int
        The row (the word that looks) and the column (the word looked at).

    Returns
    -------
    str

    Raises
    ------
    ValueError
        As :func:`qkv_tables`.

    Examples
    --------
    >>> m = preset_matrices("one-way")
    >>> print(score_explanation(sa.three_words(), m["w_q"], m["w_k"], m["w_v"], sa.WORDS, 2, 0))
    car looks at cat: car's query [0.00, 2.00] · cat's key [0.00, 0.00] = 0.00, divided by √2 gives 0.00; weight 0.333.
    """
    x, words = _check(x, words)
    if not projections:
        w_q = w_k = w_v = np.eye(x.shape[1])
    t = sa.head_trace(x, w_q, w_k, w_v)
    d = DECIMALS

    def vec(row):
        return "[" + ", ".join(fmt(v, d["x"]) for v in row) + "]"

    return (f"{words[a]} looks at {words[b]}: {words[a]}'s query {vec(t['q'][a])} · {words[b]}'s key "
            f"{vec(t['k'][b])} = {fmt(t['raw_scores'][a, b], d['scores'])}, divided by √{t['q'].shape[1]} gives "
            f"{fmt(t['scores'][a, b], d['scores'])}; weight {fmt(t['weights'][a, b], d['weights'])}.")


def qkv_fixture(config: dict) -> dict:
    """What the browser tests compare the lab with, for the lab configured by ``config``.

    The tests read ``config`` from the built page and call this function:
    the expected numbers never ship in the public page.

    Parameters
    ----------
    config : dict
        From :func:`qkv_config` (or the page's JSON of it).

    Returns
    -------
    dict
        ``words`` and ``states`` (:func:`qkv_states`).

    Raises
    ------
    ValueError
        As :func:`qkv_states`.

    Examples
    --------
    >>> f = qkv_fixture(qkv_config(sa.three_words(), sa.WORDS))
    >>> f["words"], len(f["states"])
    (['cat', 'dog', 'car'], 10)
    """
    return {"words": list(config["words"]), "states": qkv_states(config)}


def qkv_states(config: dict) -> list[dict]:
    """The lab's test states, each with its action, inputs, tables and explanations.

    The states are: the start; each preset; the projections switched off
    (from "one-way keys"); three edits typed into the boxes (of ``W_Q``, of
    ``X`` after a preset, and of ``W_V``); one run of arrow keys in a box.
    Each state names what a test does from the start (``initial``,
    ``preset``, ``projections``, ``edit`` or ``keys``), the inputs it leads
    to, the tables the lab must then show (:func:`qkv_tables`) and the
    explanation of two scores (:func:`score_explanation`).

    Parameters
    ----------
    config : dict
        From :func:`qkv_config`.

    Returns
    -------
    list of dict
        ``name``, ``action``, ``inputs`` (``x``, ``w_q``, ``w_k``, ``w_v``),
        ``projections``, ``tables`` and ``explain`` (a dict ``"a,b"`` to
        text) of each state.

    Raises
    ------
    ValueError
        As :func:`qkv_config`.

    Examples
    --------
    >>> s = qkv_states(qkv_config(sa.three_words(), sa.WORDS))
    >>> [t["action"]["kind"] for t in s]
    ['initial', 'preset', 'preset', 'preset', 'preset', 'projections', 'edit', 'edit', 'edit', 'keys']
    >>> s[2]["name"], s[2]["tables"]["weights"][0], s[2]["tables"]["symmetric"]
    ('preset swap the keys', ['0.045', '0.187', '0.768'], True)
    """
    x, words = _check(config["x"], config["words"])
    start = {"x": x.tolist(), **{m: [list(r) for r in config[m]] for m in _MATRICES}}
    presets = {p["id"]: p for p in config["presets"]}
    step = float(config["step"])

    def after(preset_id=None):
        inputs = {k: [list(r) for r in v] for k, v in start.items()}
        if preset_id:
            inputs.update({m: [list(r) for r in presets[preset_id][m]] for m in _MATRICES})
        return inputs

    states = [("initial", {"kind": "initial"}, after(), True)]
    for p in config["presets"]:
        states.append((f"preset {p['label']}", {"kind": "preset", "preset": p["id"]}, after(p["id"]), True))
    states.append(("one-way keys, projections off", {"kind": "projections", "preset": "one-way", "on": False},
                   after("one-way"), False))
    edits = [
        (None, [("w_q", 0, 1, "1")]),                              # W_Q = [[1, 1], [0, 1]]
        ("one-way", [("x", 1, 0, "-1"), ("x", 1, 1, "2.5")]),      # dog moves to [-1, 2.5]
        ("swap", [("w_v", 1, 1, "-0.5"), ("w_k", 0, 0, "0.5")]),
    ]
    for preset_id, changes in edits:
        inputs = after(preset_id)
        for name, i, j, text in changes:
            inputs[name][i][j] = float(text)
        label = ", ".join(f"{n}[{i}][{j}] = {t}" for n, i, j, t in changes)
        states.append((f"edit {label}", {"kind": "edit", "preset": preset_id,
                                         "edits": [list(c) for c in changes]}, inputs, True))
    inputs = after("one-way")
    presses = ["ArrowUp"] * 3 + ["ArrowDown"] * 8   # W_K[1][0]: 1 -> 1.3 -> 0.5
    value = inputs["w_k"][1][0]
    for key in presses:
        value = round(value + (step if key == "ArrowUp" else -step), 10)
    inputs["w_k"][1][0] = value
    states.append(("keys on w_k[1][0]", {"kind": "keys", "preset": "one-way", "box": ["w_k", 1, 0],
                                         "keys": presses}, inputs, True))
    out = []
    for name, action, inputs, projections in states:
        args = (inputs["x"], inputs["w_q"], inputs["w_k"], inputs["w_v"], words)
        explain = {f"{a},{b}": score_explanation(*args, a, b, projections=projections) for a, b in ((0, 2), (2, 0))}
        out.append({"name": name, "action": action, "inputs": inputs, "projections": projections,
                    "tables": qkv_tables(*args, projections=projections), "explain": explain})
    return out


def _check(x, words) -> tuple[np.ndarray, list[str]]:
    """Return ``x`` as floats and ``words`` as a list, or raise a clear ValueError."""
    words = [words] if isinstance(words, str) else list(words)
    arr = np.asarray(x, dtype=float)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"x must have shape (n_words, 2), one row per word; got shape {arr.shape}")
    if arr.shape[0] != len(words) or not 2 <= len(words) <= 4:
        raise ValueError(f"x has {arr.shape[0]} rows and {len(words)} words were given ({words}); "
                         "the lab shows 2 to 4 words, one row each")
    if any(not isinstance(w, str) or not w for w in words) or len(set(words)) != len(words):
        raise ValueError(f"words must be distinct non-empty strings, got {words}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"x must hold finite numbers, got {arr.tolist()}")
    return arr, words
