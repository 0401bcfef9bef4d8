"""Masks as PyTorch has them: boolean or float, broadcast to (..., h, L, S), grouped query heads too.

``tests/selfattention/data/mask_reference.npz`` was written by
``scripts/make_mask_reference.py`` (``torch.nn.functional.scaled_dot_product_attention``,
with ``enable_gqa`` where the key/value heads are fewer than the query heads).
Every function of the package that takes a mask gives PyTorch's numbers on those cases, and
refuses a mask of the wrong shape with a ValueError that names the shapes.
"""

from pathlib import Path

import numpy as np
import pytest

import selfattention as sa
from selfattention import fast
from selfattention.multihead import concat_heads, multi_head_attention, split_heads

REFERENCE = Path(__file__).parent / "data" / "mask_reference.npz"

with np.load(REFERENCE, allow_pickle=False) as _data:
    NAMES = [str(n) for n in _data["names"]]


def reference(i: int) -> dict:
    with np.load(REFERENCE, allow_pickle=False) as data:
        case = {key.split("_", 1)[1]: data[key] for key in data.files if key.startswith(f"s{i}_")}
    case["mask"] = case.get("mask")
    case["causal"], case["gqa"] = bool(case["causal"]), bool(case["gqa"])
    return case


def tolerance(case) -> dict:
    return {"rtol": 1e-5, "atol": 1e-5} if case["q"].dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-12}


def repeated(case):
    """``k`` and ``v`` with each key/value head repeated for its group of query heads (as ``enable_gqa``)."""
    group = case["q"].shape[-3] // case["k"].shape[-3]
    return np.repeat(case["k"], group, axis=-3), np.repeat(case["v"], group, axis=-3)


ATTENTION = {
    "reference": sa.scaled_dot_product_attention,
    "fast": fast.scaled_dot_product_attention,
    "blockwise": lambda q, k, v, **kw: fast.blockwise_attention(q, k, v, block_size=2, query_block_size=2, **kw),
}


@pytest.mark.parametrize("layer", list(ATTENTION))
@pytest.mark.parametrize("i", range(len(NAMES)), ids=NAMES)
def test_attention_gives_pytorchs_numbers(i, layer):
    case = reference(i)
    k, v = repeated(case)
    out = ATTENTION[layer](case["q"], k, v, mask=case["mask"], causal=case["causal"])
    assert out.dtype == case["q"].dtype
    np.testing.assert_allclose(out, case["out"], **tolerance(case))


@pytest.mark.parametrize("i", range(len(NAMES)), ids=NAMES)
def test_grouped_query_attention_gives_pytorchs_numbers_with_enable_gqa(i):
    case = reference(i)
    out = sa.grouped_query_attention(case["q"], case["k"], case["v"], mask=case["mask"], causal=case["causal"])
    np.testing.assert_allclose(out, case["out"], **tolerance(case))


def test_the_reference_holds_grouped_cases_with_per_head_masks_and_a_fully_masked_row():
    cases = [reference(i) for i in range(len(NAMES))]
    assert sum(c["gqa"] and c["mask"] is not None and c["mask"].ndim >= 3 and c["mask"].shape[-3] > 1
               for c in cases) >= 3
    assert any(c["mask"] is not None and c["mask"].dtype == bool and not c["mask"].any(axis=-1).all() for c in cases)
    assert {c["mask"].dtype.kind for c in cases if c["mask"] is not None} == {"b", "f"}


def test_a_fully_masked_query_gets_zeros_as_in_pytorch():
    i = NAMES.index("boolean, a query row that blocks every key")
    case = reference(i)
    assert (case["out"][..., 0, :] == 0).all()
    np.testing.assert_array_equal(sa.scaled_dot_product_attention(case["q"], case["k"], case["v"],
                                                                  mask=case["mask"])[..., 0, :], 0.0)


# ---------------------------------------------------------------------------
# Multi-head attention: the mask is one per head, as for the heads' own attention
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(5, 5), (5,), (2, 5, 5), (2, 1, 5), (3, 2, 5, 5), (3, 1, 1, 5)])
@pytest.mark.parametrize("kind", ["bool", "float"])
def test_multi_head_attention_masks_each_head_as_its_own_attention(shape, kind):
    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal((3, 5, 8))  # (B, L, d_model), h = 2 heads
    w_q, w_k, w_v, w_o = (rng.standard_normal((8, 8)) / np.sqrt(8) for _ in range(4))
    mask = rng.random(shape) > 0.3 if kind == "bool" else rng.standard_normal(shape)
    out = multi_head_attention(x, w_q, w_k, w_v, w_o, 2, mask=mask)
    heads = sa.scaled_dot_product_attention(split_heads(x @ w_q, 2), split_heads(x @ w_k, 2),
                                            split_heads(x @ w_v, 2), mask=mask)  # (B, h, L, d_head)
    np.testing.assert_allclose(out, concat_heads(heads) @ w_o, rtol=1e-12, atol=1e-12)


def test_alibi_with_grouped_query_heads_is_alibi_with_the_heads_repeated():
    rng = np.random.default_rng(3)
    h, kv_heads, L = 8, 2, 6
    q = rng.standard_normal((h, L, 4))
    k, v = rng.standard_normal((kv_heads, L, 4)), rng.standard_normal((kv_heads, L, 4))
    bias = sa.alibi_bias(L, h)  # (h, L, L): a slope per query head
    out = sa.grouped_query_attention(q, k, v, mask=bias)
    np.testing.assert_allclose(out, sa.scaled_dot_product_attention(
        q, np.repeat(k, h // kv_heads, axis=0), np.repeat(v, h // kv_heads, axis=0), mask=bias), rtol=1e-12, atol=0)


# ---------------------------------------------------------------------------
# A mask of the wrong shape: a ValueError that names both shapes
# ---------------------------------------------------------------------------

Q = np.zeros((2, 4, 3, 2))  # (B, h, L, d)
K = np.zeros((2, 4, 5, 2))  # (B, h, S, d)
BAD = [(5, 3, 5), (3, 6), (4, 5), (3, 1, 3, 5), (2, 3, 3, 5)]


@pytest.mark.parametrize("layer", list(ATTENTION))
@pytest.mark.parametrize("shape", BAD, ids=str)
def test_attention_refuses_a_mask_of_the_wrong_shape_naming_the_shapes(layer, shape):
    message = rf"mask of shape \({', '.join(map(str, shape))}\) does not broadcast to .*\(2, 4, 3, 5\)"
    for mask in (np.ones(shape, bool), np.zeros(shape)):
        with pytest.raises(ValueError, match=message):
            ATTENTION[layer](Q, K, K, mask=mask)


@pytest.mark.parametrize("shape", BAD, ids=str)
def test_grouped_query_attention_refuses_a_mask_of_the_wrong_shape_naming_the_shapes(shape):
    message = rf"mask of shape \({', '.join(map(str, shape))}\) does not broadcast to .*\(2, 4, 3, 5\)"
    for kv_heads in (1, 2, 4):
        with pytest.raises(ValueError, match=message):
            sa.grouped_query_attention(Q, K[:, :kv_heads], K[:, :kv_heads], mask=np.ones(shape, bool))


def test_multi_head_cross_and_one_head_attention_refuse_a_mask_of_the_wrong_shape():
    x = np.zeros((3, 4))
    with pytest.raises(ValueError, match=r"mask of shape \(3, 3, 3\) does not broadcast to .*\(2, 3, 3\)"):
        multi_head_attention(x, np.eye(4), np.eye(4), np.eye(4), np.eye(4), 2, mask=np.ones((3, 3, 3), bool))
    with pytest.raises(ValueError, match=r"mask of shape \(3, 4\) does not broadcast to .*\(3, 3\)"):
        sa.attention_head(x, np.eye(4), np.eye(4), np.eye(4), mask=np.ones((3, 4), bool))
    with pytest.raises(ValueError, match=r"mask of shape \(3, 3\) does not broadcast to .*\(3, 5\)"):
        sa.cross_attention(x, np.zeros((5, 4)), np.eye(4), np.eye(4), np.eye(4), mask=np.ones((3, 3), bool))
