"""A small model that writes: a decoder-only transformer trained on the book's own prose.

One idea per module:

* :mod:`.tokenizer`: characters to ids and back, one unknown symbol for the rest;
* :mod:`.model`: the decoder, its sizes, its parameters and its forward pass,
  built from one function per block (:func:`~.model.decoder_block`);
* :mod:`.gradients`: the loss and its gradient for every parameter, by the chain rule;
* :mod:`.training`: Adam on random windows of the corpus, and the weight file;
* :mod:`.sampling`: greedy, temperature, top-k and top-p, and writing with a KV cache;
* :mod:`.heads`: every head's scores on chapter 15's classic test;
* :mod:`.ngrams`: the unigram, bigram and trigram models it must beat, and bits per character;
* :mod:`.corpus`: the frozen snapshot of the book's prose (CC BY 4.0).

The cache gives the characters of the full pass:

>>> from selfattention.writer import CharTokenizer, WriterSizes, init_writer, write
>>> tok = CharTokenizer.from_corpus("the cat sat on the mat.")
>>> sizes = WriterSizes(vocab=tok.vocab, n_positions=16, d_model=16, heads=2, layers=2, d_ff=32)
>>> params = init_writer(sizes, 0)
>>> a = write(params, tok.encode("the cat"), 12, sizes, temperature=1.0, seed=1)
>>> b = write(params, tok.encode("the cat"), 12, sizes, temperature=1.0, seed=1, cache=False)
>>> tok.decode(a["ids"]) == tok.decode(b["ids"])
True
"""

from .corpus import book_prose, page_prose, read_corpus, split_corpus
from .gradients import (
    attention_backward,
    block_backward,
    check_writer_gradients,
    layer_norm_backward,
    softmax_cross_entropy,
    writer_loss_and_gradients,
)
from .heads import classic_heads
from .model import (
    WriterSizes,
    check_writer_params,
    check_writer_tokens,
    decoder_block,
    init_writer,
    run_writer,
    writer_forward,
    writer_shapes,
)
from .ngrams import (
    NgramModel,
    bits_by_context,
    bits_per_character,
    held_out_bits,
    ngram_bits_per_character,
    ngram_counts,
    ngram_model,
)
from .sampling import (
    Draw,
    draw_index,
    greedy_draw,
    next_distribution,
    seconds_per_char,
    temperature_draw,
    top_k_draw,
    top_p_draw,
    write,
    writer_cache,
    writer_decode_step,
)
from .tokenizer import UNKNOWN, CharTokenizer
from .training import (
    cosine_learning_rate,
    load_writer,
    random_windows,
    save_writer,
    train_writer,
    weights_digest,
)

__all__ = [
    "CharTokenizer", "Draw", "NgramModel", "UNKNOWN", "WriterSizes", "attention_backward", "bits_by_context",
    "bits_per_character", "block_backward", "book_prose", "check_writer_gradients", "check_writer_params",
    "check_writer_tokens", "classic_heads", "cosine_learning_rate", "decoder_block", "draw_index", "greedy_draw",
    "held_out_bits", "init_writer", "layer_norm_backward", "load_writer", "next_distribution",
    "ngram_bits_per_character", "ngram_counts", "ngram_model", "page_prose", "random_windows", "read_corpus",
    "run_writer", "save_writer", "seconds_per_char", "softmax_cross_entropy", "split_corpus", "temperature_draw",
    "top_k_draw", "top_p_draw", "train_writer", "weights_digest", "write", "writer_cache", "writer_decode_step",
    "writer_forward", "writer_loss_and_gradients", "writer_shapes",
]
