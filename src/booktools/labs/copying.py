"""The "copying" lab of the chapter "Two heads that learned to copy": the trained model on the reader's sequence.

The reader types a sequence of the symbols A to P and presses "Read", or
presses one of the examples' buttons: the model reads it one symbol at a time
with a KV cache and shows its guess for the next symbol, with its probability. "Write the guess" appends
the guess and reads it too, so the model continues the sequence one symbol
at a time. For the newest symbol the lab shows where the two named heads
look: the previous-token head of layer 0 and the induction head of layer 1.

The lab computes in the browser (``_static/sa/maths.js``, ``copyingStep``)
with the parameters this configuration holds, rounded to
``SIGNIFICANT`` digits. The browser tests compute the package's values
for the lab's test states from that same configuration
(:func:`copying_fixture`).
"""

from __future__ import annotations

import numpy as np

from selfattention import induction as ind
from selfattention.induction.generation import continue_sequence

from ..formatting import fmt
from ..html import HTMLBlock, esc
from .element import lab_element

#: Significant digits of the parameters the page holds.
SIGNIFICANT = 6
#: Decimals of the probabilities and weights the lab shows.
DECIMALS = 2
#: The sequences the reader can pick: filler, then a segment and its start again.
EXAMPLES = ("NCKJ" + "FKDAHJCB" + "FKD", "PLMOGI" + "BDEAK" + "BD", "CAB" + "HOLEJMIDGN" + "HOLE")


def _rounded(a: np.ndarray) -> list:
    return np.vectorize(lambda v: float(f"{v:.{SIGNIFICANT}g}"))(a).tolist()


def copying_config(heads=((0, 1), (1, 0)), examples=EXAMPLES) -> dict:
    """The lab's JSON configuration: the symbols, the trained parameters, the two heads shown, the examples.

    Parameters
    ----------
    heads : pair of (layer, head)
        The previous-token head and the induction head (the chapter names
        them by its rule and passes them in).
    examples : sequence of str
        The sequences offered.

    Returns
    -------
    dict

    Raises
    ------
    ValueError
        If a head does not exist or an example is not a sequence of the symbols.

    Examples
    --------
    >>> c = copying_config()
    >>> c["symbols"], c["positions"], len(c["params"]["W_Q"])
    ('ABCDEFGHIJKLMNOP', 24, 2)
    """
    for layer, head in heads:
        if not (0 <= layer < ind.LAYERS and 0 <= head < ind.HEADS):
            raise ValueError(f"no head ({layer}, {head})")
    for text in examples:
        ind.symbols_to_tokens(text)
    params = ind.load()["params"]
    return {"symbols": ind.SYMBOLS, "positions": ind.N_POSITIONS, "heads": [list(p) for p in heads],
            "dHead": ind.D_HEAD, "params": {k: _rounded(v) for k, v in params.items()},
            "examples": list(examples), "decimals": DECIMALS}


def _params(config: dict) -> dict:
    return {k: np.asarray(v, dtype=np.float64) for k, v in config["params"].items()}


def prediction(config: dict, text: str, writes: int) -> dict | None:
    """What the lab shows after reading ``text`` and writing ``writes`` guesses; None once the sequence is full.

    Returns
    -------
    dict or None
        ``text`` (the sequence so far), ``guess`` (the next symbol),
        ``probability`` and ``weights``: for each shown head, its weights
        (formatted) over the positions so far, for the newest symbol.
    """
    params = _params(config)
    n = len(text.replace(" ", "")) + writes
    if n >= config["positions"]:
        return None
    out = continue_sequence(params, text, writes + 1)
    weights = out["weights"][-1]
    return {"text": out["text"][:n], "guess": out["text"][n], "probability": fmt(out["probabilities"][-1], DECIMALS),
            "weights": [[fmt(w, DECIMALS) for w in weights[layer][head]] for layer, head in config["heads"]]}


def copying_states(config: dict) -> list[dict]:
    """The lab's test states: what is typed or picked, how many guesses are written, and what must show.

    Examples
    --------
    >>> s = copying_states(copying_config())
    >>> s[0]["name"], s[0]["shown"]["text"]
    ('first example, read', 'NCKJFKDAHJCBFKD')
    """
    first = config["examples"][0]
    plans = [("first example, read", {"pick": 0}, 0), ("first example, two guesses", {"pick": 0}, 2),
             ("second example, one guess", {"pick": 1}, 1), ("typed in lower case", {"type": "abcabc"}, 0),
             ("typed, three guesses", {"type": "NCKJHEBOMGDAILHEB"}, 3),
             ("up to the last position", {"type": first}, config["positions"] - len(first) - 1)]
    states = []
    for name, how, writes in plans:
        text = config["examples"][how["pick"]] if "pick" in how else how["type"]
        states.append({"name": name, **how, "writes": writes, "shown": prediction(config, text.upper(), writes)})
    return states


def copying_fixture(config: dict) -> dict:
    """What the browser tests compare the lab with, for the lab configured by ``config``.

    Examples
    --------
    >>> len(copying_fixture(copying_config())["states"])
    6
    """
    return {"states": copying_states(config), "heads": config["heads"], "positions": config["positions"]}


def copying_lab(*, lab_id: str = "copy-lab", heads=((0, 1), (1, 0))) -> HTMLBlock:
    """The lab's element: configuration and a text for readers without JavaScript.

    Examples
    --------
    >>> copying_lab().markup.startswith('<div class="sa-lab" data-lab="copying" id="copy-lab">')
    True
    """
    config = copying_config(heads)
    shown = prediction(config, config["examples"][0], 0)
    fallback = ('<p class="sa-lab-fallback">This lab needs JavaScript. After reading '
                f"{esc(shown['text'])}, the model guesses {esc(shown['guess'])} with probability "
                f"{esc(shown['probability'])}.</p>")
    return lab_element("copying", lab_id, config, fallback)


__all__ = ["copying_config", "copying_fixture", "copying_lab", "copying_states", "prediction"]
