"""Write tests/selfattention/data/mask_reference.npz: masked attention as PyTorch computes it.

The masks of ``selfattention`` (``scaled_dot_product_attention``, its fast
layer, ``grouped_query_attention``, ``multi_head_attention``) are checked
against this file by ``tests/selfattention/test_masks.py``. The file is made
once, by :func:`torch.nn.functional.scaled_dot_product_attention`, in a
virtual environment of its own (PyTorch never goes into the book's
``.venv``)::

    python3 -m venv /tmp/refvenv
    /tmp/refvenv/bin/pip install torch==2.13.0 numpy==2.4.6   # CPU wheel; never plain `torch`
    /tmp/refvenv/bin/python scripts/make_mask_reference.py [--out PATH]

For each case of ``CASES`` (``i`` = case number) the inputs are seeded
arrays in PyTorch's layout, which is the package's: ``q`` (..., h, L, E),
``k`` and ``v`` (..., kv_heads, S, E). The mask is boolean (``True`` = may
attend) or float (added to the scores, ``-inf`` blocks) and broadcasts to
``(..., h, L, S)``. The file holds:

* ``s{i}_q``, ``s{i}_k``, ``s{i}_v``; ``s{i}_mask`` (absent when there is
  none); ``s{i}_causal`` () and ``s{i}_gqa`` () (``enable_gqa``: the
  key/value heads are shared by groups of query heads);
* ``s{i}_out`` (..., h, L, E): PyTorch's output;
* ``names``: what each case is;
* ``versions``: the torch and numpy versions used.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

#: (what it is, q shape, kv heads, S, mask kind, mask shape, causal, dtype)
#: Mask kinds: "bool" (random), "float" (random, some -inf), "alibi" (-slope * distance per head),
#: "pad" (the last keys of each batch row blocked), "bool_row" (one query row blocks every key).
CASES = (
    ("no mask", (3, 4, 2), 3, 5, None, None, False, "float64"),
    ("causal, L < S", (2, 3, 4), 2, 6, None, None, True, "float64"),
    ("causal, L > S", (2, 5, 4), 2, 3, None, None, True, "float64"),
    ("boolean (L, S)", (2, 4, 3), 2, 5, "bool", (4, 5), False, "float64"),
    ("boolean (S,), every query", (2, 4, 3), 2, 5, "bool", (5,), False, "float64"),
    ("boolean (B, h, L, S)", (2, 3, 4, 2), 3, 5, "bool", (2, 3, 4, 5), False, "float64"),
    ("boolean key padding (B, 1, 1, S)", (2, 3, 4, 2), 3, 5, "pad", (2, 1, 1, 5), False, "float64"),
    ("float (L, S) with -inf", (2, 4, 3), 2, 5, "float", (4, 5), False, "float64"),
    ("float (h, 1, S)", (3, 4, 2), 3, 5, "float", (3, 1, 5), False, "float64"),
    ("float (B, 1, L, S)", (2, 2, 3, 4), 2, 6, "float", (2, 1, 3, 6), False, "float64"),
    ("ALiBi (h, L, L)", (4, 5, 3), 4, 5, "alibi", (4, 5, 5), False, "float64"),
    ("float32, boolean (L, S)", (2, 4, 8), 2, 6, "bool", (4, 6), False, "float32"),
    ("float32, float (h, L, S)", (2, 4, 8), 2, 6, "float", (2, 4, 6), False, "float32"),
    ("grouped: 4 query heads, 2 kv heads, no mask", (4, 3, 2), 2, 5, None, None, False, "float64"),
    ("grouped: 4 query heads, 1 kv head, causal", (4, 5, 2), 1, 5, None, None, True, "float64"),
    ("grouped: boolean (h, L, S)", (4, 3, 2), 2, 5, "bool", (4, 3, 5), False, "float64"),
    ("grouped: ALiBi (h, L, L), 6 heads, 2 kv", (6, 5, 4), 2, 5, "alibi", (6, 5, 5), False, "float64"),
    ("grouped: ALiBi (h, L, L), 4 heads, 1 kv", (4, 5, 4), 1, 5, "alibi", (4, 5, 5), False, "float64"),
    ("grouped: float (B, h, L, S)", (2, 4, 3, 2), 2, 5, "float", (2, 4, 3, 5), False, "float64"),
    ("grouped: key padding (B, 1, 1, S)", (2, 4, 3, 2), 2, 5, "pad", (2, 1, 1, 5), False, "float64"),
    ("grouped: float32, float (h, 1, S)", (4, 3, 8), 2, 5, "float", (4, 1, 5), False, "float32"),
    ("boolean, a query row that blocks every key", (2, 3, 2), 2, 4, "bool_row", (3, 4), False, "float64"),
)

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "tests" / "selfattention" / "data" / "mask_reference.npz"


def make_mask(rng: np.random.Generator, kind: str, shape: tuple, dtype: str) -> np.ndarray:
    """A seeded mask of ``kind`` and ``shape`` (float masks in ``dtype``)."""
    if kind == "bool":
        return rng.random(shape) > 0.3
    if kind == "bool_row":
        m = rng.random(shape) > 0.3
        m[..., 0, :] = False  # query 0 may attend to no key
        return m
    if kind == "pad":  # batch row b keeps its first S - b keys
        S = shape[-1]
        return np.arange(S) < (S - np.arange(shape[0]))[:, None, None, None]
    if kind == "float":
        m = rng.standard_normal(shape)
        m[rng.random(shape) < 0.2] = -np.inf
        m[..., 0] = 0.0  # every query keeps key 0
        return m.astype(dtype)
    if kind == "alibi":  # head i: slope 2**(-8 (i + 1) / h), times -(distance) between query and key
        h, L, S = shape
        slopes = 2.0 ** (-8.0 * np.arange(1, h + 1) / h)
        return (-slopes[:, None, None] * np.abs(np.arange(L)[:, None] - np.arange(S))).astype(dtype)
    raise ValueError(f"unknown mask kind {kind!r}")


def case(i: int, q_shape: tuple, kv_heads: int, S: int, kind, mask_shape, causal: bool, dtype: str) -> dict:
    """Seeded inputs of one case, and what PyTorch computes from them."""
    rng = np.random.default_rng(200 + i)
    *lead, h, L, E = q_shape
    q = rng.standard_normal(q_shape).astype(dtype)
    k = rng.standard_normal((*lead, kv_heads, S, E)).astype(dtype)
    v = rng.standard_normal((*lead, kv_heads, S, E)).astype(dtype)
    mask = None if kind is None else make_mask(rng, kind, mask_shape, dtype)
    gqa = kv_heads != h
    with torch.no_grad():
        out = F.scaled_dot_product_attention(
            torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v),
            attn_mask=None if mask is None else torch.from_numpy(mask), is_causal=causal, enable_gqa=gqa)
    data = {f"s{i}_q": q, f"s{i}_k": k, f"s{i}_v": v, f"s{i}_causal": np.array(causal),
            f"s{i}_gqa": np.array(gqa), f"s{i}_out": out.numpy()}
    if mask is not None:
        data[f"s{i}_mask"] = mask
    return data


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    data = {}
    for i, (_, *spec) in enumerate(CASES):
        data.update(case(i, *spec))
    data["names"] = np.array([c[0] for c in CASES])
    data["versions"] = np.array([f"torch {torch.__version__}", f"numpy {np.__version__}"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **data)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes, {len(CASES)} cases)")


if __name__ == "__main__":
    main()
