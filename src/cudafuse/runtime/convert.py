"""Converting Python values to C arguments by a function's signature (see trampoline.py)."""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

import numpy as np

from cudafuse.runtime.trampoline import Signature

# An argument on its way to a backend: ("a", array) becomes a device buffer; ("r", bytes) is
# the argument's value, byte for byte; ("same", k) is the buffer of argument k again (one
# array passed twice is one buffer, as one device pointer passed twice would be).
Item = tuple[str, Any]

_INT_FMT = {1: "b", 2: "h", 4: "i", 8: "q"}
_FLOAT_FMT = {4: "f", 8: "d"}
_C_NAMES = {"f4": "float", "f8": "double", "i1": "char", "u1": "unsigned char", "i2": "short",
            "u2": "unsigned short", "i4": "int", "u4": "unsigned int", "i8": "long long",
            "u8": "unsigned long long", "b1": "bool", "D": "dim3", "v": "void"}


class ArgumentError(TypeError):
    """A value that does not fit the parameter it is passed to."""


def describe(code: str) -> str:
    if code.startswith("p"):
        inner = code[1:]
        if inner == "v0":
            return "void *"
        if inner == "x0":
            return "a pointer to an opaque type (stream, event...)"
        return f"{describe(inner)} *"
    if code.startswith("s"):
        return f"a {code[1:]}-byte struct"
    return _C_NAMES.get(code, code)


def _dtype_ok(code: str, arr: np.ndarray) -> bool:
    kind, size = code[0], int(code[1:] or 0)
    dt = arr.dtype
    if kind == "v":
        return True
    if kind == "f":
        return dt.kind == "f" and dt.itemsize == size
    if kind in "iu":
        if size == 1:  # char data is passed as int8 or uint8 alike
            return dt.kind in "iub" and dt.itemsize == 1
        return dt.kind == kind and dt.itemsize == size
    if kind == "b":
        return dt.kind in "bu" and dt.itemsize == 1
    if kind == "s":
        return arr.nbytes % size == 0
    if kind == "D":
        return dt.kind == "u" and dt.itemsize == 4 and arr.size % 3 == 0
    return False


def _int_bytes(code: str, value: Any, where: str) -> bytes:
    if isinstance(value, (bool, np.bool_)):
        value = int(value)
    if not isinstance(value, (int, np.integer)):
        raise ArgumentError(f"{where}: expected an integer for {describe(code)}, "
                            f"got {type(value).__name__}")
    kind, size = code[0], int(code[1:])
    v = int(value)
    lo, hi = (-(1 << (8 * size - 1)), (1 << (8 * size - 1)) - 1) if kind == "i" else \
        (0, (1 << (8 * size)) - 1)
    if not lo <= v <= hi:
        raise ArgumentError(f"{where}: {v} does not fit {describe(code)}")
    fmt = _INT_FMT[size]
    return struct.pack("<" + (fmt if kind == "i" else fmt.upper()), v)


def scalar_bytes(code: str, value: Any, where: str) -> bytes:
    kind = code[0]
    if kind == "f":
        if isinstance(value, (bool, np.bool_)) or not isinstance(
                value, (int, float, np.integer, np.floating)):
            raise ArgumentError(f"{where}: expected a number for {describe(code)}, "
                                f"got {type(value).__name__}")
        try:  # 1e308 for a float, an int past every double: not a value of the parameter
            return struct.pack("<" + _FLOAT_FMT[int(code[1:])], float(value))
        except OverflowError:
            raise ArgumentError(f"{where}: {value!r} does not fit {describe(code)}") from None
    if kind in "iu":
        return _int_bytes(code, value, where)
    if kind == "b":
        if not isinstance(value, (bool, int, np.bool_, np.integer)) or int(value) not in (0, 1):
            raise ArgumentError(f"{where}: expected a bool, got {value!r}")
        return bytes([int(value)])
    if kind == "D":
        dims = (value,) if isinstance(value, (int, np.integer)) else value
        if not isinstance(dims, (tuple, list)) or not 1 <= len(dims) <= 3 or not all(
                isinstance(d, (int, np.integer)) and 0 < int(d) < 2**32 for d in dims):
            raise ArgumentError(f"{where}: expected dim3 as an int or a tuple of 1-3 positive "
                                f"ints, got {value!r}")
        full = [int(d) for d in dims] + [1] * (3 - len(dims))
        return struct.pack("<3I", *full)
    if kind == "s":
        if isinstance(value, (bytes, bytearray)) and len(value) == int(code[1:]):
            return bytes(value)
        if isinstance(value, np.ndarray) and value.nbytes == int(code[1:]):
            return value.tobytes()
        raise ArgumentError(f"{where}: pass {describe(code)} as bytes or a numpy array of "
                            f"exactly {code[1:]} bytes")
    raise ArgumentError(f"{where}: parameters of this type ({code}) cannot be passed from Python")


def convert(sig: Signature, args: Sequence[Any]) -> list[Item]:
    if not sig.takes(len(args)):
        names = ", ".join(sig.params)
        least = sig.required if 0 <= sig.required < len(sig.codes) else len(sig.codes)
        count = f"{least} to {len(sig.codes)}" if least < len(sig.codes) else str(least)
        raise ArgumentError(f"{sig.name}() takes {count} arguments ({names}), "
                            f"{len(args)} given")
    items: list[Item] = []
    seen: dict[int, int] = {}
    # (fewer arguments than parameters: the others are the function's default arguments)
    for i, (code, value) in enumerate(zip(sig.codes[:len(args)], args, strict=True)):
        pname = sig.params[i] if i < len(sig.params) else f"arg{i}"
        where = f"{sig.name}(): parameter {i + 1} '{pname}' ({describe(code)})"
        if code.startswith("p"):
            if value is None:
                items.append(("r", bytes(8)))
                continue
            if not isinstance(value, np.ndarray):
                raise ArgumentError(f"{where}: expected a numpy array or None, "
                                    f"got {type(value).__name__}")
            if code[1:] in ("x0", "q8") or not _dtype_ok(code[1:], value):
                raise ArgumentError(f"{where}: cannot pass a {value.dtype} array")
            if id(value) in seen:
                items.append(("same", seen[id(value)]))
                continue
            seen[id(value)] = i
            items.append(("a", np.ascontiguousarray(value)))
        else:
            if value is None and code.startswith("s"):
                raise ArgumentError(f"{where}: None is only valid for pointers")
            items.append(("r", scalar_bytes(code, value, where)))
    return items


def decode(code: str, raw: bytes) -> Any:
    if code == "v":
        return None
    kind = code[0]
    if kind == "f":
        size = int(code[1:])
        return struct.unpack("<" + _FLOAT_FMT[size], raw[:size])[0]
    if kind in "iu":
        size = int(code[1:])
        fmt = _INT_FMT[size]
        return struct.unpack("<" + (fmt if kind == "i" else fmt.upper()), raw[:size])[0]
    if kind == "b":
        return bool(raw[0])
    if kind == "D":
        return struct.unpack("<3I", raw[:12])
    if kind == "p":
        return struct.unpack("<Q", raw[:8])[0]
    return raw[:int(code[1:] or 0)]


def copy_back(args: Sequence[Any], items: list[Item], arrays: list[np.ndarray]) -> None:
    """Write the arrays a backend returned into the caller's arrays, in place."""
    it = iter(arrays)
    for value, (kind, _) in zip(args, items, strict=True):
        if kind != "a":
            continue
        result = next(it)
        if value.flags.writeable:
            np.copyto(value, result.reshape(value.shape))
