"""Spec files for `cudafuse run` / `verify`: what to call, on which deterministic inputs.

The format is documented in README.md ("Spec files"). A spec names an entry function (a host
function, or a kernel with a [launch] table), named sizes, and every argument: arrays with a
dtype, an element count, an initialiser and a role; scalars with a value.
"""

from __future__ import annotations

import ast
import dataclasses
import math
import operator
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cudafuse.diagnostics import CudafuseError, Diagnostic, Severity, error
from cudafuse.runtime.spec_struct import parse_tensor
from cudafuse.runtime.spec_values import (  # noqa: F401 - make_value: API
    ArgSpec,
    check_memory,
    make_value,
    parse_dtype,
    parse_init,
)

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

ROLES = ("in", "out", "inout")
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
        ast.Div: operator.truediv, ast.LShift: operator.lshift, ast.RShift: operator.rshift}
_FUNCS = {"min": min, "max": max, "int": int}



def _checked(op: type, a: Any, b: Any, where: str) -> Any:
    """One operation of an expression, refusing what would hang or exhaust memory (a huge
    power or shift) and what Python would raise on (division by zero)."""
    if op in (ast.Div, ast.FloorDiv, ast.Mod) and b == 0:
        raise ValueError(f"{where}: division by zero")
    if op is ast.Pow and (abs(b) > 256 or (b < 0 and a == 0)):
        raise ValueError(f"{where}: exponent {b!r} out of range")
    if op in (ast.LShift, ast.RShift):
        if not isinstance(a, int) or not isinstance(b, int):
            raise ValueError(f"{where}: shifts need integers, got {a!r} and {b!r}")
        if not 0 <= b <= 256:
            raise ValueError(f"{where}: shift count {b} out of range")
    if op is ast.Div and isinstance(a, int) and isinstance(b, int):
        return int(a / b) if (a < 0) != (b < 0) else a // b  # C: truncate toward zero
    result = _OPS[op](a, b)
    if isinstance(result, complex):  # (-1) ** 0.5
        raise ValueError(f"{where}: {a!r} ** {b!r} is not a real number")
    return result


def evaluate(expr: Any, sizes: dict[str, Any], where: str) -> Any:
    """A number, or an arithmetic expression over the named sizes (C-like / on ints)."""
    if isinstance(expr, (int, float)) and not isinstance(expr, bool):
        return finite(expr, where)
    if not isinstance(expr, str):
        raise ValueError(f"{where}: expected a number or an expression, got {expr!r}")

    def ev(node: ast.AST) -> Any:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and \
                not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in sizes:
                raise ValueError(f"{where}: unknown size '{node.id}' (define it in [sizes])")
            return sizes[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _checked(type(node.op), ev(node.left), ev(node.right), where)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in _FUNCS and not node.keywords and node.args:
            return _FUNCS[node.func.id](*(ev(a) for a in node.args))
        raise ValueError(f"{where}: unsupported expression {ast.unparse(node)!r}")

    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        raise ValueError(f"{where}: cannot parse expression {expr!r}") from None
    try:
        value = ev(tree)
    except (OverflowError, TypeError) as exc:  # float overflow, int(inf), min() of one number
        raise ValueError(f"{where}: cannot evaluate {expr!r}: {exc}") from None
    return finite(value, where, expr)


def finite(value: Any, where: str, expr: Any = None) -> Any:
    """`value`, unless it is an infinite or NaN float: no key of a spec takes one (a count,
    a dimension or a scalar argument that is not a number would make the run meaningless)."""
    if isinstance(value, float) and not math.isfinite(value):
        source = f" (from {expr!r})" if isinstance(expr, str) else ""
        raise ValueError(f"{where}: {value!r} is not a finite number{source}")
    return value


def integer(expr: Any, sizes: dict[str, Any], where: str, low: int = 0) -> int:
    """An expression that must give a whole number >= `low` (a count, a dimension)."""
    v = evaluate(expr, sizes, where)
    if isinstance(v, float):
        if not v.is_integer():
            raise ValueError(f"{where}: expected a whole number, got {v!r} (from {expr!r})")
        v = int(v)
    if v < low:
        what = "negative" if low == 0 else f"less than {low}"
        raise ValueError(f"{where}: {v} is {what}" + (f" (from {expr!r})"
                                                      if isinstance(expr, str) else ""))
    return v


@dataclass
class Spec:
    path: str
    entry: str
    args: list[ArgSpec]
    sizes: dict[str, Any] = field(default_factory=dict)
    grid: tuple[int, ...] | None = None  # set when the entry is a kernel
    block: tuple[int, ...] | None = None
    shared: int = 0
    rtol: float = 1e-5
    atol: float = 1e-6
    warnings: list[Diagnostic] = field(default_factory=list)  # shown by verify
    # __device__/__constant__ arrays the run sets before the entry (cudaMemcpyToSymbol):
    # their name, dtype, count and init (spec_struct.py).
    symbols: list[ArgSpec] = field(default_factory=list)

    def inputs(self) -> list[Any]:
        """Fresh, deterministic argument values (new arrays on every call)."""
        return [make_value(a) for a in self.args]


def _dims(value: Any, sizes: dict[str, Any], where: str) -> tuple[int, ...]:
    items = value if isinstance(value, list) else [value]
    if not 1 <= len(items) <= 3:
        raise ValueError(f"{where}: expected 1-3 dimensions, got {len(items)}")
    return tuple(integer(v, sizes, where, low=1) for v in items)


def _toml_error(path: str, exc: tomllib.TOMLDecodeError) -> CudafuseError:
    """tomllib's message ends with '(at line L, column C)': make that the location."""
    m = re.search(r"^(.*) \(at line (\d+), column (\d+)\)$", str(exc))
    if not m:
        return error(f"invalid TOML: {exc}", path)
    line = int(m.group(2))
    try:
        text = Path(path).read_text("utf-8").splitlines()[line - 1]
    except (OSError, IndexError, UnicodeDecodeError):
        text = ""
    return error(f"invalid TOML: {m.group(1)}", path, line, int(m.group(3)), source_line=text)


MAX_SPEC_BYTES = 16 << 20


def load_spec(path: str, sizes: dict[str, Any] | None = None) -> Spec:
    """The spec at `path`; `sizes` replaces values of its [sizes] table (each must exist
    there), before the sizes defined from them are evaluated."""
    p = Path(path)
    try:
        # Read once (a pipe from `<(...)` is fine), but bounded: /dev/zero never ends.
        with p.open("rb") as f:
            data = f.read(MAX_SPEC_BYTES + 1)
        if len(data) > MAX_SPEC_BYTES:
            raise error(f"larger than {MAX_SPEC_BYTES >> 20} MiB: not a spec (a small TOML "
                        "file)", path)
        raw = tomllib.loads(data.decode("utf-8"))
    except OSError as exc:
        raise error(f"cannot read spec: {exc.strerror}", path) from None
    except UnicodeDecodeError as exc:
        raise error(f"not a text file (a spec is TOML in UTF-8; byte {exc.start} is "
                    f"0x{data[exc.start]:02x})", path) from None
    except tomllib.TOMLDecodeError as exc:
        raise _toml_error(path, exc) from None
    if sizes:
        table = raw.get("sizes", {})
        table = dict(table) if isinstance(table, dict) else {}
        unknown = sorted(set(sizes) - set(table))
        if unknown:
            raise error(f"no size named {', '.join(unknown)} to override (it has "
                        f"{', '.join(table) or 'none'})", path)
        table.update(sizes)
        raw["sizes"] = table
    try:
        return _spec(path, raw)
    except (ValueError, TypeError, KeyError) as exc:
        msg = exc.args[0] if exc.args else str(exc)
        raise error(f"{msg}", path) from None


def _table(raw: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = raw.get(key, {})
    if not isinstance(value, dict):
        raise ValueError(f"{where}: expected a table, got {type(value).__name__} {value!r}")
    return value


def _tolerance(raw: dict[str, Any], key: str, default: float) -> float:
    """rtol or atol: a finite, non-negative number (a NaN would make every comparison pass,
    infinity every element match)."""
    v = raw.get(key, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or \
            v < 0:
        raise ValueError(f"{key}: expected a finite, non-negative number, got {v!r}")
    return float(v)


# A relative tolerance this large lets any value of the right sign and order pass: the
# comparison says little (the spec may mean a percentage).
VACUOUS_RTOL = 1.0


def _seed(v: Any, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise ValueError(f"{where}: expected a non-negative integer, got {v!r}")
    return v


def _spec(path: str, raw: dict[str, Any]) -> Spec:
    known = {"entry", "sizes", "args", "launch", "seed", "rtol", "atol", "symbols"}
    unknown = set(raw) - known
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(sorted(unknown))}; "
                         f"expected {', '.join(sorted(known))}")
    entry = raw.get("entry")
    if entry is None:
        raise ValueError("missing 'entry' (the host function or kernel to run)")
    if not isinstance(entry, str) or not entry:
        raise ValueError(f"entry: expected the name of a host function or kernel (a string), "
                         f"got {type(entry).__name__} {entry!r}")
    sizes: dict[str, Any] = {}
    for k, v in _table(raw, "sizes", "sizes").items():
        sizes[k] = evaluate(v, sizes, f"sizes.{k}")
    base_seed = _seed(raw.get("seed", 0), "seed")
    tables = raw.get("args", [])
    if not isinstance(tables, list) or not all(isinstance(a, dict) for a in tables):
        raise ValueError("args: expected [[args]] tables, one per parameter")
    args = [_arg(i, a, sizes, base_seed) for i, a in enumerate(tables)]
    seen: dict[str, int] = {}
    for i, a in enumerate(args):
        if a.named and a.name in seen:
            raise ValueError(f"{a.key}: the name '{a.name}' is already given to "
                             f"args[{seen[a.name]}]; each parameter takes one [[args]] table")
        seen[a.name] = i
    symbols = _symbols(raw.get("symbols", []), sizes, base_seed + len(args))
    check_memory(args + symbols)
    spec = Spec(path, entry, args, sizes, rtol=_tolerance(raw, "rtol", 1e-5),
                atol=_tolerance(raw, "atol", 1e-6), symbols=symbols)
    if spec.rtol >= VACUOUS_RTOL:
        spec.warnings.append(Diagnostic(
            Severity.WARNING, f"rtol: {spec.rtol:g} accepts an error as large as the expected "
            "value itself: the comparison can hardly fail (a fraction: 0.01 is 1%)", path))
    if "launch" in raw:
        launch = _table(raw, "launch", "launch")
        extra = set(launch) - {"grid", "block", "shared"}
        if extra:
            raise ValueError(f"launch: unknown key(s) {', '.join(sorted(extra))}; expected "
                             "grid, block, shared")
        spec.grid = _dims(launch.get("grid", 1), sizes, "launch.grid")
        spec.block = _dims(launch.get("block", 1), sizes, "launch.block")
        spec.shared = integer(launch.get("shared", 0), sizes, "launch.shared")
        check_launch_limits(spec.grid, spec.block, spec.shared)
    return spec


def _symbols(tables: Any, sizes: dict[str, Any], base_seed: int) -> list[ArgSpec]:
    """[[symbols]]: arrays (name, dtype, count, init) the run copies into the program's
    __device__/__constant__ variables of those names before the entry runs, as the
    program's own host code would with cudaMemcpyToSymbol."""
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise ValueError("symbols: expected [[symbols]] tables, one per variable")
    out = []
    for i, t in enumerate(tables):
        where = f"symbols[{i}]"
        if "name" not in t or not isinstance(t["name"], str) or not re.fullmatch(
                r"(?:\w+::)*\w+", t["name"]):
            raise ValueError(f"{where}: 'name' must name the variable ([NS::]NAME)")
        extra = set(t) - {"name", "dtype", "count", "init", "seed"}
        if extra or "dtype" not in t:
            raise ValueError(f"{where}: a symbol takes name, dtype, count, init and seed"
                             + (f" (not {', '.join(sorted(extra))})" if extra else
                                " (dtype is missing)"))
        a = _arg(i, {**t, "name": "cudafuse_sym"}, sizes, base_seed)
        out.append(dataclasses.replace(a, name=t["name"], key=f"{where} '{t['name']}'"))
    return out


# The most dynamic shared memory any GPU gives one block (227 KiB: sm_90, sm_100, with the
# opt-in attribute), as the emulator allows.
MAX_DYNAMIC_SHARED = 232448


def check_launch_limits(grid: tuple[int, ...], block: tuple[int, ...], shared: int = 0,
                        keys: tuple[str, str, str] = ("launch.grid", "launch.block",
                                                      "launch.shared")) -> None:
    """CUDA's launch limits (every architecture since sm_30): a launch beyond them fails on
    a GPU, so it is the spec's mistake, said at its key (`keys`: grid, block, shared) before
    anything is built (the emulator's own check could only name a generated harness; a
    size past 32 or 64 bits would reach it truncated)."""
    if shared > MAX_DYNAMIC_SHARED:
        size = f"{shared:.3g}" if shared >= 10**12 else str(shared)
        raise ValueError(f"{keys[2]}: {size} bytes of dynamic shared memory; no GPU "
                         f"gives a block more than {MAX_DYNAMIC_SHARED} (227 KiB)")
    bx, by, bz = (*block, 1, 1)[:3]
    gy, gz = (*grid[1:], 1, 1)[:2]
    if bx * by * bz > 1024 or bx > 1024 or by > 1024 or bz > 64:
        raise ValueError(f"{keys[1]}: {_dims_text(block)} exceeds CUDA's limits (at most "
                         "1024 threads a block, x and y <= 1024, z <= 64)")
    if grid[0] > 2**31 - 1 or gy > 65535 or gz > 65535:
        raise ValueError(f"{keys[0]}: {_dims_text(grid)} exceeds CUDA's limits (x <= 2^31 - "
                         "1, y and z <= 65535)")


def _dims_text(dims: tuple[int, ...]) -> str:
    return "[" + ", ".join(f"{d:.3g}" if d >= 10**12 else str(d) for d in dims) + "]"


def _scalar(a: dict[str, Any], sizes: dict[str, Any], where: str) -> Any:
    v = a["value"]
    if isinstance(v, str) and v.strip().lower() in ("none", "null"):
        return None
    if isinstance(v, list):
        return _dims(v, sizes, f"{where}.value")
    if isinstance(v, bool):
        return v
    return evaluate(v, sizes, f"{where}.value")


def _arg(i: int, a: dict[str, Any], sizes: dict[str, Any], base_seed: int) -> ArgSpec:
    name = a.get("name", f"arg{i}")
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"args[{i}].name: expected a parameter name, got {name!r}")
    where = f"args[{i}] '{name}'"
    allowed = {"name", "dtype", "count", "init", "role", "seed", "shape", "value", "tensor"}
    if set(a) - allowed:
        raise ValueError(f"{where}: unknown key(s) {', '.join(sorted(set(a) - allowed))}")
    named = "name" in a
    if "dtype" not in a:
        if "value" not in a:
            raise ValueError(f"{where}: give either 'dtype' and 'count' (an array) or 'value' "
                             "(a scalar)")
        extra = sorted(set(a) - {"name", "value"})
        if extra:
            raise ValueError(f"{where}: {', '.join(extra)} only apply to arrays (with 'dtype')")
        return ArgSpec(name, value=_scalar(a, sizes, where), key=where, named=named)
    if "value" in a and isinstance(a["value"], list) and set(a) <= {"name", "dtype", "value"}:
        # a struct by value given as its members (ccminer's `const uint2 target2`:
        # dtype = "uint32", value = [x, y]), passed as those bytes
        dtype = parse_dtype(a["dtype"], f"{where}.dtype")
        members = [evaluate(v, sizes, f"{where}.value") for v in a["value"]]
        try:
            return ArgSpec(name, value=np.array(members, dtype=dtype), key=where, named=named)
        except OverflowError as exc:
            raise ValueError(f"{where}.value: {exc}") from None
    if "value" in a:
        raise ValueError(f"{where}: 'value' is for scalars (or, with 'dtype', a struct's "
                         "members as a list); an array takes 'init'")
    dtype = parse_dtype(a["dtype"], f"{where}.dtype")
    if "count" not in a:
        raise ValueError(f"{where}: an array needs 'count' (its number of elements)")
    count = integer(a["count"], sizes, f"{where}.count")
    role = a.get("role", "in")
    if role not in ROLES:
        raise ValueError(f"{where}.role: must be one of {', '.join(ROLES)}, not {role!r}")
    shape_raw = a.get("shape", [count])
    if not isinstance(shape_raw, list) or not 1 <= len(shape_raw) <= 3:
        raise ValueError(f"{where}.shape: expected a list of 1-3 sizes, got {shape_raw!r}")
    shape = tuple(integer(s, sizes, f"{where}.shape") for s in shape_raw)
    if int(np.prod(shape, dtype=object)) != count:
        raise ValueError(f"{where}.shape: {list(shape)} does not hold {count} elements")
    init = a.get("init", "zeros")
    if not isinstance(init, str):
        raise ValueError(f"{where}.init: expected a string such as \"zeros\", got {init!r}")
    seed = _seed(a.get("seed", base_seed + i), f"{where}.seed")
    tensor = parse_tensor(a["tensor"], f"{where}.tensor", count, integer, sizes) \
        if "tensor" in a else None
    spec = ArgSpec(name, dtype, count, init, role, seed, shape, key=where, named=named,
                   tensor=tensor)
    parse_init(spec)  # the initialiser's errors now, with the spec's location
    return spec


@dataclass
class Comparison:
    name: str
    max_abs: float
    max_rel: float
    mismatches: int
    first: str = ""  # where the first mismatch is, and the two values


def where_text(index: int, shape: tuple[int, ...]) -> str:
    if len(shape) == 2:
        y, x = divmod(index, shape[1])
        return f"x={x}, y={y}"
    if len(shape) == 3:
        z, rest = divmod(index, shape[1] * shape[2])
        y, x = divmod(rest, shape[2])
        return f"x={x}, y={y}, z={z}"
    return f"[{index}]"


def compare(arg: ArgSpec, expected: np.ndarray, actual: np.ndarray, rtol: float,
            atol: float) -> Comparison:
    # Complex values are compared whole (|a - b|): a cast to float64 would drop the
    # imaginary part, with a warning on stderr.
    wide = {"f": np.float64, "c": np.complex128}
    a = expected.astype(wide[expected.dtype.kind]) if expected.dtype.kind in wide else expected
    b = actual.astype(wide[actual.dtype.kind]) if actual.dtype.kind in wide else actual
    if a.dtype.kind in "fc":
        with np.errstate(all="ignore"):  # inf - inf, inf / inf: settled below, not warned
            same = (a == b) | (np.isnan(a) & np.isnan(b))  # inf == inf is no error
            diff = np.where(same, 0.0, np.abs(a - b))
            diff = np.where(np.isnan(diff), np.inf, diff)  # a NaN on one side only
            rel = diff / np.maximum(np.abs(a), np.finfo(np.float64).tiny)
            rel = np.where(np.isnan(rel), np.inf, rel)  # inf against another inf or finite
            # An infinite expected value allows no error: only the same infinity matches.
            size = np.where(np.isfinite(a), np.abs(a), 0.0)
            bad = ~same & ~(diff <= atol + rtol * size)
    else:
        diff = np.abs(a.astype(np.int64) - b.astype(np.int64)).astype(np.float64)
        rel = diff / np.maximum(np.abs(a.astype(np.float64)), 1.0)
        bad = a != b
    rel = np.where(diff == 0, 0.0, rel)
    count = int(np.count_nonzero(bad))
    first = ""
    if count:
        i = int(np.argmax(bad))
        first = (f"{where_text(i, arg.shape)} (element {i}): expected {expected[i].item()!r}, "
                 f"got {actual[i].item()!r}")
    return Comparison(arg.name, float(diff.max(initial=0.0)), float(rel.max(initial=0.0)),
                      count, first)


def vacuous_atol(expected: np.ndarray, atol: float) -> float | None:
    """The largest finite |value| of a floating output when `atol` is at least that large
    (and the output not all zero): any result of the same magnitude then passes."""
    if expected.dtype.kind not in "fc" or not expected.size:
        return None
    with np.errstate(all="ignore"):
        size = np.abs(expected.astype(np.complex128 if expected.dtype.kind == "c"
                                      else np.float64))
    top = float(size[np.isfinite(size)].max(initial=0.0))
    return top if 0.0 < top <= atol else None
