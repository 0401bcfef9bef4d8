"""Input checks shared by every public function (one place, clear messages)."""

from __future__ import annotations

import numbers

import numpy as np


def as_float_array(x, name: str) -> np.ndarray:
    """Return ``x`` as a floating NumPy array, or raise a clear error.

    Integers and booleans become float64; float16 becomes float32;
    float32 and float64 are kept. Anything else raises ``TypeError``;
    NaN or inf raise ``ValueError``.
    """
    arr = np.asarray(x)
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_
    ):
        raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"{name} must be real, got dtype {arr.dtype}")
    if arr.dtype == np.float16:
        arr = arr.astype(np.float32)
    elif not np.issubdtype(arr.dtype, np.floating):
        arr = arr.astype(np.float64)
    elif arr.dtype not in (np.float32, np.float64):
        arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(f"{name} contains {bad} NaN or inf value(s); shape {arr.shape}")
    return arr


def check_ndim(arr: np.ndarray, name: str, at_least: int, layout: str) -> None:
    """Raise ``ValueError`` unless ``arr`` has at least ``at_least`` dimensions."""
    if arr.ndim < at_least:
        raise ValueError(
            f"{name} must have shape {layout} (at least {at_least} dimensions), "
            f"got shape {arr.shape}"
        )


def check_flag(value, name: str) -> bool:
    """Return ``value`` if it is a bool (or NumPy bool), else raise ``TypeError``."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_scale(scale, d_k: int) -> float:
    """Return the softmax scale: ``1/sqrt(d_k)`` by default, else a finite number."""
    if scale is None:
        return 1.0 / float(np.sqrt(d_k))
    if isinstance(scale, np.ndarray) and scale.ndim == 0:
        scale = scale.item()
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real):
        raise TypeError(f"scale must be a real number or None, got {type(scale).__name__}")
    if not np.isfinite(scale):
        raise ValueError(f"scale must be finite, got {scale}")
    return float(scale)


def check_positive_int(n, name: str) -> int:
    """Return ``n`` as an int if it is a positive integer, else raise."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"{name} must be a positive integer, got {n!r}")
    if n < 1:
        raise ValueError(f"{name} must be a positive integer, got {n}")
    return int(n)


def broadcast_shape(a: tuple, b: tuple, what: str) -> tuple:
    """Broadcast two shapes, or raise ``ValueError`` naming ``what`` and both."""
    try:
        return np.broadcast_shapes(a, b)
    except ValueError:
        raise ValueError(f"{what}: shapes {a} and {b} do not broadcast") from None


def check_mask(mask, L: int, S: int, batch: tuple):
    """Validate an attention mask; return ``(allowed, bias)``, at most one not None.

    ``allowed`` is a boolean mask (True = may attend); ``bias`` a float mask
    added to the scores. Either is returned as given (not copied or
    broadcast); it broadcasts to ``batch + (L, S)``. A float mask that holds
    only 0 and ``-inf`` is returned as the boolean mask it means, so both
    spellings give the very same numbers. Integer masks are refused: a 0/1
    mask would be added to the scores instead of blocking.
    """
    if mask is None:
        return None, None
    m = np.asarray(mask)
    target = tuple(batch) + (L, S)
    if m.dtype != np.bool_ and not (m.dtype != object and np.issubdtype(m.dtype, np.floating)):
        raise TypeError(
            f"mask must be boolean (True = may attend) or float (added to the scores), "
            f"got dtype {m.dtype}; for a 0/1 mask use mask.astype(bool)"
        )
    if m.dtype != np.bool_ and (np.isnan(m).any() or np.isposinf(m).any()):
        raise ValueError("mask: a float mask may hold real numbers or -inf, not NaN or +inf")
    try:
        full = np.broadcast_shapes(m.shape, target)
    except ValueError:
        full = None
    if full is None or full[-2:] != (L, S):
        raise ValueError(f"mask of shape {m.shape} does not broadcast to (..., L, S) = {target}")
    if m.dtype == np.bool_:
        return m, None
    keep = m == 0
    if (keep | np.isneginf(m)).all():  # only 0 and -inf: a boolean mask in disguise
        return keep, None
    return None, m


def check_grouped_mask(mask, L: int, S: int, batch: tuple, h: int, kv_heads: int):
    """Check a mask for ``h`` query heads; lay it out for the heads grouped by key/value head.

    The mask broadcasts to ``batch + (h, L, S)``, as it would for
    multi-head attention (head ``i`` uses row ``i`` of a head axis). Grouped
    query attention puts the query heads in the layout ``(kv_heads, group)``
    with ``group = h // kv_heads``, so a mask with a head axis of ``h`` is
    reshaped to that layout and one with a head axis of 1 gets a group axis
    of 1. Returns the mask (boolean or float, as :func:`check_mask`), or None.
    """
    allowed, bias = check_mask(mask, L, S, tuple(batch) + (h,))
    m = allowed if bias is None else bias
    if m is None or m.ndim < 3:  # no mask, or the same one for every head
        return m
    *lead, heads, rows, cols = m.shape  # heads is 1 or h: check_mask saw it broadcast
    if heads == 1:
        return m[..., None, :, :]  # (..., 1, 1, L, S): every group, every head of it
    return m.reshape(*lead, kv_heads, h // kv_heads, rows, cols)  # (..., kv_heads, group, L, S)


def check_qkv(q, k, v):
    """Validate q, k and (if not None) v; return them as float arrays of one dtype.

    ``q`` is (..., L, d_k), ``k`` (..., S, d_k) and ``v`` (..., S, d_v), with
    ``d_k >= 1``, ``S >= 1`` and leading (batch, head) dimensions that
    broadcast. The common dtype is float32 if all are float32 (or float16),
    else float64.
    """
    q = as_float_array(q, "q")
    k = as_float_array(k, "k")
    check_ndim(q, "q", 2, "(..., L, d_k)")
    check_ndim(k, "k", 2, "(..., S, d_k)")
    if q.shape[-1] == 0:
        raise ValueError(f"q and k need d_k >= 1 numbers per row, got d_k=0 (q: {q.shape})")
    if k.shape[-2] == 0:
        raise ValueError(f"k has S=0 rows: there is no key to attend to (k: {k.shape})")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"k has d_k={k.shape[-1]} but q has d_k={q.shape[-1]} "
            f"(q: {q.shape}, k: {k.shape})"
        )
    batch = broadcast_shape(q.shape[:-2], k.shape[:-2], "leading (batch, head) dimensions of q and k")
    arrays = [q, k]
    if v is not None:
        v = as_float_array(v, "v")
        check_ndim(v, "v", 2, "(..., S, d_v)")
        if v.shape[-2] != k.shape[-2]:
            raise ValueError(
                f"v has S={v.shape[-2]} rows but k has S={k.shape[-2]} "
                f"(k: {k.shape}, v: {v.shape})"
            )
        broadcast_shape(batch, v.shape[:-2], "leading (batch, head) dimensions of q, k and v")
        arrays.append(v)
    dtype = np.result_type(*arrays)
    arrays = [a.astype(dtype, copy=False) for a in arrays]
    return arrays[0], arrays[1], (arrays[2] if v is not None else None)


def overflow_text(q, k, scale) -> str:
    """The error message for scores ``q @ k.T * scale`` that overflow the dtype."""
    return (
        f"the scores q @ k.T * scale overflow {q.dtype} (largest |q| = {abs_max(q):.3g}, "
        f"|k| = {abs_max(k):.3g}, scale = {float(scale):.3g}): make q, k or scale smaller"
    )


def abs_max(x) -> float:
    """Largest absolute value in ``x`` (0 if empty), as a Python float."""
    if x.size == 0:
        return 0.0
    return max(float(np.max(x)), -float(np.min(x)))
