"""A spec's arrays: their description (ArgSpec), dtype names, the memory they need, and the
deterministic values they start with (the initialisers of README "Spec files")."""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

_INIT = re.compile(r"^\s*(\w+)\s*(?:\((.*)\))?\s*$")


@dataclass
class ArgSpec:
    name: str
    dtype: np.dtype | None = None  # None: a scalar
    count: int = 0
    init: str = "zeros"
    role: str = "in"
    seed: int = 0
    shape: tuple[int, ...] = ()
    value: Any = None
    key: str = ""  # where it is in the spec: "args[2] 'img'"
    named: bool = True  # False: no `name` in the spec, it takes the parameter at its index
    # A struct parameter by value viewing this array (spec_struct.py), else None.
    tensor: Any = None

    @property
    def nbytes(self) -> int:
        return self.count * self.dtype.itemsize if self.dtype is not None else 0

    @property
    def is_array(self) -> bool:
        return self.dtype is not None

    @property
    def is_output(self) -> bool:
        return self.is_array and self.role in ("out", "inout")


_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "float32", "float64", "complex64", "complex128")


# numpy name: (numpy's dtype, the C type of that name)
_AMBIGUOUS = {"float": ("float64", "float32"), "int": ("int64", "int32"),
              "uint": ("uint64", "uint32")}


def parse_dtype(value: Any, where: str) -> np.dtype:
    """A numeric numpy dtype in native byte order, or an error with the closest names."""
    if isinstance(value, str) and value in _AMBIGUOUS:  # numpy and C disagree: say so
        numpy, c = _AMBIGUOUS[value]
        raise ValueError(f"{where}: '{value}' is {numpy} in numpy, but C's {value} is "
                         f"usually {c}; write the size ({c} or {numpy})")
    dt = None
    # A name or type code ("float32", "f4", "<f4"); numpy reads some other strings too
    # ("\0" and "?" as bool), which no spec means.
    if isinstance(value, str) and re.fullmatch(r"[<=|]?[A-Za-z][A-Za-z0-9]*", value):
        try:
            dt = np.dtype(value)
        except TypeError:
            dt = None
    if dt is None or dt.kind not in "biufc" or dt.byteorder == ">":
        close = difflib.get_close_matches(str(value).lower(), _DTYPES, n=1, cutoff=0.5)
        hint = f"; did you mean {close[0]}?" if close else \
            f"; use one of {', '.join(_DTYPES)}"
        raise ValueError(f"{where}: unknown dtype {value!r}{hint}")
    return dt


def available_memory() -> int:
    """Bytes this machine can still give (MemAvailable: free plus reclaimable cache)."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 1 << 62


def _bytes(n: int) -> str:
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} bytes"


# A run holds each array about three times: the spec's inputs, the worker's copy and the
# copy it sends back (verify keeps two runs' outputs as well).
COPIES = 3


def check_memory(args: list[ArgSpec], available: int | None = None) -> None:
    """Refuse arrays this machine cannot hold before allocating any of them."""
    arrays = [a for a in args if a.is_array]
    if not arrays:
        return
    avail = available_memory() if available is None else available
    need = sum(a.nbytes for a in arrays) * COPIES
    if need <= avail:
        return
    big = max(arrays, key=lambda a: a.nbytes)
    raise ValueError(f"{big.key}.count: {big.count} x {big.dtype} is {_bytes(big.nbytes)}; "
                     f"the spec's arrays need about {_bytes(need)} for a run ({COPIES} copies "
                     f"of {_bytes(need // COPIES)}) and this machine has {_bytes(avail)} "
                     "available")


def parse_init(a: ArgSpec) -> tuple[str, list[float]]:
    """The initialiser's kind and parameters, checked against the array's dtype."""
    assert a.dtype is not None
    where = f"{a.key or repr(a.name)}.init"
    usage = ("use zeros, ones, const(v), ramp, ramp(start, step), uniform(a, b), random or "
             "values(v0, v1, ...)")
    m = _INIT.match(a.init)
    if not m:
        raise ValueError(f"{where}: cannot parse {a.init!r}; {usage}")
    kind = m.group(1)
    try:
        params = [float(x) for x in m.group(2).split(",")] if m.group(2) else []
    except ValueError:
        raise ValueError(f"{where}: the parameters of {a.init!r} must be numbers") from None
    # values(...) gives every element (shapes, strides, index tables a kernel reads): one
    # value per element of the array.
    arity = {"zeros": (0,), "ones": (0,), "const": (1,), "ramp": (0, 2), "uniform": (2,),
             "random": (0,), "values": (a.count,)}
    if kind not in arity:
        raise ValueError(f"{where}: unknown init {a.init!r}; {usage}")
    if len(params) not in arity[kind]:
        raise ValueError(f"{where}: {kind} takes {' or '.join(map(str, arity[kind]))} "
                         f"parameter(s), got {len(params)} in {a.init!r}")
    # An infinite or NaN parameter makes every value meaningless, except const(nan) for a
    # float array: a poison value (a scratch buffer that nothing may read before writing).
    poison = kind == "const" and a.dtype.kind in "fc" and np.isnan(params[0]) \
        if params else False
    for v in params:
        if not np.isfinite(v) and not poison:
            extra = " (NaN only as const(nan), a float array's poison value)" \
                if np.isnan(v) else ""
            raise ValueError(f"{where}: {a.init!r}: {v!r} is not a finite number{extra}")
    if kind == "uniform" and params[0] > params[1]:
        raise ValueError(f"{where}: {a.init!r}: the low end exceeds the high end")
    if a.dtype.kind in "iu" and kind in ("const", "uniform", "values"):
        info = np.iinfo(a.dtype)
        for v in params:
            if v != int(v) or not info.min <= v <= info.max:
                raise ValueError(f"{where}: {a.init!r}: {v:g} is not a {a.dtype} value")
    if a.dtype.kind in "fc":
        _fits_float(a, kind, params, where)
    return kind, params


def _fits_float(a: ArgSpec, kind: str, params: list[float], where: str) -> None:
    """Every value the initialiser makes is finite in the array's dtype (1e300 is infinite
    as float32; a ramp may grow past the largest value on its last element)."""
    assert a.dtype is not None
    top = float(np.finfo(a.dtype).max)
    params = [v for v in params if not np.isnan(v)]  # const(nan): the poison value
    ends = [(v, "the value") for v in params]
    if kind == "ramp":
        start, step = (params + [0.0, 1.0][len(params):])[:2]
        last = start + step * max(a.count - 1, 0)
        ends = [(start, "the start"), (last, f"element {a.count - 1}")]
    for v, what in ends:
        if not abs(v) <= top:
            raise ValueError(f"{where}: {a.init!r}: {what} is {v:g}: not finite as "
                             f"{a.dtype} (largest {top:g})")


def make_value(a: ArgSpec) -> Any:
    if not a.is_array:
        return a.value
    assert a.dtype is not None
    kind, params = parse_init(a)
    rng = np.random.default_rng(a.seed)
    n, dt = a.count, a.dtype
    if kind == "zeros":
        return np.zeros(n, dt)
    if kind == "ones":
        return np.ones(n, dt)
    if kind == "const":
        return np.full(n, params[0], dt)
    if kind == "values":
        return np.array(params, dt)
    if kind == "ramp":
        start, step = (params + [0.0, 1.0][len(params):])[:2]
        return (start + step * np.arange(n)).astype(dt)
    if kind == "uniform":
        lo, hi = params
        if dt.kind in "iu":
            return rng.integers(int(lo), int(hi), n, endpoint=True).astype(dt)
        if np.isfinite(hi - lo):
            return rng.uniform(lo, hi, n).astype(dt)
        u = rng.random(n)  # hi - lo overflows float64 (numpy refuses): mix the two ends
        return (lo * (1.0 - u) + hi * u).astype(dt)
    if dt.kind in "iu":  # random
        hi = min(np.iinfo(dt).max, 255)
        return rng.integers(0, hi, n, endpoint=True).astype(dt)
    if dt.kind == "b":
        return rng.integers(0, 1, n, endpoint=True).astype(dt)
    return rng.random(n).astype(dt)


# ---- comparing outputs --------------------------------------------------------------------
