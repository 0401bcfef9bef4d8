"""The checkers of the book's code exercises: each says what is right, or names the slip.

One module per chapter topic, and one shared compare step:

* ``_compare`` -- :class:`~selfattention.Feedback`, the tolerance,
  the shape tips and the message format every checker uses, and
  ``Diagnoses``, the list of messages
  each checker declares (a test triggers every one);
* ``blend`` -- :func:`~selfattention.check_blend` (chapter 1);
* ``rnn`` -- :func:`~selfattention.check_rnn_states` (chapter 2);
* ``scores`` -- :func:`~selfattention.check_scores` (chapter 3)
  and :func:`~selfattention.check_head_scores` (chapter 4);
* ``learning`` -- :func:`~selfattention.check_gradient_step` (chapter 5);
* ``scaling`` -- :func:`~selfattention.check_scaled_row` (chapter 6);
* ``head`` -- :func:`~selfattention.check_head` (chapter 7);
* ``masks`` -- :func:`~selfattention.check_causal_mask` (chapter 8);
* ``cross`` -- :func:`~selfattention.check_cross_weights` (chapter 9);
* ``positions`` -- :func:`~selfattention.check_rope` (chapter 10, "Where
  each word stands");
* ``model`` -- :func:`~selfattention.check_strongest_head` and
  :func:`~selfattention.check_head_counts` (chapter 11);
* ``cost`` -- :func:`~selfattention.check_score_memory` and
  :func:`~selfattention.check_window_count` (chapter 12);
* ``generation`` -- :func:`~selfattention.check_decode_step` (chapter 13);
* ``multihead`` -- :func:`~selfattention.check_split_heads` (chapter 14);
* ``induction`` -- :func:`~selfattention.check_induction_score` and
  :func:`~selfattention.check_ablated_loss` (chapter "Two heads that learned to copy");
* ``block`` -- :func:`~selfattention.check_bert_layer` (the last chapter, "The whole block").

A value counts as right within 100 eps (abs(expected) + the largest abs(expected)),
eps being the machine epsilon of the answer: float32's for float32 arrays (as
torch's .numpy() gives), float64's otherwise; a float16 answer is judged with
float16's rounding (10 of its eps), and an expected inf only by the same inf.
Booleans and counts are compared exactly. The package exports every checker at its
top level (``sa.check_scores``).

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

__all__ = [
    "REGISTRY",
    "Feedback",
    "check_ablated_loss",
    "check_bert_layer",
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
    "check_window_count",
]
