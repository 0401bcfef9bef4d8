"""The "temperature" lab of the chapter "Why divide by √d_k".

One row of scores (cat's raw scores against cat, dog and car) and a slider
for the temperature ``T``. The lab shows ``score / T`` and the weights
``softmax(score / T)`` as numbers and bars: a large ``T`` softens the
weights toward equal shares, a small one sharpens them toward one word.
Two buttons set ``T = 1`` (no division) and ``T = sqrt(d_k)`` (the scaled
scores of attention). The page emits the element with its configuration
(:func:`temperature_lab`); the browser tests compute the package's values
(:func:`selfattention.softmax_with_temperature`) for the lab's test states
from that same configuration (:func:`temperature_fixture`), so no expected
number ships in the page.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

import selfattention as sa

from ..formatting import DECIMALS, fmt
from ..html import HTMLBlock, esc
from .contract import FALLBACK_CLASS
from .element import lab_element

#: The slider: smallest and largest T, its step, and where it starts.
T_MIN, T_MAX, T_STEP, T_START = 0.1, 5.0, 0.05, 1.0
#: Decimals shown for T.
T_DECIMALS = 2


def temperature_config(scores, words: Sequence[str], d_k: int, *, t_min: float = T_MIN, t_max: float = T_MAX,
                       step: float = T_STEP, start: float = T_START) -> dict:
    """The lab's JSON configuration: the row of scores, the slider and the presets.

    Parameters
    ----------
    scores : array_like, shape (n,)
        One row of raw scores (before any division).
    words : sequence of str
        The word each score looks at.
    d_k : int
        Numbers per query and key: the preset "divide by sqrt(d_k)" sets ``T = sqrt(d_k)``.
    t_min, t_max, step, start : float, keyword-only
        The slider's range, step and start (``0 < t_min < t_max``, ``start`` inside).

    Returns
    -------
    dict
        ``words``, ``scores``, ``d_k``, ``min``, ``max``, ``step``, ``start``,
        ``decimals`` (for T, the scores and the weights) and ``presets``
        (``name``, ``label`` and ``t`` of each button).

    Raises
    ------
    TypeError
        If ``d_k`` is not an integer.
    ValueError
        If ``scores`` is not a finite row with one word each, or the range is wrong.

    Examples
    --------
    >>> x = sa.three_words()
    >>> c = temperature_config(x[0] @ x.T, sa.WORDS, 2)
    >>> c["scores"], c["start"], [(p["name"], round(p["t"], 4)) for p in c["presets"]]
    ([4.0, 2.0, 0.0], 1.0, [('raw', 1.0), ('scaled', 1.4142)])
    """
    s = np.asarray(scores, dtype=float)
    if s.ndim != 1 or s.size < 2 or s.size != len(words) or not np.all(np.isfinite(s)):
        raise ValueError(f"scores must be a finite row of at least 2 numbers, one per word; got shape {s.shape} "
                         f"and {len(words)} words")
    if isinstance(d_k, bool) or not isinstance(d_k, (int, np.integer)) or d_k < 1:
        raise TypeError(f"d_k must be a positive integer, got {d_k!r}")
    if not (0 < t_min < t_max and step > 0 and t_min <= start <= t_max):
        raise ValueError(f"need 0 < t_min < t_max, step > 0 and start in the range; got t_min={t_min}, "
                         f"t_max={t_max}, step={step}, start={start}")
    root = math.sqrt(int(d_k))
    return {
        "words": list(words),
        "scores": s.tolist(),
        "d_k": int(d_k),
        "min": t_min,
        "max": t_max,
        "step": step,
        "start": start,
        "decimals": {"t": T_DECIMALS, "scores": DECIMALS["scores"], "weights": DECIMALS["weights"]},
        "presets": [
            {"name": "raw", "label": "T = 1: no division", "t": 1.0},
            {"name": "scaled", "label": f"T = √{int(d_k)}: divide by √d_k", "t": root},
        ],
    }


def temperature_view(config: dict, t: float) -> dict:
    """What the lab shows at temperature ``t``: the package's numbers, formatted.

    Parameters
    ----------
    config : dict
        From :func:`temperature_config`.
    t : float
        The temperature.

    Returns
    -------
    dict
        ``t`` (formatted), ``divided`` and ``weights`` (formatted, one per
        word), ``top`` (the word with the largest weight) and the raw
        ``weight_values``.

    Examples
    --------
    >>> x = sa.three_words()
    >>> c = temperature_config(x[0] @ x.T, sa.WORDS, 2)
    >>> v = temperature_view(c, 1.0)
    >>> v["weights"], v["top"]
    (['0.867', '0.117', '0.016'], 'cat')
    """
    d = config["decimals"]
    s = np.asarray(config["scores"], dtype=float)          # (n,)
    w = sa.softmax_with_temperature(s, float(t))           # (n,)
    return {
        "t": fmt(t, d["t"]),
        "divided": [fmt(v, d["scores"]) for v in s / float(t)],
        "weights": [fmt(v, d["weights"]) for v in w],
        "top": config["words"][int(np.argmax(w))],
        "weight_values": w.tolist(),
    }


def temperature_lab(scores, words: Sequence[str], d_k: int, *, lab_id: str = "temperature-lab") -> HTMLBlock:
    """The lab's element; readers without JavaScript get the weights at T = 1 and T = sqrt(d_k).

    Parameters
    ----------
    scores, words, d_k
        As in :func:`temperature_config`.
    lab_id : str, default "temperature-lab", keyword-only
        The ``id`` of the element.

    Returns
    -------
    HTMLBlock
        The element, and the same fallback as Markdown for the notebook.

    Raises
    ------
    TypeError, ValueError
        As :func:`temperature_config`.

    Examples
    --------
    >>> x = sa.three_words()
    >>> lab = temperature_lab(x[0] @ x.T, sa.WORDS, 2)
    >>> lab.markup.startswith('<div class="sa-lab" data-lab="temperature" id="temperature-lab">')
    True
    >>> lab.markdown.splitlines()[0]
    'At T = 1.00 the weights are cat 0.867, dog 0.117, car 0.016.'
    """
    config = temperature_config(scores, words, d_k)
    lines = []
    for preset in config["presets"]:
        v = temperature_view(config, preset["t"])
        pairs = ", ".join(f"{word} {w}" for word, w in zip(config["words"], v["weights"]))
        lines.append(f"At T = {v['t']} the weights are {pairs}.")
    fallback = (f'<div class="{FALLBACK_CLASS}"><p>This lab needs JavaScript. '
                + " ".join(esc(line) for line in lines) + "</p></div>")
    block = lab_element("temperature", lab_id, config, fallback)
    return HTMLBlock(block.markup, markdown="\n".join(lines))


def _snap(t: float, config: dict) -> float:
    """Where an ``<input type=range>`` puts ``t``: the nearest step from ``min``, inside the range."""
    lo, hi, step = config["min"], config["max"], config["step"]
    n = round((min(hi, max(lo, t)) - lo) / step)
    return round(lo + n * step, 10)


def temperature_states(config: dict) -> list[dict]:
    """The lab's test states, each an action from the start and the temperature it ends on.

    Actions: ``keys`` (pressed on the focused slider: the arrows move one
    step, ``Home`` and ``End`` jump to the ends), ``fill`` (the slider's value
    set directly, as a drag or a screen reader would) and ``presets`` (the
    buttons, pressed in order, then optionally keys).

    Parameters
    ----------
    config : dict
        From :func:`temperature_config`.

    Returns
    -------
    list of dict
        ``name``, ``action`` and ``t`` (a float) of each state.

    Examples
    --------
    >>> x = sa.three_words()
    >>> s = temperature_states(temperature_config(x[0] @ x.T, sa.WORDS, 2))
    >>> [(t["name"], round(t["t"], 2)) for t in s][:3]
    [('start', 1.0), ('keys ArrowRight', 1.05), ('keys ArrowLeft ArrowLeft ArrowLeft', 0.85)]
    """
    lo, hi, step, start = config["min"], config["max"], config["step"], config["start"]
    presets = {p["name"]: p["t"] for p in config["presets"]}

    def press(t, keys):
        for key in keys:
            if key == "Home":
                t = lo
            elif key == "End":
                t = hi
            else:
                move = step if key in ("ArrowRight", "ArrowUp") else -step
                t = _snap(_snap(t, config) + move, config)
        return t

    states = [{"name": "start", "action": {"kind": "initial"}, "t": start}]
    for keys in (["ArrowRight"], ["ArrowLeft"] * 3, ["ArrowUp", "ArrowUp"], ["End"], ["Home"],
                 ["Home", "ArrowRight"], ["End", "ArrowDown"]):
        states.append({"name": f"keys {' '.join(keys)}", "action": {"kind": "keys", "keys": keys},
                       "t": press(start, keys)})
    for value in (0.25, 0.5, 2.0, 3.35, 5.0):
        states.append({"name": f"fill {value}", "action": {"kind": "fill", "value": value}, "t": value})
    for names, keys in ((["scaled"], []), (["raw"], []), (["scaled", "raw", "scaled"], []),
                        (["scaled"], ["ArrowRight"])):
        t = presets[names[-1]]
        if keys:
            t = press(_snap(t, config), keys)
        label = " ".join(names) + (" then " + " ".join(keys) if keys else "")
        states.append({"name": f"presets {label}", "action": {"kind": "presets", "presses": names, "keys": keys},
                       "t": t})
    return states


def temperature_fixture(config: dict) -> dict:
    """What the browser tests compare the lab with, for the lab configured by ``config``.

    Parameters
    ----------
    config : dict
        From :func:`temperature_config` (or the page's JSON of it).

    Returns
    -------
    dict
        ``states``: each state of :func:`temperature_states` with ``view``,
        the package's :func:`temperature_view` at its temperature.

    Raises
    ------
    TypeError, ValueError
        As :func:`temperature_config`.

    Examples
    --------
    >>> x = sa.three_words()
    >>> f = temperature_fixture(temperature_config(x[0] @ x.T, sa.WORDS, 2))
    >>> [s["view"]["weights"] for s in f["states"] if s["name"] == "presets scaled"]
    [['0.768', '0.187', '0.045']]
    """
    temperature_config(config["scores"], config["words"], config["d_k"], t_min=config["min"], t_max=config["max"],
                       step=config["step"], start=config["start"])  # validates
    return {"states": [{**s, "view": temperature_view(config, s["t"])} for s in temperature_states(config)]}
