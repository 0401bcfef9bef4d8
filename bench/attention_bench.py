"""Benchmark: the book's NumPy attention against PyTorch's, on this machine.

Run with ``.venv/bin/python bench/attention_bench.py`` (``make bench``).
Not a test: it prints a table and writes ``_build/bench.json``.

For n = 256, 1024, 4096, 8192 (d = 64, float32, one head) it times

* ``plain``: :func:`selfattention.fast.scaled_dot_product_attention` (the
  fast layer's plain attention: the whole table of weights, row blocks),
* ``blockwise``: :func:`selfattention.fast.blockwise_attention`,
* ``blockwise causal``: the same with ``causal=True`` (it skips key blocks),
* ``torch`` and ``torch causal``: ``torch.nn.functional.scaled_dot_product_attention``
  on the CPU,

and reports GFLOP/s (nominal ``4 n^2 d`` for every row, causal or not), the
peak extra memory of one call, and the ratio of each NumPy time to PyTorch's
(the causal NumPy row against PyTorch causal). Other programs may share the
CPU, so the variants take turns in short bursts, several passes each, and
the best time is kept. Each burst starts with one untimed call: thread pools
(OpenBLAS, OpenMP) keep spinning for a while after a call, and the variant
before should not slow down the next one. NumPy memory is measured with tracemalloc (it sees every NumPy
array); PyTorch's allocations are invisible to tracemalloc, so its memory is
the growth of the resident set size, sampled every 0.2 ms during the call.

Before the sizes it times each step of one blockwise tile on one core
(``q @ k.T``, ``exp``, row sums, ``weights @ v``): their sum, divided by
the number of cores, is the least time per score that NumPy can spend
here, and it gives the least ratio to PyTorch that any NumPy code could
reach on this machine.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))  # run from a checkout even if not installed

from selfattention import fast  # noqa: E402
from selfattention.cost import attention_flops, format_bytes, peak_memory  # noqa: E402
from selfattention.fast import threads  # noqa: E402

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # pragma: no cover - the bench needs torch
    sys.exit("the benchmark needs PyTorch: .venv/bin/pip install torch==2.13.0")
try:
    from threadpoolctl import threadpool_info
except ImportError:  # pragma: no cover
    sys.exit("the benchmark needs threadpoolctl: .venv/bin/pip install threadpoolctl==3.8.0")

SIZES = (256, 1024, 4096, 8192)
D = 64
ROUNDS = {256: 42, 1024: 24, 4096: 12, 8192: 6}  # timed calls per variant
PASSES = 3  # the variants take turns this many times, ROUNDS / PASSES timed calls each
TARGET_SIZES = (1024, 4096, 8192)
TARGETS = {"plain": 1.5, "blockwise": 1.3, "blockwise causal": 1.3}


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def rss_peak_growth(fn) -> int:
    """Peak growth of the resident set during ``fn()``, sampled every 0.2 ms."""
    gc.collect()
    base = rss_bytes()
    peak = base
    done = threading.Event()

    def sample():
        nonlocal peak
        while not done.is_set():
            peak = max(peak, rss_bytes())
            time.sleep(0.0002)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        result = fn()
    finally:
        done.set()
        sampler.join()
    peak = max(peak, rss_bytes())
    del result
    return max(0, peak - base)


def matmul_ceiling(n: int = 2048, rounds: int = 5) -> float:
    """Best float32 GFLOP/s of a square NumPy matrix product: the BLAS ceiling."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    c = np.empty_like(a)
    best = min(_timed(lambda: np.matmul(a, b, out=c)) for _ in range(rounds))
    return 2 * n**3 / best / 1e9


def step_costs(rows: int = 256, keys: int = 1024, rounds: int = 30) -> dict:
    """Nanoseconds per score of each step of one blockwise tile, on one core.

    The fixed-shift step of :func:`selfattention.fast.blockwise_attention`:
    scores ``q @ k.T``, ``exp``, row sums and ``weights @ v``, for a tile of
    ``rows`` queries and ``keys`` keys, with OpenBLAS held to one thread. Their
    sum is the least time per score that any NumPy code spends on one core.
    """
    rng = np.random.default_rng(1)
    q = rng.standard_normal((rows, D)).astype(np.float32) / np.float32(np.sqrt(D))
    k = rng.standard_normal((keys, D)).astype(np.float32)
    v = rng.standard_normal((keys, D)).astype(np.float32)
    s = np.empty((rows, keys), np.float32)
    e = np.empty_like(s)
    pv = np.empty((rows, D), np.float32)
    np.matmul(q, k.T, out=s)
    steps = {
        "q @ k.T": lambda: np.matmul(q, k.T, out=s),
        "exp": lambda: np.exp(s, out=e),
        "row sums": lambda: e.sum(axis=1),
        "weights @ v": lambda: np.matmul(e, v, out=pv),
    }
    with threads.one_blas_thread():
        costs = {name: min(_timed(fn) for _ in range(rounds)) / (rows * keys) * 1e9
                 for name, fn in steps.items()}
    costs["total"] = sum(costs.values())
    return costs


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def variants(q, k, v):
    """name -> (callable, uses_numpy_memory)."""
    tq, tk, tv = (torch.from_numpy(x)[None, None] for x in (q, k, v))  # (1, 1, n, d), no copy
    return {
        "plain": (lambda: fast.scaled_dot_product_attention(q, k, v), True),
        "blockwise": (lambda: fast.blockwise_attention(q, k, v), True),
        "blockwise causal": (lambda: fast.blockwise_attention(q, k, v, causal=True), True),
        "torch": (lambda: F.scaled_dot_product_attention(tq, tk, tv), False),
        "torch causal": (lambda: F.scaled_dot_product_attention(tq, tk, tv, is_causal=True), False),
    }


def to_numpy(x):
    return x[0, 0].numpy() if isinstance(x, torch.Tensor) else x


def bench_size(n: int, rounds: int) -> dict:
    rng = np.random.default_rng(n)
    q, k, v = (rng.standard_normal((n, D)).astype(np.float32) for _ in range(3))
    cases = variants(q, k, v)
    # Warm up (thread pools, allocator) and check the outputs agree.
    outs = {name: to_numpy(fn()) for name, (fn, _) in cases.items()}
    diffs = {
        "plain": float(np.abs(outs["plain"] - outs["torch"]).max()),
        "blockwise": float(np.abs(outs["blockwise"] - outs["torch"]).max()),
        "blockwise causal": float(np.abs(outs["blockwise causal"] - outs["torch causal"]).max()),
    }
    del outs
    best = {name: float("inf") for name in cases}
    for _ in range(PASSES):
        for name, (fn, _) in cases.items():
            fn()  # untimed: lets the previous variant's threads go quiet
            for _ in range(max(1, rounds // PASSES)):
                best[name] = min(best[name], _timed(fn))
    memory = {}
    for name, (fn, numpy_memory) in cases.items():
        memory[name] = peak_memory(fn) if numpy_memory else rss_peak_growth(fn)
    flops = attention_flops(n, D)
    rows = {
        name: {
            "seconds": best[name],
            "gflops": flops / best[name] / 1e9,
            "peak_bytes": memory[name],
            "memory_method": "tracemalloc" if cases[name][1] else "rss-sampled",
        }
        for name in cases
    }
    ratios = {
        "plain": best["plain"] / best["torch"],
        "blockwise": best["blockwise"] / best["torch"],
        "blockwise causal": best["blockwise causal"] / best["torch causal"],
    }
    return {"n": n, "d": D, "rounds": rounds, "rows": rows, "ratio_to_torch": ratios,
            "max_abs_diff_to_torch": diffs}


def check_targets(results: list[dict]) -> list[dict]:
    checks = []
    for r in results:
        if r["n"] not in TARGET_SIZES:
            continue
        for name, limit in TARGETS.items():
            ratio = r["ratio_to_torch"][name]
            checks.append({"target": f"{name} <= {limit}x torch{' causal' if 'causal' in name else ''}",
                           "n": r["n"], "value": round(ratio, 3), "met": ratio <= limit})
    big = next((r for r in results if r["n"] == 8192), None)
    if big is not None:
        plain_mem = big["rows"]["plain"]["peak_bytes"]
        bw_mem = big["rows"]["blockwise"]["peak_bytes"]
        checks.append({"target": "blockwise memory <= plain / 10 at n=8192", "n": 8192,
                       "value": round(bw_mem / plain_mem, 4), "met": bw_mem * 10 <= plain_mem})
    return checks


def floor_ratios(results: list[dict], ns_per_score: float, cores: int) -> dict:
    """n -> (n*n scores * ns_per_score / cores) / torch's time: the best ratio NumPy could get."""
    return {r["n"]: r["n"] ** 2 * ns_per_score * 1e-9 / max(1, cores) / r["rows"]["torch"]["seconds"]
            for r in results}


def machine() -> dict:
    info = threadpool_info()
    blas = [i for i in info if i.get("user_api") == "blas"]
    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "cpu_count": os.cpu_count(),
        "cpu": _cpu_name(),
        "blas": [{key: i.get(key) for key in ("internal_api", "version", "num_threads",
                                               "threading_layer", "architecture", "filepath")}
                 for i in blas],
        "threadpools": [{key: i.get(key) for key in ("user_api", "internal_api", "num_threads", "prefix")}
                        for i in info],
        "blockwise_threads": threads.default_threads(),
        "blockwise_can_limit_openblas": bool(threads.blas_info()),
        "env": {key: os.environ.get(key) for key in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                                     "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")},
    }


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def print_table(results: list[dict]) -> None:
    head = f"{'n':>5}  {'variant':<17} {'time':>10} {'GFLOP/s':>8} {'peak mem':>10} {'vs torch':>9}"
    print(head)
    print("-" * len(head))
    for r in results:
        for name, row in r["rows"].items():
            ratio = r["ratio_to_torch"].get(name)
            ratio_text = f"{ratio:8.2f}x" if ratio is not None else f"{'':>9}"
            mem = format_bytes(row["peak_bytes"]) + ("*" if row["memory_method"] != "tracemalloc" else "")
            print(f"{r['n']:>5}  {name:<17} {row['seconds'] * 1e3:8.2f}ms {row['gflops']:8.1f} "
                  f"{mem:>10} {ratio_text}")
        diffs = ", ".join(f"{k} {v:.1e}" for k, v in r["max_abs_diff_to_torch"].items())
        print(f"{'':>5}  max |difference| to torch: {diffs}")
    print("* PyTorch memory: resident-set growth sampled during the call (tracemalloc cannot see it)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "bench.json")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    info = machine()
    print(f"NumPy {info['numpy']}, PyTorch {info['torch']} ({info['torch_threads']} threads), "
          f"Python {info['python']}, {info['cpu']} x{info['cpu_count']}")
    for b in info["blas"]:
        print(f"BLAS: {b['internal_api']} {b['version']} ({b['architecture']}), "
              f"{b['num_threads']} threads, {b['threading_layer']}")
    print(f"blockwise: {info['blockwise_threads']} threads, "
          f"{'limits' if info['blockwise_can_limit_openblas'] else 'cannot limit'} OpenBLAS to 1 thread meanwhile")
    ceiling = matmul_ceiling()
    print(f"NumPy float32 matmul ceiling (2048^3): {ceiling:.1f} GFLOP/s")
    steps = step_costs()
    print("One blockwise step on one core (256 queries x 1024 keys), ns per score: "
          + ", ".join(f"{name} {ns:.2f}" for name, ns in steps.items()) + "\n")

    results = []
    for n in args.sizes:
        results.append(bench_size(n, ROUNDS.get(n, 5)))
    print_table(results)
    checks = check_targets(results)
    if checks:
        print("\nTargets:")
        for c in checks:
            print(f"  {'met ' if c['met'] else 'MISS'}  n={c['n']:<5} {c['target']:<42} {c['value']}")
    floors = floor_ratios(results, steps["total"], info["blockwise_threads"])
    if floors:
        print(f"\nLeast ratio to torch that NumPy could reach here: {steps['total']:.2f} ns per score "
              f"per core, on {info['blockwise_threads']} cores used perfectly, against torch's measured time:")
        print("  " + ", ".join(f"n={n}: {ratio:.2f}x" for n, ratio in floors.items()))
    blas_after = [i.get("num_threads") for i in threadpool_info() if i.get("user_api") == "blas"]
    elapsed = time.perf_counter() - started
    print(f"\nBLAS threads after the run: {blas_after} (before: {[b['num_threads'] for b in info['blas']]})")
    print(f"total time {elapsed:.0f} s")

    report = {"machine": info, "matmul_ceiling_gflops": ceiling, "step_ns_per_score": steps,
              "least_ratio_to_torch": floors, "results": results,
              "targets": checks, "blas_threads_after": blas_after, "elapsed_seconds": elapsed,
              "time": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
