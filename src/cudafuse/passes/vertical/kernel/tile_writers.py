"""A tile staged in shared memory by several stores, read by which thread stored each
element: a tiled producer recomputed where it is read.

staged_tile.py reads a tile made by one loop nest over the tile's elements. Third parties
stage tiles in many other ways: four corner loads per thread (ferraiuolo's canny), a centre
load and halo loads by the first threads of the block (`if (tx < R) { s[tx] = ...;
s[tx + B + R] = ...; }`), the tile loaded in two rounds. What all of these mean is the same
fact, and this module shows it by evaluating the staging for every thread of the block
(the block is K threads in each dimension, a constant: `blockIdx.d * K + threadIdx.d`, or
blockDim the constant every launch gives, tileblock.py):

1. which element each thread stores, and the value: the statements before the first
   barrier are run with the thread's indices known (loops and branches on the thread's
   indices and constants are followed; stores and local assignments only, no return, no
   condition on the block's position or a parameter). Element e of the block's tile then
   holds V_w, the store's value over blockIdx and the parameters, for each writer w;
2. each read after the barrier, `s[threadIdx.d + c(v)]...` with c over the loops around it
   (constant bounds) and constants: for every thread t of the block and every value of
   those loops, the element read has at least one writer in the block (else the original
   reads what no thread stored), and one expression C, written over the reader's
   coordinates (blockIdx.d * K is x_d - t_d for the reader), equals every writer's value
   under what the reader knows (its guard's upper bounds, x_d >= t_d): writers that agree
   there store one value (no race that matters), and C is it for every reader. C is one
   writer's value moved to the read's position, or, when every writer pads with zeros by
   its own test (`c ? in[p] : 0`), the value under all the tests together;
3. the read becomes C, over the coordinates and the read's loop variables: the value of the
   kernel at (x, y) needs no tile, barrier or other thread.

A value that loads a buffer the kernel writes (an in-place update) is refused: other blocks
may already have stored their new values where a block stages its halo, a race in the
original.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

from cudafuse.analysis.memo import per_object
from cudafuse.analysis.symbolic import Atom, Poly, builtin
from cudafuse.codegen.exprprint import Unprintable, to_c
from cudafuse.ir import nodes as n
from cudafuse.ir.lvalue import write_targets, written_root
from cudafuse.ir.program import Function
from cudafuse.ir.substitute import replace_nodes
from cudafuse.ir.types import is_integral, is_unsigned, unqualified
from cudafuse.passes.vertical.kernel.staged_copy import (
    StagedCopy,
    _counting_loop,
    _inline,
    _poly,
    _strip,
    _subscripts,
    node_path,
    staging_frame,
    without_staging,
)
from cudafuse.passes.vertical.kernel.staged_tile import (
    at_span,
    block_coords,
    impure_reason,
    shared_uses,
)

_DIMS = ("x", "y", "z")
RACE = "a race in the original"
UNKNOWN_BLOCK = "the kernel's coordinates are not blockIdx * K + threadIdx with a constant K"
_MAX_THREADS = 1024
_MAX_STEPS = 200_000  # statements run over all threads (loops are followed)
_MAX_POINTS = 4096  # readers x loop values checked per read


class _Refused(Exception):
    """The staging is not one this module reads (reason None) or cannot be shown safe."""

    def __init__(self, reason: str | None = None):
        super().__init__(reason)
        self.reason = reason


@dataclasses.dataclass(frozen=True)
class _Write:
    store: n.Binary  # the statement's store
    element: tuple[int, ...]
    value: n.Expr  # over blockIdx and the parameters (the thread's indices known)


# Each kernel is read several times (as a producer, a consumer, per host function): its
# staging is run for every thread of the block once.
@per_object(256)
def staged_writers(fn: Function) -> StagedCopy | str | None:
    """The kernel read without its shared tile, when every element it reads is shown to
    hold one value of the reader's position; a reason when its tile cannot be; None when
    it has no tile of this kind."""
    try:
        return _staged(fn)
    except _Refused as r:
        return r.reason


def _staged(fn: Function) -> StagedCopy | str | None:
    frame = staging_frame(fn)
    if frame is None:
        return None
    body, top, shared, first = frame.body, frame.top, frame.shared, frame.first
    once = frame.once
    scanned = shared_uses(top, shared, first)
    if scanned is None:
        return None
    stores, reads = scanned
    staging = {i for v in stores.values() for i, _ in v}
    if not staging or any(isinstance(x, n.Return) for s in top[:first] for x in s.walk()):
        return None
    coords = block_coords(once)
    used = {x.field_name for s in top for x in s.walk() if isinstance(x, n.Member) and
            isinstance(x.base, n.Ref) and x.base.name in ("threadIdx", "blockIdx")}
    name = next(iter(shared.values())).name
    if any(d not in coords for d in used):
        return (f"its tile in shared '{name}': {UNKNOWN_BLOCK} (or blockDim.d, the same "
                "constant at every launch) in every dimension it uses, so which thread "
                "stores which element is not followed")
    sizes = {d: coords[d].size for d in coords if d in used}
    if math.prod(sizes.values()) > _MAX_THREADS:
        return None
    moves = _moves(fn, top, first, staging)
    written = frame.written - {m for _, m in moves}
    impure = _impure_staging(fn, [top[i] for i in sorted(staging)], written, name)
    if impure:
        return impure
    writes = _run_block(fn, top[:first], shared, sizes, written,
                        frozenset(m for _, m in moves))
    written_in = {d for i in staging for d in _assigned_locals(top[i])}
    kept_refs = {x.decl for j, s in enumerate(top) if j not in staging
                 for x in s.walk() if isinstance(x, n.Ref)}
    if written_in & kept_refs:
        return None  # (the staging also sets a local read elsewhere)
    renamed = []
    replace: dict[int, n.Node] = {}
    for decl, rs in reads.items():
        arr = shared[decl]
        by_elem: dict[tuple[int, ...], list[_Write]] = {}
        for w in writes.get(decl, []):
            by_elem.setdefault(w.element, []).append(w)
        extents = [n.int_constant(e) if e is not None else None for e in arr.array_dims]
        for r in rs:
            expr = _read_value(body, r, arr, extents, by_elem, coords, sizes, once)
            node = at_span(expr, r.span)
            try:
                text = to_c(expr) if isinstance(expr, n.Index) else f"({to_c(expr)})"
            except Unprintable:
                return f"its read of shared '{arr.name}' (line {r.span.line}) cannot be printed"
            renamed.append((r.span, text))
            replace[id(r)] = node
    dropped, new_body = without_staging(body, staging | set(frame.decl_stmts) |
                                        set(frame.bar_stmts) | {i for i, _ in moves},
                                        first, once, replace)
    dropped, new_body = _unused_locals(top, dropped, new_body, once)
    return StagedCopy(dataclasses.replace(fn, body=new_body),
                      tuple(top[j].span for j in dropped), tuple(renamed), (), -1, (),
                      tile_block=tuple(coords[d].size for d in _DIMS if d in coords),
                      original=fn)


def _moves(fn: Function, top: list[n.Stmt], first: int, staging: set[int]
           ) -> list[tuple[int, str]]:
    """The statements (top-level index, parameter) that move a pointer parameter the
    staging loads through (`src += y * w + x;`, `src -= k;`, `src = src + k;`, statements of
    the body before the first barrier), when nothing but those statements and the staging
    names that parameter and nothing stores through it: each thread's run then follows the
    pointer's offset, and the value function, which has no staging, drops them."""
    params = {p.decl for p in fn.params if p.is_pointer}
    found: list[tuple[int, str]] = []
    for i, s in enumerate(top[:first]):
        e = _strip(s.expr) if isinstance(s, n.ExprStmt) else None
        if isinstance(e, n.Binary) and e.is_assignment and isinstance(
                lhs := _strip(e.lhs), n.Ref) and lhs.decl in params and _offset(e) is not None:
            found.append((i, lhs.decl))
    moved = {m for _, m in found}
    named_elsewhere = {x.decl for j, s in enumerate(top) if j not in staging and
                       all(j != i for i, _ in found) for x in s.walk() if isinstance(x, n.Ref)}
    stored = {root.decl for t in write_targets(fn.body) if (root := written_root(t)) is not None
              and not isinstance(_strip(t), n.Ref)} if fn.body is not None else set()
    moved -= named_elsewhere | stored
    staged_assigns = {_strip(x.lhs).decl for i in staging for x in top[i].walk()  # type: ignore
                      if isinstance(x, n.Binary) and x.is_assignment and
                      isinstance(_strip(x.lhs), n.Ref)}
    moved -= staged_assigns
    return [(i, m) for i, m in found if m in moved]


def _offset(e: n.Binary) -> n.Expr | None:
    """What `p += k`, `p -= k` or `p = p + a - b ...` (p once, added, anywhere in the sum)
    adds to p; None for any other assignment of p."""
    p = _strip(e.lhs)
    assert isinstance(p, n.Ref)
    if e.op in ("+=", "-="):
        if "*" in (e.rhs.type or "") or "[" in (e.rhs.type or ""):
            return None
        return e.rhs if e.op == "+=" else n.Unary("-", e.rhs, type=e.rhs.type, span=e.rhs.span)
    if e.op != "=" or sum(isinstance(x, n.Ref) and x.decl == p.decl for x in e.rhs.walk()) != 1:
        return None
    found = _without(_strip(e.rhs), p.decl)
    return found if isinstance(found, n.Expr) else None


def _without(e: n.Expr, p: str) -> n.Expr | bool | None:
    """The sum `e` less its one term p (True when e is p alone; None when p is not a term
    added to the rest: under a product, subtracted, inside a call)."""
    e = _strip(e)
    if isinstance(e, n.Ref) and e.decl == p:
        return True
    if not (isinstance(e, n.Binary) and e.op in ("+", "-")):
        return None
    has = [any(isinstance(x, n.Ref) and x.decl == p for x in side.walk())
           for side in (e.lhs, e.rhs)]
    if has[0]:
        rest = _without(e.lhs, p)
        if rest is None:
            return None
        if rest is True:
            return e.rhs if e.op == "+" else n.Unary("-", e.rhs, type=e.rhs.type,
                                                     span=e.rhs.span)
        assert isinstance(rest, n.Expr)
        return n.Binary(e.op, rest, e.rhs, type=_sum_type(rest, e.rhs), span=e.span)
    if has[1] and e.op == "+":
        rest = _without(e.rhs, p)
        if rest is None:
            return None
        if rest is True:
            return e.lhs
        assert isinstance(rest, n.Expr)
        return n.Binary("+", e.lhs, rest, type=_sum_type(e.lhs, rest), span=e.span)
    return None


def _unused_locals(top: list[n.Stmt], dropped: list[int], body: n.Compound,
                   once: dict[str, n.Expr]) -> tuple[list[int], n.Compound]:
    """Also dropped: the top-level locals only the tile's reads used (`const int tx =
    threadIdx.x + 1;`), unused once the reads are rewritten."""
    kept = [j for j in range(len(top)) if j not in dropped]
    stmts = list(body.body)
    while True:
        for pos, s in enumerate(stmts):
            if not isinstance(s, n.DeclStmt) or not all(d.decl in once for d in s.decls) or \
                    any(isinstance(x, n.Call) or isinstance(x, n.Binary) and x.is_assignment
                        for x in s.walk()):
                continue
            mine = {d.decl for d in s.decls}
            if not any(isinstance(x, n.Ref) and x.decl in mine for t in stmts if t is not s
                       for x in t.walk()):
                del stmts[pos]
                dropped = sorted([*dropped, kept.pop(pos)])
                break
        else:
            return dropped, dataclasses.replace(body, body=tuple(stmts))


def _assigned_locals(s: n.Stmt) -> set[str]:
    out = set()
    for x in s.walk():
        if isinstance(x, n.Binary) and x.is_assignment and isinstance(_strip(x.lhs), n.Ref):
            out.add(_strip(x.lhs).decl)  # type: ignore[attr-defined]
        elif isinstance(x, n.Unary) and x.op in ("++", "--") and \
                isinstance(_strip(x.operand), n.Ref):
            out.add(_strip(x.operand).decl)  # type: ignore[attr-defined]
        elif isinstance(x, n.VarDecl):
            out.add(x.decl)
    return out


# ---------------------------------------------------------------------------------------
# 1. the staging, run for every thread of the block

def _impure_staging(fn: Function, stmts: list[n.Stmt], written: set[str], name: str
                    ) -> str | None:
    """Why a value the staging stores may not be the same wherever and whenever the block's
    threads compute it, if it may not: every value it assigns (a store's, a local's) is
    checked as written, so each thread's bound value is made of checked parts."""
    for s in stmts:
        for x in s.walk():
            if isinstance(x, n.Binary) and x.is_assignment:
                e = x.rhs
            elif isinstance(x, n.VarDecl) and x.init is not None:
                e = x.init
            elif isinstance(x, n.If):
                e = x.cond  # (a branch the block's position decides is part of the value)
            else:
                continue
            bad = impure_reason(e, fn, written)
            if bad:
                if "which the kernel writes" in bad:
                    bad += (": other blocks may already have stored their new values where "
                            "this block stages its halo, so what the tile holds is a race in "
                            "the original")
                return (f"its tile in shared '{name}' (line {x.span.line}) stores a value that "
                        f"{bad}")
    return None


def _rebuild(e: n.Expr, change) -> n.Expr:
    """`e` with the nodes `change` replaces replaced (replace_nodes for the expression
    kinds a staging's values are made of, without its reflection)."""
    r = change(e)
    if r is not None:
        return r
    if isinstance(e, n.Binary):
        a, b = _rebuild(e.lhs, change), _rebuild(e.rhs, change)
        return e if a is e.lhs and b is e.rhs else dataclasses.replace(e, lhs=a, rhs=b)
    if isinstance(e, n.Unary):
        a = _rebuild(e.operand, change)
        return e if a is e.operand else dataclasses.replace(e, operand=a)
    if isinstance(e, n.Cast):
        a = _rebuild(e.operand, change)
        return e if a is e.operand else dataclasses.replace(e, operand=a)
    if isinstance(e, n.Cond):
        c, a, b = (_rebuild(x, change) for x in (e.cond, e.then, e.else_))
        return e if c is e.cond and a is e.then and b is e.else_ else \
            dataclasses.replace(e, cond=c, then=a, else_=b)
    if isinstance(e, n.Index):
        a, b = _rebuild(e.base, change), _rebuild(e.index, change)
        return e if a is e.base and b is e.index else dataclasses.replace(e, base=a, index=b)
    if isinstance(e, n.Call) and e.callee_expr is None:
        args = tuple(_rebuild(x, change) for x in e.args)
        return e if all(a is b for a, b in zip(args, e.args, strict=True)) else \
            dataclasses.replace(e, args=args)
    if isinstance(e, (n.IntLit, n.FloatLit, n.BoolLit, n.Ref, n.Member, n.StrLit)):
        return e
    out = replace_nodes(e, change)
    assert isinstance(out, n.Expr)
    return out


def _run_block(fn: Function, prefix: list[n.Stmt], shared: dict[str, n.VarDecl],
               sizes: dict[str, int], written: set[str], moved: frozenset[str] = frozenset()
               ) -> dict[str, list[_Write]]:
    out: dict[str, list[_Write]] = {}
    budget = [_MAX_STEPS]
    dims = [d for d in _DIMS if d in sizes]
    for t in itertools.product(*(range(sizes[d]) for d in dims)):
        thread = dict(zip(dims, t, strict=True))
        run = _Thread(fn, shared, sizes, thread, written, budget, moved)
        for s in prefix:
            run.stmt(s)
        for decl, w in run.writes:
            out.setdefault(decl, []).append(w)
    return out


class _Thread:
    """One thread's run of the staging: locals as expressions over blockIdx and the
    parameters, the thread's indices and the block's size known."""

    def __init__(self, fn: Function, shared: dict[str, n.VarDecl], sizes: dict[str, int],
                 thread: dict[str, int], written: set[str], budget: list[int],
                 moved: frozenset[str] = frozenset()):
        self.fn, self.shared, self.sizes, self.thread = fn, shared, sizes, thread
        self.written, self.budget, self.moved = written, budget, moved
        self.env: dict[str, n.Expr | None] = {}
        self.writes: list[tuple[str, _Write]] = []
        # A moved pointer parameter's offset so far (`src += y * w + x;`), bound.
        self.offsets: dict[str, n.Expr] = {}

    def bind(self, e: n.Expr) -> n.Expr:
        def change(x: n.Node) -> n.Node | None:
            if isinstance(x, n.Index) and isinstance(b := _strip(x.base), n.Ref) and \
                    b.decl in self.offsets:  # (p[k] through p moved by d: p[d + k])
                k = self.bind(x.index)
                d = self.offsets[b.decl]
                return dataclasses.replace(x, index=n.Binary("+", d, k, type=_sum_type(d, k),
                                                              span=x.index.span))
            if isinstance(x, n.Ref) and x.decl in self.moved:
                raise _Refused()  # (the moved pointer other than subscripted)
            if isinstance(x, n.Member) and isinstance(x.base, n.Ref) and \
                    x.base.kind == "builtin":
                if x.base.name == "threadIdx":
                    return n.IntLit(self.thread.get(x.field_name, 0), type="int")
                if x.base.name == "blockDim":
                    return n.IntLit(self.sizes.get(x.field_name, 1), type="int")
                if x.base.name == "blockIdx" and x.field_name not in self.sizes:
                    raise _Refused()
                return None if x.base.name == "blockIdx" else _refuse()
            if isinstance(x, n.Ref) and x.kind == "local":
                if x.decl not in self.env or self.env[x.decl] is None:
                    raise _Refused()
                return self.env[x.decl]
            return None

        return _rebuild(e, change)

    def local(self, e: n.Expr, typ: str) -> n.Expr:
        """A local's new value: a constant when the thread's indices make it one (`int tx =
        k % 18;`), so that writers of one statement are one expression once moved."""
        bound = self.bind(_as(e, typ))
        v = _evaluate(bound) if is_integral(typ) else None
        return n.IntLit(v, type=unqualified(typ)) if v is not None else bound

    def value(self, e: n.Expr) -> int | None:
        return _evaluate(self.bind(e))

    def step(self) -> None:
        self.budget[0] -= 1
        if self.budget[0] < 0:
            raise _Refused()

    def stmt(self, s: n.Stmt) -> None:
        self.step()
        if isinstance(s, n.DeclStmt):
            for d in s.decls:
                if d.decl in self.shared:
                    continue
                if d.array_dims:
                    raise _Refused()
                self.env[d.decl] = self.local(d.init, d.var_type) \
                    if d.init is not None else None
        elif isinstance(s, n.ExprStmt):
            self.expr(s.expr)
        elif isinstance(s, n.Compound):
            for t in s.body:
                self.stmt(t)
        elif isinstance(s, n.If):
            c = self.value(s.cond)
            if c is None:
                self.both(s)
                return
            if c:
                self.stmt(s.then)
            elif s.else_ is not None:
                self.stmt(s.else_)
        elif isinstance(s, n.For):
            if s.init is not None:
                self.stmt(s.init)
            while True:
                self.step()
                c = self.value(s.cond) if s.cond is not None else None
                if c is None:
                    raise _Refused(self._where(s) + " is stored in a loop whose end the "
                                   "block's position or a parameter decides")
                if not c:
                    break
                self.stmt(s.body)
                if s.inc is not None:
                    self.expr(s.inc)
        elif isinstance(s, n.OtherStmt) and len(s.items) == 1 and \
                isinstance(s.items[0], n.Stmt):
            self.stmt(s.items[0])  # (a statement with an attribute: `#pragma unroll` for)
        else:
            raise _Refused()  # (while, return, break, asm: not followed)

    def both(self, s: n.If) -> None:
        """A branch the block's position or a parameter decides: each side run apart, and
        kept only when both store the same elements in the same order (`if (gx < w) t[ty][tx]
        = in[...]; else t[ty][tx] = 0.0f;`): each element then holds `c ? then : else`.
        Locals either side assigns are unknown after it."""
        cond = self.bind(s.cond)
        sides = []
        for branch in (s.then, s.else_):
            side = _Thread(self.fn, self.shared, self.sizes, self.thread, self.written,
                           self.budget)
            side.env = dict(self.env)
            if branch is not None:
                side.stmt(branch)
            sides.append(side)
        a, b = sides[0].writes, sides[1].writes
        if len(a) != len(b) or any(x[0] != y[0] or x[1].element != y[1].element
                                   for x, y in zip(a, b, strict=True)):
            raise _Refused(self._where(s) + " is stored under a condition that the block's "
                           "position or a parameter decides, and its two sides do not store "
                           "the same elements, so which elements are stored is not followed")
        for (decl, x), (_, y) in zip(a, b, strict=True):
            value = n.Cond(cond, x.value, y.value, type=x.value.type, span=x.value.span)
            self.writes.append((decl, _Write(x.store, x.element, value)))
        for side in sides:
            for k, v in side.env.items():
                if self.env.get(k) is not v:
                    self.env[k] = None

    def _where(self, s: n.Stmt) -> str:
        name = next(iter(self.shared.values())).name
        return f"its tile in shared '{name}' (line {s.span.line})"

    def expr(self, e: n.Expr) -> None:
        e = _strip(e)
        if isinstance(e, n.Unary) and e.op in ("++", "--"):
            target = _strip(e.operand)
            if not (isinstance(target, n.Ref) and target.kind == "local"):
                raise _Refused()
            one = n.IntLit(1, type="int")
            self.env[target.decl] = self.bind(n.Binary(e.op[0], target, one,
                                                       type=target.type))
            return
        if not (isinstance(e, n.Binary) and e.is_assignment):
            raise _Refused()  # (a call, a barrier in a branch: not a staging)
        root = written_root(e.lhs)
        lhs = _strip(e.lhs)
        if root is not None and root.decl in self.shared:
            self.store(e, self.shared[root.decl])
            return
        if isinstance(lhs, n.Ref) and lhs.decl in self.moved:
            k = _offset(e)
            if k is None:
                raise _Refused()
            k = self.bind(k)
            d = self.offsets.get(lhs.decl)
            self.offsets[lhs.decl] = k if d is None else \
                n.Binary("+", d, k, type=_sum_type(d, k), span=k.span)
            return
        if not (isinstance(lhs, n.Ref) and lhs.kind == "local"):
            raise _Refused()  # (a store to global memory before the barrier)
        rhs = e.rhs if e.op == "=" else n.Binary(e.op[:-1], lhs, e.rhs, type=lhs.type)
        self.env[lhs.decl] = self.local(rhs, lhs.type)

    def store(self, e: n.Binary, arr: n.VarDecl) -> None:
        where = f"its tile in shared '{arr.name}' (line {e.span.line})"
        lhs = _strip(e.lhs)
        if e.op != "=" or not isinstance(lhs, n.Index) or not lhs.type:
            raise _Refused(f"{where} is not a plain store of one value")
        _, subs = _subscripts(lhs)
        element = tuple(self.value(x) for x in subs)
        if any(v is None for v in element):
            raise _Refused(f"{where} is stored at an element that the block's position or "
                           "a parameter decides")
        value = self.bind(e.rhs)
        if unqualified(lhs.type) != unqualified(e.rhs.type):
            value = n.Cast(value, type=unqualified(lhs.type), span=e.rhs.span)
        self.writes.append((arr.decl, _Write(e, element, value)))  # type: ignore[arg-type]


def _sum_type(a: n.Expr, b: n.Expr) -> str:
    """The type of a pointer offset's sum: long long when either part is (a size_t or
    64-bit offset), else int."""
    wide = any("long" in (x.type or "") or "size_t" in (x.type or "") for x in (a, b))
    return "long long" if wide else "int"


def _as(e: n.Expr, typ: str) -> n.Expr:
    """`e` converted to a local's type as its declaration or assignment converts it (`int i
    = blockIdx.x * 64 + threadIdx.x;` is an int, not the unsigned sum)."""
    t = unqualified(typ)
    if not t or unqualified(e.type) == t:
        return e
    return n.Cast(e, type=t, explicit=False, span=e.span)


def _refuse() -> n.Node:
    raise _Refused()


_ARITH = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
          "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b, "&": lambda a, b: a & b,
          "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
          "<": lambda a, b: int(a < b), "<=": lambda a, b: int(a <= b),
          ">": lambda a, b: int(a > b), ">=": lambda a, b: int(a >= b),
          "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b)}


def _evaluate(e: n.Expr) -> int | None:
    """The integer value of an expression of constants (C's truncating / and %), else None."""
    if isinstance(e, n.IntLit):
        return e.value
    if isinstance(e, n.BoolLit):
        return int(e.value)
    if isinstance(e, n.Ref):
        c = e.const_value
        return int(c) if isinstance(c, (int, bool)) else None
    if isinstance(e, n.Cast):
        return _evaluate(e.operand) if is_integral(e.type) or "bool" in e.type else None
    if isinstance(e, n.Unary):
        v = _evaluate(e.operand)
        if v is None:
            return None
        return {"-": -v, "+": v, "!": int(not v), "~": ~v}.get(e.op)
    if isinstance(e, n.Cond):
        c = _evaluate(e.cond)
        return None if c is None else _evaluate(e.then if c else e.else_)
    if isinstance(e, n.Binary):
        a = _evaluate(e.lhs)
        if e.op in ("&&", "||") and a is not None and bool(a) == (e.op == "||"):
            return int(bool(a))
        b = _evaluate(e.rhs)
        if a is None or b is None:
            return None
        if e.op in ("&&", "||"):
            return int(bool(b))
        if e.op in ("/", "%"):
            if b == 0:
                return None
            q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
            return q if e.op == "/" else a - q * b
        f = _ARITH.get(e.op)
        try:
            return f(a, b) if f else None
        except (ValueError, OverflowError):  # (a negative shift: left to the compiler)
            return None
    return None


# ---------------------------------------------------------------------------------------
# 2. each read: its writers, and one expression every one of them equals for its reader

class _Prepared:
    """An expression to simplify for many readers: the comparisons it may decide, each
    linear in the reader's lower bounds, so that readers deciding them alike share one
    simplified key."""

    def __init__(self, e: n.Expr, high: dict[str, Poly], coords: frozenset[str]):
        self.e, self.high, self.coords = e, high, coords
        self.atoms = [_linear(p, high, coords) for p in dict.fromkeys(_comparisons(e))]
        self.cache: dict[tuple, object] = {}

    def key(self, low: dict[str, int]) -> object:
        vec = tuple(a.decide(low) for a in self.atoms)
        got = self.cache.get(vec)
        if got is None:
            got = self.cache[vec] = _key(_simplify(self.e, _Facts(low, self.high,
                                                                        self.coords)))
        return got


@dataclasses.dataclass(frozen=True)
class _Facts:
    """What a reader knows of its coordinates: x_d >= low_d (its thread's index in the
    block) and, from its guard, x_d <= high_d."""

    low: dict[str, int]  # coordinate decl -> lower bound
    high: dict[str, Poly]  # coordinate decl -> upper bound
    coords: frozenset[str]  # the coordinates' decls


@dataclasses.dataclass(frozen=True)
class _Linear:
    """P >= 0 with P's lower bound lo + sum(c * low_x) and upper bound hi + sum(c *
    low_x) over the reader's lower bounds (None: not a constant)."""

    lo: int | None
    lo_coef: tuple[tuple[str, int], ...]
    hi: int | None
    hi_coef: tuple[tuple[str, int], ...]
    # lo (hi) written high_d + c (-high_d + c): a bound over the parameters that the
    # reader's own coordinate bounds (low_d <= x_d <= high_d)
    lo_via: tuple[tuple[str, int], ...] = ()
    hi_via: tuple[tuple[str, int], ...] = ()

    def decide(self, low: dict[str, int]) -> bool | None:
        base = sum(c * low.get(x, 0) for x, c in self.lo_coef)
        if self.lo is not None and self.lo + base >= 0 or any(
                low.get(d, 0) + c + base >= 0 for d, c in self.lo_via):
            return True
        base = sum(c * low.get(x, 0) for x, c in self.hi_coef)
        if self.hi is not None and self.hi + base < 0 or any(
                c - low.get(d, 0) + base < 0 for d, c in self.hi_via):
            return False
        return None


_LINEAR: dict[tuple, _Linear] = {}


def _linear(p: Poly, high: dict[str, Poly], coords: frozenset[str]) -> _Linear:
    memo = (p, tuple(sorted(high.items(), key=lambda kv: kv[0])), coords)
    got = _LINEAR.get(memo)
    if got is not None:
        return got
    lo, hi = Poly(), Poly()
    lo_ok = hi_ok = True
    lo_coef, hi_coef = [], []
    for m, c in p.terms:
        if len(m) == 1 and m[0].kind == "var" and m[0].name in coords:
            x = m[0].name
            up = high.get(x)
            if c > 0:
                lo_coef.append((x, c))
                if up is None:
                    hi_ok = False
                else:
                    hi = hi + up.scale(c)
            else:
                hi_coef.append((x, c))
                if up is None:
                    lo_ok = False
                else:
                    lo = lo + up.scale(c)
        else:
            term = Poly(((m, c),))
            lo, hi = lo + term, hi + term
    lo_via = tuple((d, (lo - h).const_value) for d, h in high.items()
                   if lo_ok and not lo.is_const and (lo - h).is_const)
    hi_via = tuple((d, (hi + h).const_value) for d, h in high.items()
                   if hi_ok and not hi.is_const and (hi + h).is_const)
    got = _Linear(lo.const_value if lo_ok else None, tuple(lo_coef),
                  hi.const_value if hi_ok else None, tuple(hi_coef),
                  lo_via, hi_via)  # type: ignore[arg-type]
    if len(_LINEAR) > 100_000:
        _LINEAR.clear()
    _LINEAR[memo] = got
    return got


def _comparisons(e: n.Expr) -> list[Poly]:
    """Every P >= 0 that _simplify may decide in `e`: its integer comparisons, and for
    min/max each pair of forms its arguments may simplify to."""
    out: list[Poly] = []
    for x in e.walk():
        if isinstance(x, n.Binary) and all(is_integral(y.type or "int") and not is_unsigned(
                y.type or "int") for y in (x.lhs, x.rhs)):
            p = _at_least_zero(x)
            if p is not None:
                out.append(p)
        elif isinstance(x, n.Call) and x.callee.rsplit("::", 1)[-1] in ("min", "max") and \
                len(x.args) == 2:
            for a in _forms(x.args[0]):
                for b in _forms(x.args[1]):
                    out += [b - a, a - b]
    return out


def _forms(e: n.Expr) -> list[Poly]:
    p = _poly(e)
    if p is not None:
        return [p]
    if isinstance(e, n.Call) and e.callee.rsplit("::", 1)[-1] in ("min", "max") and \
            len(e.args) == 2:
        return _forms(e.args[0]) + _forms(e.args[1])
    return []


def _read_value(body: n.Compound, r: n.Index, arr: n.VarDecl, extents: list[int | None],
                by_elem: dict[tuple[int, ...], list[_Write]], coords, sizes: dict[str, int],
                once: dict[str, n.Expr]) -> n.Expr:
    where = f"its read of shared '{arr.name}' (line {r.span.line})"
    _, subs = _subscripts(r)
    dims: list[str] = []
    offsets: list[Poly] = []
    if len(subs) == 1 and (rows := _rows(subs[0], once, sizes)) is not None:
        # A tile laid out in rows of W in a 1-D array (`extern __shared__ float s[]`,
        # s[ty * W + tx + c]): read as the [.][W] array it is, each element's writers too.
        width, offsets = rows
        dims = ["y", "x"]
        by_elem = {(e[0] // width, e[0] % width): [dataclasses.replace(
            w, element=(e[0] // width, e[0] % width)) for w in ws] for e, ws in by_elem.items()}
        extents = [extents[0] // width if extents[0] is not None else None, width]
        subs = []
    for sub in subs:
        p = _poly(_inline(sub, once))
        if p is None:
            raise _Refused(f"{where} is at an element that is not a sum of products")
        d = next((d for d in sizes if any(m == (builtin("threadIdx", d),) and c == 1
                                          for m, c in p.terms)), None)
        if d is None or d in dims:
            raise _Refused(f"{where} is not at the thread's index plus an offset in each "
                           "dimension of the tile")
        dims.append(d)
        offsets.append(p - Poly.atom(builtin("threadIdx", d)))
    loops = {}
    path = node_path(body, r)
    for s in path:
        if isinstance(s, n.For):
            lp = _counting_loop(s)
            if lp is None:
                continue
            lo, hi = _poly(_inline(lp.low, once)), _poly(_inline(lp.high, once))
            if lo is not None and hi is not None and lo.is_const and hi.is_const:
                loops[lp.var] = (lo.const_value, hi.const_value, s)
    free = {a for o in offsets for m, _ in o.terms for a in m}
    for a in free:
        if a.kind != "var" or a.name not in loops:
            raise _Refused(f"{where} is at an element that depends on '{a.name.split('@')[0]}', "
                           "which is neither a loop with constant bounds nor the thread's "
                           "index")
    used = sorted(a.name for a in free)
    ranges = [range(loops[v][0], loops[v][1] + 1) for v in used]
    threads = list(itertools.product(*(range(sizes[d]) for d in _DIMS if d in sizes)))
    if len(threads) * math.prod(len(x) for x in ranges) > _MAX_POINTS * 64:  # (4 K loop values)
        raise _Refused(f"{where} is in loops too long to check element by element")
    refs = _loop_refs(path, used)
    xs = {d: coords[d].ref for d in dims}
    high = _guard_highs(body, r, {c.ref.decl for c in coords.values()})
    order = [d for d in _DIMS if d in sizes]
    lows = {d: coords[d].ref.decl for d in order}
    every = frozenset(c.ref.decl for c in coords.values())
    # Every writer's value moved to the read's position, p_k = x_d + c_k(v) (blockIdx.d *
    # K_d is p_k - e_k(w)); writers of one statement are then one expression (their own
    # indices cancel), so each element's writers are a few groups.
    groups: dict[object, int] = {}
    exprs: list[n.Expr] = []
    elem_groups: dict[tuple[int, ...], set[int]] = {}
    here = {d: Poly.atom(Atom("var", xs[d].decl)) + o for d, o in zip(dims, offsets,
                                                                       strict=True)}
    for element, ws in by_elem.items():
        for w in ws:
            k = _key(w.value, _shifter({d: here[d] - Poly.const(e) for d, e in zip(
                dims, w.element, strict=True)}, sizes))
            if k not in groups:
                groups[k] = len(exprs)
                exprs.append(_moved(w.value, w.element, dims, offsets, xs, sizes, refs))
            elem_groups.setdefault(element, set()).add(groups[k])
    cands = exprs + _all_tests(exprs) + _merged(exprs)
    prepared: dict[tuple[int, tuple[int, ...]], _Prepared] = {}
    alive = [True] * len(cands)
    for t in threads:
        low = {lows[d]: v for d, v in zip(order, t, strict=True)}
        thread = dict(zip(order, t, strict=True))
        for v in itertools.product(*ranges):
            at = dict(zip(used, v, strict=True))
            shift = [_at(o, at) for o in offsets]
            element = tuple(thread[d] + s for d, s in zip(dims, shift, strict=True))
            if any(e < 0 or (x is not None and e >= x) for e, x in zip(element, extents,
                                                                   strict=True)):
                raise _Refused(f"{where} may be outside its array (element {list(element)} "
                               f"by thread {t}): the original reads past it")
            gs = elem_groups.get(element)
            if not gs:
                raise _Refused(f"{where} may be of an element no thread of its block stored "
                               f"(element {list(element)}, read by thread {t}): the "
                               "original reads what no thread stored")

            def key(i: int, v=v, at=at, low=low) -> object:
                prep = prepared.get((i, v))
                if prep is None:
                    prep = prepared[(i, v)] = _Prepared(_instance(cands[i], at), high, every)
                return prep.key(low)

            got = {key(g) for g in gs}
            if len(got) != 1:
                raise _Refused(f"{where}: the threads that store element {list(element)} "
                               "store different values there (a race in the original)")
            for i in range(len(cands)):
                if alive[i]:
                    alive[i] = key(i) in got
    chosen = next((c for c, ok in zip(cands, alive, strict=True) if ok), None)
    if chosen is None:
        raise _Refused(f"{where}: its element's writers store values that differ at the "
                       "image's edge, and no one expression over the coordinates is each "
                       "reader's")
    return chosen


def _rows(sub: n.Expr, once: dict[str, n.Expr], sizes: dict[str, int]
          ) -> tuple[int, list[Poly]] | None:
    """(W, [row offset, column offset]) for a flat subscript `threadIdx.y * W + threadIdx.x
    + c` of a 2-D block (W a constant, c over constants and loop variables): each term of c
    whose coefficient W divides goes to the row, the rest to the column (the column, tx
    plus its offset, must then lie in [0, W) for every thread and loop value: _read_value's
    extent check refuses it otherwise, so the row and column are exact)."""
    p = _poly(_inline(sub, once))
    ty, tx = builtin("threadIdx", "y"), builtin("threadIdx", "x")
    if p is None or set(sizes) != {"x", "y"}:
        return None
    width = next((c for m, c in p.terms if m == (ty,)), None)
    if width is None or width <= 1 or not any(m == (tx,) and c == 1 for m, c in p.terms):
        return None
    rest = p - Poly.atom(ty).scale(width) - Poly.atom(tx)
    if any(a in (ty, tx) for m, _ in rest.terms for a in m):
        return None
    row = Poly(tuple((m, c // width) for m, c in rest.terms if c % width == 0))
    return width, [row, rest - row.scale(width)]


def _at(p: Poly, at: dict[str, int]) -> int:
    total = 0
    for m, c in p.terms:
        term = c
        for a in m:
            term *= at[a.name]
        total += term
    return total


def _loop_refs(path: list[n.Node], used: list[str]) -> dict[str, n.Ref]:
    out = {}
    for s in path:
        if isinstance(s, n.For) and isinstance(s.init, n.DeclStmt):
            d = s.init.decls[0]
            if d.decl in used:
                out[d.decl] = n.Ref(d.name, kind="local", decl=d.decl, type=d.var_type)
    return out


def _guard_highs(body: n.Compound, r: n.Index, coords: set[str]) -> dict[str, Poly]:
    """Upper bounds on the coordinates from the conditions of the ifs the read is in (their
    then branches), and from early returns before it in the blocks around it (`if (x >= w
    || y >= h) return;`: past it, x < w and y < h): `x < w` is x <= w - 1."""
    out: dict[str, Poly] = {}
    path = node_path(body, r)
    held: list[Poly] = []
    changed = {r.decl for t in write_targets(body) if (r := written_root(t)) is not None}
    for a, b in zip(path, path[1:], strict=False):
        if isinstance(a, n.If) and b is a.then:
            held += [p for c in _operands(a.cond, "&&")
                     if (p := _at_least_zero(c)) is not None]
        elif isinstance(a, n.Compound):
            for s in a.body:
                if s is b:
                    break
                held += _past_return(s, changed)
    for p in held:
        for decl in coords:
            x = Atom("var", decl)
            rest = p + Poly.atom(x)
            if p.terms and ((x,), -1) in p.terms and not any(
                    a.kind == "var" and a.name in coords for m, _ in rest.terms
                    for a in m):
                out[decl] = rest
    return out


def _past_return(s: n.Stmt, changed: set[str]) -> list[Poly]:
    """P >= 0 for each comparison whose negation an early return `if (a || b) return;`
    (no else) leaves behind it: a thread past the statement has every disjunct false (those
    of variables the kernel never assigns, so still false at the read)."""
    if not (isinstance(s, n.If) and s.else_ is None):
        return []
    then = s.then
    if isinstance(then, n.Compound) and len(then.body) == 1:
        then = then.body[0]
    if not (isinstance(then, n.Return) and then.value is None):
        return []
    out: list[Poly] = []
    for c in _operands(s.cond, "||"):
        p = _at_least_zero(c)
        if p is not None and not any(isinstance(x, n.Ref) and x.decl in changed
                                     for x in c.walk()):
            out.append(-p - Poly.const(1))
    return out


def _operands(cond: n.Expr, op: str) -> list[n.Expr]:
    """The operands of a chain of `op` (&& or ||), casts stripped, last first."""
    out: list[n.Expr] = []
    stack = [cond]
    while stack:
        c = _strip(stack.pop())
        if isinstance(c, n.Binary) and c.op == op:
            stack += [c.lhs, c.rhs]
        else:
            out.append(c)
    return out


def _at_least_zero(c: n.Expr, memo: dict | None = None) -> Poly | None:
    """P with `c` equivalent to P >= 0 (integers), for a comparison of polynomials."""
    if not (isinstance(c, n.Binary) and c.op in ("<", "<=", ">", ">=")):
        return None
    memo = {} if memo is None else memo
    a, b = _pm(c.lhs, memo), _pm(c.rhs, memo)
    if a is None or b is None:
        return None
    one = Poly.const(1)
    return {"<": b - a - one, "<=": b - a, ">": a - b - one, ">=": a - b}[c.op]


def _moved(value: n.Expr, element: tuple[int, ...], dims: list[str], shift: list,
           xs: dict[str, n.Ref], sizes: dict[str, int], refs: dict[str, n.Ref]) -> n.Expr:
    """A writer's value at the read's position: blockIdx.d * K_d is x_d + c_k - e_k, with
    c_k a constant (an int) or a polynomial over the read's loop variables."""
    repl: dict[str, Poly] = {}
    for k, d in enumerate(dims):
        c = shift[k] if isinstance(shift[k], Poly) else Poly.const(shift[k])
        repl[d] = Poly.atom(Atom("var", xs[d].decl)) + c - Poly.const(element[k])
    names = {x.decl: x for x in xs.values()} | refs
    block = _with_block_index(value)

    def change(x: n.Node) -> n.Node | None:
        if id(x) not in block:
            return x if isinstance(x, n.Expr) else None
        if not is_integral(x.type or "int"):
            return None
        p = _poly(x)
        if p is None:
            return None  # (look inside: a clamp, a load, a condition)
        if is_unsigned(x.type or "int"):
            raise _Refused()  # (unsigned arithmetic wraps where the polynomial does not)
        out = Poly()
        for m, c in p.terms:
            bs = [a for a in m if a.kind == "builtin" and a.name.startswith("blockIdx")]
            if not bs:
                out = out + Poly(((m, c),))
                continue
            (b,) = bs if len(bs) == 1 else (None,)
            d = b.name.split(".")[-1] if b is not None else None
            if b is None or d not in repl or c % sizes[d]:
                raise _Refused()
            rest = Poly(((tuple(a for a in m if a is not b), c // sizes[d]),))
            out = out + rest * repl[d]
        for m, _ in out.terms:
            for a in m:
                if a.kind == "var" and a.name not in names:
                    names[a.name] = _ref_of(value, a.name)
        return _expr(out, names, x.type or "int")

    moved = replace_nodes(value, change)
    assert isinstance(moved, n.Expr)
    if any(isinstance(y, n.Member) and isinstance(y.base, n.Ref) and y.base.name == "blockIdx"
           for y in moved.walk()):
        raise _Refused()
    return moved


def _with_block_index(e: n.Node) -> set[int]:
    """The ids of the nodes of `e` that have blockIdx in them (one walk, bottom up)."""
    out: set[int] = set()

    def visit(x: n.Node) -> bool:
        has = isinstance(x, n.Member) and isinstance(x.base, n.Ref) and \
            x.base.name == "blockIdx"
        for c in x.children():
            if c is not None and visit(c):
                has = True
        if has:
            out.add(id(x))
        return has

    visit(e)
    return out


def _ref_of(e: n.Expr, decl: str) -> n.Ref:
    for x in e.walk():
        if isinstance(x, n.Ref) and (x.decl or x.name) == decl:
            return x
    raise _Refused()


def _expr(p: Poly, refs: dict[str, n.Ref], typ: str) -> n.Expr:
    out: n.Expr | None = None
    for m, c in sorted(p.terms, key=lambda mc: (len(mc[0]), str(mc[0]))):
        term: n.Expr | None = None
        for a in m:
            if a.kind != "var" or a.name not in refs:
                raise _Refused()
            ref = dataclasses.replace(refs[a.name])
            term = ref if term is None else n.Binary("*", term, ref, type=typ)
        if term is None:
            term = n.IntLit(abs(c), type="int")
        elif abs(c) != 1:
            term = n.Binary("*", n.IntLit(abs(c), type="int"), term, type=typ)
        if out is None:
            out = term if c > 0 else n.Unary("-", term, type=typ)
        else:
            out = n.Binary("+" if c > 0 else "-", out, term, type=typ)
    return out if out is not None else n.IntLit(0, type="int")


def _all_tests(exprs: list[n.Expr]) -> list[n.Expr]:
    """When every writer pads with zeros by its own test (`c_w ? in[p] : 0`, the same load
    and the same zero), the value under all the tests together: each writer's value for
    every reader whose own tests are settled (a centre load bounded above, a left halo
    below)."""
    conds = [_strip(c) for c in exprs]
    if len(conds) < 2 or not all(isinstance(c, n.Cond) for c in conds):
        return []
    then, else_ = _key(conds[0].then), _key(conds[0].else_)  # type: ignore[attr-defined]
    if not all(_key(c.then) == then and _key(c.else_) == else_  # type: ignore[attr-defined]
               for c in conds):
        return []
    test = conds[0].cond  # type: ignore[attr-defined]
    for c in conds[1:]:
        test = n.Binary("&&", test, c.cond, type="bool")  # type: ignore[attr-defined]
    return [dataclasses.replace(conds[0], cond=test)]


def _merged(exprs: list[n.Expr]) -> list[n.Expr]:
    """When the writers' values differ only in their clamps (a centre load clamped above,
    a left halo's below: `in[min(p, w - 1)]`, `in[max(p, 0)]`), the value under both
    clamps, `in[min(max(p, 0), w - 1)]`: each writer's for every reader whose other clamp
    does nothing."""
    if len(exprs) < 2:
        return []
    out: n.Expr | None = exprs[0]
    for e in exprs[1:]:
        out = _merge(out, e)
        if out is None:
            return []
    return [out]


def _clamp(e: n.Expr) -> str | None:
    e = _strip(e)
    if isinstance(e, n.Call) and len(e.args) == 2 and e.callee_expr is None:
        name = e.callee.rsplit("::", 1)[-1]
        return name if name in ("min", "max") else None
    return None


def _merge(a: n.Expr, b: n.Expr) -> n.Expr | None:
    if _key(a) == _key(b):
        return a
    for x, y in ((a, b), (b, a)):
        cx, cy = _clamp(x), _clamp(y)
        xs = _strip(x)
        if cx and _key(xs.args[0]) == _key(y):  # type: ignore[attr-defined]
            return x  # (the other is the clamped value unclamped)
        if cx == "min" and cy == "max":
            ys = _strip(y)
            if _key(xs.args[0]) == _key(ys.args[0]):  # type: ignore[attr-defined]
                inner = dataclasses.replace(ys, args=(xs.args[0], ys.args[1]))  # type: ignore
                return dataclasses.replace(xs, args=(inner, xs.args[1]))  # type: ignore
    if type(a) is not type(b):
        return None
    if isinstance(a, n.Binary) and isinstance(b, n.Binary) and a.op == b.op:
        lhs, rhs = _merge(a.lhs, b.lhs), _merge(a.rhs, b.rhs)
        return None if lhs is None or rhs is None else dataclasses.replace(a, lhs=lhs, rhs=rhs)
    if isinstance(a, n.Index) and isinstance(b, n.Index) and _key(a.base) == _key(b.base):
        ix = _merge(a.index, b.index)
        return None if ix is None else dataclasses.replace(a, index=ix)
    if isinstance(a, n.Cast) and isinstance(b, n.Cast) and a.type == b.type:
        op = _merge(a.operand, b.operand)
        return None if op is None else dataclasses.replace(a, operand=op)
    if isinstance(a, n.Cond) and isinstance(b, n.Cond):
        parts = [_merge(x, y) for x, y in ((a.cond, b.cond), (a.then, b.then),
                                          (a.else_, b.else_))]
        if any(x is None for x in parts):
            return None
        return dataclasses.replace(a, cond=parts[0], then=parts[1], else_=parts[2])
    if isinstance(a, n.Call) and isinstance(b, n.Call) and a.callee == b.callee and \
            len(a.args) == len(b.args) and a.callee_expr is None and b.callee_expr is None:
        args = [_merge(x, y) for x, y in zip(a.args, b.args, strict=True)]
        return None if any(x is None for x in args) else dataclasses.replace(
            a, args=tuple(args))  # type: ignore[arg-type]
    return None


def _instance(e: n.Expr, at: dict[str, int]) -> n.Expr:
    if not at:
        return e
    out = replace_nodes(e, lambda x: n.IntLit(at[x.decl], type="int") if isinstance(
        x, n.Ref) and x.decl in at else None)
    assert isinstance(out, n.Expr)
    return out


# ---------------------------------------------------------------------------------------
# what a reader knows: comparisons and clamps decided, then a canonical key

def _decide(p: Poly, facts: _Facts) -> bool | None:
    """Whether p >= 0 holds (True), fails (False) for every reader with these facts."""
    return _linear(p, facts.high, facts.coords).decide(facts.low)


def _simplify(e: n.Expr, facts: _Facts) -> n.Expr:
    if isinstance(e, n.Binary):
        if e.op in ("&&", "||"):
            a, b = _simplify(e.lhs, facts), _simplify(e.rhs, facts)
            stop = e.op == "||"
            for x, y in ((a, b), (b, a)):
                if isinstance(x, n.BoolLit):
                    return x if x.value == stop else y
            return dataclasses.replace(e, lhs=a, rhs=b)
        p = _at_least_zero(e) if all(is_integral(x.type or "int") and not is_unsigned(
            x.type or "int") for x in (e.lhs, e.rhs)) else None
        if p is not None:
            got = _decide(p, facts)
            if got is not None:
                return n.BoolLit(got, type="bool")
        return dataclasses.replace(e, lhs=_simplify(e.lhs, facts), rhs=_simplify(e.rhs, facts))
    if isinstance(e, n.Cond):
        c = _simplify(e.cond, facts)
        if isinstance(c, n.BoolLit):
            return _simplify(e.then if c.value else e.else_, facts)
        return dataclasses.replace(e, cond=c, then=_simplify(e.then, facts),
                                   else_=_simplify(e.else_, facts))
    if isinstance(e, n.Unary):
        a = _simplify(e.operand, facts)
        if e.op == "!" and isinstance(a, n.BoolLit):
            return n.BoolLit(not a.value, type="bool")
        return dataclasses.replace(e, operand=a)
    if isinstance(e, n.Call):
        args = tuple(_simplify(a, facts) for a in e.args)
        name = e.callee.rsplit("::", 1)[-1]
        if name in ("min", "max") and len(args) == 2:
            # (each argument is one of its forms: a <= b when every form of a is at most
            # every form of b)
            fa, fb = _forms(args[0]), _forms(args[1])
            if fa and fb:
                if all(_decide(b - a, facts) for a in fa for b in fb):  # a <= b
                    return args[0] if name == "min" else args[1]
                if all(_decide(a - b, facts) for a in fa for b in fb):  # a >= b
                    return args[1] if name == "min" else args[0]
        return dataclasses.replace(e, args=args)
    if isinstance(e, n.Index):
        return dataclasses.replace(e, base=_simplify(e.base, facts),
                                   index=_simplify(e.index, facts))
    if isinstance(e, n.Cast):
        return dataclasses.replace(e, operand=_simplify(e.operand, facts))
    return e


def _pm(e: n.Expr, memo: dict) -> Poly | None:
    """staged_copy._poly with each node's polynomial kept in `memo` (by id): a key walks
    every node of a deep value, each asking for its polynomial."""
    k = id(e)
    if k in memo:
        return memo[k][1]
    if isinstance(e, n.Binary) and e.op in ("+", "-", "*"):
        a, b = _pm(e.lhs, memo), _pm(e.rhs, memo)
        p = None if a is None or b is None else a * b if e.op == "*" else \
            a + b if e.op == "+" else a - b
    elif isinstance(e, n.Unary) and e.op in ("-", "+"):
        a = _pm(e.operand, memo)
        p = None if a is None else -a if e.op == "-" else a
    elif isinstance(e, n.Cast) and n.int_constant(e) is None:
        p = None if "float" in e.type or "double" in e.type else _pm(e.operand, memo)
    else:
        p = _poly(e)
    memo[k] = (e, p)  # (the node kept: its id stays its own)
    return p


def _has_block(p: Poly) -> bool:
    return any(a.kind == "builtin" and a.name.startswith("blockIdx") for m, _ in p.terms
               for a in m)


def _shifter(repl: dict[str, Poly], sizes: dict[str, int]):
    """p with each blockIdx.d * K_d written repl[d] (what _moved does to the expression)."""
    def sub(p: Poly) -> Poly:
        out = Poly()
        for m, c in p.terms:
            bs = [a for a in m if a.kind == "builtin" and a.name.startswith("blockIdx")]
            if not bs:
                out = out + Poly(((m, c),))
                continue
            d = bs[0].name.split(".")[-1]
            if len(bs) != 1 or d not in repl or c % sizes[d]:
                raise _Refused()
            out = out + Poly(((tuple(a for a in m if a is not bs[0]), c // sizes[d]),)) * \
                repl[d]
        return out
    return sub


def _key(e: n.Expr, sub=None, memo: dict | None = None) -> object:
    """A key equal for expressions that compute the same value the same way: integer
    arithmetic as polynomials, comparisons as P >= 0, the rest by structure. `sub`, when
    given, rewrites each polynomial first (a writer's value moved: _shifter): the key of
    the moved expression without building it."""
    if memo is None:
        memo = {}
    e2 = e.operand if isinstance(e, n.Cast) and not e.explicit else e
    if is_integral(e2.type or "") and not isinstance(e2, n.BoolLit):
        p = _pm(e2, memo)
        if p is not None:
            if sub is not None and is_unsigned(e.type) and _has_block(p):
                raise _Refused()  # (as _moved: unsigned arithmetic wraps)
            return ("P", sub(p) if sub else p)
    if isinstance(e2, n.Binary):
        if is_integral(e2.lhs.type or "int") and is_integral(e2.rhs.type or "int"):
            p = _at_least_zero(e2, memo)
            if p is not None:
                return ("GE", sub(p) if sub else p)
        return ("B", e2.op, _key(e2.lhs, sub, memo), _key(e2.rhs, sub, memo))
    if isinstance(e2, n.Ref):
        return ("R", e2.decl or e2.name)
    if isinstance(e2, n.Cond):
        return ("?", _key(e2.cond, sub, memo), _key(e2.then, sub, memo),
                _key(e2.else_, sub, memo))
    if isinstance(e2, n.Unary):
        return ("U", e2.op, _key(e2.operand, sub, memo))
    if isinstance(e2, n.Call):
        return ("C", e2.callee, tuple(_key(a, sub, memo) for a in e2.args))
    if isinstance(e2, n.Index):
        return ("I", _key(e2.base, sub, memo), _key(e2.index, sub, memo))
    if isinstance(e2, n.Cast):
        return ("T", unqualified(e2.type), _key(e2.operand, sub, memo))
    if sub is not None and isinstance(e2, n.Member):
        raise _Refused()  # (blockIdx outside any polynomial)
    return e2  # (literals: IR equality ignores spans)

