"""selfattention: the NumPy maths of *Self-Attention, Computed*.

Only NumPy and the standard library are imported here. Plotting and book
tooling live in the separate ``booktools`` package.
"""

from . import bert, minilm
from .attention import attention_scores, causal_mask, scaled_dot_product_attention
from .bert import BertConfig, BertOutput, bert_forward, erf, gelu, layer_norm
from .examples import WORDS, three_words
from .exercises import Feedback, check_scores
from .head import attention_head, project_qkv
from .softmax import softmax

__version__ = "0.1.0"

__all__ = [
    "BertConfig",
    "BertOutput",
    "WORDS",
    "Feedback",
    "attention_head",
    "bert",
    "bert_forward",
    "erf",
    "gelu",
    "layer_norm",
    "minilm",
    "attention_scores",
    "causal_mask",
    "check_scores",
    "project_qkv",
    "scaled_dot_product_attention",
    "softmax",
    "three_words",
]
