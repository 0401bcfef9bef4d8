"""What the explorer's "Compute" button runs, in the reader's browser.

The explorer (``_static/sa/labs/explorer-compute.js``) sends the source of
this module to the book's in-browser Python once, then calls
:func:`explore` for each sentence the reader types. So this module imports
only what that Python holds: the standard library, NumPy and
``selfattention``. The forward pass is the package's own,
:func:`selfattention.minilm.sentence_attentions`; this module only carries
its answer to the page: the tokens as JSON on standard output, the weights
as raw float32 bytes in a file that the page reads back.
"""

import base64
import json
import re

import numpy as np

from selfattention.minilm import sentence_attentions


def explore(text_b64: str, max_tokens: int, model_dir, out: str) -> dict:
    """Run the model on one sentence; print the answer as JSON and write the weights to ``out``.

    Parameters
    ----------
    text_b64 : str
        The sentence, as base64 of its UTF-8 bytes (so any character
        survives the trip from the page).
    max_tokens : int
        The longest sentence accepted, in tokens with ``[CLS]`` and
        ``[SEP]``; a longer one gets a message, never a cut.
    model_dir : str or None
        The folder with the model's files; ``None``: the installed model.
    out : str
        Where the weights go: ``layers * heads * L * L`` little-endian
        float32 numbers, C order.

    Returns
    -------
    dict
        What is printed: ``tokens``, ``ids``, ``unknown`` (positions of
        ``[UNK]`` tokens) and ``shape``; or ``error``, the message of the
        package's ``ValueError`` (an empty or too long sentence).

    Examples
    --------
    >>> import os, tempfile
    >>> out = os.path.join(tempfile.mkdtemp(), "w.f32")
    >>> text = base64.b64encode("I love cats.".encode()).decode()
    >>> answer = explore(text, 128, None, out)  # doctest: +ELLIPSIS
    {"tokens": ["[CLS]", "i", "love", "cats", ".", "[SEP]"], ..., "shape": [6, 12, 6, 6]}
    >>> os.path.getsize(out) == 4 * 6 * 12 * 6 * 6
    True
    >>> explore(base64.b64encode(b"  ").decode(), 128, None, out)["error"]  # doctest: +ELLIPSIS
    {"error": ...}
    '...'
    """
    text = base64.b64decode(text_b64).decode("utf-8")
    try:
        found = sentence_attentions(text, model_dir=model_dir, max_tokens=max_tokens)
    except ValueError as exc:
        too_long = re.match(r"sentence has (\d+) tokens with \[CLS\] and \[SEP\], over the limit", str(exc))
        answer = {"error": f"This sentence has {too_long[1]} tokens with [CLS] and [SEP]; Compute takes at most "
                  f"{max_tokens}. Shorten it (nothing is cut for you), or run the command-line explorer:"
                  if too_long else str(exc)}
    else:
        weights = np.ascontiguousarray(found.attentions, dtype="<f4")  # (layers, heads, L, L)
        with open(out, "wb") as f:
            f.write(weights.tobytes())
        answer = {"tokens": list(found.tokens), "ids": [int(i) for i in found.ids],
                  "unknown": [int(i) for i in found.unknown], "shape": list(weights.shape)}
    print(json.dumps(answer))
    return answer


__all__ = ["explore"]
