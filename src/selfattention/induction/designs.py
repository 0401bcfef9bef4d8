"""Where positions enter, and what each design grows: the book's ``"qk0"`` against ``"qk"`` and ``"stream"``.

The three designs (:data:`~selfattention.induction.model.DESIGNS`) differ only in where the learned
positions ``W_pos`` are added (see :mod:`selfattention.induction.model`): to layer 0's queries and keys
only (``"qk0"``, the book's model), to every layer's queries and keys
(``"qk"``), or to the residual stream (``"stream"``). The experiment trains each
with the book's seed and settings (:func:`~selfattention.induction.training.train`, only
``Sizes.positions`` changed; the ``"qk0"`` run is the shipped one) and measures
what each grew:

* the classic test at every ``k`` and offset (:func:`~.circuits.classic_table`,
  :data:`CLASSIC_SEQUENCES` per cell, seed :data:`CLASSIC_SEED`): how many of
  the cells meet each target, the lowest score and the highest loss ratio;
* the heads, named by their scores on :data:`NAMING_SEQUENCES` classic-test
  sequences, and each head's ablation "back" on the whole classic test
  (:func:`~.circuits.classic_ablations`);
* the mean attention of every head on the cells :data:`ATTENTION_CELLS`, so a
  page can show where each design's heads look without its weights;
* the held-out history of the run (its checkpoints) and its phase change.

``python -m selfattention.induction experiment`` (``make induction-experiment``)
runs it and writes ``positions.npz`` beside this module; :func:`load_experiment`
reads it (as package data, like the weights).
"""

from __future__ import annotations

import io
import json
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from importlib import resources
from pathlib import Path

import numpy as np

from .circuits import classic_ablations, classic_summary, classic_table, named_heads, phase_change, scores_and_losses
from .model import SIZES, Sizes, forward
from .task import classic_batch, classic_mix
from .training import CHECKPOINT_KEYS, digest, load, save, train

#: Where the experiment's results are shipped.
RESULTS = Path(__file__).with_name("positions.npz")
#: The classic table: random sequences per (k, offset) cell,
CLASSIC_SEQUENCES = 128
#: and their seed (fixed before looking).
CLASSIC_SEED = 7
#: The pooled ablations: sequences per cell,
ABLATION_SEQUENCES = 32
#: and their seed.
ABLATION_SEED = 2022
#: The heads are named (and their scores given) on this many classic-test sequences of this seed.
NAMING_SEQUENCES = 512
NAMING_SEED = 2022
#: The (k, offset) cells whose mean attention is kept, and the sequences each averages.
ATTENTION_CELLS = ((4, 0), (8, 8), (4, 24))
ATTENTION_SEQUENCES = 128


def mean_attention(params, *, sizes: Sizes = SIZES, cells=ATTENTION_CELLS, n_sequences: int = ATTENTION_SEQUENCES,
                   seed: int = CLASSIC_SEED) -> np.ndarray:
    """Every head's attention weights averaged over classic-test sequences, cell by cell.

    Returns
    -------
    numpy.ndarray, shape (cells, layers, most heads, n, n)
        NaN where a layer has fewer heads. In a cell every sequence has its
        two copies at the same places, so the mean shows where a head looks.

    Examples
    --------
    >>> w = mean_attention(load()["params"], cells=((4, 0),), n_sequences=8)
    >>> w.shape, bool(w[0, 1, 0, 5, 2] > 0.5)             # the query at 5 reads the key at 2: 5 - 4 + 1
    ((1, 2, 2, 32, 32), True)
    """
    n = sizes.n_positions
    out = np.full((len(cells), sizes.layers, max(sizes.heads), n, n), np.nan)
    for c, (k, offset) in enumerate(cells):
        batch = classic_batch(k, offset, n_sequences, np.random.default_rng([seed, k, offset]), n, sizes.vocab)
        _, trace = forward(params, batch.tokens, sizes=sizes)
        for layer, h in enumerate(sizes.heads):
            out[c, layer, :h] = trace[layer]["weights"].mean(axis=0)    # (h, n, n)
    return out


def _ragged(scores: np.ndarray, sizes: Sizes) -> list[list[float]]:
    return [[round(float(scores[layer, a]), 6) for a in range(h)] for layer, h in enumerate(sizes.heads)]


def summarise(params, checkpoints: dict, *, sizes: Sizes = SIZES, classic_sequences: int = CLASSIC_SEQUENCES,
              ablation_sequences: int = ABLATION_SEQUENCES, attention_sequences: int = ATTENTION_SEQUENCES) -> dict:
    """What one trained design grew: its named heads, the classic test, the ablations, the phase change.

    Parameters
    ----------
    params : dict of numpy.ndarray
    checkpoints : dict
        The run's checkpoints, as :func:`~.training.train` returns them.
    sizes : Sizes, keyword-only
        The design is ``sizes.positions``.
    classic_sequences, ablation_sequences, attention_sequences : int, keyword-only
        Sequences per cell (fewer for a quick look).

    Returns
    -------
    dict
        ``summary``, plain JSON: ``design``, ``named`` heads, ``previous`` and
        ``induction`` scores of every head (one list per layer), ``classic``
        (:func:`~.circuits.classic_summary` of the induction head's table),
        ``ablation`` (per head ``"l.a"``: ``first``, ``second``, ``back``),
        ``phase_change`` of the held-out repeated-part loss and ``phase_change_score``
        of the induction head's held-out score (the same rule on its negative:
        its ``rate`` is the steepest rise), ``final_held_out`` losses, and ``digest``;
        and the arrays ``score`` and ``ratio`` (k × offset), ``attention``
        (:func:`mean_attention`).

    Examples
    --------
    >>> shipped = load()
    >>> s = summarise(shipped["params"], shipped["checkpoints"], classic_sequences=4, ablation_sequences=1,
    ...               attention_sequences=2)
    >>> s["summary"]["named"], s["summary"]["classic"]["cells"], s["score"].shape
    ({'previous': [0, 0], 'induction': [1, 0]}, 169, (13, 25))
    """
    naming = classic_mix(NAMING_SEQUENCES, np.random.default_rng(NAMING_SEED), sizes.n_positions, sizes.vocab)
    named = named_heads(params, naming, sizes=sizes)
    scores = scores_and_losses(params, naming, sizes=sizes)
    table = classic_table(params, named["induction"], sizes=sizes, n_sequences=classic_sequences, seed=CLASSIC_SEED)
    ablations = classic_ablations(params, sizes=sizes, n_sequences=ablation_sequences, seed=ABLATION_SEED)
    layer, a = named["induction"]
    curve = phase_change(checkpoints["step"], checkpoints["repeated_loss"])
    rise = phase_change(checkpoints["step"], -np.asarray(checkpoints["induction"])[:, layer, a])
    summary = {
        "design": sizes.positions,
        "named": {role: list(head) for role, head in named.items()},
        "previous": _ragged(scores["previous"], sizes), "induction": _ragged(scores["induction"], sizes),
        "classic": classic_summary(table),
        "ablation": {f"{head[0]}.{head[1]}" if head else "none": {"first": first, "second": second, "back": back}
                     for head, (first, second, back) in ablations.items()},
        "phase_change": curve,
        "phase_change_score": rise,
        "final_held_out": {k: float(checkpoints[k][-1]) for k in ("repeated_loss", "first_loss", "rest_loss")},
        "digest": digest(params),
    }
    return {"summary": summary, "score": table["score"], "ratio": table["ratio"],
            "attention": mean_attention(params, sizes=sizes, n_sequences=attention_sequences)}


def _train_design(positions: str, steps: int | None) -> dict:
    """One design's run with the book's settings (a process of its own runs it)."""
    return train(sizes=SIZES._replace(positions=positions), **({} if steps is None else {"steps": steps}))


def positions_experiment(*, designs=("qk", "stream"), steps: int | None = None, path=RESULTS,
                         runs_dir=None, workers: int = 2, log=None) -> dict:
    """Train ``designs`` from the book's seed and settings; summarise them and the shipped ``"qk0"`` run in ``path``.

    Parameters
    ----------
    designs : sequence of str, keyword-only
        The designs to train (each in a process of its own, ``workers`` at a time).
    steps : int, keyword-only
        Steps of each run, if not the book's (then the comparison with the shipped run is not like for like).
    path : str or Path, keyword-only
        Where the results go (by default ``positions.npz`` beside this module).
    runs_dir : str or Path, keyword-only
        If given, each trained design's whole run is also saved there as ``<design>.npz`` (:func:`~.training.save`).
    workers : int, keyword-only
    log : callable, keyword-only
        Called with a line of progress.

    Returns
    -------
    dict
        As :func:`load_experiment` gives it.
    """
    log = log or (lambda line: None)
    runs = {}
    context = multiprocessing.get_context("spawn")                     # a fresh interpreter per design
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = {d: pool.submit(_train_design, d, steps) for d in designs}
        for design, future in futures.items():
            runs[design] = future.result()
            log(f"trained {design} in {runs[design]['seconds']:.1f} s")
            if runs_dir is not None:
                Path(runs_dir).mkdir(parents=True, exist_ok=True)
                save(runs[design], Path(runs_dir) / f"{design}.npz", sizes=SIZES._replace(positions=design),
                     **({} if steps is None else {"steps": steps}))
    shipped = load()                                                   # read after the training: it may be remade
    return write_experiment({"qk0": shipped, **runs}, path, log=log)


def write_experiment(runs: dict, path=RESULTS, *, log=None, **counts) -> dict:
    """Summarise trained runs, one per design (:func:`summarise`), and write them to ``path``.

    Parameters
    ----------
    runs : dict
        Design -> a run, as :func:`~.training.train` or :func:`~.training.load` gives it.
    path : str or Path
    log : callable, keyword-only
    **counts
        Sequences per cell for :func:`summarise` (fewer for a quick look).

    Returns
    -------
    dict
        As :func:`load_experiment` gives it.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "p.npz")
    >>> out = write_experiment({"qk0": load()}, path, classic_sequences=1, ablation_sequences=1,
    ...                        attention_sequences=1)
    >>> out["designs"]["qk0"]["attention"].shape
    (3, 2, 2, 32, 32)
    """
    log = log or (lambda line: None)
    first = next(iter(runs.values()))
    meta = {"designs": list(runs), "settings": first["meta"]["training"] if "meta" in first else None,
            "steps": {d: int(r["checkpoints"]["step"][-1]) for d, r in runs.items()},
            "classic": {"sequences_per_cell": counts.get("classic_sequences", CLASSIC_SEQUENCES), "seed": CLASSIC_SEED},
            "ablation": {"sequences_per_cell": counts.get("ablation_sequences", ABLATION_SEQUENCES),
                         "seed": ABLATION_SEED},
            "naming": {"sequences": NAMING_SEQUENCES, "seed": NAMING_SEED},
            "attention": {"cells": [list(c) for c in ATTENTION_CELLS],
                          "sequences": counts.get("attention_sequences", ATTENTION_SEQUENCES)},
            "summaries": {}}
    arrays = {}
    for design, run in runs.items():
        s = summarise(run["params"], run["checkpoints"], sizes=SIZES._replace(positions=design), **counts)
        log(f"summarised {design}: {s['summary']['classic']['both_ok']} of {s['summary']['classic']['cells']} cells")
        meta["summaries"][design] = s["summary"]
        arrays.update({f"{design}.score": s["score"], f"{design}.ratio": s["ratio"],
                       f"{design}.attention": s["attention"].astype(np.float32)})
        arrays.update({f"{design}.checkpoints.{k}": np.asarray(run["checkpoints"][k], np.float32 if k != "step"
                                                               else np.int64) for k in CHECKPOINT_KEYS})
    np.savez_compressed(path, **arrays, meta=np.array(json.dumps(meta, sort_keys=True)))
    return load_experiment(path)


def load_experiment(path=None) -> dict:
    """The positions experiment's results: the shipped ``positions.npz``, or a file it wrote.

    Returns
    -------
    dict
        ``meta`` (the settings), and ``designs``: for each of ``"qk0"``, ``"qk"``
        and ``"stream"``, its ``summary`` (see :func:`summarise`), ``score`` and
        ``ratio`` (k × offset tables; k from 4 to 16 by row, offset by column),
        ``attention`` (cells × layers × most heads × n × n, float32) and
        ``checkpoints`` (the run's held-out history, float32).

    Examples
    --------
    >>> results = load_experiment()
    >>> list(results["designs"])
    ['qk0', 'qk', 'stream']
    >>> qk0 = results["designs"]["qk0"]["summary"]
    >>> qk0["classic"]["cells"], qk0["named"]["induction"]
    (169, [1, 0])
    """
    raw = (resources.files(__package__) / RESULTS.name).read_bytes() if path is None else Path(path).read_bytes()
    with np.load(io.BytesIO(raw)) as f:
        data = {k: f[k] for k in f.files}
    meta = json.loads(str(data.pop("meta")))
    designs = {}
    for design in meta["designs"]:
        part = {k.partition(".")[2]: v for k, v in data.items() if k.startswith(f"{design}.")}
        designs[design] = {"summary": meta["summaries"][design], "score": part["score"], "ratio": part["ratio"],
                           "attention": part["attention"],
                           "checkpoints": {k.partition(".")[2]: v for k, v in part.items()
                                           if k.startswith("checkpoints.")}}
    return {"meta": {k: v for k, v in meta.items() if k != "summaries"}, "designs": designs}


def results_table(results: dict) -> list[str]:
    """The experiment as the lines of a Markdown table: one row per design.

    Examples
    --------
    >>> lines = results_table(load_experiment())
    >>> len(lines), lines[0].endswith("| back: 0.0, 0.1, 1.0 |"), lines[2].startswith("| qk0 | 167/169 |")
    (5, True, True)
    """
    heads = [head for head in next(iter(results["designs"].values()))["summary"]["ablation"] if head != "none"]
    lines = ["| positions enter | cells passing both | score >= 0.6 | ratio <= 0.25 | min score | max ratio | back: "
             + ", ".join(heads) + " |", "|---|---|---|---|---|---|---|"]
    for design, r in results["designs"].items():
        c, ab = r["summary"]["classic"], r["summary"]["ablation"]
        lines.append(f"| {design} | {c['both_ok']}/{c['cells']} | {c['score_ok']} | {c['ratio_ok']} | "
                     f"{c['min_score']:.3f} at {tuple(c['min_score_at'])} | {c['max_ratio']:.3f} at "
                     f"{tuple(c['max_ratio_at'])} | " + ", ".join(f"{ab[h]['back']:.2f}" for h in heads) + " |")
    return lines

