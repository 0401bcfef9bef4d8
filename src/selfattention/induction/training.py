"""Training the copying model: Adam on fresh sequences, from one seed, and the shipped result.

:func:`train` draws a new batch of the copying task at every step, takes one
Adam step (Kingma and Ba, 2015) on :func:`~.gradients.loss_and_gradients`,
and every :data:`EVAL_EVERY` steps measures the loss on each copy of a fixed
set of held-out sequences. Everything is float64 on one BLAS thread, so the
same seed gives the same numbers, bit for bit, on the same machine.

``python -m selfattention.induction`` trains with the book's
settings and writes ``weights.npz`` beside this file: the parameters, the
loss history and the settings. :func:`load` reads it.
"""

from __future__ import annotations

import hashlib
import io
import time
from importlib import resources
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from .._validate import check_positive_int
from .gradients import loss_and_gradients
from .model import NAMES, check_params, forward, init_params
from .task import copy_positions, copying_batch

#: The book's training run: seed, steps, sequences per step and Adam's step size.
SEED = 0
STEPS = 6000
BATCH = 32
LEARNING_RATE = 3e-3
#: Adam's two decay rates and its small constant.
BETAS = (0.9, 0.99)
EPS = 1e-8
#: Steps between two measurements of the held-out loss, and how many held-out sequences.
EVAL_EVERY = 50
N_HELD_OUT = 256
#: Where the trained model is shipped.
WEIGHTS = Path(__file__).with_name("weights.npz")


def copy_losses(params, batch, *, ablate=()) -> tuple[float, float]:
    """The mean loss of the guesses inside the first copy, and inside the second.

    Examples
    --------
    >>> from selfattention.induction.model import init_params
    >>> first, second = copy_losses(init_params(0), copying_batch(8, np.random.default_rng(0)))
    >>> first > 1, second > 1
    (True, True)
    """
    logits, _ = forward(params, batch.tokens, ablate=ablate)
    z = logits[:, :-1] - logits[:, :-1].max(axis=-1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))         # (B, n - 1, V)
    nll = -np.take_along_axis(log_p, batch.tokens[:, 1:, None], axis=-1)[..., 0]   # (B, n - 1)
    first, second = copy_positions(batch)
    return float(nll[first].mean()), float(nll[second].mean())


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
    """SHA-256 of the parameters' bytes, in the order of ``NAMES``: equal digests, equal bits.

    Examples
    --------
    >>> digest(init_params(0)) == digest(init_params(0)), digest(init_params(0)) == digest(init_params(1))
    (True, False)
    """
    h = hashlib.sha256()
    for name in NAMES:
        h.update(np.ascontiguousarray(params[name], dtype=np.float64).tobytes())
    return h.hexdigest()


def train(*, seed: int = SEED, steps: int = STEPS, batch: int = BATCH, lr: float = LEARNING_RATE) -> dict:
    """Train the copying model from ``seed`` and return the parameters and the history.

    Parameters
    ----------
    seed, steps, batch : int, keyword-only
    lr : float, keyword-only

    Returns
    -------
    dict
        ``params``; ``loss`` (steps,) the training loss of each step;
        ``eval_steps`` and ``first``, ``second`` the held-out loss inside each
        copy after those steps (step 0 is before training); ``seconds`` the
        wall-clock time of the loop.

    Examples
    --------
    >>> run = train(steps=3)
    >>> run["loss"].shape, run["eval_steps"].tolist()
    ((3,), [0, 3])
    """
    steps, batch = check_positive_int(steps, "steps"), check_positive_int(batch, "batch")
    params = init_params(seed)
    rng = np.random.default_rng([seed, 1])
    held_out = copying_batch(N_HELD_OUT, np.random.default_rng([seed, 2]))
    state = {"m": {k: np.zeros_like(v) for k, v in params.items()},
             "v": {k: np.zeros_like(v) for k, v in params.items()}}
    losses, evals = np.empty(steps), []
    with threadpool_limits(limits=1):
        start = time.perf_counter()
        evals.append((0, *copy_losses(params, held_out)))
        for step in range(1, steps + 1):
            losses[step - 1], grads = loss_and_gradients(params, copying_batch(batch, rng).tokens)
            adam_step(params, grads, state, step, lr=lr)
            if step % EVAL_EVERY == 0 or step == steps:
                evals.append((step, *copy_losses(params, held_out)))
        seconds = time.perf_counter() - start
    at, first, second = (np.array(c) for c in zip(*evals))
    return {"params": params, "loss": losses, "eval_steps": at.astype(np.int64), "first": first,
            "second": second, "seconds": seconds}


def save(run: dict, path=WEIGHTS) -> None:
    """Write a run of :func:`train` as ``.npz``: the parameters, the history and the settings."""
    np.savez_compressed(path, **run["params"], loss=run["loss"], eval_steps=run["eval_steps"],
                        first=run["first"], second=run["second"],
                        settings=np.array([SEED, STEPS, BATCH, EVAL_EVERY, N_HELD_OUT]),
                        learning_rate=np.array(LEARNING_RATE))


def load(path=None) -> dict:
    """The shipped run: ``params`` (checked) and the history, as :func:`train` returns them.

    Parameters
    ----------
    path : str or Path, optional
        A run written by :func:`save`. By default, the shipped ``weights.npz``,
        read as package data, so that it is found wherever the package is:
        in a folder, or inside a zip (the book's in-browser Python).

    Examples
    --------
    >>> run = load()
    >>> run["params"]["W_E"].shape, run["eval_steps"][-1] == STEPS
    ((16, 32), np.True_)
    """
    raw = (resources.files(__package__) / WEIGHTS.name).read_bytes() if path is None else Path(path).read_bytes()
    with np.load(io.BytesIO(raw)) as f:
        data = {k: f[k] for k in f.files}
    return {"params": check_params({k: data[k] for k in NAMES}), "loss": data["loss"],
            "eval_steps": data["eval_steps"], "first": data["first"], "second": data["second"]}

