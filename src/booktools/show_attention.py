"""Explore one attention head of all-MiniLM-L6-v2 from the command line.

Usage::

    python -m booktools.show_attention "The animal didn't cross the street because it was too wide." \\
        --layer 4 --head 0
    python -m booktools.show_attention "We sat on the bank of the river." --layer 2 --head mean \\
        --top 2 --out bank.png --temperature 2

For every token it prints the ``--top`` tokens that it attends to most in
the chosen layer and head (``--head mean`` averages the 12 heads;
``--skip-special`` leaves ``[CLS]`` and ``[SEP]`` out of the lists), and it
writes the attention weights as a heatmap PNG to ``--out`` (default
``attention.png``). ``--temperature T`` recomputes the softmax from the
stored pre-softmax scores divided by ``T`` (1 is the model itself; larger
spreads the weight, smaller sharpens it). Layers and heads count from 0.
"""

from __future__ import annotations

import argparse
import numbers
import sys
from collections.abc import Sequence
from pathlib import Path

import matplotlib
import numpy as np

from selfattention import minilm

from .figures.heatmaps import plot_attention
from .head_weights import MEAN, head_weights
from .pngfile import save_png

#: Heads per layer and layers of all-MiniLM-L6-v2.
NUM_LAYERS, NUM_HEADS = 6, 12


def parse_head(text: str):
    """Read ``--head``: a head number, or ``"mean"`` for the average of all heads.

    Parameters
    ----------
    text : str
        ``"0"`` .. ``"11"`` or ``"mean"``.

    Returns
    -------
    int or str
        The head number, or ``"mean"``.

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is neither a non-negative integer nor ``"mean"``.

    Examples
    --------
    >>> parse_head("3"), parse_head("Mean")
    (3, 'mean')
    """
    if text.strip().lower() == MEAN:
        return MEAN
    try:
        head = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"head must be a number or 'mean', got {text!r}") from None
    if head < 0:
        raise argparse.ArgumentTypeError(f"head must be >= 0, got {head}")
    return head


def top_attended(
    weights, tokens: Sequence[str], k: int = 3, *, skip: Sequence[int] = ()
) -> list[list[tuple[str, float]]]:
    """For each token, the ``k`` tokens it attends to most, heaviest first.

    Parameters
    ----------
    weights : array_like, shape (L, L)
        Row ``i`` holds token ``i``'s attention weights.
    tokens : sequence of str
        The ``L`` tokens.
    k : int, default 3
        How many to keep per token (fewer if fewer tokens are left).
    skip : sequence of int, default (), keyword-only
        Positions never listed as targets, e.g. ``[0, L - 1]`` for
        ``[CLS]`` and ``[SEP]`` (the weights are not renormalised).

    Returns
    -------
    list of list of (str, float)
        ``result[i]``: ``(token, weight)`` pairs for token ``i``. Ties keep
        the earlier token first.

    Raises
    ------
    ValueError
        If ``weights`` is not ``(L, L)`` with ``L = len(tokens)``, ``k``
        is not a positive integer, or a ``skip`` position is out of range.

    Examples
    --------
    >>> top_attended([[0.1, 0.9], [0.5, 0.5]], ["it", "cat"], k=1)
    [[('cat', 0.9)], [('it', 0.5)]]
    >>> top_attended([[0.1, 0.9], [0.5, 0.5]], ["it", "cat"], k=1, skip=[1])
    [[('it', 0.1)], [('it', 0.5)]]
    """
    w = np.asarray(weights, dtype=np.float64)
    L = len(tokens)
    if w.shape != (L, L):
        raise ValueError(f"weights must have shape (L, L) = ({L}, {L}), got {w.shape}")
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    skipped = set()
    for j in skip:
        if isinstance(j, bool) or not isinstance(j, numbers.Integral) or not -L <= j < L:
            raise ValueError(f"skip positions must be in 0..{L - 1}, got {j!r}")
        skipped.add(int(j) % L)
    keep = [j for j in range(L) if j not in skipped]
    order = np.argsort(-w[:, keep], axis=-1, kind="stable")[:, :k]  # (L, k)
    return [[(tokens[keep[j]], float(w[i, keep[j]])) for j in row] for i, row in enumerate(order)]


def format_top(tokens: Sequence[str], top: Sequence[Sequence[tuple[str, float]]]) -> str:
    """One line per token: ``position token -> target weight, ...``.

    Parameters
    ----------
    tokens : sequence of str
        The tokens, in order.
    top : sequence of sequence of (str, float)
        From :func:`top_attended`.

    Returns
    -------
    str
        The table, lines joined by newlines.

    Raises
    ------
    ValueError
        If ``top`` does not have one entry per token.

    Examples
    --------
    >>> print(format_top(["it", "cat"], [[("cat", 0.9)], [("it", 0.5)]]))
     0 it  -> cat 0.900
     1 cat -> it 0.500
    """
    if len(top) != len(tokens):
        raise ValueError(f"top must have one entry per token ({len(tokens)}), got {len(top)}")
    width = max((len(t) for t in tokens), default=0)
    digits = len(str(max(len(tokens) - 1, 0)))
    lines = []
    for i, (tok, best) in enumerate(zip(tokens, top, strict=True)):
        targets = ", ".join(f"{t} {w:.3f}" for t, w in best)
        lines.append(f"{i:>{digits + 1}} {tok:<{width}} -> {targets}")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m booktools.show_attention``.

    Returns
    -------
    argparse.ArgumentParser

    Examples
    --------
    >>> args = build_parser().parse_args(["A sentence.", "--layer", "4", "--head", "mean"])
    >>> args.layer, args.head, args.top, args.out.name
    (4, 'mean', 3, 'attention.png')
    """
    parser = argparse.ArgumentParser(
        prog="python -m booktools.show_attention",
        description="Show which tokens each token attends to in one head of all-MiniLM-L6-v2.",
    )
    parser.add_argument("sentence", help="the text to encode")
    parser.add_argument(
        "--layer", type=int, default=4, help=f"layer 0..{NUM_LAYERS - 1} (default 4)"
    )
    parser.add_argument(
        "--head", type=parse_head, default=0, help=f"head 0..{NUM_HEADS - 1}, or 'mean' (default 0)"
    )
    parser.add_argument("--top", type=int, default=3, help="tokens listed per token (default 3)")
    parser.add_argument(
        "--skip-special",
        action="store_true",
        help="never list [CLS] and [SEP] as attended tokens (the heatmap still shows them)",
    )
    parser.add_argument(
        "--temperature", type=float, default=1.0, help="softmax temperature (default 1)"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("attention.png"),
        help="heatmap PNG (default attention.png)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the explorer: print the top-attended tokens and write the heatmap.

    Parameters
    ----------
    argv : sequence of str, optional
        Command-line arguments without the program name; defaults to
        ``sys.argv[1:]``.

    Returns
    -------
    int
        0 on success (bad arguments exit with status 2, as argparse does).

    Raises
    ------
    SystemExit
        On bad arguments.
    selfattention.minilm.ModelNotFoundError, selfattention.minilm.ChecksumError
        If the model package is missing or corrupt.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as d:
    ...     code = main(["The cat sat.", "--layer", "0", "--top", "1",
    ...                  "--out", str(Path(d) / "a.png")])  # doctest: +ELLIPSIS
    layer 0, head 0: 6 tokens
     0 [CLS] -> ...
     5 [SEP] -> ...
    wrote .../a.png
    >>> code
    0
    """
    matplotlib.use("Agg")  # a file, never a window
    parser = build_parser()
    args = parser.parse_args(argv)
    if not 0 <= args.layer < NUM_LAYERS:
        parser.error(f"--layer must be in 0..{NUM_LAYERS - 1}, got {args.layer}")
    if args.head != MEAN and not 0 <= args.head < NUM_HEADS:
        parser.error(f"--head must be in 0..{NUM_HEADS - 1} or 'mean', got {args.head}")
    if args.top < 1:
        parser.error(f"--top must be at least 1, got {args.top}")
    if not (args.temperature > 0 and np.isfinite(args.temperature)):
        parser.error(f"--temperature must be a positive number, got {args.temperature}")

    enc = minilm.encode(args.sentence)
    weights = head_weights(enc.scores, args.layer, args.head, temperature=args.temperature)
    which = "mean of 12 heads" if args.head == MEAN else f"head {args.head}"
    title = f"layer {args.layer}, {which}"
    if args.temperature != 1.0:
        title += f", temperature {args.temperature:g}"
    print(f"{title}: {len(enc.tokens)} tokens")
    skip = [0, len(enc.tokens) - 1] if args.skip_special else []
    print(format_top(enc.tokens, top_attended(weights, enc.tokens, args.top, skip=skip)))
    save_png(plot_attention(weights, enc.tokens, title), args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
