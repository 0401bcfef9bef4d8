"""The attention explorer lab of the chapter "Attention in a real model".

The lab (``_static/sa/labs/explorer.js``) shows the weights of
all-MiniLM-L6-v2 for any layer, head or temperature. This module builds its
configuration and element and computes its test states; the lab's three
other concerns have a module each:

* :mod:`booktools.labs.explorer_gallery`: the gallery's sentences and their
  scores, stored compactly in the page;
* :mod:`booktools.labs.explorer_compute`: the "Compute" button, which runs
  the reader's own sentence in the book's in-browser Python;
* :mod:`booktools.labs.explorer_export`: the name of the exported heatmap.

Their public names are importable from here too.

The lab's test states (:func:`explorer_fixture`, which its browser tests
compute from the page's own configuration) hold the package's softmax of
exactly the stored scores.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..formatting import DECIMALS, fmt
from ..head_weights import MEAN, head_weights
from ..html import HTMLBlock
from .contract import FALLBACK_CLASS, config_block
from .element import lab_element
from .explorer_compute import COMMAND as COMMAND
from .explorer_compute import MAX_TOKENS as MAX_TOKENS
from .explorer_compute import MODEL_BROWSER_DIR as MODEL_BROWSER_DIR
from .explorer_compute import MODEL_SITE_DIR as MODEL_SITE_DIR
from .explorer_compute import compute_config as compute_config
from .explorer_export import STEM_WORDS
from .explorer_export import export_stem as export_stem
from .explorer_gallery import GALLERY as GALLERY
from .explorer_gallery import compact_scores as compact_scores
from .explorer_gallery import decode_scores
from .explorer_gallery import encode_scores as encode_scores
from .explorer_gallery import gallery_entry as gallery_entry

#: The temperature slider: smallest, largest and step, and where it starts.
TEMPERATURE = {"min": 0.25, "max": 4.0, "step": 0.05, "value": 1.0}

#: Where the lab starts: first sentence, layer 4, head 0.
DEFAULT = {"sentence": 0, "layer": 4, "head": 0}

#: Colour scale of the weights (viridis, colour-blind safe), from 0 to 1.
VIRIDIS = (
    "#440154", "#482475", "#414487", "#355f8d", "#2a788e", "#21918c",
    "#22a884", "#44bf70", "#7ad151", "#bddf26", "#fde725",
)


def explorer_config(entries: Sequence[dict], *, sentence: int = DEFAULT["sentence"],
                    layer: int = DEFAULT["layer"], head=DEFAULT["head"], compute: dict | None = None) -> dict:
    """The lab's JSON configuration.

    Parameters
    ----------
    entries : sequence of dict
        Sentences from :func:`~booktools.labs.explorer_gallery.gallery_entry`;
        all with the same number of layers and heads.
    sentence, layer : int, keyword-only
        Where the lab starts (and where its reset button returns).
    head : int or "mean", keyword-only
        The head the lab starts on.
    compute : dict, optional, keyword-only
        From :func:`~booktools.labs.explorer_compute.compute_config`: the lab
        gets a text box and a "Compute" button for the reader's own sentence.
        Without it, the lab shows the gallery only.

    Returns
    -------
    dict
        ``sentences``, ``layers``, ``heads``, ``start`` (sentence, layer,
        head), ``temperature`` (:data:`TEMPERATURE`), ``decimals``
        (:data:`~booktools.formatting.DECIMALS`), ``colours``
        (:data:`VIRIDIS`, from weight 0 to weight 1), ``mean`` (the
        value of the "average of heads" choice), ``stem_words``
        (:data:`~booktools.labs.explorer_export.STEM_WORDS`) and, if given,
        ``compute``.

    Raises
    ------
    ValueError
        If there are no entries, they disagree on layers and heads, or the
        start is out of range.

    Examples
    --------
    >>> import numpy as np
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
    >>> import numpy as np
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
    >>> import numpy as np
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
    >>> import numpy as np
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
    >>> import numpy as np
    >>> e = gallery_entry("Hi.", ["[CLS]", "hi", ".", "[SEP]"], np.zeros((1, 1, 4, 4)), focus=1)
    >>> round(payload_kb(explorer_config([e], layer=0)), 1)
    0.5
    """
    return len(config_block(config).encode("utf-8")) / 1024


__all__ = ["DEFAULT", "TEMPERATURE", "VIRIDIS", "explorer_config", "explorer_fixture", "explorer_lab",
           "explorer_states", "payload_kb"]
