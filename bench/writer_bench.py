"""Benchmark: the time to train the writer of chapter "A model that writes", on this machine.

Run with ``.venv/bin/python bench/writer_bench.py`` (``make bench-writer``).
Not a test: it prints one line and writes ``_build/writer-bench.json``.

It runs :func:`selfattention.writer.train_writer` with the book's settings
(one BLAS thread, float64, the shipped run's steps), checks that the result is
the shipped run (the digest of the float64 parameters that the weight file
records, and the loss of every step), and reports the seconds of the
training loop (held-out measurements included), per step, and the machine's
load average before and after (other programs on the machine slow it down).
The issue's target: at most 30 minutes on this project's 2-core machine.
"""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path

import numpy as np

from selfattention.writer import load_writer, train_writer, weights_digest
from selfattention.writer.training import STEPS


def main() -> None:
    load_before = os.getloadavg()
    run = train_writer()
    shipped = load_writer()
    same = (weights_digest(run["params"]) == shipped["meta"]["digest_float64"]
            and np.array_equal(run["loss"], shipped["loss"]))
    result = {"steps": STEPS, "seconds": round(run["seconds"], 2),
              "s_per_step": round(run["seconds"] / STEPS, 3), "minutes": round(run["seconds"] / 60, 1),
              "same_as_shipped": same, "load_before": load_before, "load_after": os.getloadavg(),
              "machine": platform.machine(), "cpus": os.cpu_count()}
    out = Path("_build") / "writer-bench.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"trained {STEPS} steps in {result['seconds']} s ({result['minutes']} min, {result['s_per_step']} s a "
          f"step); same as the shipped weights: {same}; wrote {out}")


if __name__ == "__main__":
    main()
