"""A proposal for issue 42: a copying task on which the package's model grows a *general* induction head.

The model is the package's attention-only model (no MLP, no norm, causal heads, learned
positions, NumPy float64, chain-rule gradients, Adam, one seed), with these sizes
(:data:`.model.SIZES`): 52 letters (``A``-``Z``, ``a``-``z``; case matters), 32 positions,
``d_model`` 64, two heads in layer 0 and one in layer 1, 32 numbers per head, and the
positions entering only layer 0's queries and keys (``"qk0"``): 33,280 parameters.

One idea per module, as in ``selfattention.induction``:

* :mod:`.task`: random letters with up to 3 segments (2 to 16 letters) copied to random
  later places, the gap 0 half the time (training); and the classic test of Olsson et al.
  (2022): a random segment repeated at once, at any offset;
* :mod:`.model`: the model, sized by :class:`~.model.Sizes`, and its forward pass;
* :mod:`.gradients`: its loss and gradient, by the chain rule, checked against finite differences;
* :mod:`.training`: Adam on fresh batches (step size 3e-3, cosine to 3e-4 over 12,000 steps),
  with every head's scores on the classic test at checkpoints; ``save`` and ``load``;
* :mod:`.circuits`: previous-token and induction scores, the classic-test table,
  ablations and the phase-change rule;
* :mod:`.generation`: reading typed letters and writing more.

The trained model (``weights.npz``) continues a pattern it has seen once:

>>> from induction.training import load
>>> from induction.generation import continue_sequence
>>> from pathlib import Path
>>> run = load(Path(__file__).with_name("weights.npz"))
>>> continue_sequence(run["params"], "Zy" + "induction" + "indu", 5)["text"]
'Zyinductioninduction'
"""
