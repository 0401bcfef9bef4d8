"""The safetensors weight format, read and written with NumPy alone.

A ``.safetensors`` file is three parts:

1. eight bytes, a little-endian unsigned integer ``N``;
2. ``N`` bytes of JSON: for each tensor its ``dtype``, ``shape`` and
   ``data_offsets`` ``[begin, end]`` (optionally ``__metadata__``);
3. the tensors' bytes, one after the other, little-endian, row-major;
   ``data_offsets`` count from the start of this part.

:func:`read_safetensors` checks every one of these facts before it trusts
them, and names the tensor at fault. :func:`write_safetensors` writes the
same layout in a fixed order (widest dtype first, then by name) with no
metadata, so the same arrays always give the same bytes (those of
``safetensors.numpy.save``). No ``safetensors`` package is needed: the
in-browser Python reads the book's float16 weights with this module. The
tests check it equal to ``safetensors.numpy`` on the real model file.

Examples
--------
>>> import numpy as np
>>> raw = write_safetensors({"w": np.arange(6, dtype=np.float32).reshape(2, 3)})
>>> raw[:8], raw[8:27]
(b'@\\x00\\x00\\x00\\x00\\x00\\x00\\x00', b'{"w":{"dtype":"F32"')
>>> read_safetensors(raw)["w"]
array([[0., 1., 2.],
       [3., 4., 5.]], dtype=float32)
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping

import numpy as np

#: The dtypes read, with the NumPy dtype of their bytes (``BF16`` is widened to float32).
DTYPES = {
    "F64": np.dtype("<f8"),
    "F32": np.dtype("<f4"),
    "F16": np.dtype("<f2"),
    "BF16": np.dtype("<u2"),
    "I64": np.dtype("<i8"),
    "I32": np.dtype("<i4"),
    "I16": np.dtype("<i2"),
    "I8": np.dtype("i1"),
    "U8": np.dtype("u1"),
    "BOOL": np.dtype("?"),
}

#: The dtypes written: NumPy's kind and size to the format's name.
_NAMES = {np.dtype(v).newbyteorder("<") if v.itemsize > 1 else v: k for k, v in DTYPES.items() if k != "BF16"}

#: The order of the dtypes in the ``safetensors`` package, narrowest first; a file holds the widest first.
_ORDER = ("BOOL", "U8", "I8", "I16", "F16", "I32", "F32", "F64", "I64")

#: Largest header accepted, as the ``safetensors`` package (100 MB).
MAX_HEADER_BYTES = 100_000_000


def read_safetensors(source) -> dict[str, np.ndarray]:
    """Every tensor of a safetensors file, as NumPy arrays.

    Parameters
    ----------
    source : str, os.PathLike, bytes, bytearray or memoryview
        The file's path, or its bytes.

    Returns
    -------
    dict of str to numpy.ndarray
        Tensor name to array, sorted by name.
        ``F32``, ``F16``, ``F64`` and the integer types keep their dtype;
        ``BF16`` becomes float32 (exactly). The arrays are read-only
        views of one copy of the bytes.

    Raises
    ------
    TypeError
        If ``source`` is not a path or bytes.
    ValueError
        If the file is truncated, its header is not valid JSON, a tensor has
        an unknown dtype, a bad shape, offsets outside the data or a size that
        does not match its shape; the message names the tensor.

    Examples
    --------
    >>> import numpy as np
    >>> raw = write_safetensors({"b": np.array([1, 2], dtype=np.int64), "a": np.ones(2, np.float16)})
    >>> {k: (v.dtype.name, v.shape) for k, v in read_safetensors(raw).items()}
    {'a': ('float16', (2,)), 'b': ('int64', (2,))}
    >>> read_safetensors(raw[:-1])
    Traceback (most recent call last):
    ...
    ValueError: tensor 'a': data_offsets end at 20, past the 19 bytes of data
    """
    data = _as_bytes(source)
    header, start = _header(data)
    body = len(data) - start
    tensors: dict[str, np.ndarray] = {}
    end_seen = 0
    for name, begin, end, dtype, shape in _entries(header):
        if begin != end_seen:
            raise ValueError(f"tensor {name!r}: data_offsets start at {begin}, expected {end_seen} "
                             "(tensors must follow each other without gaps or overlaps)")
        if end > body:
            raise ValueError(f"tensor {name!r}: data_offsets end at {end}, past the {body} bytes of data")
        end_seen = end
        size = math.prod(shape) * DTYPES[dtype].itemsize
        if end - begin != size:
            raise ValueError(f"tensor {name!r}: {dtype} of shape {list(shape)} needs {size} bytes, "
                             f"data_offsets give {end - begin}")
        arr = np.frombuffer(data, dtype=DTYPES[dtype], count=math.prod(shape), offset=start + begin)
        if dtype == "BF16":  # the top half of a float32: shift it back into place
            arr = (arr.astype(np.uint32) << 16).view(np.float32)
            arr.flags.writeable = False
        tensors[name] = arr.reshape(shape)
    if end_seen != body:
        raise ValueError(f"safetensors data is {body} bytes but the tensors need {end_seen}"
                         + (" (truncated file?)" if end_seen > body else " (trailing bytes)"))
    return dict(sorted(tensors.items()))


def write_safetensors(tensors: Mapping[str, np.ndarray], path=None) -> bytes:
    """Write arrays as a safetensors file: in a fixed order, no metadata, the same bytes every time.

    Parameters
    ----------
    tensors : Mapping of str to numpy.ndarray
        Name to array (float64/32/16, int64/32/16/8, uint8 or bool).
    path : str or os.PathLike, optional
        Where to write the file; if omitted, nothing is written.

    Returns
    -------
    bytes
        The file's bytes. The header is padded with spaces to a multiple of
        8 bytes, as the ``safetensors`` package does.

    Raises
    ------
    TypeError
        If ``tensors`` is not a mapping of str to arrays of a supported dtype.
    ValueError
        If a name is empty or ``__metadata__``.

    Examples
    --------
    >>> import numpy as np
    >>> a = write_safetensors({"x": np.zeros(3, np.float16), "y": np.eye(2)})
    >>> a == write_safetensors({"y": np.eye(2), "x": np.zeros(3, np.float16)})
    True
    >>> write_safetensors({"x": np.zeros(2, complex)})
    Traceback (most recent call last):
    ...
    TypeError: tensor 'x' has dtype complex128, which safetensors cannot hold here
    """
    if not isinstance(tensors, Mapping):
        raise TypeError(f"tensors must be a mapping of name to array, got {type(tensors).__name__}")
    header: dict[str, dict] = {}
    chunks: list[bytes] = []
    offset = 0
    arrays = {}
    for name, value in tensors.items():
        if not isinstance(name, str):
            raise TypeError(f"tensor names must be strings, got {name!r}")
        if not name or name == "__metadata__":
            raise ValueError(f"tensor name {name!r} is not allowed")
        arr = np.asarray(value)
        key = arr.dtype.newbyteorder("<") if arr.dtype.itemsize > 1 else arr.dtype
        if key not in _NAMES:
            raise TypeError(f"tensor {name!r} has dtype {arr.dtype}, which safetensors cannot hold here")
        arrays[name] = (_NAMES[key], np.asarray(arr, dtype=key, order="C"))   # keeps a 0-d shape
    # As the safetensors package: the widest dtype first (so every tensor stays aligned), then by name.
    for name in sorted(arrays, key=lambda n: (-_ORDER.index(arrays[n][0]), n)):
        dtype, arr = arrays[name]
        raw = arr.tobytes()
        header[name] = {"dtype": dtype, "shape": list(arr.shape), "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-len(text) % 8)
    out = len(text).to_bytes(8, "little") + text + b"".join(chunks)
    if path is not None:
        with open(path, "wb") as f:
            f.write(out)
    return out


# ---------------------------------------------------------------------------
# Private helpers
# ---------------------------------------------------------------------------


def _as_bytes(source) -> bytes:
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as f:
            return f.read()
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    raise TypeError(f"source must be a path or the file's bytes, got {type(source).__name__}")


def _header(data: bytes) -> tuple[dict, int]:
    """The parsed JSON header and where the tensors' data starts."""
    if len(data) < 8:
        raise ValueError(f"safetensors file is {len(data)} bytes, too short for its 8-byte header length")
    n = int.from_bytes(data[:8], "little")
    if n > MAX_HEADER_BYTES:
        raise ValueError(f"safetensors header length {n} is over the {MAX_HEADER_BYTES}-byte limit")
    if 8 + n > len(data):
        raise ValueError(f"safetensors header length is {n} bytes but the file has only "
                         f"{len(data) - 8} after it (truncated header)")
    try:
        header = json.loads(data[8:8 + n].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"safetensors header is not valid UTF-8 JSON: {exc}") from None
    if not isinstance(header, dict):
        raise ValueError(f"safetensors header must be a JSON object, got {type(header).__name__}")
    return header, 8 + n


def _entries(header: dict):
    """``(name, begin, end, dtype, shape)`` of each tensor, checked, in the order of the data."""
    entries = []
    for name, info in header.items():
        if name == "__metadata__":
            if not isinstance(info, dict) or not all(isinstance(v, str) for v in info.values()):
                raise ValueError("safetensors __metadata__ must map strings to strings")
            continue
        if not isinstance(info, dict) or set(info) != {"dtype", "shape", "data_offsets"}:
            raise ValueError(f"tensor {name!r}: header entry must have exactly dtype, shape and "
                             f"data_offsets, got {info!r}")
        dtype, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
        if dtype not in DTYPES:
            raise ValueError(f"tensor {name!r}: unknown dtype {dtype!r} (known: {', '.join(DTYPES)})")
        if not isinstance(shape, list) or not all(_is_count(d) for d in shape):
            raise ValueError(f"tensor {name!r}: shape must be a list of non-negative integers, got {shape!r}")
        if (not isinstance(offsets, list) or len(offsets) != 2 or not all(_is_count(o) for o in offsets)
                or offsets[0] > offsets[1]):
            raise ValueError(f"tensor {name!r}: data_offsets must be [begin, end] with "
                             f"0 <= begin <= end, got {offsets!r}")
        entries.append((name, offsets[0], offsets[1], dtype, tuple(shape)))
    return sorted(entries, key=lambda e: (e[1], e[2]))


def _is_count(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


__all__ = ["DTYPES", "read_safetensors", "write_safetensors"]
