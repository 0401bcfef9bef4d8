"""Training the copying model: Adam on fresh sequences, one step at a time, from one seed, and the shipped result.

:class:`Run` is a training run that takes one step when asked: it draws a new
batch of the copying task, takes one Adam step (Kingma and Ba, 2015) on
:func:`~.gradients.forward_backward`, and returns that step's numbers; its
:meth:`Run.checkpoint` measures every head's scores and the losses on a small
fixed set of held-out classic-test sequences. The book's in-browser lab drives
a :class:`Run` a few steps at a time; :func:`train` runs the very same steps,
so the two give the same numbers. Everything is float64; on one BLAS thread
(which :func:`train` sets, and the browser has) the same seed gives the same
numbers, bit for bit, on the same machine.

The step size is :data:`LEARNING_RATE` at first and falls as a cosine to a
tenth of it at the run's last step (:func:`learning_rate`).

``python -m selfattention.induction`` trains with the book's settings and
writes ``weights.npz`` beside this file: the parameters, the history and, as
JSON, the sizes, the task and the settings that made them. :func:`load` reads it.
"""

from __future__ import annotations

import hashlib
import io
import json
import time
from importlib import resources
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from .._validate import check_positive_int
from .circuits import scores_and_losses
from .gradients import forward_backward, token_losses
from .model import SIZES, Sizes, check_params, check_sizes, init_params, names
from .task import TASK, Task, classic_mix, copying_batch

#: The book's training run: its seed,
SEED = 0
#: its steps,
STEPS = 12000
#: the fresh sequences of each step,
BATCH = 32
#: and Adam's first step size.
LEARNING_RATE = 3e-3
#: The step size at the last step, as a share of the first (a cosine between them).
FINAL_SHARE = 0.1
#: Adam's two decay rates
BETAS = (0.9, 0.99)
#: and its small constant.
EPS = 1e-8
#: Steps between two checkpoints.
EVAL_EVERY = 25
#: How many held-out classic-test sequences each checkpoint measures (few enough for the browser to
#: measure every 25 steps).
N_HELD_OUT = 32
#: Where the trained model is shipped.
WEIGHTS = Path(__file__).with_name("weights.npz")
#: What a step and a checkpoint report (the keys of :meth:`Run.step` and :meth:`Run.checkpoint`).
STEP_KEYS = ("step", "loss", "repeated_loss", "rest_loss", "learning_rate")
CHECKPOINT_KEYS = ("step", "repeated_loss", "first_loss", "rest_loss", "previous", "induction")
#: The history the shipped file keeps: the training loss of every step, and every checkpoint.
SAVED_HISTORY = ("loss",)


def learning_rate(step: int, *, total: int = STEPS, lr: float = LEARNING_RATE, warmup: int = 0,
                  decay: bool = True) -> float:
    """The step size of step ``step`` (from 1): a cosine from ``lr`` to ``FINAL_SHARE * lr`` at step ``total``.

    ``warmup`` steps first raise it linearly from 0; without ``decay`` it stays at ``lr``.

    Examples
    --------
    >>> [round(learning_rate(s, total=100), 5) for s in (1, 50, 100)]
    [0.003, 0.00165, 0.0003]
    """
    rate = lr * min(1.0, step / warmup) if warmup else lr
    if decay and step > warmup:
        cosine = np.cos(np.pi * (step - warmup) / max(1, total - warmup))     # 1 at the start, -1 at the end
        rate = lr * (FINAL_SHARE + (1 - FINAL_SHARE) / 2 * (1 + cosine))
    return float(rate)


def adam_step(params, grads, state, step: int, *, lr: float = LEARNING_RATE) -> None:
    """One Adam step, in place: ``params`` and the moments in ``state`` change.

    ``m = b1 m + (1 - b1) g``, ``v = b2 v + (1 - b2) g^2``, then
    ``p -= lr * m_hat / (sqrt(v_hat) + eps)`` with the bias-corrected moments.

    Examples
    --------
    >>> p, g = {"w": np.array([1.0])}, {"w": np.array([0.5])}
    >>> state = {"m": {"w": np.zeros(1)}, "v": {"w": np.zeros(1)}}
    >>> adam_step(p, g, state, 1, lr=0.1)
    >>> p["w"].round(6).tolist()   # the first step moves by lr, whatever the gradient's size
    [0.9]
    """
    b1, b2 = BETAS
    for name, g in grads.items():
        state["m"][name] = b1 * state["m"][name] + (1 - b1) * g
        state["v"][name] = b2 * state["v"][name] + (1 - b2) * g * g
        m_hat = state["m"][name] / (1 - b1 ** step)
        v_hat = state["v"][name] / (1 - b2 ** step)
        params[name] -= lr * m_hat / (np.sqrt(v_hat) + EPS)


def digest(params) -> str:
    """SHA-256 of the parameters' names and bytes, in sorted order of the names: equal digests, equal bits.

    Examples
    --------
    >>> digest(init_params(0)) == digest(init_params(0)), digest(init_params(0)) == digest(init_params(1))
    (True, False)
    """
    h = hashlib.sha256()
    for name in sorted(params):
        h.update(name.encode())
        h.update(np.ascontiguousarray(params[name], dtype=np.float64).tobytes())
    return h.hexdigest()


def _ragged(scores: np.ndarray, sizes: Sizes) -> list[list[float]]:
    """A (layers, most heads) array with NaN padding as one list of floats per layer (plain JSON)."""
    return [[float(scores[layer, a]) for a in range(h)] for layer, h in enumerate(sizes.heads)]


class Run:
    """A training run that takes one Adam step at a time: what :func:`train` does, and what the browser drives.

    Parameters
    ----------
    seed : int, keyword-only
        The starting parameters, the training batches and the held-out set all come from it.
    steps : int, keyword-only
        The run's length: the step size falls as a cosine to its last step
        (:func:`learning_rate`); :meth:`step` refuses to go further.
    batch : int, keyword-only
        Fresh training sequences per step.
    lr : float, keyword-only
        The first step size.
    warmup : int, keyword-only
        Steps of linear warm-up (0: none).
    decay : bool, keyword-only
        Whether the step size falls (a cosine) or stays.
    n_held_out : int, keyword-only
        Classic-test sequences (each its own ``k`` and offset) that every checkpoint measures.
    task : Task, keyword-only
    sizes : Sizes, keyword-only

    Attributes
    ----------
    params : dict of numpy.ndarray
        The parameters now (changed in place by each step).
    done : int
        Steps taken so far.
    held_out : Batch
        The checkpoints' sequences.

    Examples
    --------
    >>> run = Run(steps=100)
    >>> first = run.step()
    >>> sorted(first), first["step"]
    (['learning_rate', 'loss', 'repeated_loss', 'rest_loss', 'step'], 1)
    >>> bool(first["repeated_loss"] > 3.5 and first["rest_loss"] > 3.5)   # untrained: about log 52 = 3.95
    True
    >>> c = run.checkpoint()
    >>> c["step"], [len(layer) for layer in c["induction"]]                # one score per head of each layer
    (1, [2, 1])
    """

    def __init__(self, *, seed: int = SEED, steps: int = STEPS, batch: int = BATCH, lr: float = LEARNING_RATE,
                 warmup: int = 0, decay: bool = True, n_held_out: int = N_HELD_OUT, task: Task = TASK,
                 sizes: Sizes = SIZES):
        self.sizes = check_sizes(sizes)
        if task.n_positions != sizes.n_positions or len(task.symbols) != sizes.vocab:
            raise ValueError(f"the task ({task.n_positions} positions, {len(task.symbols)} symbols) and the model "
                             f"({sizes.n_positions} positions, {sizes.vocab} symbols) must agree")
        self.task, self.seed = task, seed
        self.steps, self.batch = check_positive_int(steps, "steps"), check_positive_int(batch, "batch")
        self.lr, self.warmup, self.decay = float(lr), int(warmup), bool(decay)
        self.params = init_params(seed, sizes)
        self.rng = np.random.default_rng([seed, 1])
        self.held_out = classic_mix(check_positive_int(n_held_out, "n_held_out"), np.random.default_rng([seed, 2]),
                                    sizes.n_positions, sizes.vocab)
        self.state = {"m": {k: np.zeros_like(v) for k, v in self.params.items()},
                      "v": {k: np.zeros_like(v) for k, v in self.params.items()}}
        self.done = 0

    def step(self) -> dict:
        """Take one Adam step on a fresh batch; return that step's numbers (plain Python numbers).

        Returns
        -------
        dict
            ``step`` (from 1), ``loss`` (the mean loss of the batch, which the
            step lowers), ``repeated_loss`` (of the batch's predictions whose
            next symbol a copy determines: the second copies), ``rest_loss``
            (of the others) and ``learning_rate`` (this step's step size).

        Raises
        ------
        RuntimeError
            If the run has taken all its ``steps``.
        """
        if self.done >= self.steps:
            raise RuntimeError(f"the run has taken all its {self.steps} steps")
        self.done += 1
        batch = copying_batch(self.batch, self.rng, self.task)
        logits, loss, grads = forward_backward(self.params, batch.tokens, sizes=self.sizes)
        rate = learning_rate(self.done, total=self.steps, lr=self.lr, warmup=self.warmup, decay=self.decay)
        adam_step(self.params, grads, self.state, self.done, lr=rate)
        nll = token_losses(logits, batch.tokens)                       # (B, n - 1), before the step
        return {"step": self.done, "loss": loss, "repeated_loss": float(nll[batch.second].mean()),
                "rest_loss": float(nll[~batch.second].mean()), "learning_rate": rate}

    def checkpoint(self) -> dict:
        """Measure the model now on the held-out classic-test sequences.

        Returns
        -------
        dict
            ``step`` (steps taken), ``repeated_loss`` (the second copies'
            predictions), ``first_loss`` (the first copies'), ``rest_loss``
            (every prediction not in a second copy), and ``previous`` and
            ``induction``: every head's previous-token and induction score, one
            list per layer (the book's model: ``[[h0.0, h0.1], [h1.0]]``).
        """
        m = scores_and_losses(self.params, self.held_out, sizes=self.sizes)
        return {"step": self.done, "repeated_loss": m["second"], "first_loss": m["first"], "rest_loss": m["rest"],
                "previous": _ragged(m["previous"], self.sizes), "induction": _ragged(m["induction"], self.sizes)}


def _stack(rows: list[dict], sizes: Sizes) -> dict[str, np.ndarray]:
    """Step or checkpoint dicts as one array per key; per-layer lists as (C, layers, most heads), NaN-padded."""
    out = {}
    for key in rows[0]:
        if isinstance(rows[0][key], list):
            arr = np.full((len(rows), sizes.layers, max(sizes.heads)), np.nan)
            for c, row in enumerate(rows):
                for layer, scores in enumerate(row[key]):
                    arr[c, layer, :len(scores)] = scores
            out[key] = arr
        else:
            out[key] = np.array([row[key] for row in rows])
    return out


def train(*, seed: int = SEED, steps: int = STEPS, batch: int = BATCH, lr: float = LEARNING_RATE,
          warmup: int = 0, decay: bool = True, schedule_steps: int | None = None, eval_every: int = EVAL_EVERY,
          n_held_out: int = N_HELD_OUT, task: Task = TASK, sizes: Sizes = SIZES, log=None) -> dict:
    """Train the copying model from ``seed``: a :class:`Run` stepped ``steps`` times, on one BLAS thread.

    Parameters
    ----------
    seed, steps, batch : int, keyword-only
    lr : float, keyword-only
    warmup : int, keyword-only
    decay : bool, keyword-only
    schedule_steps : int, keyword-only
        The run's length for the step size's cosine, if not ``steps``: give the
        full run's length to repeat a prefix of it.
    eval_every : int, keyword-only
        Steps between checkpoints (there is one before the first step and one after the last).
    n_held_out : int, keyword-only
    task : Task, keyword-only
    sizes : Sizes, keyword-only
    log : callable, keyword-only
        Called with one line of text at each checkpoint.

    Returns
    -------
    dict
        ``params``; ``history``: :meth:`Run.step`'s numbers, one array of
        length ``steps`` per key; ``checkpoints``: :meth:`Run.checkpoint`'s,
        one array per key, ``previous`` and ``induction`` as (C, layers, most
        heads) with NaN where a layer has fewer heads; ``seconds`` the
        wall-clock time of the loop.

    Examples
    --------
    >>> run = train(steps=3, eval_every=2)
    >>> run["history"]["loss"].shape, run["checkpoints"]["step"].tolist(), run["checkpoints"]["induction"].shape
    ((3,), [0, 2, 3], (3, 2, 2))
    >>> bool(np.isnan(run["checkpoints"]["induction"][0, 1, 1]))      # layer 1 has one head only
    True
    """
    steps, eval_every = check_positive_int(steps, "steps"), check_positive_int(eval_every, "eval_every")
    total = steps if schedule_steps is None else check_positive_int(schedule_steps, "schedule_steps")
    if total < steps:
        raise ValueError(f"schedule_steps={total} is shorter than the {steps} steps to take")
    run = Run(seed=seed, steps=total, batch=batch, lr=lr, warmup=warmup, decay=decay, n_held_out=n_held_out,
              task=task, sizes=sizes)
    history, checkpoints = [], []
    with threadpool_limits(limits=1):
        start = time.perf_counter()
        checkpoints.append(run.checkpoint())
        for _ in range(steps):
            history.append(run.step())
            if run.done % eval_every == 0 or run.done == steps:
                checkpoints.append(run.checkpoint())
                if log:
                    c = checkpoints[-1]
                    recent = np.mean([h["loss"] for h in history[-eval_every:]])
                    log(f"{run.done:6d} {time.perf_counter() - start:7.1f} s  loss {recent:.3f}  held-out: "
                        f"repeated {c['repeated_loss']:.3f} first {c['first_loss']:.3f}  "
                        f"induction {np.round(c['induction'][-1], 2).tolist()}  "
                        f"previous {np.round(c['previous'][0], 2).tolist()}")
        seconds = time.perf_counter() - start
    return {"params": run.params, "history": _stack(history, run.sizes), "checkpoints": _stack(checkpoints, run.sizes),
            "seconds": seconds}


def run_meta(run: dict, *, seed: int = SEED, steps: int | None = None, batch: int = BATCH, lr: float = LEARNING_RATE,
             warmup: int = 0, decay: bool = True, eval_every: int = EVAL_EVERY, n_held_out: int = N_HELD_OUT,
             task: Task = TASK, sizes: Sizes = SIZES) -> dict:
    """The JSON record of how a run of :func:`train` was made: sizes, task, training settings and history's layout.

    Examples
    --------
    >>> meta = run_meta(train(steps=2, eval_every=1))
    >>> sorted(meta), meta["sizes"]["positions"], meta["training"]["steps"]
    (['digest', 'format', 'history', 'parameters', 'sizes', 'task', 'training'], 'qk0', 2)
    """
    steps = len(run["history"]["loss"]) if steps is None else steps
    return {
        "format": "selfattention.induction run, version 2",
        "sizes": {**sizes._asdict(), "heads": list(sizes.heads), "layers": sizes.layers},
        "task": {**task._asdict(), "lengths": list(task.lengths)},
        "training": {"seed": seed, "steps": steps, "batch": batch, "optimizer": "Adam", "betas": list(BETAS),
                     "eps": EPS, "learning_rate": lr, "final_learning_rate": lr * FINAL_SHARE if decay else lr,
                     "schedule": "cosine" if decay else "constant", "warmup": warmup, "float": "float64",
                     "blas_threads": 1},
        "history": {"eval_every": eval_every, "held_out": f"classic_mix({n_held_out}, default_rng([{seed}, 2]))",
                    "saved": [f"history.{k}" for k in SAVED_HISTORY] + [f"checkpoints.{k}" for k in CHECKPOINT_KEYS]},
        "parameters": int(sum(v.size for v in run["params"].values())),
        "digest": digest(run["params"]),
    }


def save(run: dict, path=WEIGHTS, **settings) -> None:
    """Write a run of :func:`train` as ``.npz``: the parameters, the history, and the JSON ``meta`` that made it.

    The file holds the parameters by name (``W_E`` … ``W_U``), ``history.loss``
    (the training loss of every step), ``checkpoints.<key>`` for each key of
    :meth:`Run.checkpoint`, and ``meta`` (:func:`run_meta`, given the
    ``settings`` the run was trained with). ``meta`` is enough to write an
    independent forward pass: ``sizes`` holds ``vocab``, ``n_positions``,
    ``d_model``, ``heads`` (one count per layer), ``d_head`` and ``positions``
    (``"qk0"``, ``"qk"`` or ``"stream"``); ``task`` the alphabet and how copies are drawn.
    """
    meta = run_meta(run, **settings)
    arrays = {**run["params"], **{f"history.{k}": run["history"][k] for k in SAVED_HISTORY},
              **{f"checkpoints.{k}": run["checkpoints"][k] for k in CHECKPOINT_KEYS}}
    np.savez_compressed(path, **arrays, meta=np.array(json.dumps(meta, sort_keys=True)))


def load(path=None) -> dict:
    """The shipped run, or a run written by :func:`save`.

    Parameters
    ----------
    path : str or Path, optional
        A run written by :func:`save`. By default, the shipped ``weights.npz``,
        read as package data, so that it is found wherever the package is:
        in a folder, or inside a zip (the book's in-browser Python).

    Returns
    -------
    dict
        ``params`` (checked), ``sizes`` (:class:`~.model.Sizes`), ``task``
        (:class:`~.task.Task`), ``meta`` (the JSON record), ``history``
        (``loss`` of every step) and ``checkpoints`` (as :func:`train` gives them).

    Examples
    --------
    >>> run = load()
    >>> run["params"]["W_E"].shape, run["sizes"].heads, int(run["checkpoints"]["step"][-1]) == STEPS
    ((52, 64), (2, 1), True)
    """
    raw = (resources.files(__package__) / WEIGHTS.name).read_bytes() if path is None else Path(path).read_bytes()
    with np.load(io.BytesIO(raw)) as f:
        data = {k: f[k] for k in f.files}
    meta = json.loads(str(data["meta"]))
    sizes = Sizes(**{k: meta["sizes"][k] for k in Sizes._fields} | {"heads": tuple(meta["sizes"]["heads"])})
    task = Task(**meta["task"] | {"lengths": tuple(meta["task"]["lengths"])})
    return {"params": check_params({k: data[k] for k in names(sizes)}, sizes), "sizes": sizes, "task": task,
            "meta": meta,
            "history": {k.partition(".")[2]: v for k, v in data.items() if k.startswith("history.")},
            "checkpoints": {k.partition(".")[2]: v for k, v in data.items() if k.startswith("checkpoints.")}}
