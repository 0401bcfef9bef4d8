"""Read and rewrite the sections of a WebAssembly binary: what a memory snapshot needs, no more.

A module is a magic number, a version and a list of sections, each an id byte, a size and a
payload (https://webassembly.github.io/spec/core/binary/modules.html). :func:`booksite.runtime.snapshot`
uses these functions to turn the interpreter's module into one whose memory already holds a started
Python: new globals, the memory's size, new data segments, fewer exports, and the bodies of functions
that nothing can call any more cut to one instruction (:func:`stub_functions`). Every other section is
copied byte for byte.
"""

from __future__ import annotations

import numpy as np

MAGIC = b"\0asm\x01\0\0\0"
CUSTOM, IMPORT, MEMORY, GLOBAL, EXPORT, CODE, DATA, DATACOUNT = 0, 2, 5, 6, 7, 10, 11, 12
PAGE = 65536
I32_CONST, END, UNREACHABLE = 0x41, 0x0B, 0x00
#: A function body that traps at once: no locals, ``unreachable``, ``end`` (valid for any signature).
STUB_BODY = bytes([0, UNREACHABLE, END])


def uleb(n: int) -> bytes:
    """``n`` as an unsigned LEB128.

    Examples
    --------
    >>> uleb(3).hex(), uleb(624485).hex()
    ('03', 'e58e26')
    """
    if n < 0:
        raise ValueError(f"uleb takes n >= 0, not {n}")
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def sleb(n: int) -> bytes:
    """``n`` as a signed LEB128.

    Examples
    --------
    >>> sleb(-1).hex(), sleb(16777216).hex()
    ('7f', '80808008')
    """
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        done = (n == 0 and not byte & 0x40) or (n == -1 and byte & 0x40)
        out.append(byte | (0 if done else 0x80))
        if done:
            return bytes(out)


def read_uleb(data: bytes, i: int) -> tuple[int, int]:
    """The unsigned LEB128 at ``data[i]`` and the index after it.

    Examples
    --------
    >>> read_uleb(bytes.fromhex("e58e26ff"), 0)
    (624485, 3)
    """
    n = shift = 0
    while True:
        byte = data[i]
        i += 1
        n |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return n, i


def read_sleb(data: bytes, i: int) -> tuple[int, int]:
    """The signed LEB128 at ``data[i]`` and the index after it.

    Examples
    --------
    >>> read_sleb(sleb(-123456) + sleb(5), 0)
    (-123456, 3)
    """
    n, end = read_uleb(data, i)
    bits = 7 * (end - i)
    return (n - (1 << bits) if data[end - 1] & 0x40 else n), end


def read_name(data: bytes, i: int) -> tuple[str, int]:
    """The length-prefixed UTF-8 name at ``data[i]`` and the index after it.

    Examples
    --------
    >>> read_name(name("run") + b"\\x00", 0)
    ('run', 4)
    """
    n, i = read_uleb(data, i)
    return data[i:i + n].decode("utf-8"), i + n


def name(text: str) -> bytes:
    """``text`` as a wasm name: its UTF-8 length, then its bytes.

    Examples
    --------
    >>> name("héllo")
    b'\\x06h\\xc3\\xa9llo'
    """
    raw = text.encode("utf-8")
    return uleb(len(raw)) + raw


def sections(module: bytes) -> list[tuple[int, bytes]]:
    """The ``(id, payload)`` of every section of ``module``, in order.

    Examples
    --------
    >>> sections(MAGIC + bytes([1, 1, 0]))   # a type section with no types
    [(1, b'\\x00')]
    >>> sections(b"ELF")
    Traceback (most recent call last):
    ...
    ValueError: not a WebAssembly 1 binary: it starts with b'ELF'
    """
    if module[:8] != MAGIC:
        raise ValueError(f"not a WebAssembly 1 binary: it starts with {module[:8]!r}")
    out, i = [], 8
    while i < len(module):
        sid = module[i]
        size, j = read_uleb(module, i + 1)
        if j + size > len(module):
            raise ValueError(f"section {sid} at byte {i} runs past the end of the module")
        out.append((sid, module[j:j + size]))
        i = j + size
    return out


def join(parts: list[tuple[int, bytes]]) -> bytes:
    """The module made of these sections: the inverse of :func:`sections`.

    Examples
    --------
    >>> m = MAGIC + bytes([1, 1, 0, 7, 1, 0])
    >>> join(sections(m)) == m
    True
    """
    return MAGIC + b"".join(bytes([sid]) + uleb(len(payload)) + payload for sid, payload in parts)


def section(parts: list[tuple[int, bytes]], sid: int) -> bytes:
    """The payload of the one section with id ``sid``.

    Examples
    --------
    >>> section([(1, b"\\x00"), (7, b"\\x00")], 7)
    b'\\x00'
    >>> section([(1, b"\\x00")], 11)
    Traceback (most recent call last):
    ...
    ValueError: the module has 0 sections with id 11, not one
    """
    found = [payload for s, payload in parts if s == sid]
    if len(found) != 1:
        raise ValueError(f"the module has {len(found)} sections with id {sid}, not one")
    return found[0]


def replace(parts: list[tuple[int, bytes]], sid: int, payload: bytes) -> list[tuple[int, bytes]]:
    """``parts`` with the payload of section ``sid`` replaced.

    Examples
    --------
    >>> replace([(1, b"\\x00"), (7, b"\\x00")], 7, b"\\x01")
    [(1, b'\\x00'), (7, b'\\x01')]
    """
    section(parts, sid)   # exactly one
    return [(s, payload if s == sid else p) for s, p in parts]


def exports(payload: bytes) -> list[tuple[str, int, int]]:
    """The ``(name, kind, index)`` of every export (kind 0 a function, 2 a memory, 3 a global).

    Examples
    --------
    >>> exports(export_payload([("run", 0, 5), ("memory", 2, 0)]))
    [('run', 0, 5), ('memory', 2, 0)]
    """
    count, i = read_uleb(payload, 0)
    out = []
    for _ in range(count):
        text, i = read_name(payload, i)
        kind = payload[i]
        index, i = read_uleb(payload, i + 1)
        out.append((text, kind, index))
    return out


def export_payload(entries: list[tuple[str, int, int]]) -> bytes:
    """An export section's payload: the inverse of :func:`exports`."""
    return uleb(len(entries)) + b"".join(name(t) + bytes([k]) + uleb(x) for t, k, x in entries)


def globals_(payload: bytes) -> list[tuple[int, bool, int]]:
    """The ``(value type, mutable, initial value)`` of every global, each an ``i32.const``.

    Examples
    --------
    >>> globals_(bytes.fromhex("02 7f 01 41 80808008 0b 7f 00 41 00 0b"))
    [(127, True, 16777216), (127, False, 0)]
    """
    count, i = read_uleb(payload, 0)
    out = []
    for k in range(count):
        vtype, mutable, op = payload[i], payload[i + 1], payload[i + 2]
        if op != I32_CONST:
            raise ValueError(f"global {k} starts with opcode {op:#x}; only i32.const is read here")
        value, i = read_sleb(payload, i + 3)
        if payload[i] != END:
            raise ValueError(f"global {k}'s initial value is more than one i32.const")
        out.append((vtype, bool(mutable), value))
        i += 1
    return out


def global_payload(entries: list[tuple[int, bool, int]]) -> bytes:
    """A global section's payload: the inverse of :func:`globals_` (i32 values wrap to signed).

    Examples
    --------
    >>> globals_(global_payload([(0x7F, True, 16777216), (0x7F, False, 2**32 - 1)]))
    [(127, True, 16777216), (127, False, -1)]
    """
    def signed(v: int) -> int:
        return v - (1 << 32) if v >= 1 << 31 else v
    return uleb(len(entries)) + b"".join(
        bytes([t, int(m), I32_CONST]) + sleb(signed(v)) + bytes([END]) for t, m, v in entries)


def memory_limits(payload: bytes) -> tuple[int, int | None]:
    """The one memory's ``(min, max)`` in 64 KiB pages (``max`` None when it has none).

    Examples
    --------
    >>> memory_limits(bytes.fromhex("01 00 80 02")), memory_limits(bytes.fromhex("01 01 02 80 80 04"))
    ((256, None), (2, 65536))
    """
    count, i = read_uleb(payload, 0)
    flags = payload[i]
    if count != 1 or flags not in (0, 1):
        raise ValueError(f"expected one 32-bit memory without sharing, found {count} (flags {flags:#x})")
    low, i = read_uleb(payload, i + 1)
    high = read_uleb(payload, i)[0] if flags == 1 else None
    return low, high


def memory_payload(low: int, high: int | None) -> bytes:
    """A memory section's payload: one memory of ``low`` to ``high`` pages.

    Examples
    --------
    >>> memory_limits(memory_payload(640, None)), memory_limits(memory_payload(2, 65536))
    ((640, None), (2, 65536))
    """
    return b"\x01" + (b"\x00" + uleb(low) if high is None else b"\x01" + uleb(low) + uleb(high))


def data_payload(memory: bytes, gap: int = 64) -> bytes:
    """A data section that fills a fresh memory with ``memory``'s bytes: one active segment (at an
    ``i32.const`` offset) per run of bytes that are not zero, where runs closer than ``gap`` zero
    bytes are one segment (a new memory is all zeros already).

    Examples
    --------
    >>> data_payload(bytes([0, 0, 7, 8, 0, 0, 0, 9]), gap=2).hex(" ")
    '02 00 41 02 0b 02 07 08 00 41 07 0b 01 09'
    """
    at = np.flatnonzero(np.frombuffer(memory, dtype=np.uint8))
    if at.size == 0:
        return uleb(0)
    cut = np.flatnonzero(np.diff(at) > gap)             # a run ends after at[cut] ...
    starts = np.concatenate([at[:1], at[cut + 1]])      # ... and the next starts at at[cut + 1]
    ends = np.concatenate([at[cut] + 1, at[-1:] + 1])
    runs = list(zip(starts.tolist(), ends.tolist()))
    return uleb(len(runs)) + b"".join(
        b"\x00" + bytes([I32_CONST]) + sleb(a) + bytes([END]) + uleb(b - a) + memory[a:b] for a, b in runs)


def imported_functions(payload: bytes) -> int:
    """How many functions an import section's ``payload`` imports: they come first in the
    function index space, before the functions of the code section.

    Examples
    --------
    >>> imported_functions(uleb(2) + name("wasi") + name("fd_write") + b"\\x00\\x03"
    ...                    + name("env") + name("memory") + b"\\x02\\x00\\x01")
    1
    >>> imported_functions(uleb(1) + name("env") + name("x") + b"\\x07")
    Traceback (most recent call last):
    ...
    ValueError: import 1 has kind 7, which WebAssembly 1 does not define
    """
    count, i = read_uleb(payload, 0)
    functions = 0
    for number in range(1, count + 1):
        _, i = read_name(payload, i)   # the module
        _, i = read_name(payload, i)   # the field
        kind = payload[i]
        i += 1
        if kind == 0:          # a function: its type index
            _, i = read_uleb(payload, i)
            functions += 1
        elif kind == 1:        # a table: reference type, then limits
            i = _skip_limits(payload, i + 1)
        elif kind == 2:        # a memory: limits
            i = _skip_limits(payload, i)
        elif kind == 3:        # a global: value type, mutability
            i += 2
        else:
            raise ValueError(f"import {number} has kind {kind}, which WebAssembly 1 does not define")
    return functions


def _skip_limits(payload: bytes, i: int) -> int:
    flag = payload[i]
    _, i = read_uleb(payload, i + 1)
    return read_uleb(payload, i)[1] if flag & 1 else i


def function_names(parts: list[tuple[int, bytes]]) -> dict[int, str]:
    """The function names of a module's ``name`` custom section, by function index (empty if the
    module has no such section).

    Examples
    --------
    >>> names = uleb(2) + uleb(0) + name("f") + uleb(3) + name("g")
    >>> function_names([(1, b"\\x00"), (CUSTOM, name("name") + b"\\x01" + uleb(len(names)) + names)])
    {0: 'f', 3: 'g'}
    >>> function_names([(1, b"\\x00")])
    {}
    """
    names = {}
    for sid, payload in parts:
        if sid != CUSTOM:
            continue
        title, i = read_name(payload, 0)
        while title == "name" and i < len(payload):
            sub = payload[i]
            size, i = read_uleb(payload, i + 1)
            if sub == 1:           # function names: a vector of (index, name)
                count, j = read_uleb(payload, i)
                for _ in range(count):
                    index, j = read_uleb(payload, j)
                    names[index], j = read_name(payload, j)
            i += size
    return names


def stub_functions(payload: bytes, stubs, first: int = 0) -> tuple[bytes, int]:
    """A code section's ``payload`` with the body of every function in ``stubs`` replaced by
    :data:`STUB_BODY`, and how many bytes of bodies that removed.

    ``first`` is the index of the code section's first function (the number of imported functions).
    A stub keeps its index, its type and its place in any table: a call to it traps, as a call of
    ``abort()`` does, instead of running code that the module can no longer reach.

    Examples
    --------
    >>> code = uleb(2) + uleb(4) + bytes([0, 0x41, 7, END]) + uleb(2) + bytes([0, END])
    >>> new, saved = stub_functions(code, {4}, first=4)
    >>> new.hex(" "), saved
    ('02 03 00 00 0b 02 00 0b', 1)
    >>> stub_functions(code, {9}, first=4)
    Traceback (most recent call last):
    ...
    ValueError: functions [9] are not in the code section (indices 4 to 5)
    """
    count, i = read_uleb(payload, 0)
    missing = sorted(k for k in stubs if not first <= k < first + count)
    if missing:
        raise ValueError(f"functions {missing[:5]} are not in the code section "
                         f"(indices {first} to {first + count - 1})")
    out = [uleb(count)]
    saved = 0
    for k in range(first, first + count):
        size, j = read_uleb(payload, i)
        if k in stubs:
            out.append(uleb(len(STUB_BODY)) + STUB_BODY)
            saved += size - len(STUB_BODY)
        else:
            out.append(payload[i:j + size])
        i = j + size
    if i != len(payload):
        raise ValueError(f"the code section has {len(payload) - i} bytes after its {count} functions")
    return b"".join(out), saved
