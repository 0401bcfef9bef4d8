"""Training: Adam on fresh batches of the copying task, with the classic test measured at checkpoints.

As ``selfattention.induction.training``: one Adam step (Kingma and Ba, 2015)
per fresh batch, float64 on one BLAS thread, so one seed gives one run. At
every ``eval_every`` steps (and before the first) the run measures, on a fixed
set of classic-test sequences (:func:`~.task.classic_mix`), every head's
previous-token and induction scores and the losses of the two copies.
"""

from __future__ import annotations

import hashlib
import time

import numpy as np
from threadpoolctl import threadpool_limits

from selfattention._validate import check_positive_int

from .circuits import _scores_and_losses, previous_token_scores
from .gradients import loss_and_gradients
from .model import SIZES, Sizes, init_params
from .task import TASK, Task, classic_mix, copying_batch

#: Seed, steps, sequences per step and Adam's step size of the proposal's run.
SEED = 0
STEPS = 12000
BATCH = 32
LEARNING_RATE = 3e-3
BETAS = (0.9, 0.99)
EPS = 1e-8
#: Steps between two checkpoints, and how many classic-test sequences each measures.
EVAL_EVERY = 25
N_HELD_OUT = 256


def adam_step(params, grads, state, step: int, *, lr: float = LEARNING_RATE) -> None:
    """One Adam step, in place.

    Examples
    --------
    >>> p, g = {"w": np.array([1.0])}, {"w": np.array([0.5])}
    >>> state = {"m": {"w": np.zeros(1)}, "v": {"w": np.zeros(1)}}
    >>> adam_step(p, g, state, 1, lr=0.1)
    >>> p["w"].round(6).tolist()
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
    """SHA-256 of the parameters' names and bytes, in sorted order of the names.

    Examples
    --------
    >>> digest(init_params(0)) == digest(init_params(0))
    True
    """
    h = hashlib.sha256()
    for name in sorted(params):
        h.update(name.encode())
        h.update(np.ascontiguousarray(params[name], dtype=np.float64).tobytes())
    return h.hexdigest()


def checkpoint(params, held_out, sizes: Sizes) -> dict:
    """Every head's scores and the two copies' losses on the held-out classic-test set."""
    induction, first, second = _scores_and_losses(params, held_out, sizes)
    return {"induction": induction, "previous": previous_token_scores(params, held_out.tokens, sizes=sizes),
            "first": first, "second": second}


def train(*, task: Task = TASK, sizes: Sizes = SIZES, seed: int = SEED, steps: int = STEPS, batch: int = BATCH,
          lr: float = LEARNING_RATE, eval_every: int = EVAL_EVERY, warmup: int = 0, decay: bool = True,
          schedule_steps: int | None = None, log=None) -> dict:
    """Train from ``seed``; return the parameters, the loss of every step and the checkpoints.

    ``warmup`` steps raise the step size linearly from 0; with ``decay`` (the
    default) it then falls as a cosine from ``lr`` to a tenth of ``lr`` at step
    ``schedule_steps`` (by default ``steps``; give the full run's length to
    repeat a prefix of it).

    Returns
    -------
    dict
        ``params``, ``loss`` (steps,), ``eval_steps`` (C,), ``induction`` and
        ``previous`` (C, layers, heads), ``first`` and ``second`` (C,), ``seconds``.

    Examples
    --------
    >>> run = train(steps=3, eval_every=2)
    >>> run["loss"].shape, run["eval_steps"].tolist(), run["induction"].shape
    ((3,), [0, 2, 3], (3, 2, 2))
    >>> bool(np.isnan(run["induction"][0, 1, 1]))      # layer 1 has one head only
    True
    """
    steps, batch = check_positive_int(steps, "steps"), check_positive_int(batch, "batch")
    total = steps if schedule_steps is None else check_positive_int(schedule_steps, "schedule_steps")
    if task.n_positions != sizes.n_positions or len(task.symbols) != sizes.vocab:
        raise ValueError("the task and the model must agree on the positions and the symbols")
    params = init_params(seed, sizes)
    rng = np.random.default_rng([seed, 1])
    held_out = classic_mix(N_HELD_OUT, np.random.default_rng([seed, 2]), sizes.n_positions, sizes.vocab)
    state = {"m": {k: np.zeros_like(v) for k, v in params.items()},
             "v": {k: np.zeros_like(v) for k, v in params.items()}}
    losses, evals = np.empty(steps), []
    with threadpool_limits(limits=1):
        start = time.perf_counter()
        evals.append((0, checkpoint(params, held_out, sizes)))
        for step in range(1, steps + 1):
            rate = lr * min(1.0, step / warmup) if warmup else lr
            if decay and step > warmup:
                rate = lr * (0.1 + 0.45 * (1 + np.cos(np.pi * (step - warmup) / max(1, total - warmup))))
            losses[step - 1], grads = loss_and_gradients(params, copying_batch(batch, rng, task).tokens, sizes=sizes)
            adam_step(params, grads, state, step, lr=rate)
            if step % eval_every == 0 or step == steps:
                evals.append((step, checkpoint(params, held_out, sizes)))
                if log:
                    c = evals[-1][1]
                    log(f"{step:6d} {time.perf_counter() - start:7.1f}s loss {losses[step - eval_every:step].mean():.3f} "
                        f"first {c['first']:.3f} second {c['second']:.3f} ind {np.round(c['induction'][-1], 2)} "
                        f"prev {np.round(c['previous'][0], 2)}")
        seconds = time.perf_counter() - start
    return {"params": params, "loss": losses, "eval_steps": np.array([s for s, _ in evals]),
            **{key: np.array([c[key] for _, c in evals]) for key in ("induction", "previous", "first", "second")},
            "seconds": seconds}


def save(run: dict, path, *, task: Task = TASK, sizes: Sizes = SIZES, seed: int = SEED,
         settings: dict | None = None) -> None:
    """Write a run as ``.npz``: the parameters, the history, and the sizes, task and settings that made it.

    The file is enough to write an independent forward pass: ``sizes`` holds
    ``vocab``, ``n_positions``, ``d_model``, ``heads`` (one count per layer),
    ``d_head`` and ``positions`` (``"qk"`` or ``"stream"``); ``symbols`` the alphabet.
    """
    meta = {"sizes": {**sizes._asdict(), "heads": list(sizes.heads)}, "task": {**task._asdict(), "lengths": list(task.lengths)},
            "seed": seed, **(settings or {})}
    import json
    np.savez_compressed(path, **run["params"], loss=run["loss"], eval_steps=run["eval_steps"],
                        induction=run["induction"], previous=run["previous"], first=run["first"],
                        second=run["second"], meta=np.array(json.dumps(meta)))


def load(path) -> dict:
    """A run written by :func:`save`: ``params`` (checked), ``sizes``, ``task``, ``meta`` and the history.

    Examples
    --------
    >>> import tempfile, os
    >>> run = train(steps=2, eval_every=1)
    >>> path = os.path.join(tempfile.mkdtemp(), "w.npz")
    >>> save(run, path)
    >>> back = load(path)
    >>> back["sizes"] == SIZES, digest(back["params"]) == digest(run["params"])
    (True, True)
    """
    import json
    from .model import check_params, names
    with np.load(path) as f:
        data = {k: f[k] for k in f.files}
    meta = json.loads(str(data["meta"]))
    sizes = Sizes(**{**meta["sizes"], "heads": tuple(meta["sizes"]["heads"])})
    task = Task(**{**meta["task"], "lengths": tuple(meta["task"]["lengths"])})
    return {"params": check_params({k: data[k] for k in names(sizes)}, sizes), "sizes": sizes, "task": task,
            "meta": meta, **{k: data[k] for k in ("loss", "eval_steps", "induction", "previous", "first", "second")}}
