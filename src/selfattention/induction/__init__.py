"""Two heads that learned to copy: a small attention-only model trained by the book's own NumPy code.

The model (:data:`~.model.SIZES`): 52 symbols (``A``-``Z``, ``a``-``z``; case
matters), 32 positions, ``d_model`` 64, two heads in layer 0 and one in layer 1
(:data:`~selfattention.induction.model.HEADS` is one count per layer), 32 numbers per head, and the learned
positions entering only layer 0's queries and keys: 33,280 parameters.

One idea per module:

* :mod:`.task`: the copying task, random letters with up to 3 segments of 2 to
  16 letters copied to random later places; and the classic test of Olsson et
  al. (2022), a random segment repeated at once at any offset;
* :mod:`.model`: the model, sized by :class:`~.model.Sizes`, and its forward pass;
* :mod:`.gradients`: its loss and gradient, by the chain rule, checked against finite differences;
* :mod:`.training`: Adam one step at a time (:class:`~.training.Run`, which the
  browser lab drives), the book's run (:func:`~selfattention.induction.training.train`)
  and the shipped weights (:func:`~selfattention.induction.training.load`);
* :mod:`.circuits`: previous-token and induction scores, the classic-test table,
  ablations, the parts of a key's score and the phase change;
* :mod:`.generation`: writing one symbol at a time with a KV cache;
* :mod:`.designs`: where positions enter (``"qk0"``, ``"qk"``, ``"stream"``):
  the experiment that trains each, and its shipped results
  (:func:`~selfattention.induction.designs.load_experiment`).

The trained model, from the shipped file, continues a pattern it has seen once:

>>> from selfattention.induction import continue_sequence, load
>>> continue_sequence(load()["params"], "Zy" + "induction" + "indu", 5)["text"]
'Zyinductioninduction'
"""

from .circuits import (
    ablation_table,
    classic_table,
    copy_losses,
    induction_scores,
    key_parts,
    phase_change,
    previous_token_scores,
)
from .designs import load_experiment
from .generation import continue_sequence
from .model import D_HEAD, D_MODEL, HEADS, LAYERS, SIZES, Sizes, forward, init_params
from .task import (
    N_POSITIONS,
    SYMBOLS,
    TASK,
    VOCAB,
    classic_batch,
    classic_mix,
    copying_batch,
    symbols_to_tokens,
    tokens_to_symbols,
)
from .training import Run, load, train

__all__ = ["ablation_table", "classic_batch", "classic_mix", "classic_table", "continue_sequence", "copy_losses",
           "copying_batch", "D_HEAD", "D_MODEL", "forward", "HEADS", "induction_scores", "init_params", "key_parts",
           "LAYERS", "load", "load_experiment", "N_POSITIONS", "phase_change", "previous_token_scores", "Run", "SIZES",
           "Sizes", "symbols_to_tokens", "SYMBOLS", "TASK", "tokens_to_symbols", "train", "VOCAB"]
