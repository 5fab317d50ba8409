"""Spec files for `cudafuse run` / `verify`: what to call, on which deterministic inputs.

The format is documented in README.md ("Spec files"). A spec names an entry function (a host
function, or a kernel with a [launch] table), named sizes, and every argument: arrays with a
dtype, an element count, an initialiser and a role; scalars with a value.
"""

from __future__ import annotations

import ast
import operator
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cudafuse.diagnostics import error

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

ROLES = ("in", "out", "inout")
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
        ast.Div: operator.truediv, ast.LShift: operator.lshift, ast.RShift: operator.rshift}
_FUNCS = {"min": min, "max": max, "int": int}
_INIT = re.compile(r"^\s*(\w+)\s*(?:\((.*)\))?\s*$")



def evaluate(expr: Any, sizes: dict[str, Any], where: str) -> Any:
    """A number, or an arithmetic expression over the named sizes (C-like / on ints)."""
    if isinstance(expr, (int, float)) and not isinstance(expr, bool):
        return expr
    if not isinstance(expr, str):
        raise ValueError(f"{where}: expected a number or an expression, got {expr!r}")

    def ev(node: ast.AST) -> Any:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in sizes:
                raise ValueError(f"{where}: unknown size '{node.id}' (define it in [sizes])")
            return sizes[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Div) and isinstance(a, int) and isinstance(b, int):
                return a // b  # C semantics for the usual (w + 31) / 32
            return _OPS[type(node.op)](a, b)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in _FUNCS and not node.keywords:
            return _FUNCS[node.func.id](*(ev(a) for a in node.args))
        raise ValueError(f"{where}: unsupported expression {ast.unparse(node)!r}")

    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        raise ValueError(f"{where}: cannot parse expression {expr!r}") from None
    return ev(tree)


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

    @property
    def is_array(self) -> bool:
        return self.dtype is not None

    @property
    def is_output(self) -> bool:
        return self.is_array and self.role in ("out", "inout")


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

    def inputs(self) -> list[Any]:
        """Fresh, deterministic argument values (new arrays on every call)."""
        return [make_value(a) for a in self.args]


def _dims(value: Any, sizes: dict[str, Any], where: str) -> tuple[int, ...]:
    items = value if isinstance(value, list) else [value]
    dims = tuple(int(evaluate(v, sizes, where)) for v in items)
    if not 1 <= len(dims) <= 3 or any(d <= 0 for d in dims):
        raise ValueError(f"{where}: expected 1-3 positive dimensions, got {dims}")
    return dims


def load_spec(path: str, sizes: dict[str, Any] | None = None) -> Spec:
    """The spec at `path`; `sizes` replaces values of its [sizes] table (each must exist
    there), before the sizes defined from them are evaluated."""
    p = Path(path)
    try:
        raw = tomllib.loads(p.read_text("utf-8"))
    except OSError as exc:
        raise error(f"cannot read spec: {exc.strerror}", path) from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"invalid TOML: {exc}", path) from None
    if sizes:
        table = dict(raw.get("sizes", {}))
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


def _spec(path: str, raw: dict[str, Any]) -> Spec:
    known = {"entry", "sizes", "args", "launch", "seed", "rtol", "atol"}
    unknown = set(raw) - known
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(sorted(unknown))}; "
                         f"expected {', '.join(sorted(known))}")
    entry = raw.get("entry")
    if not isinstance(entry, str) or not entry:
        raise ValueError("missing 'entry' (the host function or kernel to run)")
    sizes: dict[str, Any] = {}
    for k, v in raw.get("sizes", {}).items():
        sizes[k] = evaluate(v, sizes, f"sizes.{k}")
    base_seed = int(raw.get("seed", 0))
    args = [_arg(i, a, sizes, base_seed) for i, a in enumerate(raw.get("args", []))]
    spec = Spec(path, entry, args, sizes, rtol=float(raw.get("rtol", 1e-5)),
                atol=float(raw.get("atol", 1e-6)))
    if "launch" in raw:
        launch = raw["launch"]
        spec.grid = _dims(launch.get("grid", 1), sizes, "launch.grid")
        spec.block = _dims(launch.get("block", 1), sizes, "launch.block")
        spec.shared = int(evaluate(launch.get("shared", 0), sizes, "launch.shared"))
    return spec


def _arg(i: int, a: dict[str, Any], sizes: dict[str, Any], base_seed: int) -> ArgSpec:
    name = a.get("name", f"arg{i}")
    where = f"args[{i}] ('{name}')"
    allowed = {"name", "dtype", "count", "init", "role", "seed", "shape", "value"}
    if set(a) - allowed:
        raise ValueError(f"{where}: unknown key(s) {', '.join(sorted(set(a) - allowed))}")
    if "dtype" not in a:
        if "value" not in a:
            raise ValueError(f"{where}: give either 'dtype' and 'count' (an array) or 'value' "
                             "(a scalar)")
        v = a["value"]
        if isinstance(v, str) and v.strip().lower() in ("none", "null"):
            value: Any = None
        elif isinstance(v, list):
            value = tuple(int(evaluate(x, sizes, where)) for x in v)
        elif isinstance(v, bool):
            value = v
        else:
            value = evaluate(v, sizes, where)
        return ArgSpec(name, value=value)
    try:
        dtype = np.dtype(a["dtype"])
    except TypeError:
        raise ValueError(f"{where}: unknown dtype {a['dtype']!r}") from None
    count = int(evaluate(a.get("count", 1), sizes, f"{where}.count"))
    role = a.get("role", "in")
    if role not in ROLES:
        raise ValueError(f"{where}: role must be one of {', '.join(ROLES)}, not {role!r}")
    shape = tuple(int(evaluate(s, sizes, f"{where}.shape")) for s in a.get("shape", [count]))
    if int(np.prod(shape)) != count:
        raise ValueError(f"{where}: shape {shape} does not hold {count} elements")
    init = str(a.get("init", "zeros"))
    spec = ArgSpec(name, dtype, count, init, role, int(a.get("seed", base_seed + i)), shape)
    make_value(spec)  # validate the initialiser now, with the spec's location
    return spec


def make_value(a: ArgSpec) -> Any:
    if not a.is_array:
        return a.value
    assert a.dtype is not None
    m = _INIT.match(a.init)
    if not m:
        raise ValueError(f"'{a.name}': cannot parse init {a.init!r}")
    kind = m.group(1)
    params = [float(x) for x in m.group(2).split(",")] if m.group(2) else []
    rng = np.random.default_rng(a.seed)
    n, dt = a.count, a.dtype
    if kind == "zeros":
        return np.zeros(n, dt)
    if kind == "ones":
        return np.ones(n, dt)
    if kind == "const" and len(params) == 1:
        return np.full(n, params[0], dt)
    if kind == "ramp":
        start, step = (params + [0.0, 1.0][len(params):])[:2]
        return (start + step * np.arange(n)).astype(dt)
    if kind == "uniform" and len(params) == 2:
        lo, hi = params
        if dt.kind in "iu":
            return rng.integers(int(lo), int(hi), n, endpoint=True).astype(dt)
        return rng.uniform(lo, hi, n).astype(dt)
    if kind == "random" and not params:
        if dt.kind in "iu":
            hi = min(np.iinfo(dt).max, 255)
            return rng.integers(0, hi, n, endpoint=True).astype(dt)
        if dt.kind == "b":
            return rng.integers(0, 1, n, endpoint=True).astype(dt)
        return rng.random(n).astype(dt)
    raise ValueError(f"'{a.name}': unknown init {a.init!r}; use zeros, ones, const(v), "
                     "ramp, ramp(start, step), uniform(a, b) or random")


# ---- comparing outputs --------------------------------------------------------------------


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
    a = expected.astype(np.float64) if expected.dtype.kind in "fc" else expected
    b = actual.astype(np.float64) if actual.dtype.kind in "fc" else actual
    if a.dtype.kind in "f":
        both_nan = np.isnan(a) & np.isnan(b)
        diff = np.where(both_nan, 0.0, np.abs(a - b))
        diff = np.where(np.isnan(diff), np.inf, diff)
        rel = diff / np.maximum(np.abs(a), np.finfo(np.float64).tiny)
        bad = diff > atol + rtol * np.abs(np.where(np.isnan(a), 0.0, a))
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
