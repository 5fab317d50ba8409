"""A tile of the image staged in shared memory, read through its buffer: a tiled producer
recomputed where it is read.

A stencil written as Hipacc writes its local operators stages its input's tile and halo in
shared memory before a barrier, then reads the tile:

    __shared__ float tile[TH + 2 * R][TW + 2 * R];
    const int x = blockIdx.x * TW + threadIdx.x, y = blockIdx.y * TH + threadIdx.y;
    for (int dy = threadIdx.y; dy < TH + 2 * R; dy += TH)
      for (int dx = threadIdx.x; dx < TW + 2 * R; dx += TW)
        tile[dy][dx] = in[min(max(blockIdx.y * TH + dy - R, 0), h - 1) * w +
                          min(max(blockIdx.x * TW + dx - R, 0), w - 1)];
    __syncthreads();
    if (x < w && y < h) { ... tile[threadIdx.y + R + j][threadIdx.x + R + i] ... }

Its value at (x, y) is the same computation with each read of the tile replaced by the read
of `in` that filled that element, `in[min(max(y + j, 0), h - 1) * w + min(max(x + i, 0), w -
1)]`: a plain stencil, which the view reads and code generation recomputes (without the tile,
the barrier and the loads: a value function runs in one thread). That holds when this module
proves, from the IR:

1. what an element holds: the array has one store, `tile[v1]...[vk] = V`, whose subscripts
   are the variables of the loops around it (`for (int v = threadIdx.d; v < E; v += S)`);
   V loads only buffer parameters the kernel never writes, calls only the standard math
   functions, assigns nothing, and reads no thread index but through those variables (a
   clamped load `in[G]`, a zero-padded one `c ? in[G] : 0.0f`, Hipacc's CONSTANT border).
   Then element i of the array holds V(i), converted to its element type, whichever thread
   stored it (threads that store one element all store that value: no race);
2. that every element read was stored in the reader's block: the loop nest is a statement of
   the body before the first barrier, with no return before it (every thread makes its
   part), the coordinates are `blockIdx.d * K + threadIdx.d` with K a constant (the block
   size legality checks at the launch: `KernelView.block_sizes`), and each loop's step S is
   at most K (threads 0..S-1 of the dimension together store all of [0, E)); each read's
   subscript lies in [0, E) at every corner of its loops and of threadIdx.d in [0, K), and E
   fits the declared extent;
3. that the read can move to another thread: V(R) is rewritten over the coordinates (every
   sum `C * (blockIdx.d * K + threadIdx.d) + r` is `C * x + r`, no built-in index remains),
   since a value function is evaluated at (x, y) by whichever thread of the fused kernel
   reads it.

A tile whose store is anything else (one element per thread of a 1-D array, several stores
such as a centre and conditional halo loads) keeps the reason the view or cooperation gives;
one stored at a clamped position (overlapping tiles) is refused as a race.
"""

from __future__ import annotations

import dataclasses
import itertools

from cudafuse.analysis.mathfuncs import MATH
from cudafuse.analysis.symbolic import Atom, Poly, builtin
from cudafuse.codegen.exprprint import Unprintable, to_c
from cudafuse.ir import nodes as n
from cudafuse.ir.lvalue import write_targets, written_root
from cudafuse.ir.program import Function
from cudafuse.ir.source import Span
from cudafuse.ir.substitute import replace_nodes
from cudafuse.ir.types import unqualified
from cudafuse.passes.vertical.kernel.staged_copy import (
    StagedCopy,
    _bases,
    _counting_loop,
    _enclosing_loops,
    _inline,
    _poly,
    _strip,
    _subscripts,
    _written,
    staging_frame,
    without_staging,
)

_DIMS = ("x", "y", "z")
_CLAMPS = frozenset({"min", "max", "fminf", "fmaxf", "::min", "::max", "std::min", "std::max"})


@dataclasses.dataclass(frozen=True)
class _Coord:
    dim: str
    ref: n.Ref  # the coordinate local, as the kernel names it
    size: int  # K of blockIdx.d * K + threadIdx.d


@dataclasses.dataclass(frozen=True)
class _Dim:
    var: str  # the decl of the loop variable the subscript is
    extent: int  # E: elements [0, E) are stored


def shared_uses(top: list[n.Stmt], shared: dict, first: int) -> tuple[
        dict[str, list[tuple[int, n.Binary]]], dict[str, list[n.Index]]] | None:
    """Each shared array's stores (top-level statement index, assignment) before the first
    barriers at `first` and its full-rank element reads after them; None when a shared array
    is stored after the barrier (rounds), read before it or with fewer subscripts than its
    rank, or named otherwise (its address taken, passed on)."""
    stores: dict[str, list[tuple[int, n.Binary]]] = {k: [] for k in shared}
    reads: dict[str, list[n.Index]] = {k: [] for k in shared}
    uses: set[int] = set()
    for i, s in enumerate(top):
        for x in s.walk():
            if isinstance(x, n.Binary) and x.is_assignment:
                r = written_root(x.lhs)
                if r is not None and r.decl in shared:
                    if i >= first:
                        return None  # (rounds: cooperation's reason)
                    stores[r.decl].append((i, x))
                    uses.update(id(y) for y in x.lhs.walk())
            elif isinstance(x, n.Index) and id(x) not in uses:
                root, subs = _subscripts(x)
                if root is None or root.decl not in shared:
                    continue
                if i <= first or len(subs) != len(shared[root.decl].array_dims):
                    return None
                reads[root.decl].append(x)
                uses.update(id(y) for y in _bases(x))
        for x in s.walk():
            if isinstance(x, n.Ref) and x.decl in shared and id(x) not in uses and not (
                    isinstance(s, n.DeclStmt) and any(d.decl in shared for d in s.decls)):
                return None  # (`float m = f(t, k);` names the array as `m = f(t, k);` does)
    return stores, reads


def staged_tile(fn: Function) -> StagedCopy | str | None:
    """The kernel read without its shared tile of a read-only buffer; a reason when its tile
    is of that kind but a fact cannot be shown; None when it has no such tile."""
    frame = staging_frame(fn)
    if frame is None:
        return None
    body, top, shared = frame.body, frame.top, frame.shared
    bar_stmts, first, decl_stmts = frame.bar_stmts, frame.first, frame.decl_stmts
    written, once = frame.written, frame.once
    scanned = shared_uses(top, shared, first)
    if scanned is None:
        return None
    stores, reads = scanned
    if any(len(v) != 1 for v in stores.values()):
        return None
    if not all(_is_tile_store(store, once) for (_, store), in
               (v for v in stores.values())):
        return None  # (a table copy is staged_copy's; anything else keeps its reason)
    clamped = _clamped_store(fn, once)
    if clamped:
        return clamped
    coords = block_coords(once)
    renamed: list[tuple[Span, str]] = []
    replace: dict[int, n.Node] = {}
    staging: set[int] = set()
    for decl, [(i, store)] in stores.items():
        arr = shared[decl]
        found = _tile(fn, top, i, store, arr, reads[decl], written, once, coords, body)
        if isinstance(found, str):
            return found
        staging.add(i)
        for span, text, node, read in found:
            renamed.append((span, text))
            replace[id(read)] = node
    dropped, new_body = without_staging(body, staging | set(decl_stmts) | set(bar_stmts),
                                        first, once, replace)
    return StagedCopy(dataclasses.replace(fn, body=new_body),
                      tuple(top[j].span for j in dropped), tuple(renamed), (), -1, (),
                      tile_block=tuple(c.size for c in sorted(coords.values(),
                                                              key=lambda c: c.dim)),
                      original=fn)


def _clamped_store(fn: Function, once: dict[str, n.Expr]) -> str | None:
    """Why the kernel's value at an element is no one thread's, when it stores a buffer at a
    clamped position (`out[min(max(p, 0), w - 1)]` with p from the thread's indices, as
    overlapping tiles whose threads past the image's edge write its last column do)."""
    params = {p.decl for p in fn.params if p.is_pointer}
    assert fn.body is not None
    for x in fn.body.walk():
        if not (isinstance(x, n.Binary) and x.is_assignment):
            continue
        target = _strip(x.lhs)
        if not (isinstance(target, n.Index) and isinstance(b := _strip(target.base), n.Ref)
                and b.decl in params):
            continue
        index = _inline(target.index, once)
        for c in index.walk():
            if isinstance(c, n.Call) and c.callee in _CLAMPS and any(
                    isinstance(y, n.Ref) and y.name == "threadIdx" for y in c.walk()):
                return (f"its store to '{b.name}' (line {x.span.line}) is at a clamped "
                        f"position ('{c.callee}' of the thread's position): threads past the "
                        "image's edge store its edge's elements too, each its own value, so "
                        "no one thread's value is the element's (which one lands is a race "
                        "in the original)")
    return None


def impure_reason(value: n.Expr, fn: Function, written: set[str]) -> str | None:
    """Why `value` is not the same wherever and whenever the block's threads evaluate it,
    if it is not: only loads of buffer parameters the kernel never writes, the standard
    math functions, operators (no assignment) and names are allowed."""
    params = {p.decl: p for p in fn.params}
    for x in value.walk():
        if isinstance(x, n.Binary) and x.is_assignment or \
                isinstance(x, n.Unary) and x.op in ("++", "--"):
            return "assigns a variable"
        if isinstance(x, n.Call) and (x.callee_expr is not None or
                                      x.callee.rsplit("::", 1)[-1] not in MATH):
            return f"calls '{x.callee or '?'}'"
        if isinstance(x, n.Index):
            b = _strip(x.base)
            if not (isinstance(b, n.Ref) and b.decl in params and params[b.decl].is_pointer):
                return "loads other memory than a buffer parameter's"
            if b.decl in written:
                moved = _moved_pointer(fn, b.decl)
                if moved is not None:  # (`src += y * w + x;`: no store through it)
                    return (f"loads through '{b.name}', which the kernel moves (line "
                            f"{moved}): the element a load names is not followed")
                return f"loads '{b.name}', which the kernel writes"
        if isinstance(x, (n.Member, n.Unary)) and not (
                isinstance(x, n.Member) and isinstance(x.base, n.Ref) and
                x.base.kind == "builtin") and (isinstance(x, n.Member) or x.op in ("*", "&")):
            return "reads through a member or a pointer"
    return None


def _moved_pointer(fn: Function, decl: str) -> int | None:
    """The first line where the kernel changes the pointer parameter `decl` itself (`p +=
    off`, `p = q`, `&p` passed on), when that is all it writes of it: no store through it,
    no element's address taken."""
    assert fn.body is not None
    lines = []
    for t in write_targets(fn.body):
        root = written_root(t)
        if root is None or root.decl != decl:
            continue
        if not isinstance(_strip(t), n.Ref):
            return None  # (a store through it, or its address taken)
        lines.append(t.span.line)
    return min(lines, default=None)


def _is_tile_store(store: n.Binary, once: dict[str, n.Expr]) -> bool:
    """A store of a value that loads a buffer parameter where the block's position says."""
    rhs = _inline(store.rhs, once)
    return any(isinstance(x, n.Index) and isinstance(b := _strip(x.base), n.Ref) and
               b.kind == "param" for x in rhs.walk()) and \
        any(isinstance(y, n.Ref) and y.name == "blockIdx" for y in rhs.walk())


def _thread(dim: str) -> Poly:
    return Poly.atom(builtin("threadIdx", dim))


def block_coords(once: dict[str, n.Expr]) -> dict[str, _Coord]:
    """The locals set once to `blockIdx.d * K + threadIdx.d` with K a constant, per d."""
    out: dict[str, _Coord] = {}
    for decl, init in once.items():
        p = _poly(_inline(init, once))
        if p is None:
            continue
        for d in _DIMS:
            rest = p - _thread(d)
            block = builtin("blockIdx", d)
            k = next((c for m, c in rest.terms if m == (block,)), None)
            if k is None or k <= 0 or rest != Poly.atom(block).scale(k) or d in out:
                continue
            name = decl.split("@")[0]
            out[d] = _Coord(d, n.Ref(name, kind="local", decl=decl, type="int"), k)
    return out


def _tile(fn: Function, top: list[n.Stmt], i: int, store: n.Binary, arr: n.VarDecl,
          reads: list[n.Index], written: set[str], once: dict[str, n.Expr],
          coords: dict[str, _Coord], body: n.Compound
          ) -> list[tuple[Span, str, n.Expr, n.Index]] | str:
    where = f"its tile in shared '{arr.name}' (line {store.span.line})"
    lhs = _strip(store.lhs)
    if store.op != "=" or not isinstance(lhs, n.Index) or not lhs.type:
        return f"{where} is not a plain store of one value"
    value = _inline(store.rhs, once)
    bad = impure_reason(value, fn, written)
    if bad:
        return f"{where} stores a value that {bad}"
    if unqualified(lhs.type) != unqualified(store.rhs.type):
        # (the store converts its value to the element's type: so does the read through it)
        value = n.Cast(value, type=unqualified(lhs.type), span=store.rhs.span)
    if any(isinstance(x, n.Return) for s in top[:i + 1] for x in s.walk()):
        return (f"{where} is stored after a return: a thread that returned stores nothing, "
                "so a block at the image's edge may read elements no thread stored")
    if len(coords) < len(arr.array_dims):
        return (f"{where}: the kernel's coordinates are not blockIdx * K + threadIdx with a "
                "constant K in every dimension of the tile, so which block stores which "
                "elements is not followed")
    dims = _stored_dims(top[i], store, once, coords)
    if isinstance(dims, str):
        return f"{where} {dims}"
    for d, extent in zip(dims, arr.array_dims, strict=True):
        size = n.int_constant(extent) if extent is not None else None
        if size is None or size < d.extent:
            return f"{where} stores elements past the array's extent"
    loop_vars = {d.var for d in dims}
    gx = value
    if any(isinstance(x, n.Member) and isinstance(x.base, n.Ref) and
           x.base.name == "threadIdx" for x in gx.walk()) or any(
            isinstance(x, n.Ref) and x.kind not in ("param", "enum", "builtin", "function") and
            x.decl not in loop_vars and n.int_constant(x) is None for x in gx.walk()):
        return (f"{where} stores a value that depends on the thread other than through the "
                "tile's element")
    out = []
    for r in reads:
        _, subs = _subscripts(r)
        subs = [_inline(s, once) for s in subs]
        bad = _read_in_range(body, r, subs, dims, coords, arr.name)
        if bad:
            return bad
        at = {d.var: s for d, s in zip(dims, subs, strict=True)}
        flat = replace_nodes(gx, lambda x, at=at: at.get(x.decl) if isinstance(
            x, n.Ref) else None)
        assert isinstance(flat, n.Expr)
        folded = _fold(flat, coords)
        if folded is None or any(isinstance(x, n.Ref) and x.kind == "builtin" or
                                 isinstance(x, n.Member) and isinstance(x.base, n.Ref) and
                                 x.base.kind == "builtin" for x in folded.walk()):
            return (f"its read of shared '{arr.name}' (line {r.span.line}) is not read "
                    "through its buffer at an element of the kernel's coordinates")
        # (every node at the read's place: code generation edits nothing inside it, whose
        # text is not there; an intermediate read in it is served by its view's operator[])
        node = at_span(folded, r.span)
        try:
            text = to_c(folded) if isinstance(folded, n.Index) else f"({to_c(folded)})"
        except Unprintable:
            return f"its read of shared '{arr.name}' (line {r.span.line}) cannot be printed"
        out.append((r.span, text, node, r))
    return out


def at_span(node: n.Node, span: Span) -> n.Expr:
    """`node` with every node of its tree located at `span`."""
    updates: dict[str, object] = {}
    for f in dataclasses.fields(node):
        v = getattr(node, f.name)
        if isinstance(v, n.Node):
            updates[f.name] = at_span(v, span)
        elif isinstance(v, tuple) and any(isinstance(x, n.Node) for x in v):
            updates[f.name] = tuple(at_span(x, span) if isinstance(x, n.Node) else x
                                    for x in v)
    if any(f.name == "span" for f in dataclasses.fields(node)):
        updates["span"] = span
    return dataclasses.replace(node, **updates)  # type: ignore[return-value]


def _stored_dims(stmt: n.Stmt, store: n.Binary, once: dict[str, n.Expr],
                 coords: dict[str, _Coord]) -> list[_Dim] | str:
    """Per subscript of the store, the elements the block's threads store together: a loop
    `for (int v = threadIdx.d; v < E; v += S)` with S <= the block's K in d stores [0, E)."""
    loops: dict[str, tuple[str, int]] = {}
    if any(isinstance(x, (n.Return, n.Break, n.Continue)) for x in stmt.walk()):
        return "is stored by a loop nest that a thread may leave early"
    s: n.Stmt = stmt
    while True:
        # (a body's locals set once before the store: `const int gx = min(max(...)...);`)
        while isinstance(s, n.Compound) and s.body and all(
                isinstance(t, n.DeclStmt) and all(d.decl in once for d in t.decls)
                for t in s.body[:-1]):
            s = s.body[-1]
        if not isinstance(s, n.For):
            break
        found = _strided(s, once, coords)
        if isinstance(found, str):
            return found
        loops[found[0]] = found[1:]  # type: ignore[assignment]
        s = s.body
    if not (isinstance(s, n.ExprStmt) and s.expr is store):
        return "is not stored by a nest of loops every thread of the block runs"
    _, subs = _subscripts(_strip(store.lhs))  # type: ignore[arg-type]
    out = []
    for sub in subs:
        sub = _strip(sub)
        if not (isinstance(sub, n.Ref) and sub.decl in loops):
            return "is stored at an element that is not its loops' variables"
        out.append(_Dim(sub.decl, loops.pop(sub.decl)[1]))
    if loops:
        return "is stored in a loop that is not one of its subscripts"
    return out


def _strided(s: n.For, once: dict[str, n.Expr], coords: dict[str, _Coord]
             ) -> tuple[str, str, int] | str:
    """(v, d, E) for `for (int v = threadIdx.d; v < E; v += S)`, S <= K, E constant."""
    init = s.init
    if not (isinstance(init, n.DeclStmt) and len(init.decls) == 1 and
            init.decls[0].init is not None):
        return "is stored in a loop that does not declare its variable"
    v = init.decls[0]
    start = _poly(_inline(v.init, once))  # type: ignore[arg-type]
    dim = next((d for d in _DIMS if start == _thread(d)), None)
    if dim is None or dim not in coords:
        return "is stored in a loop that does not start at the thread's index in its block"
    cond, inc = s.cond, s.inc
    if not (isinstance(cond, n.Binary) and cond.op == "<" and
            isinstance(_strip(cond.lhs), n.Ref) and _strip(cond.lhs).decl == v.decl):
        return "is stored in a loop whose condition is not v < E"
    end = _poly(_inline(cond.rhs, once))
    extent = end.const_value if end is not None else None
    if extent is None:
        return "is stored in a loop whose end is not a constant"
    step = None
    if isinstance(inc, n.Binary) and inc.op == "+=" and isinstance(_strip(inc.lhs), n.Ref) \
            and _strip(inc.lhs).decl == v.decl:
        p = _poly(_inline(inc.rhs, once))
        step = p.const_value if p is not None else None
        if p == Poly.atom(builtin("blockDim", dim)):
            step = coords[dim].size
    if step is None or not 0 < step <= coords[dim].size:
        return (f"is stored in a loop whose step is not a constant of at most the block's "
                f"{coords[dim].size} threads in {dim}")
    if v.decl in _written(s.body):
        return "is stored in a loop that changes its variable in its body"
    return v.decl, dim, extent


def _read_in_range(body: n.Compound, read: n.Index, subs: list[n.Expr], dims: list[_Dim],
                   coords: dict[str, _Coord], name: str) -> str | None:
    """Why a read of the tile may be of an element no thread of the block stored, if it may:
    each subscript, multilinear in the loops' variables and the thread's indices, is checked
    in [0, E) at every corner of their ranges (a box: extremes are at its corners)."""
    where = f"its read of shared '{name}' (line {read.span.line})"
    ranges: dict[Atom, tuple[Poly, Poly]] = {}
    for s in _enclosing_loops(body, read) or []:
        lp = _counting_loop(s)
        if lp is None:
            continue
        lo, hi = _poly(lp.low), _poly(lp.high)
        if lo is None or hi is None or not lo.is_const or not hi.is_const:
            continue
        ranges[Atom("var", lp.var)] = (lo, hi)
    for c in coords.values():
        ranges[builtin("threadIdx", c.dim)] = (Poly.const(0), Poly.const(c.size - 1))
    for sub, d in zip(subs, dims, strict=True):
        p = _poly(sub)
        if p is None:
            return f"{where} is at an element that is not a sum of products"
        atoms = {a for m, _ in p.terms for a in m}
        free = atoms - set(ranges)
        if free:
            return (f"{where} is at an element that depends on '{sorted(free)[0]}', which "
                    "is neither a loop with constant bounds nor the thread's index")
        if any(len(set(m)) != len(m) for m, _ in p.terms):
            return f"{where} is not affine in its loop variables"
        used = [a for a in ranges if a in atoms]
        for corner in itertools.product(*(ranges[a] for a in used)):
            value = _at(p, dict(zip(used, corner, strict=True)))
            if value is None or not 0 <= value < d.extent:
                return (f"{where} may be outside the elements its block stores (0 to "
                        f"{d.extent - 1}): the original reads what no thread stored")
    return None


def _at(p: Poly, values: dict[Atom, Poly]) -> int | None:
    total = Poly()
    for m, c in p.terms:
        term = Poly.const(c)
        for a in m:
            term = term * values.get(a, Poly.atom(a))
        total = total + term
    return total.const_value


def _fold(e: n.Expr, coords: dict[str, _Coord]) -> n.Expr | None:
    """`e` with every largest sum that holds `blockIdx.d * K + threadIdx.d` written as the
    coordinate plus the rest (None when a built-in index is left elsewhere)."""
    refs = {x.decl: x for x in e.walk() if isinstance(x, n.Ref) and x.decl}
    failed = False

    def change(x: n.Node) -> n.Node | None:
        nonlocal failed
        if not isinstance(x, n.Expr) or not any(
                isinstance(y, n.Ref) and y.kind == "builtin" for y in x.walk()):
            return x if isinstance(x, n.Expr) else None
        p = _poly(x)
        if p is None:
            return None  # (look inside: a clamp, a call)
        # (each thread index with its coefficient C, a row stride or 1: C * (blockIdx.d * K
        # + threadIdx.d) is C times the coordinate)
        rest, out = p, None
        for c in coords.values():
            t = builtin("threadIdx", c.dim)
            coef = Poly()
            for m, k in p.terms:
                if m.count(t) == 1:
                    coef = coef + Poly(((tuple(a for a in m if a != t), k),))
            if not coef.terms:
                continue
            rest = rest - coef * (_thread(c.dim) + Poly.atom(
                builtin("blockIdx", c.dim)).scale(c.size))
            scale = _expr(coef, refs)
            if scale is None:
                break
            term: n.Expr = c.ref if coef == Poly.const(1) else n.Binary(
                "*", c.ref, scale, type="int")
            out = term if out is None else n.Binary("+", out, term, type="int")
        else:
            if out is not None and not any(a.kind == "builtin" for m, _ in rest.terms
                                           for a in m):
                back = _expr(rest, refs)
                if back is not None:
                    return n.Binary("+", out, back, type="int") if rest.terms else out
        failed = True
        return x

    out = replace_nodes(e, change)
    return None if failed else out  # type: ignore[return-value]


def _expr(p: Poly, refs: dict[str, n.Ref]) -> n.Expr | None:
    """A polynomial over variables and constants as an expression (None for other atoms)."""
    out: n.Expr | None = None
    for m, c in p.terms:
        term: n.Expr | None = None if m else n.IntLit(c, type="int")
        for a in m:
            if a.kind != "var" or a.name not in refs:
                return None
            term = refs[a.name] if term is None else n.Binary("*", term, refs[a.name],
                                                               type="int")
        if m and c != 1:
            term = n.Binary("*", n.IntLit(c, type="int"), term, type="int")  # type: ignore[arg-type]
        assert term is not None
        out = term if out is None else n.Binary("+", out, term, type="int")
    return out if out is not None else n.IntLit(0, type="int")
