"""``python -m selfattention.writer``: the corpus, the baselines and the training run, from the command line.

* ``corpus [BOOK_DIR]``: write a new snapshot ``corpus.txt.gz`` from the book's pages
  (``book/`` by default), and print its size;
* ``baselines``: the held-out bits per character of the unigram, bigram and trigram models;
* ``train [--steps N] [--out PATH] [--d-model D] [--layers L] [--heads H] [--d-ff F]
  [--context N] [--batch B] [--lr LR] [--dtype float16|float32]``: train from the seed and write
  the weight file (the shipped ``weights.npz`` by default).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from .corpus import SNAPSHOT, book_prose, read_corpus, split_corpus, write_snapshot
from .model import WriterSizes
from .ngrams import ngram_bits_per_character, ngram_model
from .tokenizer import CharTokenizer
from .training import BATCH, EVAL_EVERY, LEARNING_RATE, SEED, STEPS, WARMUP, WEIGHTS, save_writer, train_writer


def main(argv=None) -> int:
    """Run one command; return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m selfattention.writer", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    corpus = commands.add_parser("corpus", help="write a new snapshot of the book's prose")
    corpus.add_argument("book_dir", nargs="?", default="book")
    commands.add_parser("baselines", help="held-out bits per character of the n-gram models")
    train = commands.add_parser("train", help="train the writer and write its weight file")
    defaults = WriterSizes(vocab=1)
    for flag, value in (("--steps", STEPS), ("--batch", BATCH), ("--seed", SEED), ("--warmup", WARMUP),
                        ("--eval-every", EVAL_EVERY), ("--d-model", defaults.d_model),
                        ("--layers", defaults.layers), ("--heads", defaults.heads), ("--d-ff", defaults.d_ff),
                        ("--context", defaults.n_positions)):
        train.add_argument(flag, type=int, default=value)
    train.add_argument("--lr", type=float, default=LEARNING_RATE)
    train.add_argument("--out", default=str(WEIGHTS))
    train.add_argument("--dtype", choices=("float16", "float32"), default="float16")
    args = parser.parse_args(argv)

    if args.command == "corpus":
        text = book_prose(args.book_dir)
        size = write_snapshot(text)
        print(f"{SNAPSHOT}: {len(text):,} characters, {len(set(text))} different, {size:,} bytes gzipped")
    elif args.command == "baselines":
        text = read_corpus()
        tokenizer = CharTokenizer.from_corpus(text)
        train_ids, held_ids = (tokenizer.encode(part) for part in split_corpus(text))
        for order, name in ((1, "unigram"), (2, "bigram"), (3, "trigram")):
            for smoothing in ("witten-bell", "add-one"):
                model = ngram_model(train_ids, order, tokenizer.vocab, smoothing=smoothing)
                print(f"{name:8s} {smoothing:12s} {ngram_bits_per_character(model, held_ids):.4f} bits/char")
    else:
        tokenizer = CharTokenizer.from_corpus(read_corpus())
        sizes = WriterSizes(vocab=tokenizer.vocab, n_positions=args.context, d_model=args.d_model,
                            heads=args.heads, layers=args.layers, d_ff=args.d_ff)
        print(f"{sizes}: {sizes.parameter_count:,} parameters", flush=True)
        run = train_writer(sizes=sizes, steps=args.steps, batch=args.batch, lr=args.lr, warmup=args.warmup,
                           seed=args.seed, eval_every=args.eval_every, log=lambda line: print(line, flush=True))
        size = save_writer(run, args.out, dtype=np.dtype(args.dtype))
        print(f"{args.out}: {size:,} bytes; {run['seconds']:.0f} s, {run['seconds'] / args.steps:.2f} s a step")
    return 0


if __name__ == "__main__":
    sys.exit(main())
