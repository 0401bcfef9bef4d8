"""The "copying" lab of the chapter "Two heads that learned to copy": the trained model on the reader's sequence.

The reader types a sequence of the model's symbols (``A`` to ``Z`` and ``a``
to ``z``; case matters, so ``a`` and ``A`` are two symbols) and presses
"Read", or presses one of the examples' buttons: the model reads it one
symbol at a time with a KV cache and shows its guess for the next symbol,
with its probability. "Write the guess" appends the guess and reads it too,
so the model continues the sequence one symbol at a time, up to its last
position. For the newest symbol the lab shows where the two named heads
look: the previous-token head of layer 0 and the induction head of layer 1.

The lab computes in the browser (``_static/sa/maths.js``, ``copyingStep``)
from the sizes this configuration holds (heads per layer, ``d_head``, and
where the positions enter: :attr:`~selfattention.induction.model.Sizes.positions`),
so a model of other sizes needs no change to the JavaScript. The parameters
travel as float16 (:func:`encode_matrices`): about 2.7 bytes of the page's
data per parameter, against about 10 for six significant digits in JSON.
The browser tests compute the package's values for the lab's test states
from that same configuration (:func:`copying_fixture`), and check that the
rounding moves no probability by more than :data:`ROUNDING_TOLERANCE`.
"""

from __future__ import annotations

import base64

import numpy as np

from selfattention.induction import circuits, training
from selfattention.induction.generation import continue_sequence
from selfattention.induction.model import Sizes, check_layer_head, check_params
from selfattention.induction.task import classic_mix, symbols_to_tokens

from ..formatting import fmt
from ..html import HTMLBlock, esc
from .element import lab_element

#: Decimals of the probabilities and weights the lab shows.
DECIMALS = 2
#: How far a probability of the page's float16 model may be from the shipped float64 model's. Rounding to
#: float16 moves each parameter by at most 2**-11 (0.05 %) of itself, and a probability by at most 0.002 on
#: 64,000 test predictions; ``tests/booktools/labs/test_copying.py`` and the browser test check this bound.
ROUNDING_TOLERANCE = 0.005
#: The sequences the reader can pick, each with its button's name. The first is the classic test of Olsson
#: et al. (2022): filler, ``k`` random letters, then the same letters again (its start: "Write the guess"
#: finishes it); the second repeats three letters only; the third's first copy starts at position 0.
EXAMPLES = (("a repeat", "Qx" + "wMfaKdRp" + "wMf"),
            ("a short repeat", "vYroHsBjZE" + "Mcq" + "Mc"),
            ("a repeat at the start", "HwDmRkUe" + "HwD"))


def encode_matrices(params) -> dict:
    """The parameters as the page stores them: each its shape and its numbers as base64 float16.

    A 2-D array of ``r * c`` numbers becomes ``2 * r * c`` bytes, little-endian, row by row;
    ``maths.js``'s ``decodeMatrices`` reads it back exactly.

    Parameters
    ----------
    params : dict of array_like
        2-D arrays by name.

    Returns
    -------
    dict
        ``{name: {"shape": [rows, cols], "data": base64 text}}``.

    Raises
    ------
    ValueError
        If an array is not 2-D, or a number does not fit in float16 (more than 65504 in size).

    Examples
    --------
    >>> encode_matrices({"W": [[1.0, -2.0], [0.5, 0.0]]})
    {'W': {'shape': [2, 2], 'data': 'ADwAwAA4AAA='}}
    >>> decode_matrices(encode_matrices({"W": [[0.1]]}))["W"]          # the nearest float16
    array([[0.09997559]])
    """
    out = {}
    for name, value in params.items():
        a = np.asarray(value, dtype=np.float64)
        if a.ndim != 2:
            raise ValueError(f"{name} must be 2-D, got shape {a.shape}")
        with np.errstate(over="ignore"):                               # a number too large is named below
            half = a.astype("<f2")
        if not np.all(np.isfinite(half)):
            raise ValueError(f"{name} has numbers too large for float16 (largest {np.abs(a).max():.4g})")
        out[name] = {"shape": list(a.shape), "data": base64.b64encode(half.tobytes()).decode("ascii")}
    return out


def decode_matrices(stored: dict) -> dict[str, np.ndarray]:
    """Read what :func:`encode_matrices` wrote, as float64 arrays (every float16 is exact in float64).

    Raises
    ------
    ValueError
        If the text does not hold as many numbers as the shape says.

    Examples
    --------
    >>> decode_matrices({"W": {"shape": [1, 2], "data": "ADwAwA=="}})
    {'W': array([[ 1., -2.]])}
    """
    out = {}
    for name, entry in stored.items():
        flat = np.frombuffer(base64.b64decode(entry["data"], validate=True), dtype="<f2")
        rows, cols = entry["shape"]
        if flat.size != rows * cols:
            raise ValueError(f"{name} holds {flat.size} numbers, not {rows} x {cols}")
        out[name] = flat.astype(np.float64).reshape(rows, cols)
    return out


def alphabet(symbols: str) -> str:
    """The symbols in words, one run of consecutive characters at a time.

    Examples
    --------
    >>> alphabet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    'A to Z and a to z'
    >>> alphabet("ABCXY")
    'A to C, X and Y'
    """
    runs, start = [], 0
    for i in range(1, len(symbols) + 1):
        if i == len(symbols) or ord(symbols[i]) != ord(symbols[i - 1]) + 1:
            part = symbols[start:i]
            runs.extend([f"{part[0]} to {part[-1]}"] if len(part) > 2 else list(part))
            start = i
    return runs[0] if len(runs) == 1 else ", ".join(runs[:-1]) + " and " + runs[-1]


def sizes_json(sizes: Sizes) -> dict:
    """The model's sizes as the lab's configuration holds them (JSON names; :func:`config_sizes` reads them).

    Examples
    --------
    >>> from selfattention.induction.model import SIZES
    >>> sizes_json(SIZES)["heads"], sizes_json(SIZES)["positions"]
    ([2, 1], 'qk0')
    """
    return {"vocab": sizes.vocab, "nPositions": sizes.n_positions, "dModel": sizes.d_model,
            "heads": list(sizes.heads), "dHead": sizes.d_head, "positions": sizes.positions}


def config_sizes(config: dict) -> Sizes:
    """The model's sizes as the lab's configuration holds them.

    Examples
    --------
    >>> config_sizes({"sizes": {"vocab": 52, "nPositions": 32, "dModel": 64, "heads": [2, 1], "dHead": 32,
    ...                         "positions": "qk0"}}).heads
    (2, 1)
    """
    s = config["sizes"]
    return Sizes(vocab=s["vocab"], n_positions=s["nPositions"], d_model=s["dModel"], heads=tuple(s["heads"]),
                 d_head=s["dHead"], positions=s["positions"])


def copying_config(heads=None, examples=EXAMPLES, *, run=None) -> dict:
    """The lab's JSON configuration: the symbols, the model's sizes and parameters, the two heads, the examples.

    Parameters
    ----------
    heads : pair of (layer, head), optional
        The previous-token head (of layer 0) and the induction head (of
        layer 1; any later layer than the first head's). The chapter names them by its rule and passes them in; by
        default, the heads :func:`selfattention.induction.circuits.named_heads`
        names on 64 sequences of the classic test.
    examples : sequence of (str, str)
        The sequences offered, each with its button's name.
    run : dict, optional
        A run as :func:`selfattention.induction.training.load` gives it; by
        default the shipped one.

    Returns
    -------
    dict
        ``symbols``, ``alphabet`` (the symbols in words), ``sizes`` (the
        model's :class:`~selfattention.induction.model.Sizes`, as JSON),
        ``heads``, ``params`` (:func:`encode_matrices`), ``digest`` (of the
        parameters before rounding), ``examples``, ``decimals``.

    Raises
    ------
    ValueError
        If a head does not exist, the induction head is not in a later layer
        than the previous-token head, or an example has no name or is not 1
        to ``n_positions - 1`` of the symbols.

    Examples
    --------
    >>> c = copying_config()
    >>> c["alphabet"], c["sizes"]["heads"], c["sizes"]["positions"], c["params"]["W_Q0"]["shape"]
    ('A to Z and a to z', [2, 1], 'qk0', [64, 64])
    >>> copying_config(heads=((1, 0), (0, 1)))
    Traceback (most recent call last):
    ...
    ValueError: the induction head must be in a later layer than the previous-token head, got (0, 1) and (1, 0)
    """
    run = training.load() if run is None else run
    sizes, params = run["sizes"], check_params(run["params"], run["sizes"])
    symbols = run["task"].symbols
    if heads is None:
        named = circuits.named_heads(params, classic_mix(64, np.random.default_rng(0), sizes.n_positions,
                                                          sizes.vocab), sizes=sizes)
        heads = (named["previous"], named["induction"])
    if len(heads) != 2:
        raise ValueError(f"heads must be two (layer, head) pairs, got {heads!r}")
    (prev_layer, prev), (ind_layer, ind) = (check_layer_head(*pair, sizes=sizes) for pair in heads)
    if ind_layer <= prev_layer:
        raise ValueError("the induction head must be in a later layer than the previous-token head, got "
                         f"({ind_layer}, {ind}) and ({prev_layer}, {prev})")
    for name, text in examples:
        if not isinstance(name, str) or not name:
            raise ValueError(f"each example needs a name for its button, got {name!r} for {text!r}")
        symbols_to_tokens(text, symbols, sizes.n_positions - 1)    # leaves room for one guess at least
    return {"symbols": symbols, "alphabet": alphabet(symbols), "sizes": sizes_json(sizes),
            "heads": [[int(layer), int(head)] for layer, head in heads], "params": encode_matrices(params),
            "digest": training.digest(params), "examples": [{"name": n, "text": t} for n, t in examples],
            "decimals": DECIMALS}


def config_params(config: dict) -> dict[str, np.ndarray]:
    """The parameters the page holds (rounded to float16), as float64 arrays."""
    return decode_matrices(config["params"])


def prediction(config: dict, text: str, writes: int) -> dict | None:
    """What the lab shows after reading ``text`` and writing ``writes`` guesses; None once the sequence is full.

    ``text`` is read as typed: case matters, spaces are dropped.

    Returns
    -------
    dict or None
        ``text`` (the sequence so far), ``guess`` (the next symbol),
        ``probability`` and ``weights``: for each shown head, its weights
        (formatted) over the positions so far, for the newest symbol.

    Examples
    --------
    >>> prediction(copying_config(), "aB c", 0)["text"]
    'aBc'
    """
    sizes, decimals = config_sizes(config), config["decimals"]
    n = len(text.replace(" ", "")) + writes
    if n >= sizes.n_positions:
        return None
    out = continue_sequence(config_params(config), text, writes + 1, sizes=sizes, symbols=config["symbols"])
    weights = out["weights"][-1]
    return {"text": out["text"][:n], "guess": out["text"][n], "probability": fmt(out["probabilities"][-1], decimals),
            "weights": [[fmt(w, decimals) for w in weights[layer][head]] for layer, head in config["heads"]]}


def copying_states(config: dict) -> list[dict]:
    """The lab's test states: what is typed or picked, how many guesses are written, and what must show.

    Examples
    --------
    >>> s = copying_states(copying_config())
    >>> s[0]["name"], s[0]["shown"]["text"]
    ('first example, read', 'QxwMfaKdRpwMf')
    >>> [t["shown"]["text"] for t in s if t["name"].startswith("typed in")]      # case kept
    ['qzKabcdeab', 'QZKABCDEAB']
    """
    n = config["sizes"]["nPositions"]
    first = config["examples"][0]["text"]
    plans = [("first example, read", {"pick": 0}, 0), ("first example, two guesses", {"pick": 0}, 2),
             ("second example, one guess", {"pick": 1}, 1), ("third example, three guesses", {"pick": 2}, 3),
             ("typed in lower case", {"type": "qzKabcdeab"}, 0), ("typed in capitals", {"type": "QZKABCDEAB"}, 0),
             ("typed with spaces, three guesses", {"type": "Rf uXhq Vd uXh"}, 3),
             ("up to the last position", {"type": first}, n - len(first) - 1)]
    states = []
    for name, how, writes in plans:
        text = config["examples"][how["pick"]]["text"] if "pick" in how else how["type"]
        states.append({"name": name, **how, "writes": writes, "shown": prediction(config, text, writes)})
    return states


def copying_fixture(config: dict) -> dict:
    """What the browser tests compare the lab with, for the lab configured by ``config``.

    Examples
    --------
    >>> f = copying_fixture(copying_config())
    >>> len(f["states"]), f["positions"]
    (8, 32)
    """
    return {"states": copying_states(config), "heads": config["heads"], "positions": config["sizes"]["nPositions"]}


def copying_lab(*, lab_id: str = "copy-lab", heads=None, run=None) -> HTMLBlock:
    """The lab's element: configuration and a text for readers without JavaScript.

    Parameters
    ----------
    lab_id : str, keyword-only
        The element's ``id``.
    heads : pair of (layer, head), keyword-only
        The previous-token head and the induction head (see :func:`copying_config`).
    run : dict, keyword-only
        The run whose parameters the lab reads; by default the shipped one.

    Examples
    --------
    >>> copying_lab().markup.startswith('<div class="sa-lab" data-lab="copying" id="copy-lab">')
    True
    """
    config = copying_config(heads, run=run)
    shown = prediction(config, config["examples"][0]["text"], 0)
    fallback = ('<p class="sa-lab-fallback">This lab needs JavaScript. After reading '
                f"{esc(shown['text'])}, the model guesses {esc(shown['guess'])} with probability "
                f"{esc(shown['probability'])}.</p>")
    return lab_element("copying", lab_id, config, fallback)


__all__ = ["DECIMALS", "EXAMPLES", "ROUNDING_TOLERANCE", "alphabet", "config_params", "config_sizes",
           "copying_config", "copying_fixture", "copying_lab", "copying_states", "decode_matrices",
           "encode_matrices", "prediction", "sizes_json"]
