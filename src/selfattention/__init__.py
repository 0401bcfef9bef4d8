"""selfattention: the NumPy maths of *Self-Attention, Computed*.

Two layers:

* the reference layer, what the chapters read: :func:`softmax`,
  :func:`attention_scores`, :func:`scaled_dot_product_attention` (the
  formula and nothing else), one head, the BERT encoder in
  :mod:`selfattention.bert`, the teaching trace of the online softmax,
  the recurrent network that attention replaces (:mod:`selfattention.rnn`)
  and a small experiment that compares the two (:mod:`selfattention.reversal`);
* the fast layer, :mod:`selfattention.fast`: the same attention computed
  for speed (row blocks, blockwise with an online softmax, threads), tested
  equal to the reference. :func:`blockwise_attention` is re-exported here.

Only NumPy, threadpoolctl and the standard library are imported. Plotting
and book tooling live in the separate ``booktools`` package.
"""

from importlib.metadata import PackageNotFoundError, version

from . import attention, bert, cost, fast, minilm, online_softmax, reversal, rnn, sparse
from .attention import attention_scores, causal_mask, scaled_dot_product_attention
from .bert import BertConfig, BertOutput, bert_forward, erf, gelu, layer_norm
from .examples import SENTENCE, WORDS, i_love_cats, three_words
from .exercises import Feedback, check_blend, check_head, check_head_scores, check_scores
from .fast import blockwise_attention
from .head import attention_head, head_trace, project_qkv, query_key_product
from .online_softmax import online_softmax_trace
from .rnn import check_rnn_states, effect_on_last, fading, rnn_states
from .softmax import softmax
from .sparse import sliding_window_mask, strided_mask

try:  # the one version lives in pyproject.toml
    __version__ = version("selfattention")
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "BertConfig",
    "BertOutput",
    "Feedback",
    "SENTENCE",
    "WORDS",
    "attention",
    "attention_head",
    "attention_scores",
    "bert",
    "bert_forward",
    "blockwise_attention",
    "causal_mask",
    "check_blend",
    "check_head",
    "check_head_scores",
    "check_rnn_states",
    "check_scores",
    "cost",
    "effect_on_last",
    "erf",
    "fading",
    "fast",
    "gelu",
    "head_trace",
    "i_love_cats",
    "layer_norm",
    "minilm",
    "online_softmax",
    "online_softmax_trace",
    "project_qkv",
    "query_key_product",
    "reversal",
    "rnn",
    "rnn_states",
    "scaled_dot_product_attention",
    "sliding_window_mask",
    "softmax",
    "sparse",
    "strided_mask",
    "three_words",
]
