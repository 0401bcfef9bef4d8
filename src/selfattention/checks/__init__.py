"""The checkers of the book's code exercises: each says what is right, or names the slip.

One module per chapter topic, and one shared compare step:

* ``_compare`` -- :class:`~selfattention.Feedback`, the tolerance,
  the shape tips and the message format every checker uses, and
  ``Diagnoses``, the list of messages
  each checker declares (a test triggers every one);
* ``blend`` -- :func:`~selfattention.check_blend` (:doc:`/words-are-islands`);
* ``rnn`` -- :func:`~selfattention.check_rnn_states` (:doc:`/why-not-left-to-right`);
* ``scores`` -- :func:`~selfattention.check_scores` (:doc:`/weighted-average`)
  and :func:`~selfattention.check_head_scores` (:doc:`/queries-keys-values`);
* ``learning`` -- :func:`~selfattention.check_gradient_step` (:doc:`/learning-where-to-look`);
* ``scaling`` -- :func:`~selfattention.check_scaled_row` (:doc:`/why-divide-by-sqrt-dk`);
* ``head`` -- :func:`~selfattention.check_head` (:doc:`/one-head-in-code`);
* ``masks`` -- :func:`~selfattention.check_causal_mask` (:doc:`/causal-masking`);
* ``cross`` -- :func:`~selfattention.check_cross_weights` (:doc:`/self-and-cross-attention`);
* ``positions`` -- :func:`~selfattention.check_rope` (:doc:`/where-each-word-stands`);
* ``multihead`` -- :func:`~selfattention.check_split_heads` (:doc:`/several-heads`);
* ``model`` -- :func:`~selfattention.check_strongest_head` and
  :func:`~selfattention.check_head_counts` (:doc:`/attention-in-a-real-model`);
* ``cost`` -- :func:`~selfattention.check_score_memory` and
  :func:`~selfattention.check_window_count` (:doc:`/the-cost-of-full-context`);
* ``generation`` -- :func:`~selfattention.check_decode_step` (:doc:`/one-word-at-a-time`);
* ``induction`` -- :func:`~selfattention.check_induction_score` and
  :func:`~selfattention.check_ablated_loss` (:doc:`/two-heads-that-copy`);
* ``wiring`` -- :func:`~selfattention.check_wiring`, an induction circuit wired by hand
  (:mod:`selfattention.wiring`);
* ``block`` -- :func:`~selfattention.check_bert_layer` (:doc:`/the-whole-block`);
* ``writer`` -- :func:`~selfattention.check_top_p` and
  :func:`~selfattention.check_bits_per_character`, with their exercises' fixed
  inputs, :func:`~selfattention.top_p_example` and
  :func:`~selfattention.bits_example` (:doc:`/a-model-that-writes`).

A value counts as right within 100 eps (abs(expected) + the largest abs(expected)),
eps being the machine epsilon of the answer: float32's for float32 arrays (as
torch's .numpy() gives), float64's otherwise; a float16 answer is judged with
float16's rounding (10 of its eps), and an expected inf only by the same inf.
Booleans and counts are compared exactly. A float64 answer that is right only to
float32's precision (float32 somewhere inside) is told so. The package exports every
checker at its top level (``sa.check_scores``).

Examples
--------
A right answer in float32 passes; the same numbers rounded to 2 decimals do not.

>>> import numpy as np
>>> from selfattention import three_words
>>> X = three_words()
>>> print(check_scores((X @ X.T / np.sqrt(2)).astype(np.float32)))
✓ Right: scores has shape (3, 3) and every value matches.
>>> print(check_scores((X @ X.T / np.sqrt(2)).round(2)))
✗ Close, but rounded to 2 decimals: check the numbers as computed, not as printed.
>>> print(check_scores(X @ X.T / np.sqrt(2) + np.eye(3) * 1e-3))
✗ Wrong value at row 1, column 1: 1.415 where 1.414 was expected.
"""

from ._compare import REGISTRY, Feedback
from .blend import check_blend
from .block import check_bert_layer
from .cost import check_score_memory, check_window_count
from .cross import check_cross_weights
from .generation import check_decode_step
from .head import check_head
from .induction import check_ablated_loss, check_induction_score
from .learning import check_gradient_step
from .masks import check_causal_mask
from .model import check_head_counts, check_strongest_head
from .multihead import check_split_heads
from .positions import check_rope
from .rnn import check_rnn_states
from .scaling import check_scaled_row
from .scores import check_head_scores, check_scores
from .wiring import check_wiring
from .writer import bits_example, check_bits_per_character, check_top_p, top_p_example

__all__ = [
    "REGISTRY",
    "Feedback",
    "bits_example",
    "check_ablated_loss",
    "check_bert_layer",
    "check_bits_per_character",
    "check_blend",
    "check_causal_mask",
    "check_cross_weights",
    "check_decode_step",
    "check_gradient_step",
    "check_head",
    "check_head_counts",
    "check_head_scores",
    "check_induction_score",
    "check_rnn_states",
    "check_rope",
    "check_scaled_row",
    "check_score_memory",
    "check_scores",
    "check_split_heads",
    "check_strongest_head",
    "check_top_p",
    "check_window_count",
    "check_wiring",
    "top_p_example",
]
