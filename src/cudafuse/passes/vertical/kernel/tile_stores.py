"""Intermediates stored by the tile loads of a last kernel whose tiles overlap.

A stencil written with overlapping tiles (cs344's blur homework) has no element per thread:
each block of N threads loads a patch and its halo, one element per thread, at a clamped
position, and only its interior threads compute:

    int px = blockIdx.x * pw + threadIdx.x - pad, py = blockIdx.y * ph + threadIdx.y - pad;
    int idx = min(max(py, 0), h - 1) * w + min(max(px, 0), w - 1);
    smem[threadIdx.y * BW + threadIdx.x] = in[idx];
    __syncthreads();

As the last kernel of a group its load of an intermediate reads the producer's view (the
producer computed into the tile, halo included). When the program still reads that
intermediate after the group, the fused kernel must store it at every element the producer
writes; no thread owns an element, but every element is loaded by some thread: the fused
kernel stores `in[idx] = <the producer's value at idx>` right before the load, in the first K
threads of each block in each dimension (K the patch's width: their positions partition the
image). Threads whose loads clamp to one element (at the image's edges) store one value
there, the producer's, a value of the element alone: no race. That holds when this module
shows, from the IR, that every thread makes the load and where:

- the load is in the value of a top-level statement of the body (an assignment or a
  declaration's initialiser), not under `?:`, `&&` or `||`, with no return before it:
  every thread executes it once;
- its subscript, once-set locals inlined, is `min(max(Ex, 0), Bx - 1)` or that plus
  `min(max(Ey, 0), By - 1) * S` (clamps in either nesting and operand order), each E a sum
  `blockIdx.d * K + threadIdx.d + C` with K and C free of thread and block indices.

The rest is a fact of the launch, checked when the program runs (host/runtime_check.py's
kind of condition, `tile_store_checks`): in each dimension the storing threads' positions
cover the clamp's range with no gap, E(0, 0) <= 0, 1 <= K <= blockDim.d, E(gridDim.d - 1,
0) + K - 1 >= Bd - 1; and the clamp's bounds and row stride are the producer's, so the
stores' elements are exactly the producer's domain. A group whose condition fails runs
its original launches.
"""

from __future__ import annotations

import dataclasses

from cudafuse.codegen.exprprint import Unprintable, to_c
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function
from cudafuse.ir.substitute import replace_nodes
from cudafuse.ir.types import unqualified
from cudafuse.passes.vertical.host.hostview import LaunchSite
from cudafuse.passes.vertical.host.runtime_check import (
    _dim_text,
    _kernel_constants,
    _stable,
    _unstable,
)
from cudafuse.passes.vertical.kernel.staged_copy import (
    _inline,
    _is_barrier,
    _poly,
    _strip,
    _written,
)
from cudafuse.passes.vertical.kernel.view import KernelView

_MIN = frozenset({"min", "::min", "std::min", "umin", "fminf"})
_MAX = frozenset({"max", "::max", "std::max", "umax", "fmaxf"})
_DIMS = ("x", "y", "z")


@dataclasses.dataclass(frozen=True)
class TileDim:
    dim: str  # the thread index dimension its position follows
    inner: n.Expr  # E, the unclamped position (once-set locals inlined)
    top: n.Expr  # the clamp's upper end, B - 1


@dataclasses.dataclass(frozen=True)
class TileStore:
    """Where the fused kernel stores the intermediates: before `stmt`, at `index`."""

    pname: str
    stmt: n.Stmt  # a top-level statement of the body, holding the load
    index: n.Expr  # the load's subscript as written (in scope before `stmt`)
    dims: tuple[TileDim, ...]  # x first
    stride: n.Expr | None  # the row stride (a 2-D tile)


def tile_store(fn: Function, pname: str) -> TileStore | str:
    """Where every thread of `fn` loads `pname` at a clamped tile position, or why not."""
    body = fn.body
    param = next((p for p in fn.params if p.name == pname), None)
    if body is None or param is None:
        return f"'{pname}' is not a parameter of '{fn.name}'"
    written = _written(body)
    once = {d.decl: d.init for d in body.walk() if isinstance(d, n.VarDecl) and
            d.init is not None and not d.array_dims and d.decl not in written and
            "shared" not in d.storage}
    where = f"its loads of '{pname}'"
    if sum(isinstance(x, n.Index) and isinstance(b := _strip(x.base), n.Ref) and
           b.decl == param.decl for x in body.walk()) != 1:
        return f"{where} are not one load made by every thread"
    for stmt in body.body:
        if any(isinstance(x, n.Return) for x in stmt.walk()) or any(
                _is_barrier(x) for x in stmt.walk()):
            break
        load = _whole_load(stmt, param.decl)
        if load is None:
            continue
        if any(isinstance(x, n.Binary) and x.is_assignment or isinstance(x, n.Unary) and
               x.op in ("++", "--") for x in load.index.walk()):
            return f"{where}: its subscript assigns a variable (evaluated twice, it would change)"
        dims = _clamped_index(_strip(_typed_inline(load.index, once)))
        if isinstance(dims, str):
            return f"{where}: {dims}"
        terms, stride = dims
        return TileStore(pname, stmt, load.index, terms, stride)
    return (f"{where} are not made by every thread, once, before its first barrier or "
            "return (a statement of its body loading it whole)")


def _typed_inline(e: n.Expr, once: dict[str, n.Expr]) -> n.Expr:
    """`e` with once-set locals replaced by their initialisers converted to the locals'
    types (`int px = blockIdx.x * pw + threadIdx.x - pad;` is an int, its initialiser
    unsigned: the clamp sees the int)."""
    for _ in range(8):
        if not any(isinstance(x, n.Ref) and x.decl in once for x in e.walk()):
            break
        out = replace_nodes(e, lambda x: (n.Cast(once[x.decl], type=unqualified(x.type),
                                                 explicit=False, span=x.span)
                                          if x.type else once[x.decl])
                            if isinstance(x, n.Ref) and x.decl in once else None)
        assert isinstance(out, n.Expr)
        e = out
    return e


def _whole_load(stmt: n.Stmt, decl: str) -> n.Index | None:
    """The load of parameter `decl` in the value `stmt` assigns or declares, when every
    evaluation of that value makes it: not under a conditional expression, `&&` or `||`
    (`t[ty][tx] = img[idx] / 255.0f` loads; `c ? img[idx] : 0` may not)."""
    value: n.Expr | None = None
    if isinstance(stmt, n.ExprStmt) and isinstance(stmt.expr, n.Binary) and \
            stmt.expr.op == "=":
        value = stmt.expr.rhs
    elif isinstance(stmt, n.DeclStmt) and len(stmt.decls) == 1:
        value = stmt.decls[0].init
    if value is None:
        return None
    return _made_load(value, decl)


def _made_load(e: n.Expr, decl: str) -> n.Index | None:
    if isinstance(e, n.Index) and isinstance(b := _strip(e.base), n.Ref) and b.decl == decl:
        return e
    if isinstance(e, n.Cond) or isinstance(e, n.Binary) and e.op in ("&&", "||", ","):
        return None
    for c in e.children():
        if isinstance(c, n.Expr) and (found := _made_load(c, decl)) is not None:
            return found
    return None


def _addends(e: n.Expr) -> list[n.Expr]:
    e = _strip(e)
    if isinstance(e, n.Binary) and e.op == "+":
        return _addends(e.lhs) + _addends(e.rhs)
    return [e]


def _clamp(e: n.Expr) -> tuple[n.Expr, n.Expr] | None:
    """(E, B - 1) for min(max(E, 0), B - 1) or max(min(E, B - 1), 0), operands in either
    order."""
    e = _strip(e)
    if not isinstance(e, n.Call) or len(e.args) != 2 or e.callee_expr is not None:
        return None
    outer = "min" if e.callee in _MIN else "max" if e.callee in _MAX else None
    if outer is None:
        return None
    for k in (0, 1):
        inner, free = _strip(e.args[k]), e.args[1 - k]
        if not (isinstance(inner, n.Call) and len(inner.args) == 2 and
                inner.callee in (_MAX if outer == "min" else _MIN)):
            continue
        for j in (0, 1):
            pos, other = inner.args[j], inner.args[1 - j]
            top, zero = (free, other) if outer == "min" else (other, free)
            if _poly(_strip(zero)) == _poly(n.IntLit(0, type="int")) and \
                    not _indexed(top) and \
                    "unsigned" not in pos.type and "size_t" not in pos.type:
                # (an unsigned position past the left edge wraps to the right one)
                return pos, top
    return None


def _indexed(e: n.Expr) -> bool:
    """Whether `e` reads a thread or block index."""
    return any(isinstance(y, n.Ref) and y.name in ("threadIdx", "blockIdx") for y in e.walk())


def _thread_dim(e: n.Expr) -> str:
    """The d of a position `blockIdx.d * K + threadIdx.d + C` (K, C free of thread and block
    indices, threadIdx.d once with coefficient 1), or a reason (starting with 'its')."""
    for x in e.walk():
        if isinstance(x, n.Binary) and x.op not in ("+", "-", "*") and any(
                isinstance(y, n.Ref) and y.name in ("threadIdx", "blockIdx") for y in x.walk()):
            return "its position is not a sum of block and thread indices"
    p = _poly(e, opaque=True)
    if p is None:
        return "its position is not a polynomial of the thread's indices"
    dims = {a.name.split(".")[1] for a in p.atoms() if a.kind == "builtin" and
            a.name.split(".")[0] in ("threadIdx", "blockIdx")}
    if len(dims) != 1:
        return "its position does not follow one dimension of the thread's indices"
    (d,) = dims
    t, b = f"threadIdx.{d}", f"blockIdx.{d}"
    for m, c in p.terms:
        names = [a.name for a in m if a.kind == "builtin"]
        if t in names and (m != tuple(a for a in m if a.name == t) or c != 1 or len(m) != 1):
            return "its position is not threadIdx plus a block offset"
        if names.count(b) > 1 or (b in names and t in names):
            return "its position is not linear in blockIdx"
    if not any(a.name == t for m, _ in p.terms for a in m):
        return "its position does not hold threadIdx"
    return d


def _clamped_index(idx: n.Expr) -> tuple[tuple[TileDim, ...], n.Expr | None] | str:
    terms = _addends(idx)
    if len(terms) > 2:
        return "its subscript is not a clamped position in one or two dimensions"
    dims: list[tuple[TileDim, n.Expr | None]] = []
    for t in terms:
        c = _clamp(t)
        scale: n.Expr | None = None
        if c is None and isinstance(t, n.Binary) and t.op == "*":
            for a, s in ((t.lhs, t.rhs), (t.rhs, t.lhs)):
                if (c := _clamp(a)) is not None:
                    scale = s
                    break
        if c is None:
            return "its subscript is not a sum of positions clamped into [0, B)"
        d = _thread_dim(c[0])
        if d not in _DIMS:
            return d
        dims.append((TileDim(d, c[0], c[1]), scale))
    dims.sort(key=lambda x: x[1] is not None)
    if dims[0][1] is not None or (len(dims) == 2 and dims[1][1] is None) or \
            len({td.dim for td, _ in dims}) != len(dims):
        return "its subscript is not x + y * stride of two clamped positions"
    return tuple(td for td, _ in dims), dims[1][1] if len(dims) == 2 else None


def tile_store_checks(site: LaunchSite, ts: TileStore) -> list[str] | None:
    """C text, evaluable at the group's launch, of the conditions under which the loads of
    `ts` reach every element of [0, B) in each dimension (the module's docstring): one per
    fact, each `(long long)` arithmetic with the kernel's parameters replaced by the
    launch's arguments (converted to the parameters' types) and the thread and block
    indices by values of the launch's grid and block; None when one cannot be built."""
    if site.wrapper is not None or site.host.body is None:
        return None
    unstable = _unstable(site.host.body)
    out = []
    for td in ts.dims:
        axis = _DIMS.index(td.dim)
        g, b = _dim_text(site.launch.grid, axis, unstable), \
            _dim_text(site.launch.block, axis, unstable)
        if g is None or b is None:
            return None
        at = {v: launch_text(site, td.inner, {td.dim: v}, unstable) for v in (
            ("0", "0"), ("1", "0"), (f"({g} - 1)", "0"))}
        top = launch_text(site, td.top, {}, unstable)
        if top is None or any(v is None for v in at.values()):
            return None
        e00, e10, elast = at[("0", "0")], at[("1", "0")], at[(f"({g} - 1)", "0")]
        step = f"({e10} - {e00})"
        out.append(f"{e00} <= 0LL")
        out.append(f"{step} >= 1LL && {step} <= (long long){b}")
        out.append(f"{elast} + {step} - 1 >= {top}")
    return out


def owner_guard(ts: TileStore) -> str | None:
    """The kernel's condition (C text over its own names) for the threads that store: the
    first K of each block in each dimension, K the patch's step E(1, 0) - E(0, 0). Their
    positions partition the line into [b * K + C, b * K + C + K), so each element inside the
    image is stored once (the edges' clamped positions a few times, with one value); None
    when it cannot be printed (then every loading thread stores: more stores, same
    values)."""
    terms = []
    for td in ts.dims:
        def at(b: int, td: TileDim = td) -> n.Expr:
            def change(x: n.Node) -> n.Node | None:
                if isinstance(x, n.Member) and isinstance(x.base, n.Ref) and \
                        x.base.kind == "builtin" and x.field_name == td.dim and \
                        x.base.name in ("blockIdx", "threadIdx"):
                    return n.IntLit(b if x.base.name == "blockIdx" else 0, type="int")
                return None
            out = replace_nodes(td.inner, change)
            assert isinstance(out, n.Expr)
            return out
        try:
            terms.append(f"(int)threadIdx.{td.dim} < ({to_c(at(1))}) - ({to_c(at(0))})")
        except Unprintable:
            return None
    return " && ".join(terms)


def launch_text(site: LaunchSite, e: n.Expr, indices: dict[str, tuple[str, str]],
                unstable: frozenset[str] | None = None) -> str | None:
    """`e` (a kernel expression of `site`'s kernel) as host C text at the launch, as
    `(long long)(...)`: parameters replaced by the launch's arguments converted to their
    types, once-set locals by their initialisers, blockIdx.d and threadIdx.d by `indices[d]`
    (texts), blockDim and gridDim by the launch's block and grid."""
    if site.host.body is None or site.kernel.body is None:
        return None
    if unstable is None:
        unstable = _unstable(site.host.body)
    args = {p.decl: (p, a) for p, a in site.bindings}
    consts = _kernel_constants(site.kernel.body)
    e = _inline(e, consts)
    ok = True

    def text(name: str) -> n.Ref:  # (long long: an unsigned grid size minus 1 times a
        return n.Ref(f"((long long)({name}))", kind="enum", type="long long")  # negative)

    def change(x: n.Node) -> n.Node | None:
        nonlocal ok
        if isinstance(x, n.Member) and isinstance(x.base, n.Ref) and \
                x.base.kind == "builtin" and x.field_name in _DIMS:
            d, kind = x.field_name, x.base.name
            if kind in ("blockIdx", "threadIdx"):
                if d not in indices:
                    ok = False
                    return x
                return text(indices[d][0 if kind == "blockIdx" else 1])
            launch = site.launch.grid if kind == "gridDim" else site.launch.block \
                if kind == "blockDim" else None
            t = _dim_text(launch, _DIMS.index(d), unstable) if launch is not None else None
            if t is None:
                ok = False
                return x
            return text(t)
        if isinstance(x, n.Ref):
            if x.kind == "param" and x.decl in args:
                p, a = args[x.decl]
                if not _stable(a, unstable):
                    ok = False
                return n.Cast(a, type=p.type.replace("const", "").strip() or "int",
                              span=a.span)
            if isinstance(x.const_value, int):
                return n.IntLit(x.const_value, type=x.type)
            if x.kind != "enum":
                ok = False
        return None

    host = replace_nodes(e, change)
    assert isinstance(host, n.Expr)
    if not ok:
        return None
    try:
        return f"(long long)({to_c(host)})"
    except Unprintable:
        return None


def reach_meaning(sink: str) -> str:
    """What group_tile_stores' condition stands for, as --explain and --report say it."""
    return (f"the overlapping tiles the threads of '{sink}' load reach every element of "
            "its producers' domain, so storing the intermediates at those loads writes "
            "each element")


def group_tile_stores(sink: LaunchSite, reads: dict[str, str],
                      stored: list[tuple[str, LaunchSite, KernelView]]
                      ) -> tuple[TileStore, str] | str:
    """Where the last kernel `sink` (no coordinates of its own) stores the group's stored
    intermediates (`stored`: key, its producer's launch and view), and the condition it
    does so under; or why it cannot. `reads`: the sink's parameters by the buffer keys the
    group produces. The stores go at the first buffer the sink loads at a tile position,
    every stored buffer at that element: each producer must write the same [0, B) image
    (its bounds the clamp's, its row stride the subscript's)."""
    found: TileStore | str = "it loads no intermediate of the group"
    for _, pname in sorted(reads.items()):
        found = tile_store(sink.kernel, pname)
        if isinstance(found, TileStore):
            break
    if isinstance(found, str):
        return found
    ts = found
    checks = tile_store_checks(sink, ts)
    if checks is None:
        return ("the conditions under which its tile loads reach every element cannot be "
                "evaluated at the group's launch")
    tops = {td.dim: launch_text(sink, td.top, {}) for td in ts.dims}
    stride = launch_text(sink, ts.stride, {}) if ts.stride is not None else None
    for key, site, view in stored:
        buf = key.split(":", 1)[1].split("@")[0]
        if view.channels or view.grid_stride or view.dims != len(ts.dims):
            return (f"'{site.kernel.name}' does not write '{buf}' one element per thread over "
                    f"as many dimensions as the tile ({len(ts.dims)})")
        for td, bound in zip(ts.dims, view.bounds, strict=False):
            bt = launch_text(site, bound, {})
            if bt is None or tops[td.dim] is None:
                return f"the bounds of '{site.kernel.name}' cannot be evaluated at the launch"
            checks.append(f"{tops[td.dim]} + 1 == {bt}")
        if ts.stride is not None:
            st = launch_text(site, view.stride, {}) if view.stride is not None else None
            if st is None or stride is None:
                return (f"the row stride of '{site.kernel.name}' cannot be evaluated at the "
                        "launch")
            checks.append(f"{stride} == {st}")
    return ts, " && ".join(f"({c})" for c in dict.fromkeys(checks))
