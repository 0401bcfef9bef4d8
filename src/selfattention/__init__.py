"""selfattention: the NumPy maths of *Self-Attention, Computed*.

Only NumPy and the standard library are imported here. Plotting and book
tooling live in the separate ``booktools`` package.
"""

from importlib.metadata import PackageNotFoundError, version

from . import bert, blockwise, cost, minilm, online_softmax, sparse
from .attention import attention_scores, causal_mask, scaled_dot_product_attention
from .bert import BertConfig, BertOutput, bert_forward, erf, gelu, layer_norm
from .blockwise import blockwise_attention
from .examples import WORDS, three_words
from .exercises import Feedback, check_scores
from .head import attention_head, project_qkv
from .online_softmax import online_softmax_trace
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
    "WORDS",
    "attention_head",
    "attention_scores",
    "bert",
    "bert_forward",
    "blockwise",
    "blockwise_attention",
    "causal_mask",
    "check_scores",
    "cost",
    "erf",
    "gelu",
    "layer_norm",
    "minilm",
    "online_softmax",
    "online_softmax_trace",
    "project_qkv",
    "scaled_dot_product_attention",
    "sliding_window_mask",
    "softmax",
    "sparse",
    "strided_mask",
    "three_words",
]
