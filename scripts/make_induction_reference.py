"""Write tests/selfattention/data/induction_reference.npz: the copying model's forward pass as PyTorch computes it.

``selfattention.induction.model.forward`` is checked against this file by
``tests/selfattention/test_induction.py``. PyTorch computes the same model
on its own: ``torch.nn.functional.scaled_dot_product_attention`` with
``is_causal=True`` for each layer's heads, on seeded random parameters (not
the trained ones, so the file stays valid when the model is trained again).
Run it in a virtual environment of its own (PyTorch never goes into the
book's ``.venv``)::

    python3 -m venv /tmp/refvenv
    /tmp/refvenv/bin/pip install torch==2.13.0 numpy   # CPU wheel; never plain `torch`
    /tmp/refvenv/bin/python scripts/make_induction_reference.py [--out PATH]

The model is the package's ``"qk"`` design (positions on every layer's queries
and keys) at small sizes, two heads in each layer: 16 symbols, 24 positions,
``d_model`` 32. The file holds the parameters (``W_E``, ``W_pos``, ``W_U``, and
``W_Q`` … ``W_O`` stacked by layer, (2, 32, 32); the test takes layer ``l``'s
slice as ``selfattention.induction.model``'s ``W_Q{l}`` …), ``tokens`` (B, n), ``ablate`` (pairs of
layer and head), and PyTorch's ``logits`` (B, n, V), ``logits_ablated`` and
``weights`` (layers, B, h, n, n), with ``versions``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

V, N, D, LAYERS, HEADS = 16, 24, 32, 2, 2
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "tests" / "selfattention" / "data" / "induction_reference.npz"


def torch_forward(p: dict, tokens: torch.Tensor, keep: torch.Tensor):
    """Embedding, two layers of causal heads with positions on queries and keys, unembedding."""
    B, n = tokens.shape
    d_head = D // HEADS
    x = p["W_E"][tokens]                                               # (B, n, D)
    weights = []
    for layer in range(LAYERS):
        qk_in = x + p["W_pos"][:n]
        heads = []
        for name in ("W_Q", "W_K", "W_V"):
            inp = x if name == "W_V" else qk_in
            heads.append((inp @ p[name][layer]).view(B, n, HEADS, d_head).transpose(1, 2))   # (B, h, n, d_head)
        q, k, v = heads
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (B, h, n, d_head)
        scores = (q @ k.transpose(-1, -2)) / d_head ** 0.5
        blocked = torch.ones(n, n, dtype=torch.bool).triu(1)
        weights.append(torch.softmax(scores.masked_fill(blocked, float("-inf")), dim=-1))
        out = out * keep[layer][None, :, None, None]
        x = x + out.transpose(1, 2).reshape(B, n, D) @ p["W_O"][layer]
    return x @ p["W_U"], torch.stack(weights)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(2021)
    shapes = {"W_E": (V, D), "W_pos": (N, D), "W_Q": (LAYERS, D, D), "W_K": (LAYERS, D, D),
              "W_V": (LAYERS, D, D), "W_O": (LAYERS, D, D), "W_U": (D, V)}
    params = {k: rng.standard_normal(s) / np.sqrt(s[-2] if k not in ("W_E", "W_pos") else 1) for k, s in shapes.items()}
    tokens = rng.integers(0, V, size=(3, N))
    ablate = np.array([[0, 1]])
    p = {k: torch.from_numpy(a) for k, a in params.items()}
    t = torch.from_numpy(tokens)
    logits, weights = torch_forward(p, t, torch.ones(LAYERS, HEADS, dtype=torch.float64))
    keep = torch.ones(LAYERS, HEADS, dtype=torch.float64)
    keep[0, 1] = 0
    ablated, _ = torch_forward(p, t, keep)
    np.savez_compressed(args.out, **params, tokens=tokens, ablate=ablate, logits=logits.numpy(),
                        logits_ablated=ablated.numpy(), weights=weights.numpy(),
                        versions=np.array([torch.__version__, np.__version__]))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
