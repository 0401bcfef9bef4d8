"""Benchmark: the time to train the copying model of chapter "Two heads that learned to copy", on this machine.

Run with ``.venv/bin/python bench/induction_bench.py`` (``make bench-induction``).
Not a test: it prints one line and writes ``_build/induction-bench.json``.

It runs :func:`selfattention.induction.train` with the book's settings (one
BLAS thread, float64; the book's run of 12,000 steps, a few minutes), checks
that the result is the shipped run bit for bit
(:func:`selfattention.induction.training.digest`, of the parameters and of the
loss of every step), and reports the seconds of the training loop (with its
481 checkpoints), per step, and the machine's load average before and after
(other programs on the machine slow it down).
"""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path

import numpy as np

from selfattention.induction import training


def main() -> None:
    load_before = os.getloadavg()
    run = training.train()
    shipped = training.load()
    same = (training.digest(run["params"]) == training.digest(shipped["params"])
            and np.array_equal(run["history"]["loss"], shipped["history"]["loss"]))
    result = {"steps": training.STEPS, "batch": training.BATCH, "seconds": round(run["seconds"], 2),
              "ms_per_step": round(1000 * run["seconds"] / training.STEPS, 3),
              "same_as_shipped": same, "load_before": load_before, "load_after": os.getloadavg(),
              "machine": platform.machine(), "cpus": os.cpu_count()}
    out = Path("_build") / "induction-bench.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"trained {result['steps']} steps in {result['seconds']} s ({result['ms_per_step']} ms a step); "
          f"same bits as the shipped weights: {same}; wrote {out}")


if __name__ == "__main__":
    main()
