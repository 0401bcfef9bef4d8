"""The "writer" lab of the chapter "A model that writes": the trained writer continues the reader's prompt.

The reader types a prompt (any text: a character the model never saw
becomes the unknown symbol, ``"\\ufffd"``, and shows as such) and presses
"Load the model" once, then "Write one" or "Write 40": the model writes one
character at a time, each drawn from :func:`~selfattention.writer.sampling.next_distribution`
of its logits, with a temperature (0 is greedy), a top-k, a top-p and a seed
the reader sets. Each step shows the five likeliest characters with their
probabilities, and where the newest character's query looks in a layer and
head the reader picks. A switch turns the KV cache on or off, and the lab
times each step live. Past ``n_positions`` characters the model reads only
the last ``n_positions``, and the cache is filled again at every step, as
:func:`~selfattention.writer.sampling.write` does.

The lab computes in the browser (``_static/sa/writer-maths.js``, ``writerRead``:
the package's forward pass in float64, its GELU as the package's, Φ from the
Taylor table of :func:`selfattention.fast.normal.normal_cdf` and from erfc
below -2). The parameters are float16 in
the shipped file and travel as float16 (:func:`writer_weights`), so the
browser computes with exactly the package's numbers; they are not in the
page: they are a second data block of the lab, which the build moves to its
own file (``booksite.labdata``), and the lab fetches it, from the same
site, only when the reader presses "Load the model". The page's configuration
(:func:`writer_config`) says how many bytes that is. The browser's draws come
from its own seeded generator, not NumPy's: a seed repeats the browser's
text, not the package's. The browser tests compute the package's values for
the lab's test states from the page's configuration and the shipped weights
(:func:`writer_fixture`), after checking that the two are the same weights.
"""

from __future__ import annotations

import numbers

import numpy as np

from selfattention.writer import CharTokenizer, load_writer, next_distribution, run_writer, weights_digest, write
from selfattention.writer.model import LN_EPS, NAMES, check_writer_params, check_writer_tokens, writer_shapes
from selfattention.writer.tokenizer import UNKNOWN

from ..formatting import format_count
from ..html import HTMLBlock, esc
from .contract import CONFIG_BLOCK, config_block, lab_open_tag
from .copying import encode_matrices

#: Decimals of the probabilities and weights the lab shows.
DECIMALS = 2
#: Candidates shown at each step.
TOP = 5
#: Characters that "Write 40" writes (unless stopped).
BATCH = 40
#: The largest temperature the lab accepts.
MAX_TEMPERATURE = 5.0
#: The largest seed: the browser's generator keeps 32 bits.
MAX_SEED = 2**32 - 1
#: What the lab starts with: greedy, no top-k (0) and no top-p (1), seed 0, layer 0 and head 0 shown.
#: ``prompt`` None: the prompt whose greedy continuation the run's history records.
DEFAULTS = {"prompt": None, "temperature": 0.0, "topK": 0, "topP": 1.0, "seed": 0, "layer": 0, "head": 0}
#: Characters of the greedy continuation that the page shows to readers without JavaScript.
FALLBACK_STEPS = 40
#: Greedy characters each test state writes.
STEPS = 30
#: The test states' prompts. Known characters; characters the model never saw; a prompt longer than the
#: context (the writer reads its last ``n_positions``); and one that reaches past the context while it writes
#: (the cache is filled again at every step from then on).
PROMPTS = (
    ("the default prompt", None),
    ("unknown characters", "Naïve café «déjà vu» жук and Ω: "),
    ("longer than the context", "The weights of a head decide where each word looks. " * 3),
    ("past the context while writing", ("A query meets every key of the words before it. " * 3)[:110]),
)
#: The settings whose first distribution the tests compare: temperature, top-k (0: none) and top-p (1: none).
SAMPLING = (
    {"temperature": 1.0, "topK": 0, "topP": 1.0},
    {"temperature": 0.7, "topK": 5, "topP": 1.0},
    {"temperature": 1.0, "topK": 0, "topP": 0.9},
    {"temperature": 1.5, "topK": 20, "topP": 0.8},
    {"temperature": 0.0, "topK": 3, "topP": 0.5},
)
#: The prompt of those distributions.
SAMPLING_PROMPT = "Attention is "
#: The model's own distribution: temperature 1, nothing cut.
MODEL = {"temperature": 1.0, "topK": 0, "topP": 1.0}


def _load(run) -> dict:
    return load_writer() if run is None else run


def writer_weights(run=None) -> dict:
    """The parameters as the lab downloads them: each as float16 base64, in a 2-D shape.

    A stacked per-layer parameter of shape ``(layers, r, c)`` travels as
    ``(layers * r, c)``, and a vector as one row, so that the flat numbers are
    the package's in the package's (row-major) order;
    :func:`~booktools.labs.copying.encode_matrices` writes them.

    Parameters
    ----------
    run : dict, optional
        A run as :func:`selfattention.writer.training.load_writer` gives it; by default the shipped one.

    Returns
    -------
    dict
        ``format``, ``digest`` (:func:`~selfattention.writer.training.weights_digest`)
        and ``params``: ``{name: {"shape": [rows, cols], "data": base64}}``,
        in the order of :data:`selfattention.writer.model.NAMES`.

    Raises
    ------
    ValueError
        If a parameter is not a float16 number (the shipped file holds
        float16, so the browser computes with exactly its numbers), or is
        missing or of the wrong shape.

    Examples
    --------
    >>> w = writer_weights()
    >>> w["params"]["W_Q"]["shape"], w["params"]["lnf_g"]["shape"]
    ([256, 64], [1, 64])
    """
    run = _load(run)
    params = check_writer_params(run["params"], run["sizes"])
    out = {}
    for name in NAMES:
        value = params[name]
        if not np.array_equal(value.astype(np.float16).astype(np.float64), value):
            raise ValueError(f"{name} holds numbers that are not float16: the lab sends float16, so the browser "
                             "would compute with other numbers (save the run with save_writer's float16 default)")
        out[name] = value.reshape(-1, value.shape[-1]) if value.ndim > 1 else value[None, :]
    return {"format": "selfattention.writer/float16-base64", "digest": weights_digest(params),
            "params": encode_matrices(out)}


def weights_file_text(weights: dict) -> str:
    """The text of the file the build writes for the weights' block: what the browser downloads.

    It is the block's JSON (``booktools.labs.contract.config_block``),
    as ``booksite.labdata`` writes it to ``_labdata/``.

    Examples
    --------
    >>> weights_file_text({"b": 1, "a": [2]})
    '{"a": [2], "b": 1}'
    """
    return CONFIG_BLOCK.match(config_block(weights))["body"].replace("<\\/", "</")


def writer_sizes_json(sizes) -> dict:
    """The writer's sizes as the lab's configuration holds them (JSON names).

    Examples
    --------
    >>> from selfattention.writer import WriterSizes
    >>> writer_sizes_json(WriterSizes(vocab=10, n_positions=8, d_model=16, heads=2, layers=1, d_ff=32))
    {'vocab': 10, 'nPositions': 8, 'dModel': 16, 'heads': 2, 'layers': 1, 'dFf': 32, 'dHead': 8}
    """
    return {"vocab": sizes.vocab, "nPositions": sizes.n_positions, "dModel": sizes.d_model, "heads": sizes.heads,
            "layers": sizes.layers, "dFf": sizes.d_ff, "dHead": sizes.d_head}


def writer_config(*, run=None, defaults=None) -> dict:
    """The lab's JSON configuration: the tokenizer, the sizes, the defaults and the size of the weights.

    The weights themselves are not in it (see :func:`writer_weights`).

    Parameters
    ----------
    run : dict, optional, keyword-only
        A run as :func:`selfattention.writer.training.load_writer` gives it; by default the shipped one.
    defaults : dict, optional, keyword-only
        What the lab starts with, replacing entries of :data:`DEFAULTS`.

    Returns
    -------
    dict
        ``chars`` (the known characters; id ``i`` is ``chars[i]``),
        ``unknown`` (the symbol of the rest, the last id), ``sizes``,
        ``shapes`` (the package's shape of each parameter), ``lnEps``,
        ``parameters`` (how many numbers), ``weightsBytes`` (the size of the
        file the lab downloads), ``digest``, ``defaults``, ``decimals``,
        ``top``, ``batch``, ``maxTemperature`` and ``maxSeed``.

    Raises
    ------
    ValueError
        If a default is not one the lab accepts (an unknown name, an empty
        prompt, a temperature outside 0 to :data:`MAX_TEMPERATURE`, a top-k
        outside 0 to ``vocab``, a top-p outside (0, 1], a seed outside 0 to
        :data:`MAX_SEED`, or no such layer or head).

    Examples
    --------
    >>> c = writer_config()
    >>> c["sizes"]["vocab"], c["sizes"]["nPositions"], c["parameters"], len(c["chars"]) + 1
    (108, 128, 221056, 108)
    >>> round(c["weightsBytes"] / 1000), c["defaults"]["prompt"]
    (590, 'The weights of ')
    >>> writer_config(defaults={"topP": 0})
    Traceback (most recent call last):
    ...
    ValueError: topP must be above 0 and at most 1, got 0
    """
    run = _load(run)
    sizes, tokenizer = run["sizes"], run["tokenizer"]
    chosen = {**DEFAULTS, "prompt": run["meta"].get("sample_prompt", "The ")}
    for name, value in (defaults or {}).items():
        if name not in DEFAULTS:
            raise ValueError(f"no default {name!r}; the defaults are {list(DEFAULTS)}")
        chosen[name] = value
    check_settings(chosen, sizes.vocab)
    for name, count in (("layer", sizes.layers), ("head", sizes.heads)):
        value = chosen[name]
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value < count:
            raise ValueError(f"{name} must be 0 to {count - 1}, got {value!r}")
    if not isinstance(chosen["prompt"], str) or not chosen["prompt"]:
        raise ValueError(f"prompt must be at least one character, got {chosen['prompt']!r}")
    weights = writer_weights(run)
    return {"chars": tokenizer.chars, "unknown": UNKNOWN, "sizes": writer_sizes_json(sizes),
            "shapes": {name: list(shape) for name, shape in writer_shapes(sizes).items()}, "lnEps": LN_EPS,
            "parameters": sizes.parameter_count, "weightsBytes": len(weights_file_text(weights).encode("utf-8")),
            "digest": weights["digest"], "defaults": chosen, "decimals": DECIMALS, "top": TOP, "batch": BATCH,
            "maxTemperature": MAX_TEMPERATURE, "maxSeed": MAX_SEED}


def check_settings(settings: dict, vocab: int) -> dict:
    """Check the lab's sampling settings (``temperature``, ``topK``, ``topP``, ``seed``) and return them.

    Raises
    ------
    ValueError
        If one is missing or outside what the lab accepts.

    Examples
    --------
    >>> check_settings({"temperature": 0.5, "topK": 0, "topP": 1, "seed": 3}, 108)["topK"]
    0
    >>> check_settings({"temperature": 0.5, "topK": 200, "topP": 1, "seed": 3}, 108)
    Traceback (most recent call last):
    ...
    ValueError: topK must be a whole number from 0 (none) to 108, got 200
    """
    def real(name):
        value = settings.get(name)
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
            raise ValueError(f"{name} must be a number, got {value!r}")
        return value

    def whole(name, top, what):
        value = settings.get(name)
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value <= top:
            raise ValueError(f"{name} must be a whole number from 0{what} to {top}, got {value!r}")

    if not 0 <= real("temperature") <= MAX_TEMPERATURE:
        raise ValueError(f"temperature must be 0 (greedy) to {MAX_TEMPERATURE}, got {settings['temperature']}")
    whole("topK", vocab, " (none)")
    if not 0 < real("topP") <= 1:
        raise ValueError(f"topP must be above 0 and at most 1, got {settings['topP']}")
    if "seed" in settings:
        whole("seed", MAX_SEED, "")
    return settings


def package_settings(settings: dict) -> dict:
    """The lab's settings as :func:`~selfattention.writer.sampling.next_distribution`'s keywords.

    A top-k of 0 and a top-p of 1 mean "none" in the lab, as None does in the package.

    Examples
    --------
    >>> package_settings({"temperature": 0.7, "topK": 0, "topP": 0.9})
    {'temperature': 0.7, 'top_k': None, 'top_p': 0.9}
    """
    return {"temperature": float(settings["temperature"]), "top_k": int(settings["topK"]) or None,
            "top_p": None if settings["topP"] == 1 else float(settings["topP"])}


def prompt_ids(config: dict, text: str) -> list[int]:
    """The ids the lab reads for ``text``: one per character, the unknown id for a character not in ``chars``.

    Examples
    --------
    >>> c = {"chars": " act", "unknown": "\\ufffd"}
    >>> prompt_ids(c, "a cat!")
    [1, 0, 2, 1, 3, 4]
    >>> ids_text(c, prompt_ids(c, "a cat!"))
    'a cat\\ufffd'
    """
    return CharTokenizer(config["chars"]).encode(text).tolist()


def ids_text(config: dict, ids) -> str:
    """The text of ``ids`` as the lab shows it: the unknown id as ``config["unknown"]``.

    Raises
    ------
    ValueError
        If an id is outside the vocabulary.

    Examples
    --------
    >>> ids_text({"chars": " act", "unknown": "\ufffd"}, [3, 1, 2, 4]) == "tac\ufffd"
    True
    """
    return CharTokenizer(config["chars"]).decode(np.asarray(list(ids), dtype=np.int64))


def _run_for(config: dict, run) -> dict:
    run = _load(run)
    digest = weights_digest(check_writer_params(run["params"], run["sizes"]))
    if digest != config["digest"]:
        raise ValueError(f"the page's weights (digest {config['digest'][:12]}...) are not the run's "
                         f"({digest[:12]}...): rebuild the book")
    return run


def step_distribution(config: dict, ids, settings: dict, *, run=None) -> dict:
    """What one step of the lab computes after ``ids``: the distribution it draws from, and the weights.

    The writer reads the last ``n_positions`` of ``ids`` in one full pass
    (:func:`~selfattention.writer.sampling.write` gives the same numbers with its
    cache, to rounding).

    Parameters
    ----------
    config : dict
        The lab's configuration.
    ids : sequence of int
        The text so far, at least one id.
    settings : dict
        ``temperature``, ``topK`` and ``topP`` as the lab holds them.
    run : dict, optional, keyword-only
        The run; by default the shipped one. Its weights must be the page's.

    Returns
    -------
    dict
        ``probs`` (vocab,), ``model`` (vocab,): the softmax of the logits at
        temperature 1, and ``weights`` (layers, heads, S): the newest
        character's query, ``S`` the characters read.

    Raises
    ------
    ValueError
        If the run's weights are not the page's, or a setting is not one the lab accepts.

    Examples
    --------
    >>> c = writer_config()
    >>> s = step_distribution(c, prompt_ids(c, "The "), {"temperature": 0.0, "topK": 0, "topP": 1.0})
    >>> float(s["probs"].sum()), s["weights"].shape
    (1.0, (4, 4, 4))
    """
    run = _run_for(config, run)
    sizes = run["sizes"]
    check_settings(settings, sizes.vocab)
    window = check_writer_tokens(list(ids)[-sizes.n_positions:], sizes)[0]    # (S,)
    logits, trace = run_writer(run["params"], window, sizes)                   # (S, vocab)
    return {"probs": next_distribution(logits[-1], **package_settings(settings)),
            "model": next_distribution(logits[-1], temperature=1.0),
            "weights": np.stack([parts["weights"][:, -1] for parts in trace])}  # (layers, heads, S)


def writer_states(config: dict, *, run=None, steps: int = STEPS) -> list[dict]:
    """The lab's greedy test states: for each of :data:`PROMPTS`, ``steps`` characters and each step's numbers.

    Returns
    -------
    list of dict
        ``name``, ``prompt``, ``ids`` (the prompt's), ``text`` (the prompt as
        the lab shows it, unknown symbols and all, then what is written),
        ``written``, ``probs`` (steps, vocab): each step's distribution, and
        ``weights``: one (layers, heads, S) array per step, from
        :func:`~selfattention.writer.sampling.write` with ``weights=True``; ``model``
        (steps, vocab): the model's own distribution (temperature 1) at each step.

    Examples
    --------
    >>> s = writer_states(writer_config(), steps=2)
    >>> [len(t["written"]) for t in s], s[1]["text"].count("\\ufffd") > 0
    ([2, 2, 2, 2], True)
    """
    run = _run_for(config, run)
    states = []
    for name, prompt in PROMPTS:
        prompt = config["defaults"]["prompt"] if prompt is None else prompt
        ids = prompt_ids(config, prompt)
        out = write(run["params"], ids, steps, run["sizes"], temperature=0.0, weights=True)
        model = np.stack([step_distribution(config, out["ids"][:len(ids) + s], MODEL, run=run)["probs"]
                          for s in range(steps)])                                  # (steps, vocab)
        states.append({"name": name, "prompt": prompt, "ids": ids, "text": ids_text(config, out["ids"]),
                       "written": ids_text(config, out["ids"][len(ids):]), "probs": out["probs"], "model": model,
                       "weights": out["weights"]})
    return states


def writer_fixture(config: dict, *, run=None) -> dict:
    """What the browser tests compare the lab with, for the lab configured by ``config``.

    Parameters
    ----------
    config : dict
        The lab's configuration, as the page holds it.
    run : dict, optional, keyword-only
        The run whose weights the page sends; by default the shipped one.

    Returns
    -------
    dict
        ``states`` (:func:`writer_states`), ``sampling``: for each of
        :data:`SAMPLING`, its ``settings`` and the ``probs`` of the first
        step after :data:`SAMPLING_PROMPT`; ``prompt`` (that prompt),
        ``positions``, ``steps`` and ``bytes`` (of the weights' file).

    Raises
    ------
    ValueError
        If the run's weights are not the ones the page sends (the book was
        built with other weights).

    Examples
    --------
    >>> f = writer_fixture(writer_config())
    >>> len(f["states"]), len(f["sampling"]), f["positions"], f["steps"]
    (4, 5, 128, 30)
    """
    run = _run_for(config, run)
    ids = prompt_ids(config, SAMPLING_PROMPT)
    sampling = [{"settings": dict(s), "probs": step_distribution(config, ids, s, run=run)["probs"]}
                for s in SAMPLING]
    return {"states": writer_states(config, run=run), "sampling": sampling, "prompt": SAMPLING_PROMPT,
            "positions": config["sizes"]["nPositions"], "steps": STEPS, "bytes": config["weightsBytes"]}


def writer_lab(*, lab_id: str = "writer-lab", run=None) -> HTMLBlock:
    """The lab's element: its configuration, the weights' block and a text for readers without JavaScript.

    The weights' block (:func:`writer_weights`) is a second data block of the
    element; the build moves it to its own file, which the lab fetches only
    when the reader presses "Load the model".

    Parameters
    ----------
    lab_id : str, default "writer-lab", keyword-only
        The element's ``id``.
    run : dict, optional, keyword-only
        The run whose weights the lab uses; by default the shipped one.

    Returns
    -------
    HTMLBlock

    Examples
    --------
    >>> markup = writer_lab().markup
    >>> markup.startswith('<div class="sa-lab" data-lab="writer" id="writer-lab">'), markup.count("<script")
    (True, 2)
    """
    run = _load(run)
    config = writer_config(run=run)
    prompt = config["defaults"]["prompt"]
    ids = prompt_ids(config, prompt)
    out = write(run["params"], ids, FALLBACK_STEPS, run["sizes"], temperature=0.0)
    written = ids_text(config, out["ids"][len(ids):])
    fallback = ('<p class="sa-lab-fallback">This lab needs JavaScript. Greedy, the model continues '
                f"“{esc(prompt)}” with “{esc(written)}”. Its {format_count(config['parameters'])} numbers are "
                f"{round(config['weightsBytes'] / 1000)} kB.</p>")
    return HTMLBlock(f"{lab_open_tag('writer', lab_id)}{config_block(config)}{config_block(writer_weights(run))}"
                     f"{fallback}</div>")


__all__ = ["BATCH", "DECIMALS", "DEFAULTS", "FALLBACK_STEPS", "MAX_SEED", "MAX_TEMPERATURE", "MODEL", "PROMPTS",
           "SAMPLING", "SAMPLING_PROMPT", "STEPS", "TOP", "check_settings", "ids_text", "package_settings",
           "prompt_ids", "step_distribution", "weights_file_text", "writer_config", "writer_fixture", "writer_lab",
           "writer_sizes_json", "writer_states", "writer_weights"]
