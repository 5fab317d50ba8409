"""Symbolic execution of a kernel body: every memory access with its index and path condition.

`Evaluator.run(fn)` walks the body once (loops with small constant bounds are unrolled, one
walk per iteration) with an environment that maps each single-assignment local to the value of
its initialiser, so `int idx = y * w + x; in[idx + 1]` is seen as `in[Y*w + X + 1]`. Calls to
`__device__` functions defined in the file are inlined: arguments are bound to parameters,
accesses inside are recorded against the caller's pointers, and a helper's return value
(straight-line code, `if (c) return a;` chains) becomes a conditional value. Anything the
evaluator cannot follow becomes an opaque atom whose kind says why.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

from cudafuse.analysis.mathfuncs import MATH
from cudafuse.analysis.symbolic import (
    ONE,
    TRUE,
    ZERO,
    Atom,
    Poly,
    Pred,
    block_size_assumptions,
    builtin,
    compare,
    conj,
    coord,
    coord_dims,
    to_coords,
)
from cudafuse.analysis.unit_index import unit_index
from cudafuse.ir import nodes as n
from cudafuse.ir.lvalue import write_targets
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.ir.source import Span
from cudafuse.ir.types import is_unsigned

MAX_TRIP = 256  # iterations of one loop enumerated symbolically
MAX_UNROLL = 1024  # product of the trip counts of enclosing enumerated loops
MAX_INLINE_DEPTH = 8
# Atoms in a value a followed local may hold: a hash's rounds (`a = a + b; d = rotr(d ^ a)`,
# dozens of times) would otherwise grow it exponentially as a tree (printed keys, sorting).
MAX_FOLLOWED = 256
_MINMAX = {"min": "min", "max": "max", "umin": "min", "umax": "max", "imin": "min",
           "imax": "max", "llmin": "min", "llmax": "max", "ullmin": "min", "ullmax": "max"}
_LOADS = {"__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv"}
_COMPARE = {"<", "<=", ">", ">=", "==", "!="}
# Compound assignments whose new value `arith` computes (others leave the variable unknown).
_STRONG_OPS = ("=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=")
_FRESH_KINDS = {"var", "load", "call", "loopvar", "bigloop", "ptrvar"}
MEMBER_NOTE = "stores through a member of its element (p[i].x = v), not whole elements"


def partial_store(note: str) -> bool:
    """Whether an access's note says it stores part of an element, or an element handed to
    a reference whose stores are not followed (see `Evaluator.write` and `Evaluator.bind`)."""
    return note == MEMBER_NOTE or note.startswith("element ")


def mutable_reference(t: str) -> bool:
    """Whether a (parameter or variable) type is a reference through which the referenced
    object may be written: `px &`, `float &&`, `float *&`; not `const px &`."""
    if "&" not in t:
        return False
    head = t[:t.index("&")]
    return "*" in head or not re.search(r"\bconst\b", head)


def _strip_casts(e: n.Expr) -> n.Expr:
    while isinstance(e, n.Cast):
        e = e.operand
    return e


@dataclass(frozen=True)
class PtrVal:
    """A pointer: `base` (decl id) of kind param, shared, local, global; plus an element offset.

    `note` says why accesses through it cannot be followed (reinterpret cast, mutated pointer).
    """

    base: str
    name: str
    kind: str
    offset: Poly = ZERO
    note: str = ""


Value = Poly | PtrVal


@dataclass(frozen=True)
class Access:
    """One load/store/atomic (or escape to an unknown call) through a pointer."""

    base: str
    name: str
    base_kind: str
    mode: str  # load, store, atomic, escape
    index: Poly
    path: tuple[Pred, ...]
    span: Span
    note: str = ""


@dataclass
class _Frame:
    env: dict[str, Value]
    mutable: set[str]
    # Written locals whose value is followed through their assignments (strong updates):
    # scalars whose address is never taken nor bound to a reference, in a function without
    # statements the evaluator does not model (switch, goto). See Evaluator.settable.
    settable: frozenset[str] = frozenset()
    returns: list[tuple[tuple[Pred, ...], Value]] = field(default_factory=list)
    local_path: int = 0  # index into the path where this frame's own conditions start
    # Pointer variables whose values reach no memory operation (see inert_pointers).
    inert: frozenset[str] = frozenset()


def opaque(kind: str, name: str, *args: Poly) -> Poly:
    return Poly.atom(Atom(kind, name, tuple(args)))


def assigned_decls(body: n.Node) -> set[str]:
    """Locals written after their declaration or whose address is taken."""
    return {t.decl for t in write_targets(body)
            if isinstance(t, n.Ref) and t.kind in ("local", "param")}


def _larger_than(value: Poly, limit: int) -> bool:
    """Whether `value`'s expression tree holds more than `limit` atoms (walked no further)."""
    return next(itertools.islice(value.atoms(), limit, None), None) is not None


def settable_decls(body: n.Node, by_decl: dict[str, Function]) -> frozenset[str]:
    """The locals and parameters of `body` whose assignments the evaluator follows in order
    (`sx = x + dx; sx = sx < 0 ? 0 : sx;`): scalars assigned as a whole, never through an
    address (`&v`), a reference (`int &r = v`, an argument for a helper's `int &`
    parameter) or a call it cannot see, in a body whose control flow it models (no switch,
    goto or label: an `OtherStmt`). Empty when any of that fails: every written local is then
    an unknown from its first write, as before."""
    refs: set[str] = set()
    pinned: set[str] = set()
    # (each class of node read from the body's grouping: the answer is a set, in no order)
    if body.nodes_of((n.OtherStmt, n.OtherExpr)):
        return frozenset()
    for b in body.nodes_of(n.Binary):
        lhs = b.lhs
        if b.is_assignment and isinstance(lhs, n.Ref):
            t = lhs.type
            if lhs.kind in ("local", "param") and not any(c in t for c in "*&[") and \
                    b.op in _STRONG_OPS:
                refs.add(lhs.decl)
            else:
                pinned.add(lhs.decl)
    for u in body.nodes_of(n.Unary):
        if u.op in ("++", "--") and isinstance(u.operand, n.Ref):
            refs.add(u.operand.decl)
        elif u.op == "&":
            pinned |= {r.decl for r in u.operand.walk() if isinstance(r, n.Ref)}
    for v in body.nodes_of(n.VarDecl):
        if "&" in v.var_type and v.init is not None:
            pinned |= {r.decl for r in v.init.walk() if isinstance(r, n.Ref)}
    for call in body.nodes_of(n.Call):
        callee = by_decl.get(call.callee_decl) if call.callee_decl else None
        for k, a in enumerate(call.args):
            if not isinstance(_strip_casts(a), n.Ref):
                continue
            param = callee.params[k] if callee is not None and k < len(callee.params) \
                else None
            if param is None and not _declared_by_cuda(call) or \
                    param is not None and (param.is_reference or "&" in param.type):
                pinned.add(_strip_casts(a).decl)  # type: ignore[union-attr]
    return frozenset(refs - pinned)


def inert_pointers(fn: Function) -> frozenset[str]:
    """The pointer parameters and locals of `fn` whose values only ever move between each
    other by whole assignments (`temp = lhs; lhs = rhs; rhs = temp;`, a kernel that swaps
    its own copies of two pointers): none of them is dereferenced, indexed, passed, compared
    or computed with, so assigning one reaches no memory and is no escape. Every use of each
    must be an assignment statement `a = b` (or a declaration `T *a = b`) with `a` among
    them; the largest such set (a variable used any other way leaves, and so do those
    assigned to it)."""
    if fn.body is None:
        return frozenset()

    def pointer(t: str, dims: object = ()) -> bool:
        return "*" in t and "&" not in t and not dims

    cand = {p.decl for p in fn.params if p.is_pointer and pointer(p.type)}
    moves: list[tuple[str, str | None]] = []  # (target, source or None when not a variable)
    allowed: set[int] = set()
    for node in fn.body.nodes_of((n.VarDecl, n.ExprStmt)):  # (in walk order)
        if isinstance(node, n.VarDecl) and pointer(node.var_type, node.array_dims):
            cand.add(node.decl)
            if node.init is not None:
                src = _strip_casts(node.init)
                moves.append((node.decl, src.decl if isinstance(src, n.Ref) else None))
                if isinstance(src, n.Ref):
                    allowed.add(id(src))
        elif isinstance(node, n.ExprStmt) and isinstance(node.expr, n.Binary) and \
                node.expr.op == "=" and isinstance(node.expr.lhs, n.Ref):
            src = _strip_casts(node.expr.rhs)
            moves.append((node.expr.lhs.decl, src.decl if isinstance(src, n.Ref) else None))
            allowed.add(id(node.expr.lhs))
            if isinstance(src, n.Ref):
                allowed.add(id(src))
    uses: dict[str, list[int]] = {}
    for ref in fn.body.nodes_of(n.Ref):
        if ref.decl in cand:
            uses.setdefault(ref.decl, []).append(id(ref))
    inert = {d for d in cand if all(u in allowed for u in uses.get(d, []))}
    changed = True
    while changed:
        changed = False
        for target, src in moves:
            # a move out of an inert variable into one that is not, or into an inert one
            # from something that is no inert variable, is a use the set cannot keep
            if src in inert and target not in inert:
                inert.discard(src)
                changed = True
            if target in inert and src is not None and src not in inert and src in cand:
                inert.discard(target)
                changed = True
    return frozenset(inert)


def exits(stmt: n.Stmt | None) -> bool:
    """Whether control never falls through `stmt` (return, break, continue on every path)."""
    if isinstance(stmt, (n.Return, n.Break, n.Continue)):
        return True
    if isinstance(stmt, n.Compound):
        return any(exits(s) for s in stmt.body)
    if isinstance(stmt, n.If):
        return exits(stmt.then) and stmt.else_ is not None and exits(stmt.else_)
    return False


class Evaluator:
    def __init__(self, unit: TranslationUnit, block_coords: frozenset[str] = frozenset()):
        """block_coords: dims whose coordinate is blockIdx.d alone (the kernel never uses
        threadIdx.d or blockDim.d): one thread per block along d, assuming blockDim.d == 1."""
        self.unit = unit
        self.block_coords = block_coords
        # Helpers defined in the user's headers (frontend/header_callees.py) are inlined like
        # the file's own: only their IR is read, never their text. The tables are the unit's,
        # built once for all its kernels (read only here).
        index = unit_index(unit)
        self.by_decl = index.by_decl
        self.by_name = index.by_name
        self.globals = index.globals
        self.declared = index.declared
        self.accesses: list[Access] = []
        self.grid_stride: list[tuple[str, str]] = []  # (loop variable, dim)
        self._starts: dict[str, Poly] = {}  # mutable local decl -> its initial value
        self.values: dict[str, tuple[str, Poly]] = {}  # local decl -> (name, value)
        self._unroll = 1
        self._assigned: dict[int, set[str]] = {}
        self._fresh = 0
        self._inlined: dict[tuple[object, ...], tuple[Value, list[Access], set[Any]]] = {}
        self.assumptions: set[tuple[str, int]] = set()  # see symbolic.block_size_assumptions
        self._stack: list[str] = []
        self._frames: list[_Frame] = []
        self._settable: dict[int, frozenset[str]] = {}
        # >0 while evaluating what may not run (a branch of `?:`, the right of `&&`), or what
        # the evaluator does not follow in order: assignments there make a variable unknown.
        self._weak = 0

    # ---- entry points -------------------------------------------------------------------

    def run(self, fn: Function) -> list[Access]:
        env: dict[str, Value] = {}
        for p in fn.params:
            env[p.decl] = (PtrVal(p.decl, p.name, "param") if p.is_pointer
                           else Poly.atom(Atom("param", p.name)))
        self._stack.append(fn.decl)
        self._frames.append(_Frame(env, self.assigned(fn.body) if fn.body else set(),
                                   self.settable(fn.body) if fn.body else frozenset(),
                                   inert=inert_pointers(fn)))
        if fn.body is not None:
            self.stmt(fn.body, ())
        self._frames.pop()
        self._stack.pop()
        return self.accesses

    def value(self, e: n.Expr, env: dict[str, Value] | None = None) -> Value:
        """The value of an expression in a fresh frame (for callers outside a kernel walk)."""
        self._frames.append(_Frame(dict(env or {}), set()))
        try:
            return self.expr(e, ())
        finally:
            self._frames.pop()

    def assigned(self, node: n.Node) -> set[str]:
        """assigned_decls, memoised per node (helpers are inlined at every call)."""
        key = id(node)
        if key not in self._assigned:
            self._assigned[key] = assigned_decls(node)
        return self._assigned[key]

    def settable(self, body: n.Node) -> frozenset[str]:
        """settable_decls, memoised per node."""
        key = id(body)
        if key not in self._settable:
            self._settable[key] = settable_decls(body, self.by_decl)
        return self._settable[key]

    def _set(self, target: n.Ref, value: Value | None) -> Value:
        """A write of a whole local: its new value when followed, else it becomes unknown."""
        env = self.frame.env
        if value is None or not isinstance(value, Poly) or self._weak or \
                target.decl not in self.frame.settable or _larger_than(value, MAX_FOLLOWED):
            env.pop(target.decl, None)
            return self.fresh("var", target.name)
        value = to_coords(value)
        env[target.decl] = value
        return value

    def fresh(self, kind: str, name: str) -> Poly:
        """An unknown that equals nothing else: two reads of a mutable variable (or of memory)
        may differ, so `a - b` must not cancel when a and b were read at different times."""
        self._fresh += 1
        return opaque(kind, f"{name}#{self._fresh}")

    def escape(self, v: Value, path: tuple[Pred, ...], span: Span) -> None:
        """A pointer went somewhere the evaluator does not follow: count it as read+written."""
        if isinstance(v, PtrVal):
            self.record(v, "escape", path, span)

    @property
    def frame(self) -> _Frame:
        return self._frames[-1]

    # ---- statements ---------------------------------------------------------------------

    def stmt(self, s: n.Stmt | None, path: tuple[Pred, ...]) -> tuple[Pred, ...]:
        """Walk `s` under `path`; return the path for the statements that follow it."""
        if s is None:
            return path
        if isinstance(s, n.Compound):
            for j, child in enumerate(s.body):
                if isinstance(child, n.While) and self._grid_stride_while(s.body, j, path):
                    continue
                path = self.stmt(child, path)
            return path
        if isinstance(s, n.DeclStmt):
            for d in s.decls:
                self.decl(d, path)
            return path
        if isinstance(s, n.ExprStmt):
            self.expr(s.expr, path)
            return path
        if isinstance(s, n.If):
            c = self.cond(s.cond, path)
            self._branches(s, c, path)
            if exits(s.then) and not (s.else_ is not None and exits(s.else_)):
                return (*path, c.negate())
            if s.else_ is not None and exits(s.else_) and not exits(s.then):
                return (*path, c)
            return path
        if isinstance(s, n.For):
            self.for_loop(s, path)
            return path
        if isinstance(s, n.While):
            self.forget(self.assigned(s))
            c = self.cond(s.cond, path)
            self.stmt(s.body, (*path, c))
            self.forget(self.assigned(s))
            return path
        if isinstance(s, n.Asm):
            # Operands are kept as text: any pointer named in it may be read or written.
            words = set(re.findall(r"[A-Za-z_]\w*", s.text))
            for decl, v in self.frame.env.items():
                if isinstance(v, PtrVal) and decl.split("@")[0] in words:
                    self.escape(v, path, s.span)
            return path
        if isinstance(s, n.Return):
            v = self.expr(s.value, path) if s.value is not None else ZERO
            self.frame.returns.append((path[self.frame.local_path:], v))
            return path
        self.forget(self.assigned(s))
        self._weak += 1
        try:
            for child in s.children():
                if isinstance(child, n.Stmt):
                    self.stmt(child, path)
                elif isinstance(child, n.Expr):
                    self.expr(child, path)
        finally:
            self._weak -= 1
        self.forget(self.assigned(s))
        return path

    def _branches(self, s: n.If, c: Pred, path: tuple[Pred, ...]) -> None:
        """Both branches of an if, each from the values before it; afterwards a followed
        local holds the value of the branch that falls through, or `c ? a : b` when both do
        and they differ."""
        if not self.assigned(s) & self.frame.settable:
            self.stmt(s.then, (*path, c))
            if s.else_ is not None:
                self.stmt(s.else_, (*path, c.negate()))
            return
        env = self.frame.env
        before = dict(env)
        self.stmt(s.then, (*path, c))
        then_env = dict(env)
        env.clear()
        env.update(before)
        if s.else_ is not None:
            self.stmt(s.else_, (*path, c.negate()))
        then_exits, else_exits = exits(s.then), exits(s.else_)
        if then_exits or else_exits:
            if else_exits and not then_exits:
                env.clear()
                env.update(then_env)
            return  # else: the values of the else branch (or from before) fall through
        other = dict(env)
        env.clear()
        for k in then_env.keys() & other.keys():
            a, b = then_env[k], other[k]
            if a == b:
                env[k] = a
            elif isinstance(a, Poly) and isinstance(b, Poly):
                env[k] = Poly.atom(Atom("cond", "cond", (a, b), c))

    def decl(self, d: n.VarDecl, path: tuple[Pred, ...]) -> None:
        env = self.frame.env
        if d.array_dims:
            kind = "shared" if "shared" in d.storage else "local"
            env[d.decl] = PtrVal(d.decl, d.name, kind)
            if d.init is not None:
                self.expr(d.init, path)
            return
        v = self.expr(d.init, path) if d.init is not None else None
        if d.init is not None and mutable_reference(d.var_type):
            self.bind(d.init, path, f"bound to reference '{d.name}'")  # px &q = p[i];
        if d.decl in self.frame.mutable and isinstance(v, Poly):
            self._starts[d.decl] = to_coords(v)  # a while-form grid-stride loop's start
        if d.decl in self.frame.settable and isinstance(v, Poly) and not self._weak:
            env[d.decl] = to_coords(v)  # followed through its assignments (_set)
            return
        if d.decl in self.frame.mutable or v is None:
            env.pop(d.decl, None)
            if isinstance(v, PtrVal):
                env[d.decl] = PtrVal(v.base, v.name, v.kind, v.offset,
                                     f"pointer '{d.name}' is reassigned")
            return
        if isinstance(v, Poly):
            self.assumptions |= block_size_assumptions(v)
            v = to_coords(v)  # keeps later arithmetic on X, not on its three builtins
        env[d.decl] = v
        if isinstance(v, Poly) and len(self._frames) == 1:
            self.values[d.decl] = (d.name, v)

    def for_loop(self, s: n.For, path: tuple[Pred, ...]) -> None:
        var, start = self._loop_init(s.init, path)
        body_writes = self.assigned(s.body)
        # Locals the condition or the increment write (`for (r = y - d, i = 0; ...; r++, i++)`)
        # change between iterations where the body does not: unknown inside and after.
        stepped = self.assigned(s) - body_writes - ({var.decl} if var is not None else set())
        self.forget(stepped)
        try:
            self._for_body(s, path, var, start, body_writes)
        finally:
            self.forget(stepped)

    def _for_body(self, s: n.For, path: tuple[Pred, ...], var: n.Ref | None,
                  start: Poly | None, body_writes: set[str]) -> None:
        env = self.frame.env
        if var is not None and var.decl not in body_writes and start is not None:
            stride = self._loop_step(s.inc, var)
            if self._grid_stride(start, stride, var, s, path):
                return
            values = self._trip_values(s.cond, var, start, stride)
            if values is not None and len(values) <= MAX_TRIP and \
                    self._unroll * max(len(values), 1) <= MAX_UNROLL:
                self._unroll *= max(len(values), 1)
                # An iteration may start from a break's or a continue's values, not only
                # from the end of the one before: those locals are unknown then.
                jumps = bool(s.body.nodes_of((n.Break, n.Continue)))
                for v in values:
                    if jumps:
                        self.forget(body_writes)
                    env[var.decl] = Poly.const(v)
                    self.stmt(s.body, path)
                self._unroll //= max(len(values), 1)
                env.pop(var.decl, None)
                self.forget(body_writes)
                return
            if values is not None:
                env[var.decl] = opaque("bigloop", var.name)
                self._walk_once(s, path, body_writes)
                return
        if var is not None:
            env[var.decl] = opaque("loopvar", var.name)
        self._walk_once(s, path, body_writes)

    def forget(self, decls: set[str]) -> None:
        """Locals written in a loop body: their values are unknown from the first iteration on."""
        env = self.frame.env
        for d in decls:
            v = env.get(d)
            if isinstance(v, PtrVal):
                env[d] = PtrVal(v.base, v.name, v.kind, opaque("ptrvar", d.split("@")[0]),
                                f"pointer '{d.split('@')[0]}' is reassigned")
            else:
                env.pop(d, None)

    def _walk_once(self, s: n.For, path: tuple[Pred, ...], writes: set[str]) -> None:
        self.forget(writes)
        c = self.cond(s.cond, path) if s.cond is not None else TRUE
        self.stmt(s.body, (*path, c))
        if s.inc is not None:
            self.expr(s.inc, path)
        self.forget(writes)

    def _loop_init(self, init: n.Stmt | None, path: tuple[Pred, ...]
                   ) -> tuple[n.Ref | None, Poly | None]:
        if isinstance(init, n.DeclStmt) and len(init.decls) == 1 and init.decls[0].init:
            d = init.decls[0]
            v = self.expr(d.init, path) if d.init is not None else None
            return n.Ref(d.name, "local", d.decl), v if isinstance(v, Poly) else None
        if isinstance(init, n.ExprStmt) and isinstance(init.expr, n.Binary) and \
                init.expr.op == "=" and isinstance(init.expr.lhs, n.Ref):
            v = self.expr(init.expr.rhs, path)
            return init.expr.lhs, v if isinstance(v, Poly) else None
        if init is not None:
            self.stmt(init, path)
        return None, None

    def _loop_step(self, inc: n.Expr | None, var: n.Ref) -> Poly | None:
        if isinstance(inc, n.Unary) and isinstance(inc.operand, n.Ref) and \
                inc.operand.decl == var.decl and inc.op in ("++", "--"):
            return Poly.const(1 if inc.op == "++" else -1)
        if isinstance(inc, n.Binary) and inc.op in ("+=", "-=") and \
                isinstance(inc.lhs, n.Ref) and inc.lhs.decl == var.decl:
            v = self.expr(inc.rhs, ())
            if isinstance(v, Poly):
                return v if inc.op == "+=" else -v
        return None

    def _grid_stride_while(self, stmts: tuple[n.Stmt, ...], j: int,
                           path: tuple[Pred, ...]) -> bool:
        """`int i = <coordinate>; ... while (i < n) { ...; i += <whole grid>; }`: the while
        form of a grid-stride loop, when i is written nowhere else. Evaluated like the for
        form (the body at the thread's coordinate); False (nothing done) for other loops."""
        s = stmts[j]
        assert isinstance(s, n.While)
        body = s.body
        if s.do_while or not isinstance(body, n.Compound) or not body.body:
            return False
        last = body.body[-1]
        if not (isinstance(last, n.ExprStmt) and isinstance(last.expr, n.Binary) and
                last.expr.op == "+=" and isinstance(last.expr.lhs, n.Ref)):
            return False
        var = last.expr.lhs
        start = self._starts.get(var.decl)
        decl_at = next((k for k in range(j) if isinstance(stmts[k], n.DeclStmt) and
                        any(d.decl == var.decl for d in stmts[k].decls)), None)
        if start is None or decl_at is None:
            return False
        writes = [x for k in range(decl_at + 1, j + 1) for x in stmts[k].walk()
                  if (isinstance(x, n.Binary) and x.is_assignment or
                      isinstance(x, n.Unary) and x.op in ("++", "--", "&")) and
                  isinstance(x.lhs if isinstance(x, n.Binary) else x.operand, n.Ref) and
                  (x.lhs if isinstance(x, n.Binary) else x.operand).decl == var.decl]
        if len(writes) != 1 or writes[0] is not last.expr:
            return False
        stride = self.expr(last.expr.rhs, ())
        if not isinstance(stride, Poly):
            return False
        for dim in ("x", "y", "z"):
            total = Poly.atom(builtin("blockDim", dim)) * Poly.atom(builtin("gridDim", dim))
            if start == Poly.atom(coord(dim)) and stride == total:
                self.grid_stride.append((var.name, dim))
                self.forget(self.assigned(body) - {var.decl})
                self.frame.env[var.decl] = Poly.atom(coord(dim))
                inner = (*path, self.cond(s.cond, path))
                rest = body.body[:-1]
                for k, child in enumerate(rest):  # a nested while form (2D) is one too
                    if isinstance(child, n.While) and self._grid_stride_while(rest, k, inner):
                        continue
                    inner = self.stmt(child, inner)
                self.frame.env.pop(var.decl, None)
                self.forget(self.assigned(body))
                return True
        return False

    def _grid_stride(self, start: Poly, stride: Poly | None, var: n.Ref, s: n.For,
                     path: tuple[Pred, ...]) -> bool:
        if stride is None:
            return False
        for dim in ("x", "y", "z"):
            total = Poly.atom(builtin("blockDim", dim)) * Poly.atom(builtin("gridDim", dim))
            if to_coords(start) == Poly.atom(coord(dim)) and stride == total:
                self.grid_stride.append((var.name, dim))
                self.forget(self.assigned(s.body))  # (values carried between iterations)
                self.frame.env[var.decl] = Poly.atom(coord(dim))
                c = self.cond(s.cond, path) if s.cond is not None else TRUE
                self.stmt(s.body, (*path, c))
                self.frame.env.pop(var.decl, None)
                self.forget(self.assigned(s.body))
                return True
        return False

    def _trip_values(self, cond: n.Expr | None, var: n.Ref, start: Poly,
                     stride: Poly | None) -> list[int] | None:
        """The values a counted loop takes, when start, bound and step are constants."""
        first = start.const_value
        step = stride.const_value if stride is not None else None
        if first is None or not step or not isinstance(cond, n.Binary) or cond.op not in _COMPARE:
            return None
        if not (isinstance(cond.lhs, n.Ref) and cond.lhs.decl == var.decl):
            return None
        bound = self.expr(cond.rhs, ())
        limit = bound.const_value if isinstance(bound, Poly) else None
        if limit is None:
            return None
        out: list[int] = []
        v = first
        ok = {"<": int.__lt__, "<=": int.__le__, ">": int.__gt__, ">=": int.__ge__,
              "!=": int.__ne__, "==": int.__eq__}[cond.op]
        while ok(v, limit):
            out.append(v)
            if len(out) > MAX_TRIP:
                return out  # the caller refuses it as too large
            v += step
        return out

    # ---- expressions --------------------------------------------------------------------

    def cond(self, e: n.Expr, path: tuple[Pred, ...]) -> Pred:
        if isinstance(e, n.Binary) and e.op in _COMPARE:
            a, b = self.expr(e.lhs, path), self.expr(e.rhs, path)
            if isinstance(a, Poly) and isinstance(b, Poly):
                if (_wide_unsigned(e.lhs.type) or _wide_unsigned(e.rhs.type)) and \
                        not (_unwrapped(a) and _unwrapped(b)):
                    # compared as wrapped unsigned values: `x - 1 < w` is false at x = 0,
                    # `t < 0` never holds; not the integer comparison
                    return Pred("opaque")
                return compare(e.op, a, b)
            return Pred("opaque")
        if isinstance(e, n.Binary) and e.op in ("&&", "||"):
            a = self.cond(e.lhs, path)
            self._weak += 1
            try:
                b = self.cond(e.rhs, (*path, a if e.op == "&&" else a.negate()))
            finally:
                self._weak -= 1
            return Pred("and" if e.op == "&&" else "or", parts=(a, b))
        if isinstance(e, n.Unary) and e.op == "!":
            return self.cond(e.operand, path).negate()
        if isinstance(e, n.Cast):
            return self.cond(e.operand, path)
        v = self.expr(e, path)
        if isinstance(v, Poly):
            return Pred("ne", v)
        return Pred("opaque")

    def expr(self, e: n.Expr | None, path: tuple[Pred, ...]) -> Value:
        if e is None:
            return opaque("opaque", "none")
        # The commonest node kinds first: this runs for every node of every unrolled body.
        if isinstance(e, n.Ref):
            return self.ref(e)
        if isinstance(e, n.Binary):
            return self.binary(e, path)
        if isinstance(e, n.IntLit):
            return Poly.const(e.value)
        if isinstance(e, n.Index):
            return self.load(e, path, "load")
        if isinstance(e, n.BoolLit):
            return Poly.const(int(e.value))
        if isinstance(e, n.FloatLit):
            return opaque("float", repr(e.value))
        if isinstance(e, n.Member):
            if isinstance(e.base, n.Ref) and e.base.kind == "builtin":
                if e.base.name == "blockIdx" and e.field_name in self.block_coords:
                    self.assumptions.add((e.field_name, 1))
                    return Poly.atom(coord(e.field_name))
                return Poly.atom(builtin(e.base.name, e.field_name))
            base = self.expr(e.base, path)
            if e.arrow:
                self.escape(base, path, e.span)  # p->field: struct access is not modelled
            return opaque("opaque", "member")
        if isinstance(e, n.Unary):
            return self.unary(e, path)
        if isinstance(e, n.Cond):
            c = self.cond(e.cond, path)
            self._weak += 1
            try:
                a = self.expr(e.then, (*path, c))
                b = self.expr(e.else_, (*path, c.negate()))
            finally:
                self._weak -= 1
            if isinstance(a, Poly) and isinstance(b, Poly):
                return Poly.atom(Atom("cond", "cond", (a, b), c))
            self.escape(a, path, e.span)
            self.escape(b, path, e.span)
            return opaque("opaque", "pointer conditional")
        if isinstance(e, n.Cast):
            v = self.expr(e.operand, path)
            if isinstance(v, PtrVal) and "*" in e.type and v.kind == "param" and \
                    _pointee(e.type) != _pointee(e.operand.type):
                return PtrVal(v.base, v.name, v.kind, v.offset, "pointer reinterpret cast")
            if isinstance(v, PtrVal) and "*" not in e.type and "[" not in e.type:
                self.escape(v, path, e.span)  # a pointer turned into an integer
                return opaque("opaque", "pointer as integer")
            return v
        if isinstance(e, n.Call):
            return self.call(e, path)
        self._weak += 1
        try:
            for child in e.children():
                if isinstance(child, n.Expr):
                    self.escape(self.expr(child, path), path, e.span)
                elif isinstance(child, n.Stmt):
                    self.stmt(child, path)
        finally:
            self._weak -= 1
        return opaque("opaque", type(e).__name__)

    def ref(self, e: n.Ref) -> Value:
        env = self.frame.env
        if e.kind == "param" and isinstance(e.const_value, int) and \
                not isinstance(e.const_value, bool):
            return Poly.const(e.const_value)  # the constant every launch passes (constargs)
        if e.decl in env:
            return env[e.decl]
        if e.kind == "builtin":
            return opaque("builtin", e.name)
        if isinstance(e.const_value, int) and not isinstance(e.const_value, bool):
            return Poly.const(e.const_value)
        if e.kind == "enum":
            return opaque("opaque", e.name)
        if e.kind == "global":
            g = self.globals.get(e.decl)
            if g is not None and "[" in g.type:
                return PtrVal(e.decl, e.name, "shared" if g.space == "shared" else "global")
            return opaque("global", e.name)
        if "[" in e.type or "*" in e.type:
            return PtrVal(e.decl, e.name, "local", opaque("ptrvar", e.name),
                          f"pointer '{e.name}' is reassigned")
        return self.fresh("var", e.name)

    def binary(self, e: n.Binary, path: tuple[Pred, ...]) -> Value:
        op = e.op
        if e.is_assignment:
            return self.assign(e, path)
        if op in _COMPARE or op in ("&&", "||"):
            return Poly.atom(Atom("pred", "pred", (), self.cond(e, path)))
        if op == ",":
            self.expr(e.lhs, path)
            return self.expr(e.rhs, path)
        a, b = self.expr(e.lhs, path), self.expr(e.rhs, path)
        if isinstance(a, PtrVal) or isinstance(b, PtrVal):
            if op == "+" and isinstance(a, PtrVal) and isinstance(b, Poly):
                return PtrVal(a.base, a.name, a.kind, a.offset + b, a.note)
            if op == "+" and isinstance(b, PtrVal) and isinstance(a, Poly):
                return PtrVal(b.base, b.name, b.kind, b.offset + a, b.note)
            if op == "-" and isinstance(a, PtrVal) and isinstance(b, Poly):
                return PtrVal(a.base, a.name, a.kind, a.offset - b, a.note)
            return opaque("opaque", "pointer arithmetic")
        return arith(op, a, b)

    def assign(self, e: n.Binary, path: tuple[Pred, ...]) -> Value:
        rhs = self.expr(e.rhs, path)
        target = e.lhs
        if isinstance(target, (n.Index, n.Unary)) and not (
                isinstance(target, n.Unary) and target.op != "*"):
            if e.op != "=":
                self.load(target, path, "load")
            self.load(target, path, "store")
            return rhs
        if isinstance(target, n.Ref):
            if isinstance(rhs, PtrVal) and target.decl not in self.frame.inert:
                self.escape(rhs, path, e.span)  # p = other: reads through p now reach other
            if e.op == "=":
                return self._set(target, rhs)
            old = self.ref(target)
            if isinstance(old, Poly) and isinstance(rhs, Poly) and e.op in _STRONG_OPS:
                return self._set(target, arith(e.op[:-1], old, rhs))
            return self._set(target, None)
        self.write(target, e.op != "=", path, e.span)
        self.escape(rhs, path, e.span)  # a pointer stored to memory
        return rhs

    def write(self, target: n.Expr, reads: bool, path: tuple[Pred, ...], span: Span) -> None:
        """A store (reads: a read-modify-write) through an lvalue other than `p[i]`, `*p` or
        a variable: a member `p[i].x`, `(p + i)->x`, `p[i].f[k]`, or anything else. Recorded
        against the pointer the lvalue is rooted at, with a note when the store covers part
        of an element; an lvalue it cannot follow counts as an escape of every pointer in it."""
        ptr = self.lvalue(target, path)
        if isinstance(ptr, PtrVal):
            if reads:
                self.record(ptr, "load", path, span)
            self.record(ptr, "store", path, span)
        elif ptr is None:
            self.escape_all(target, path, span)

    def lvalue(self, e: n.Expr, path: tuple[Pred, ...]) -> PtrVal | None | bool:
        """The memory an lvalue designates, as a pointer to its element (a note says when
        only a member of the element is meant); False for a variable of the function (a
        local struct, not memory a pointer reaches); None when it cannot tell."""
        if isinstance(e, n.Cast):
            return self.lvalue(e.operand, path)
        if isinstance(e, n.Ref):
            # A reference variable's writes were counted where it was bound (see `bind`).
            return False if e.kind in ("local", "param") else None
        if isinstance(e, (n.Index, n.Unary)) and not (isinstance(e, n.Unary) and e.op != "*"):
            v = self.address(e, path)
            return v if isinstance(v, PtrVal) else None
        if isinstance(e, n.Member):
            if isinstance(e.base, n.Ref) and e.base.kind == "builtin":
                return None
            base = self.expr(e.base, path) if e.arrow else self.lvalue(e.base, path)
            if isinstance(base, PtrVal):
                return PtrVal(base.base, base.name, base.kind, base.offset,
                              base.note or MEMBER_NOTE)
            return base if isinstance(base, bool) else None
        return None

    def bind(self, e: n.Expr, path: tuple[Pred, ...], how: str) -> None:
        """An lvalue bound to a reference that may be written (`px &q = p[i]`, an argument
        for a helper's `px &` parameter): a store of the element, recorded with a note, since
        what the reference is used for is not followed."""
        x = _strip_casts(e)
        if not (isinstance(x, (n.Index, n.Member)) or isinstance(x, n.Unary) and x.op == "*"):
            return  # a variable of the function, or no lvalue (`&p[i]`, `a + b`)
        ptr = self.lvalue(e, path)
        if isinstance(ptr, PtrVal):
            self.record(PtrVal(ptr.base, ptr.name, ptr.kind, ptr.offset, ptr.note or
                               f"element {how}: its stores there are not followed"),
                        "store", path, e.span)
        elif ptr is None:
            self.escape_all(e, path, e.span)

    def escape_all(self, e: n.Expr, path: tuple[Pred, ...], span: Span) -> None:
        """Every pointer an expression names escapes (an lvalue it cannot follow)."""
        for node in e.walk():
            if isinstance(node, n.Ref):
                self.escape(self.frame.env.get(node.decl, ZERO), path, span)
        if not isinstance(e, n.Ref):
            self.escape(self.expr(e, path), path, span)

    def unary(self, e: n.Unary, path: tuple[Pred, ...]) -> Value:
        op = e.op
        if op == "*":
            return self.load(e, path, "load")
        if op == "&":
            if isinstance(e.operand, n.Index):
                return self.address(e.operand, path)
            if isinstance(e.operand, n.Member):  # &p[i].x, &(p + i)->x
                ptr = self.lvalue(e.operand, path)
                if isinstance(ptr, PtrVal):
                    return ptr
            v = self.expr(e.operand, path)
            return v if isinstance(v, PtrVal) else opaque("opaque", "address")
        if op in ("++", "--"):
            if isinstance(e.operand, (n.Index, n.Unary)):
                self.load(e.operand, path, "load")
                self.load(e.operand, path, "store")
                return opaque("opaque", "increment")
            if not isinstance(e.operand, n.Ref):
                self.write(e.operand, True, path, e.span)  # p[i].x++
                return opaque("opaque", "increment")
            old = self.expr(e.operand, path)
            new = self._set(e.operand, arith("+" if op == "++" else "-", old, ONE)
                            if isinstance(old, Poly) else None)
            return old if e.postfix and isinstance(old, Poly) and \
                e.operand.decl in self.frame.env else new
        v = self.expr(e.operand, path)
        if not isinstance(v, Poly):
            return opaque("opaque", "pointer " + op)
        if op == "-":
            return -v
        if op == "+":
            return v
        if op == "!":
            return Poly.atom(Atom("pred", "pred", (), Pred("eq", v)))
        return opaque("not", "~", v)

    def address(self, e: n.Index | n.Unary, path: tuple[Pred, ...]) -> Value:
        """The pointer `&base[index]` (or `*p` as an lvalue), without reading memory."""
        if isinstance(e, n.Unary):
            return self.expr(e.operand, path)
        member = _strip_casts(e.base)
        if isinstance(member, n.Member) and "[" in member.type:
            base = self.lvalue(member, path)  # p[i].f[k]: an array member of the element
            self.expr(e.index, path)
            return base if isinstance(base, PtrVal) else opaque("opaque", "address")
        if isinstance(e.base, n.Index) and "[" in e.base.type:
            base = self.address(e.base, path)  # a row of a multi-dimensional array
            self.expr(e.index, path)
            if isinstance(base, PtrVal):
                return PtrVal(base.base, base.name, base.kind, opaque("opaque", "row"), base.note)
            return base
        base = self.expr(e.base, path)
        idx = self.expr(e.index, path)
        if isinstance(base, PtrVal) and isinstance(idx, Poly):
            return PtrVal(base.base, base.name, base.kind, base.offset + idx, base.note)
        if isinstance(base, PtrVal):
            return PtrVal(base.base, base.name, base.kind, opaque("opaque", "index"), base.note)
        return opaque("opaque", "address")

    def load(self, e: n.Index | n.Unary, path: tuple[Pred, ...], mode: str) -> Value:
        ptr = self.address(e, path)
        if isinstance(ptr, PtrVal):
            self.record(ptr, mode, path, e.span)
            return self.fresh("load", ptr.name)
        return self.fresh("load", "?")

    def record(self, ptr: PtrVal, mode: str, path: tuple[Pred, ...], span: Span) -> None:
        # Reading a member reads (part of) the element: a load at its index like any other.
        note = "" if mode == "load" and ptr.note == MEMBER_NOTE else ptr.note
        self.accesses.append(Access(ptr.base, ptr.name, ptr.kind, mode, ptr.offset, path,
                                    span, note))

    def call(self, e: n.Call, path: tuple[Pred, ...]) -> Value:
        name = e.callee.split("::")[-1]
        if name in _MINMAX and len(e.args) == 2:
            a, b = (self.expr(x, path) for x in e.args)
            if isinstance(a, Poly) and isinstance(b, Poly):
                kind = _MINMAX[name]
                if (is_unsigned(e.type) or name.startswith("u")) and \
                        not (_unwrapped(a) and _unwrapped(b)):
                    # An unsigned min/max compares wrapped values: `max(x - 1, 0u)` is x - 1
                    # (a huge value at x = 0), no clamp; its operands kept, not its meaning.
                    return Poly.atom(Atom("opaque", f"unsigned {kind}", (a, b)))
                return Poly.atom(Atom(kind, kind, (a, b)))
            return opaque("opaque", name)
        if name in ("__umul24", "__mul24") and len(e.args) == 2:
            # (the product of the low 24 bits: exact below 2^24, the range CUDA documents
            # them for: a block index times a block size in code written for older GPUs)
            a, b = (self.expr(x, path) for x in e.args)
            if isinstance(a, Poly) and isinstance(b, Poly):
                return arith("*", a, b)
            return opaque("opaque", name)
        if name.startswith("operator") and name[8:].endswith("=") and len(e.args) == 2 and \
                name[8:] not in ("==", "!=", "<=", ">="):
            # an assignment of a class type (float4, a struct): clang makes it a call
            return self.assign(n.Binary(name[8:], e.args[0], e.args[1], span=e.span), path)
        args = [self.expr(x, path) for x in e.args]
        callee = self.declared.get(e.callee_decl) if e.callee_decl else None
        if callee is None and not e.callee_decl:
            callee = self.by_name.get(name)
        for k, x in enumerate(e.args):
            # An argument for a reference parameter may be written by the callee (a helper
            # inlined below does not follow its reference parameters).
            p = callee.params[k] if callee is not None and k < len(callee.params) else None
            if p is not None and (p.is_reference or "&" in p.type) and \
                    mutable_reference(p.type):
                self.bind(x, path, f"passed by reference to '{callee.name}'")
            elif p is None and callee is None and not _declared_by_cuda(e) and \
                    name not in MATH:  # (by value: `sqrt(sd[j])` writes nothing)
                self.bind(x, path, f"passed to '{name or '?'}', a call it cannot see")
        if name.startswith("atomic") and args and isinstance(args[0], PtrVal):
            self.record(args[0], "atomic", path, e.span)
            return opaque("call", name)
        if name in _LOADS and args and isinstance(args[0], PtrVal):
            self.record(args[0], "load", path, e.span)
            return self.fresh("load", args[0].name)
        fn = self.by_decl.get(e.callee_decl) or (None if e.callee_decl else self.by_name.get(name))
        if fn is not None and fn.space in ("device", "host_device") and fn.body is not None \
                and fn.decl not in self._stack and len(self._stack) < MAX_INLINE_DEPTH:
            return self.inline(fn, args, path)
        for a in args:
            if isinstance(a, PtrVal):
                self.record(a, "escape", path, e.span)
        return self.fresh("call", name or "?")

    def inline(self, fn: Function, args: list[Value], path: tuple[Pred, ...]) -> Value:
        """The helper's value for these arguments; its accesses are recorded for the caller.

        Unrolled loops call the same helper with the same arguments many times (`cl(y + dy)`
        in a loop over dx): such calls are replayed from a cache, unless the value holds an
        unknown (a load, a mutable variable) that a second call could see differently."""
        key = (fn.decl, tuple(args), path)
        hit = self._inlined.get(key)
        if hit is not None:
            value, recorded, assumed = hit
            self.accesses.extend(recorded)
            self.assumptions |= assumed
            return value
        start, before = len(self.accesses), set(self.assumptions)
        value = self._inline(fn, args, path)
        if not isinstance(value, Poly) or not any(
                a.kind in _FRESH_KINDS for a in value.atoms()):
            self._inlined[key] = (value, self.accesses[start:], self.assumptions - before)
        return value

    def _inline(self, fn: Function, args: list[Value], path: tuple[Pred, ...]) -> Value:
        env: dict[str, Value] = {}
        for p, a in zip(fn.params, args, strict=False):
            if p.is_reference:
                continue  # writes through references are not modelled: the value is opaque
            env[p.decl] = a
        assert fn.body is not None
        frame = _Frame(env, self.assigned(fn.body), self.settable(fn.body),
                       local_path=len(path))
        self._stack.append(fn.decl)
        self._frames.append(frame)
        try:
            self.stmt(fn.body, path)
        finally:
            self._frames.pop()
            self._stack.pop()
        if not frame.returns:
            return self.fresh("call", fn.name)
        if len(frame.returns) > 1:
            for _, v in frame.returns:
                self.escape(v, path, fn.span)
        # A return reached after `if (c) return a;` carries !c on its path: drop those, the
        # nesting of the conditionals built below already implies them.
        seen: set[Pred] = set()
        rets: list[tuple[Pred, Value]] = []
        for conds, v in frame.returns:
            own = [c for c in conds if c not in seen]
            if own:
                seen.add(own[-1].negate())
            rets.append((conj(*own), v))
        result = rets[-1][1]
        for c, v in reversed(rets[:-1]):
            if not (isinstance(v, Poly) and isinstance(result, Poly)):
                return self.fresh("call", fn.name)
            result = Poly.atom(Atom("cond", "cond", (v, result), c))
        return result


def _wide_unsigned(t: str) -> bool:
    """Whether a comparison with an operand of type `t` compares unsigned values (an
    unsigned type of int's rank or wider: narrower ones are promoted to int)."""
    return bool(t) and is_unsigned(t) and not re.search(r"char|short|int8|int16|bool", t)


def _unwrapped(p: Poly) -> bool:
    """Whether an operand of an unsigned min/max is its integer value: one free of the
    thread's coordinates (a bound such as `w - 1`, read as the image being non-empty), or
    a sum of coordinates and parameters (sizes) with no negative coefficient or constant
    (`x + 1`, `y * w + x`). `x - 1` is not: at x = 0 it wraps to the largest value; nor is
    `x + k` with a loop variable or a load k that may be negative."""
    if not coord_dims(p):
        return True
    return all(c > 0 and all(a.kind in ("coord", "builtin", "param") for a in m)
               for m, c in p.terms)


def arith(op: str, a: Poly, b: Poly) -> Poly:
    """a op b for the arithmetic and bitwise operators, folding constants with C semantics."""
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    ca, cb = a.const_value, b.const_value
    if op == "<<" and cb is not None and 0 <= cb < 63:
        return a.scale(1 << cb)
    if ca is not None and cb is not None:
        folded = _fold(op, ca, cb)
        if folded is not None:
            return Poly.const(folded)
    if op == "/" and cb == 1:
        return a
    names = {"/": "div", "%": "mod", ">>": "shr", "<<": "shl", "&": "and", "|": "or", "^": "xor"}
    return Poly.atom(Atom(names.get(op, "opaque"), names.get(op, op), (a, b)))


def _fold(op: str, a: int, b: int) -> int | None:
    if op in ("/", "%"):
        if b == 0:
            return None
        q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
        return q if op == "/" else a - q * b
    if op == ">>" and b >= 0:
        return a >> b
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "^":
        return a ^ b
    return None


def _declared_by_cuda(call: n.Call) -> bool:
    """A call of a function cudafuse's CUDA declarations declare (math, intrinsics): they take
    their arguments by value or through pointers, never by non-const reference."""
    path = call.callee_decl.partition("@")[2]
    return "/frontend/include/" in path or "/emu/include/" in path or "/cuda_api/" in path


def _pointee(t: str) -> str:
    base = t.split("*")[0]
    for word in ("const", "volatile", "__restrict", "restrict"):
        base = base.replace(word, "")
    return " ".join(base.split())


__all__ = ["MEMBER_NOTE", "ONE", "Access", "Evaluator", "PtrVal", "Value", "arith",
           "assigned_decls", "exits", "mutable_reference", "partial_store"]
