"""Two heads that learned to copy: a tiny attention-only model trained by the book's own NumPy code.

One idea per module:

* ``task``: the copying task, random symbols in which a segment appears twice;
* :mod:`.model`: the model, two layers of causal heads on a residual stream, and its forward pass;
* :mod:`.gradients`: its loss and gradient, by the chain rule;
* :mod:`.training`: Adam, the book's training run and the shipped weights;
* :mod:`.circuits`: each head's previous-token and induction scores, ablations and K-composition;
* ``generation``: writing one symbol at a time with a KV cache.

The trained model, from the shipped file, continues a pattern it has seen once:

>>> from selfattention.induction import continue_sequence, load
>>> continue_sequence(load()["params"], "NCKJ" + "HEBOMGDAIL" + "HEBOMG", 4)["text"]
'NCKJHEBOMGDAILHEBOMGDAIL'
"""

from .circuits import ablation_table, induction_scores, key_parts, previous_token_scores
from .generation import continue_sequence
from .model import D_HEAD, D_MODEL, HEADS, LAYERS, forward, init_params
from .task import N_POSITIONS, SYMBOLS, VOCAB, copying_batch, symbols_to_tokens, tokens_to_symbols
from .training import load, train

__all__ = ["ablation_table", "continue_sequence", "copying_batch", "D_HEAD", "D_MODEL", "forward", "HEADS",
           "induction_scores", "init_params", "key_parts", "LAYERS", "load", "N_POSITIONS", "previous_token_scores",
           "symbols_to_tokens", "SYMBOLS", "tokens_to_symbols", "train", "VOCAB"]
