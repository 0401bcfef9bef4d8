"""selfattention: the NumPy maths of *Self-Attention, Computed*.

Two layers:

* the reference layer, what the chapters read: :func:`softmax`,
  :func:`attention_scores`, :func:`scaled_dot_product_attention` (the
  formula and nothing else), one head, several heads side by side
  (:mod:`selfattention.multihead`), the BERT encoder in
  :mod:`selfattention.bert`, the teaching trace of the online softmax,
  cross-attention and the bottom-right causal mask
  (:mod:`selfattention.cross`, :mod:`selfattention.causal_alignment`),
  a tiny causal decoder that writes one token at a time with a KV cache
  (:mod:`selfattention.generation`), a two-layer attention-only model
  trained to copy, with its induction head (:mod:`selfattention.induction`),
  the same circuit wired by hand in one-hot blocks (:mod:`selfattention.wiring`),
  a small decoder-only transformer trained on the book's own prose, that writes
  (``selfattention.writer``),
  the position schemes: sinusoidal, learned, RoPE and ALiBi
  (:mod:`selfattention.positions`),
  the recurrent network that attention replaces (:mod:`selfattention.rnn`),
  the loss and gradients that train one head (:mod:`selfattention.learning`)
  and a small experiment that compares the two (:mod:`selfattention.reversal`);
* the checkers of the exercises, :mod:`selfattention.checks`: each names
  the likely slip, and all compare through one tolerance;
* the fast layer, :mod:`selfattention.fast`: the same attention computed
  for speed (row blocks, blockwise with an online softmax, threads), tested
  equal to the reference. :func:`blockwise_attention` is re-exported here.

Only NumPy, threadpoolctl and the standard library are imported. Plotting
and book tooling live in the separate ``booktools`` package.

Each submodule is imported the first time one of its names is used
(``sa.softmax``, ``sa.checks``), not by ``import selfattention``: in the
browser's Python, where every module is compiled from its source at import,
importing them all took about half a second of a page's first Run.
"""

import importlib

# A name that is also a submodule's name is imported now: importing the submodule later (as other
# submodules do) would otherwise set the package's attribute to the module, not the function.
from .softmax import softmax

#: The package's submodules, each an attribute of the package (``sa.bert``), imported when first used.
_SUBMODULES = (
    "attention",
    "bert",
    "causal_alignment",
    "checks",
    "cost",
    "cross",
    "fast",
    "generation",
    "induction",
    "learning",
    "minilm",
    "multihead",
    "online_softmax",
    "positions",
    "reversal",
    "rnn",
    "scaling",
    "sparse",
    "wiring",
    "writer",
)

#: Where each name of the package lives: the submodule it is imported from, when first used.
_EXPORTS = {
    "attention": ("attention_scores", "causal_mask", "scaled_dot_product_attention"),
    "bert": ("BertConfig", "BertOutput", "bert_forward", "erf", "gelu", "layer_norm"),
    "causal_alignment": ("causal_mask_bottom_right",),
    "checks": (
        "Feedback", "bits_example", "check_ablated_loss", "check_bert_layer", "check_bits_per_character",
        "check_blend", "check_causal_mask", "check_cross_weights", "check_decode_step", "check_gradient_step",
        "check_head", "check_head_counts", "check_head_scores", "check_induction_score", "check_rnn_states",
        "check_rope", "check_scaled_row", "check_score_memory", "check_scores", "check_split_heads",
        "check_strongest_head", "check_top_p", "check_window_count", "check_wiring", "top_p_example",
    ),
    "cross": ("SOURCE", "TARGET", "cat_is_sleeping", "cross_attention"),
    "examples": ("SENTENCE", "WORDS", "i_love_cats", "three_words"),
    "fast": ("blockwise_attention",),
    "generation": (
        "PUBLISHED", "VOCAB", "KVCache", "TinyDecoder", "decode_example", "decode_step", "decoder_forward",
        "generate", "grouped_query_attention", "kv_cache_bytes", "scores_per_step", "tiny_decoder",
    ),
    "head": ("attention_head", "head_trace", "project_qkv", "query_key_product"),
    "learning": (
        "apple_sweet", "apple_sweet_gradient", "apple_sweet_loss", "descend", "gradient_step",
        "head_loss_and_gradients", "train_head", "training_run",
    ),
    "multihead": ("concat_heads", "multi_head_attention", "split_heads"),
    "online_softmax": ("online_softmax_trace",),
    "padding": ("padding_mask",),
    "positions": (
        "alibi_bias", "alibi_slopes", "learned_positions", "rope", "rope_pair_order", "rope_rotate_half",
        "sinusoidal_positions", "sinusoidal_shift",
    ),
    "rnn": ("effect_on_last", "fading", "rnn_states"),
    "scaling": ("dot_product_std", "saturation", "scaling_example", "softmax_jacobian", "softmax_with_temperature"),
    "sparse": ("sliding_window_mask", "strided_mask"),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}



def _version() -> str:
    """The installed version (the one version lives in pyproject.toml)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("selfattention")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


def __getattr__(name: str):
    """A submodule, a name of one, or ``__version__``, imported when first asked for (PEP 562)."""
    if name in _WHERE:
        value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f".{name}", __name__)
    elif name == "__version__":
        value = _version()
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # the next use is a plain lookup
    return value


def __dir__() -> list[str]:
    """Every name of the package, imported or not yet."""
    return sorted(set(globals()) | set(_WHERE) | set(_SUBMODULES) | {"__version__"})


__all__ = [
    "BertConfig",
    "BertOutput",
    "Feedback",
    "KVCache",
    "PUBLISHED",
    "SENTENCE",
    "SOURCE",
    "TARGET",
    "TinyDecoder",
    "VOCAB",
    "WORDS",
    "apple_sweet",
    "apple_sweet_gradient",
    "apple_sweet_loss",
    "alibi_bias",
    "alibi_slopes",
    "attention",
    "attention_head",
    "attention_scores",
    "bert",
    "bert_forward",
    "bits_example",
    "blockwise_attention",
    "cat_is_sleeping",
    "causal_alignment",
    "causal_mask",
    "causal_mask_bottom_right",
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
    "checks",
    "concat_heads",
    "cost",
    "cross",
    "cross_attention",
    "decode_example",
    "decode_step",
    "decoder_forward",
    "descend",
    "dot_product_std",
    "effect_on_last",
    "erf",
    "fading",
    "fast",
    "gelu",
    "generate",
    "generation",
    "induction",
    "gradient_step",
    "grouped_query_attention",
    "head_loss_and_gradients",
    "head_trace",
    "i_love_cats",
    "kv_cache_bytes",
    "layer_norm",
    "learned_positions",
    "learning",
    "minilm",
    "multi_head_attention",
    "multihead",
    "online_softmax",
    "online_softmax_trace",
    "padding_mask",
    "positions",
    "project_qkv",
    "query_key_product",
    "reversal",
    "rnn",
    "rnn_states",
    "rope",
    "rope_pair_order",
    "rope_rotate_half",
    "saturation",
    "scaled_dot_product_attention",
    "scaling",
    "scaling_example",
    "scores_per_step",
    "sinusoidal_positions",
    "sinusoidal_shift",
    "sliding_window_mask",
    "softmax",
    "softmax_jacobian",
    "softmax_with_temperature",
    "sparse",
    "split_heads",
    "strided_mask",
    "three_words",
    "tiny_decoder",
    "top_p_example",
    "train_head",
    "training_run",
    "wiring",
    "writer",
]
