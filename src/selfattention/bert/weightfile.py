"""The safetensors weight format, read and written with NumPy alone.

A ``.safetensors`` file is three parts:

1. eight bytes, a little-endian unsigned integer ``N``;
2. ``N`` bytes of JSON: for each tensor its ``dtype``, ``shape`` and
   ``data_offsets`` ``[begin, end]`` (optionally ``__metadata__``);
3. the tensors' bytes, one after the other, little-endian, row-major;
   ``data_offsets`` count from the start of this part.

:func:`read_safetensors` checks every one of these facts before it trusts
them, and names the tensor at fault: a bad file gets a ``ValueError``, never
another exception, a wrong array or an allocation larger than the file. It
reads what the ``safetensors`` package reads, with the same arrays, and is
stricter in two places the format's notes ask for: a name given twice in the
header, and a tensor entry with a field besides ``dtype``, ``shape`` and
``data_offsets``, are refused. :func:`write_safetensors` writes the
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
import os
import reprlib
from collections.abc import Mapping

import numpy as np

#: The dtypes read, with the NumPy dtype of their bytes (``BF16`` is widened to float32).
DTYPES = {
    "F64": np.dtype("<f8"),
    "F32": np.dtype("<f4"),
    "F16": np.dtype("<f2"),
    "BF16": np.dtype("<u2"),
    "C64": np.dtype("<c8"),
    "I64": np.dtype("<i8"),
    "I32": np.dtype("<i4"),
    "I16": np.dtype("<i2"),
    "I8": np.dtype("i1"),
    "U64": np.dtype("<u8"),
    "U32": np.dtype("<u4"),
    "U16": np.dtype("<u2"),
    "U8": np.dtype("u1"),
    "BOOL": np.dtype("?"),
}

#: Dtypes of the format that NumPy has no type for (8-, 6- and 4-bit floats): named, but not read.
NO_NUMPY_DTYPE = ("F8_E5M2", "F8_E4M3", "F8_E8M0", "F8_E4M3FNUZ", "F8_E5M2FNUZ", "F6_E2M3", "F6_E3M2", "F4")

#: The dtypes written: NumPy's kind and size to the format's name.
_NAMES = {np.dtype(v).newbyteorder("<") if v.itemsize > 1 else v: k for k, v in DTYPES.items() if k != "BF16"}

#: The order of the dtypes in the ``safetensors`` package, narrowest first; a file holds the widest first.
_ORDER = ("BOOL", "U8", "I8", "I16", "U16", "F16", "I32", "U32", "F32", "C64", "F64", "I64", "U64")

#: Largest header accepted, as the ``safetensors`` package (100 MB).
MAX_HEADER_BYTES = 100_000_000

#: Most bytes a tensor can have (the ``safetensors`` package counts them in 64 bits).
_MAX_BYTES = 2**64

#: Most dimensions of a tensor: NumPy's limit.
MAX_DIMS = 64

#: Short reprs of header values for messages (a bad header may be 100 MB of nesting).
_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 60
_SHORT.maxlist = _SHORT.maxdict = 6
_SHORT.maxlevel = 3


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
        ``BF16`` becomes float32 (exactly); every other dtype of
        :data:`DTYPES` keeps its own. The arrays are read-only views of one
        copy of the bytes.

    Raises
    ------
    TypeError
        If ``source`` is not a path or bytes.
    ValueError
        If the file is not a safetensors file that NumPy can hold: too short,
        a header length past the file or over :data:`MAX_HEADER_BYTES`, a
        header that is not a JSON object in UTF-8 (or names a key twice), a
        tensor entry with other fields than ``dtype``, ``shape`` and
        ``data_offsets``, an unknown dtype or one with no NumPy type, a shape
        that is not a list of at most :data:`MAX_DIMS` non-negative integers,
        offsets outside the data, with gaps or overlaps, or a byte count that
        does not match the shape, and ``__metadata__`` that does not map
        strings to strings. The message names the tensor at fault.

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
    >>> header = b'{"w": 1, "w": 2}'
    >>> read_safetensors(len(header).to_bytes(8, "little") + header)
    Traceback (most recent call last):
    ...
    ValueError: safetensors header is not valid: the key 'w' appears twice
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
        size = _nbytes(shape, DTYPES[dtype].itemsize)
        if size != end - begin:
            needs = f"{size} bytes" if size <= _MAX_BYTES else "more than 2**64 bytes"
            raise ValueError(f"tensor {name!r}: {dtype} of shape {_SHORT.repr(list(shape))} needs {needs}, "
                             f"data_offsets give {end - begin}")
        count = size // DTYPES[dtype].itemsize
        arr = np.frombuffer(data, dtype=DTYPES[dtype], count=count, offset=start + begin)
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
        Name to array (float64/32/16, complex64, int64/32/16/8, uint64/32/16/8
        or bool).
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
    """The file's bytes; a path's header length is checked against the file's size before it is read."""
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as f:
            _header_length(f.read(8), os.fstat(f.fileno()).st_size)
            f.seek(0)
            return f.read()   # one copy of the file (head + rest would make a second one)
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    raise TypeError(f"source must be a path or the file's bytes, got {type(source).__name__}")


def _header_length(head: bytes, size: int) -> int:
    """The header length ``N`` in the first eight bytes, checked against the file's ``size``."""
    if len(head) < 8:
        raise ValueError(f"safetensors file is {size} bytes, too short for its 8-byte header length")
    n = int.from_bytes(head[:8], "little")
    if n > MAX_HEADER_BYTES:
        raise ValueError(f"safetensors header length {n} is over the {MAX_HEADER_BYTES}-byte limit")
    if 8 + n > size:
        raise ValueError(f"safetensors header length is {n} bytes but the file has only "
                         f"{size - 8} after it (truncated header)")
    return n


def _header(data: bytes) -> tuple[dict, int]:
    """The parsed JSON header and where the tensors' data starts."""
    n = _header_length(data[:8], len(data))
    try:
        header = json.loads(data[8:8 + n].decode("utf-8"), object_pairs_hook=_object,
                            parse_constant=_no_constant, parse_int=_integer)
    except UnicodeDecodeError as exc:
        raise ValueError(f"safetensors header is not valid UTF-8: {exc}") from None
    except RecursionError:
        raise ValueError("safetensors header is not valid: it nests too deeply") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"safetensors header is not valid JSON: {exc}") from None
    except ValueError as exc:   # the hooks' refusals, and int()'s limit on digits
        raise ValueError(f"safetensors header is not valid: {exc}") from None
    if not isinstance(header, dict):
        raise ValueError(f"safetensors header must be a JSON object, got {type(header).__name__}")
    return header, 8 + n


def _object(pairs: list) -> dict:
    """A JSON object with no key twice and no string that is not Unicode (a lone surrogate escape)."""
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {_SHORT.repr(key)} appears twice")
        for text in (key, value) if isinstance(value, str) else (key,):
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError(f"the string {_SHORT.repr(text)} has a lone surrogate escape") from None
        out[key] = value
    return out


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _integer(text: str):
    # JSON has no negative zero integer: "-0" is read as the float it is (as serde_json does).
    return -0.0 if text == "-0" else int(text)


def _entries(header: dict):
    """``(name, begin, end, dtype, shape)`` of each tensor, checked, in the order of the data."""
    entries = []
    for name, info in header.items():
        if name == "__metadata__":
            if info is not None and (not isinstance(info, dict)
                                     or not all(isinstance(v, str) for v in info.values())):
                raise ValueError(f"safetensors __metadata__ must map strings to strings, got {_SHORT.repr(info)}")
            continue
        fields = {"dtype", "shape", "data_offsets"}
        if not isinstance(info, dict) or set(info) != fields:
            why = (f"lacks {', '.join(sorted(fields - set(info)))}" if isinstance(info, dict) and fields > set(info)
                   else f"got {_SHORT.repr(info)}")
            raise ValueError(f"tensor {name!r}: header entry must have exactly dtype, shape and "
                             f"data_offsets, {why}")
        dtype, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
        if dtype in NO_NUMPY_DTYPE:
            raise ValueError(f"tensor {name!r}: dtype {dtype!r} has no NumPy type, so it cannot be read here")
        if not isinstance(dtype, str) or dtype not in DTYPES:
            raise ValueError(f"tensor {name!r}: unknown dtype {_SHORT.repr(dtype)} (known: {', '.join(DTYPES)})")
        if not isinstance(shape, list) or not all(_is_count(d) for d in shape):
            raise ValueError(f"tensor {name!r}: shape must be a list of non-negative integers, "
                             f"got {_SHORT.repr(shape)}")
        if len(shape) > MAX_DIMS:
            raise ValueError(f"tensor {name!r}: shape has {len(shape)} dimensions, more than NumPy's {MAX_DIMS}")
        if (not isinstance(offsets, list) or len(offsets) != 2 or not all(_is_count(o) for o in offsets)
                or offsets[0] > offsets[1]):
            raise ValueError(f"tensor {name!r}: data_offsets must be [begin, end] with "
                             f"0 <= begin <= end, got {_SHORT.repr(offsets)}")
        entries.append((name, offsets[0], offsets[1], dtype, tuple(shape)))
    return sorted(entries, key=lambda e: (e[1], e[2]))


def _nbytes(shape: tuple, itemsize: int) -> int:
    """Bytes a tensor of ``shape`` needs, or just over 2**64 once past it (no product of huge numbers)."""
    if 0 in shape:
        return 0
    n = itemsize
    for d in shape:
        n *= d
        if n > _MAX_BYTES:
            return _MAX_BYTES + 1
    return n


def _is_count(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


__all__ = ["DTYPES", "MAX_DIMS", "MAX_HEADER_BYTES", "NO_NUMPY_DTYPE", "read_safetensors", "write_safetensors"]
