"""Write tests/selfattention/data/multihead_reference.npz: multi-head attention as PyTorch computes it.

``selfattention.multihead.multi_head_attention`` is checked against this
file by ``tests/selfattention/test_multihead.py``. The file is made once, by
:func:`torch.nn.functional.multi_head_attention_forward`, in a virtual
environment of its own (PyTorch never goes into the book's ``.venv``)::

    python3 -m venv /tmp/refvenv
    /tmp/refvenv/bin/pip install torch==2.13.0 numpy==2.4.6   # CPU wheel; never plain `torch`
    /tmp/refvenv/bin/python scripts/make_multihead_reference.py [--out PATH]

For each case of ``CASES`` (``i`` = case number) the inputs are seeded
float64 arrays in the package's layout (``x @ w``), and PyTorch gets the
transposes (its layout is ``x @ W.T``). The file holds:

* ``s{i}_x`` (L, d_model); ``s{i}_w_q``, ``s{i}_w_k``, ``s{i}_w_v``,
  ``s{i}_w_o`` (d_model, d_model); ``s{i}_b_q``, ``s{i}_b_k``, ``s{i}_b_v``,
  ``s{i}_b_o`` (d_model,); ``s{i}_h`` (); ``s{i}_causal`` ();
* ``s{i}_out`` (L, d_model) and ``s{i}_weights`` (h, L, L): PyTorch's output
  and per-head weights (``average_attn_weights=False``);
* ``versions``: the torch and numpy versions used.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

#: (L, d_model, h, causal, with biases)
CASES = ((5, 8, 2, False, False), (6, 12, 3, False, True), (4, 8, 4, True, True), (7, 16, 1, False, True))

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "tests" / "selfattention" / "data" / "multihead_reference.npz"


def case(i: int, L: int, d_model: int, h: int, causal: bool, biases: bool) -> dict:
    """Seeded inputs of one case, and what PyTorch computes from them."""
    rng = np.random.default_rng(100 + i)
    x = rng.standard_normal((L, d_model))
    w = {n: rng.standard_normal((d_model, d_model)) / np.sqrt(d_model) for n in ("w_q", "w_k", "w_v", "w_o")}
    b = {n: (rng.standard_normal(d_model) if biases else np.zeros(d_model)) for n in ("b_q", "b_k", "b_v", "b_o")}
    t = {n: torch.from_numpy(a) for n, a in {**w, **b}.items()}
    in_proj_weight = torch.cat([t["w_q"].T, t["w_k"].T, t["w_v"].T])           # (3 d_model, d_model)
    in_proj_bias = torch.cat([t["b_q"], t["b_k"], t["b_v"]])                     # (3 d_model,)
    xt = torch.from_numpy(x)[:, None, :]                                        # (L, batch 1, d_model)
    attn_mask = torch.ones(L, L, dtype=torch.bool).triu(1) if causal else None  # True = blocked
    out, weights = F.multi_head_attention_forward(
        xt, xt, xt, d_model, h, in_proj_weight, in_proj_bias, None, None, False, 0.0,
        t["w_o"].T, t["b_o"], training=False, need_weights=True, attn_mask=attn_mask,
        average_attn_weights=False)
    return {f"s{i}_x": x, **{f"s{i}_{n}": a for n, a in {**w, **b}.items()},
            f"s{i}_h": np.array(h), f"s{i}_causal": np.array(causal),
            f"s{i}_out": out[:, 0].numpy(), f"s{i}_weights": weights[0].numpy()}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    data = {}
    for i, spec in enumerate(CASES):
        data.update(case(i, *spec))
    data["versions"] = np.array([f"torch {torch.__version__}", f"numpy {np.__version__}"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **data)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes, {len(CASES)} cases)")


if __name__ == "__main__":
    main()
