"""Training the writer: Adam on random windows of the corpus, from one seed, and its weight file.

:func:`train_writer` builds the tokenizer from the whole corpus, keeps the
last tenth as held-out text (:func:`~selfattention.writer.corpus.split_corpus`),
and at every step reads a batch of windows of ``n_positions + 1``
characters starting at random places of the training text
(:func:`random_windows`), then takes one Adam step, chapter 15's
:func:`~selfattention.induction.training.adam_step`, on
:func:`~selfattention.writer.gradients.writer_loss_and_gradients`. The step
size warms up linearly for ``warmup`` steps, then follows a cosine down to a
tenth of its peak (:func:`cosine_learning_rate`). Every ``eval_every`` steps
it measures the held-out bits per character and records the greedy
continuation of :data:`SAMPLE_PROMPT`. Everything is float64 on one
BLAS thread, so the same seed gives the same numbers, bit for bit, on the
same machine.

:func:`save_writer` writes a run as ``.npz``: each parameter (float16 by
default: 2 bytes a number), the history, and one JSON string, ``meta``, with
the sizes, the tokenizer's characters and the settings; :func:`load_writer`
reads it back, the parameters as float64.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import numbers
import time
from dataclasses import asdict
from importlib import resources
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from .._validate import check_positive_int
from ..induction.training import adam_step
from .corpus import HELD_OUT, read_corpus, split_corpus
from .gradients import writer_loss_and_gradients
from .model import NAMES, WriterSizes, check_writer_params, init_writer
from .ngrams import bits_per_character
from .sampling import write
from .tokenizer import CharTokenizer

#: The settings of a run: seed, steps, windows per step, peak step size, warm-up steps, steps between
#: held-out measurements.
SEED = 0
STEPS = 1600
BATCH = 32
LEARNING_RATE = 5e-3
WARMUP = 100
EVAL_EVERY = 100
#: The prompt whose greedy continuation every measurement records, and its length.
SAMPLE_PROMPT = "The weights of "
SAMPLE_LENGTH = 60
#: The step size at the end, as a share of the peak.
FINAL_SHARE = 0.1
#: Where the shipped weights go, beside this file.
WEIGHTS = Path(__file__).with_name("weights.npz")


def cosine_learning_rate(step: int, *, total: int, lr: float = LEARNING_RATE, warmup: int = WARMUP,
                         final_share: float = FINAL_SHARE) -> float:
    """The step size of step ``step`` (from 1): a linear warm-up, then a cosine down to ``final_share * lr``.

    Parameters
    ----------
    step : int
        From 1 to ``total``.
    total : int, keyword-only
    lr : float, keyword-only
        The peak, reached at the end of the warm-up.
    warmup : int, keyword-only
    final_share : float, keyword-only

    Returns
    -------
    float

    Raises
    ------
    TypeError, ValueError
        If ``step`` or ``total`` is not a positive integer, or ``step > total``.

    Examples
    --------
    >>> [round(cosine_learning_rate(s, total=300, lr=1.0, warmup=100), 3) for s in (1, 100, 200, 300)]
    [0.01, 1.0, 0.55, 0.1]
    """
    step, total = check_positive_int(step, "step"), check_positive_int(total, "total")
    if step > total:
        raise ValueError(f"step must be at most total={total}, got {step}")
    if step <= warmup:
        return lr * step / warmup
    done = (step - warmup) / max(total - warmup, 1)                    # 0 to 1 after the warm-up
    return lr * (final_share + (1 - final_share) * 0.5 * (1 + math.cos(math.pi * done)))


def random_windows(ids, batch: int, length: int, rng) -> np.ndarray:
    """``batch`` windows of ``length`` consecutive ids, each starting at a random place.

    Parameters
    ----------
    ids : array_like of int, shape (n,)
    batch, length : int
        ``length <= n``.
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray of int64, shape (batch, length)

    Raises
    ------
    TypeError, ValueError
        If ``ids`` is not 1-D, is shorter than ``length``, or ``rng`` is not a Generator.

    Examples
    --------
    >>> random_windows(np.arange(10), 2, 4, np.random.default_rng(0)).tolist()
    [[5, 6, 7, 8], [4, 5, 6, 7]]
    """
    ids = np.asarray(ids)
    batch, length = check_positive_int(batch, "batch"), check_positive_int(length, "length")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    if ids.ndim != 1 or ids.size < length:
        raise ValueError(f"ids must be 1-D with at least length={length} ids, got shape {ids.shape}")
    starts = rng.integers(0, ids.size - length + 1, batch)             # (batch,)
    return ids[starts[:, None] + np.arange(length)].astype(np.int64)   # (batch, length)


def weights_digest(params) -> str:
    """SHA-256 of the parameters' float64 bytes, in the order of ``NAMES``: equal digests, equal bits.

    Examples
    --------
    >>> sizes = WriterSizes(vocab=5, n_positions=4, d_model=8, heads=2, layers=1, d_ff=8)
    >>> weights_digest(init_writer(sizes, 0)) == weights_digest(init_writer(sizes, 0))
    True
    """
    h = hashlib.sha256()
    for name in NAMES:
        h.update(np.ascontiguousarray(params[name], dtype=np.float64).tobytes())
    return h.hexdigest()


def train_writer(text: str | None = None, *, sizes: WriterSizes | None = None, steps: int = STEPS,
                 batch: int = BATCH, lr: float = LEARNING_RATE, warmup: int = WARMUP, seed: int = SEED,
                 eval_every: int = EVAL_EVERY, held_out: float = HELD_OUT, schedule_steps: int | None = None,
                 log=None) -> dict:
    """Train the writer on ``text`` (the frozen corpus by default) and return it with its history.

    Parameters
    ----------
    text : str, optional
        The corpus; :func:`~selfattention.writer.corpus.read_corpus` by default.
    sizes : WriterSizes, optional, keyword-only
        Its ``vocab`` must be the tokenizer's; by default the sizes of
        :class:`~selfattention.writer.model.WriterSizes` with that vocab.
    steps, batch, warmup, seed, eval_every : int, keyword-only
    lr : float, keyword-only
        Peak step size.
    held_out : float, keyword-only
        The share at the end of ``text`` kept for measurements.
    schedule_steps : int, optional, keyword-only
        The length of the run whose step sizes to follow (``steps`` by
        default): with the run's own length, the first ``steps`` steps of a
        longer run are repeated exactly, as a test of the shipped weights does.
    log : callable, optional, keyword-only
        Called with a line of text at every measurement.

    Returns
    -------
    dict
        ``params``; ``sizes``; ``tokenizer``; ``step`` and ``loss`` (steps,),
        the training loss of each step in bits per character; ``eval_step``
        and ``held_out_bpc``, the held-out bits per character after those
        steps (0 is before training); ``seconds``, the time of the loop;
        ``settings``, the arguments.

    Raises
    ------
    TypeError, ValueError
        If an argument has the wrong type or value.

    Examples
    --------
    >>> sizes = WriterSizes(vocab=5, n_positions=8, d_model=8, heads=2, layers=1, d_ff=16)
    >>> run = train_writer("abcd" * 50, sizes=sizes, steps=20, batch=4, lr=1e-2, warmup=5, eval_every=10)
    >>> run["eval_step"].tolist(), bool(run["held_out_bpc"][-1] < run["held_out_bpc"][0])
    ([0, 10, 20], True)
    """
    text = read_corpus() if text is None else text
    tokenizer = CharTokenizer.from_corpus(text)
    sizes = WriterSizes(vocab=tokenizer.vocab) if sizes is None else sizes
    if not isinstance(sizes, WriterSizes):
        raise TypeError(f"sizes must be a WriterSizes, got {type(sizes).__name__}")
    if sizes.vocab != tokenizer.vocab:
        raise ValueError(f"sizes.vocab={sizes.vocab} but the corpus's tokenizer has vocab={tokenizer.vocab}")
    steps, batch, eval_every = (check_positive_int(v, name) for v, name in
                                ((steps, "steps"), (batch, "batch"), (eval_every, "eval_every")))
    total = steps if schedule_steps is None else check_positive_int(schedule_steps, "schedule_steps")
    if total < steps:
        raise ValueError(f"schedule_steps={total} must be at least steps={steps}")
    if isinstance(warmup, bool) or not isinstance(warmup, numbers.Integral) or warmup < 0:
        raise ValueError(f"warmup must be an integer >= 0, got {warmup!r}")
    if isinstance(lr, bool) or not isinstance(lr, numbers.Real) or not lr > 0:
        raise ValueError(f"lr must be a number above 0, got {lr!r}")
    train_text, held_text = split_corpus(text, held_out)
    train_ids, held_ids = tokenizer.encode(train_text), tokenizer.encode(held_text)
    params = init_writer(sizes, seed)
    rng = np.random.default_rng([seed, 1])
    state = {"m": {k: np.zeros_like(v) for k, v in params.items()},
             "v": {k: np.zeros_like(v) for k, v in params.items()}}
    losses, evals, samples = np.empty(steps), [], []
    with threadpool_limits(limits=1):
        start = time.perf_counter()

        def measure(step):
            evals.append((step, bits_per_character(params, held_ids, sizes)))
            prompt = tokenizer.encode(SAMPLE_PROMPT)
            samples.append(tokenizer.decode(write(params, prompt, SAMPLE_LENGTH, sizes)["ids"][len(prompt):]))
            if log is not None:
                recent = losses[max(step - eval_every, 0):step].mean() if step else float("nan")
                log(f"step {step:5d}  train {recent:.3f}  held-out {evals[-1][1]:.3f} bits/char  "
                    f"{time.perf_counter() - start:7.1f} s")

        measure(0)
        for step in range(1, steps + 1):
            windows = random_windows(train_ids, batch, sizes.n_positions + 1, rng)   # (batch, n + 1)
            loss, grads = writer_loss_and_gradients(params, windows, sizes)
            losses[step - 1] = loss / math.log(2)
            adam_step(params, grads, state, step,
                      lr=cosine_learning_rate(step, total=total, lr=lr, warmup=warmup))
            if step % eval_every == 0 or step == steps:
                measure(step)
        seconds = time.perf_counter() - start
    at, bpc = (np.array(c) for c in zip(*evals))
    settings = {"seed": seed, "steps": steps, "schedule_steps": total, "batch": batch, "lr": lr, "warmup": warmup,
                "final_share": FINAL_SHARE, "eval_every": eval_every, "held_out": held_out,
                "corpus_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
                "corpus_characters": len(text)}
    return {"params": params, "sizes": sizes, "tokenizer": tokenizer, "step": np.arange(1, steps + 1),
            "loss": losses, "eval_step": at.astype(np.int64), "held_out_bpc": bpc, "samples": samples,
            "seconds": seconds,
            "settings": settings}


def save_writer(run: dict, path=WEIGHTS, *, dtype=np.float16) -> int:
    """Write a run of :func:`train_writer` as ``.npz``; return the file's size in bytes.

    Parameters
    ----------
    run : dict
        From :func:`train_writer`.
    path : str or Path, default the shipped ``weights.npz``
    dtype : {numpy.float16, numpy.float32}, keyword-only
        The parameters' numbers in the file.

    Returns
    -------
    int

    Raises
    ------
    TypeError
        If ``dtype`` is neither float16 nor float32.

    Examples
    --------
    >>> import tempfile
    >>> sizes = WriterSizes(vocab=5, n_positions=8, d_model=8, heads=2, layers=1, d_ff=16)
    >>> run = train_writer("abcd" * 20, sizes=sizes, steps=2, batch=2)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     size = save_writer(run, Path(folder) / "w.npz")
    ...     back = load_writer(Path(folder) / "w.npz")
    >>> back["sizes"] == sizes, back["tokenizer"].chars, back["params"]["W_U"].dtype
    (True, 'abcd', dtype('float64'))
    """
    dtype = np.dtype(dtype)
    if dtype not in (np.float16, np.float32):
        raise TypeError(f"dtype must be float16 or float32, got {dtype}")
    sizes, tokenizer = run["sizes"], run["tokenizer"]
    params = check_writer_params(run["params"], sizes)
    meta = {"format": "selfattention.writer/1", "sizes": asdict(sizes), "chars": tokenizer.chars,
            "unknown": "\ufffd", "dtype": dtype.name, "names": list(NAMES), "ln_eps": 1e-5,
            "settings": run["settings"], "seconds": run["seconds"], "digest_float64": weights_digest(params),
            "sample_prompt": SAMPLE_PROMPT, "samples": list(run["samples"])}
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **{name: params[name].astype(dtype) for name in NAMES},
                        loss=run["loss"], eval_step=run["eval_step"],
                        held_out_bpc=run["held_out_bpc"], meta=np.array(json.dumps(meta, ensure_ascii=False)))
    data = buffer.getvalue()
    Path(path).write_bytes(data)
    return len(data)


def load_writer(path=None) -> dict:
    """Read a weight file of :func:`save_writer`: the parameters (as float64), sizes, tokenizer and history.

    Parameters
    ----------
    path : str or Path, optional
        By default the shipped ``weights.npz``, read as package data.

    Returns
    -------
    dict
        ``params``, ``sizes`` (WriterSizes), ``tokenizer`` (CharTokenizer),
        ``loss``, ``eval_step``, ``held_out_bpc``, ``samples`` (the greedy
        continuations of ``meta["sample_prompt"]`` at ``eval_step``) and
        ``meta`` (the JSON, as a dict).

    Raises
    ------
    FileNotFoundError
        If there is no such file (no weights are shipped yet).
    ValueError
        If the file is not a writer's weight file.

    Examples
    --------
    :func:`save_writer` shows a round trip.
    """
    raw = (resources.files(__package__) / WEIGHTS.name).read_bytes() if path is None else Path(path).read_bytes()
    with np.load(io.BytesIO(raw)) as f:
        data = {k: f[k] for k in f.files}
    if "meta" not in data:
        raise ValueError("not a writer weight file: it has no 'meta'")
    meta = json.loads(str(data["meta"]))
    if meta.get("format") != "selfattention.writer/1":
        raise ValueError(f"not a writer weight file: format {meta.get('format')!r}")
    sizes = WriterSizes(**meta["sizes"])
    params = check_writer_params({name: data[name] for name in NAMES}, sizes)
    return {"params": params, "sizes": sizes, "tokenizer": CharTokenizer(meta["chars"]), "loss": data["loss"],
            "eval_step": data["eval_step"], "held_out_bpc": data["held_out_bpc"],
            "samples": list(meta.get("samples", [])), "meta": meta}
