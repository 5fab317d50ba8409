"""Which buffer each host pointer variable holds before each statement: the host function
evaluated in order (issue 25: host code by meaning, not by spelling).

Where pointsto.py says what a variable may point to *anywhere* in the function, this says
what it holds *at a point*, so that pointers rotated between launches (ping-pong buffers
exchanged with `std::swap`, `thrust::swap`, a helper of the program judged by its body, or
`t = a; a = b; b = t;`; copies `a = b`; a choice made in an if/else before the launches)
name the right buffer at every launch.

Values are *atoms* (one buffer each): a root of pointsto.py (a parameter, a global, a local
given an allocation: the atom is that root), or a symbol the evaluation makes up where a
value is only known by what it may be:

* at the start of a loop body, each pointer the loop writes holds `<decl>@L<loop>`. The body
  is evaluated once from those symbols; when it leaves the written pointers holding a
  permutation of them (every exchange is one), and they held pairwise distinct buffers before
  the loop, they hold distinct buffers at the start of every iteration (by induction), and
  after the loop: the symbols are then distinct from each other and may be any of the
  buffers they held before the loop;
* `c ? a : b`, `p + off`, a call's result, anything not followed: a symbol that may be what
  pointsto.py says (unknown when it cannot say), the same as nothing else.

An if/else whose branches leave different values makes *worlds* (one per path, at most
MAX_WORLDS; beyond that the differing variables become unknown symbols): a value is one atom
per world, so `if (odd) { in = b; out = a; } else { in = a; out = b; }` keeps in and out
distinct in both. Two values are the same buffer when their atoms are equal in every world,
distinct when they are distinct in every world; anything else is unknown, and fusion keeps
apart the launches that would need to know.

`modelled` holds the nodes whose writes of pointer variables the evaluation follows exactly
(exchanges, copies): a launch sequence may continue across them (hostview.py), the launches
before them then spelled with the names that hold their buffers at the fused launch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cudafuse.ir import nodes as n
from cudafuse.ir.casts import strip_casts as _strip
from cudafuse.ir.program import Function
from cudafuse.passes.vertical.host.hostexprs import struct_field
from cudafuse.passes.vertical.host.pointsto import ALLOCATORS, FRESH_CALLS, PointsTo

MAX_WORLDS = 8
MAX_LOOP_DEPTH = 4
# Exchanges of the standard library and Thrust, known by what they do.
LIBRARY_SWAPS = frozenset({"swap", "std::swap", "thrust::swap", "std::iter_swap"})

Env = dict[str, str]  # pointer variable decl -> atom
World = tuple[tuple[object, ...], Env]  # (path id, environment)


@dataclass(frozen=True)
class Value:
    """A pointer's value: one atom per world, in the worlds' order at its statement."""

    atoms: tuple[str, ...]
    worlds: tuple[tuple[object, ...], ...]  # the path of each world

    def uniform(self) -> bool:
        return len(set(self.atoms)) == 1

    def key(self) -> str:
        """Equal keys are the same buffer (hostview.py compares values of one sequence only
        when they are uniform or seen in the same worlds)."""
        return self.atoms[0] if self.uniform() else "|".join(self.atoms)


def _is_pointer(t: str) -> bool:
    t = t.replace("&", "").strip()
    return "*" in t and "[" not in t


def _file(decl: str) -> str:
    return decl.partition("@")[2].rpartition(":")[0]


class PointerValues:
    """The host function evaluated once (see the module text)."""

    def __init__(self, host: Function, points: PointsTo,
                 definition: Callable[[n.Call], Function | None]):
        """`definition(call)`: the body of a function of the program a call runs, if any."""
        assert host.body is not None
        self.host, self.points, self.definition = host, points, definition
        self.vars: dict[str, str] = {}  # pointer variable decl -> name
        for p in host.params:
            if _is_pointer(p.type) and "&" not in p.type:
                self.vars[p.decl] = p.name
        for d in host.body.walk():
            if isinstance(d, n.VarDecl) and not d.array_dims and _is_pointer(d.var_type) \
                    and "&" not in d.var_type:
                self.vars[d.decl] = d.name
        self.may: dict[str, frozenset[str] | None] = {}
        self.perm: dict[str, str] = {}
        self.origin: dict[str, str] = {}  # unknown atom -> why (for notes)
        self.before: dict[int, list[World]] = {}  # id(stmt) -> worlds before it
        self.after: dict[int, list[World]] = {}
        self.modelled: set[int] = set()
        self.written: set[str] = set()  # pointer variables written after their declaration
        self._alloc_sites: dict[str, int] = {}
        for node in host.body.walk():
            if isinstance(node, n.Call) and node.callee in ALLOCATORS and node.args:
                v = _var_of_address(node.args[0])
                if v is not None:
                    self._alloc_sites[v] = self._alloc_sites.get(v, 0) + 1
        self.escaped = self._escaped(host.body)
        self.written |= self.escaped
        start: Env = {}
        for p in host.params:
            if p.decl in self.vars:
                start[p.decl] = self._root(p.decl)
        self._depth = 0
        self._stmt(host.body, [((), start)], True)

    def _escaped(self, body: n.Compound) -> set[str]:
        """Pointer variables that may change where the evaluation cannot see: written
        inside a lambda, bound to a local reference (`float *&r = a;`), or whose address
        is kept (`float **pp = &a;`) rather than given to a call."""
        out: set[str] = set()
        given = {id(_strip(a)) for c in body.walk() if isinstance(c, n.Call) for a in c.args}
        for x in body.walk():
            if isinstance(x, n.OtherExpr) and x.kind == "LAMBDA_EXPR":
                out |= self._writes(x)
            elif isinstance(x, n.VarDecl) and "&" in x.var_type and \
                    isinstance(r := _strip(x.init), n.Ref) and r.decl in self.vars:
                out.add(r.decl)
            elif isinstance(x, n.Unary) and x.op == "&" and id(x) not in given and \
                    isinstance(r := _strip(x.operand), n.Ref) and r.decl in self.vars:
                out.add(r.decl)
        return out

    # ---- atoms ------------------------------------------------------------------------------

    def _root(self, r: str) -> str:
        self.may.setdefault(r, frozenset({r}))
        return r

    def _symbol(self, name: str, may: frozenset[str] | None, why: str = "") -> str:
        self.may[name] = may
        if may is None and why:
            self.origin.setdefault(name, why)
        return name

    def _unknown(self, decl: str, at: n.Node, why: str) -> str:
        """A value only known by what pointsto.py says the variable may point to."""
        return self._symbol(f"?{decl}@{at.span.start}", self.points.sets.get(decl),
                            f"{why} at line {at.span.line}")

    def atoms_distinct(self, a: str, b: str) -> bool:
        if a == b:
            return False
        if a in self.perm and self.perm[a] == self.perm.get(b):
            return True
        ma, mb = self.may.get(a), self.may.get(b)
        return ma is not None and mb is not None and not ma & mb

    def known(self, v: Value) -> str | None:
        """Why the value is not known well enough to be a launch argument (None: it is)."""
        for a in v.atoms:
            if self.may.get(a) is None and a not in self.perm:
                return self.origin.get(a, "a value cudafuse cannot follow")
        return None

    def same(self, a: Value, b: Value) -> bool:
        if a.uniform() and b.uniform():
            return a.atoms[0] == b.atoms[0]
        return a.worlds == b.worlds and a.atoms == b.atoms

    def distinct(self, a: Value, b: Value) -> bool:
        """Distinct buffers in every pair of worlds that can both hold (one path a prefix
        of the other)."""
        pairs = [(x, y) for wx, x in zip(a.worlds, a.atoms, strict=True)
                 for wy, y in zip(b.worlds, b.atoms, strict=True)
                 if wx[:len(wy)] == wy or wy[:len(wx)] == wx]
        return bool(pairs) and all(self.atoms_distinct(x, y) for x, y in pairs)

    # ---- questions ----------------------------------------------------------------------------

    def recorded(self, stmt: n.Stmt) -> bool:
        return id(stmt) in self.before

    def value(self, stmt: n.Stmt, e: n.Expr, after: bool = False) -> Value | None:
        """The value of pointer expression `e` (a variable, a root) before `stmt` (after it
        with `after`); None when the statement was not evaluated (a lambda's body) or `e`
        is no pointer the evaluation follows."""
        worlds = (self.after if after else self.before).get(id(stmt))
        if worlds is None:
            return None
        atoms = [self._eval(e, env, None) for _, env in worlds]
        if any(a is None for a in atoms):
            return None
        return Value(tuple(atoms), tuple(wid for wid, _ in worlds))  # type: ignore[arg-type]

    def holder(self, stmt: n.Stmt, v: Value, after: bool = False,
               prefer: str = "") -> tuple[str, str] | None:
        """(decl, name) of a pointer variable holding `v` before (after) `stmt` in every
        world; `prefer` first, then the first declared."""
        worlds = (self.after if after else self.before).get(id(stmt))
        if worlds is None or tuple(wid for wid, _ in worlds) != v.worlds and \
                not v.uniform():
            return None
        if v.uniform():
            v = Value((v.atoms[0],) * len(worlds), ())
        found = [d for d in self.vars
                 if all(env.get(d) == a for (_, env), a in zip(worlds, v.atoms, strict=True))]
        if not found:
            return None
        d = prefer if prefer in found else found[0]
        return d, self.vars[d]

    # ---- statements ---------------------------------------------------------------------------

    def _stmt(self, s: n.Stmt, worlds: list[World], record: bool) -> list[World]:
        if record:
            self.before[id(s)] = worlds
        out = self._run(s, worlds, record)
        if record:
            self.after[id(s)] = out
        return out

    def _run(self, s: n.Stmt, worlds: list[World], record: bool) -> list[World]:
        if isinstance(s, n.Compound):
            for x in s.body:
                worlds = self._stmt(x, worlds, record)
            return worlds
        if isinstance(s, n.DeclStmt):
            return [(wid, self._decl(s, env, record)) for wid, env in worlds]
        if isinstance(s, n.ExprStmt):
            return [(wid, self._effects(s.expr, dict(env), record, top=True))
                    for wid, env in worlds]
        if isinstance(s, n.If):
            worlds = [(wid, self._effects(s.cond, dict(env), False)) for wid, env in worlds]
            then = self._stmt(s.then, [((*wid, (s.span.start, 1)), env)
                                       for wid, env in worlds], record)
            other = self._stmt(s.else_, [((*wid, (s.span.start, 0)), env) for wid, env in worlds],
                               record) if s.else_ is not None else \
                [((*wid, (s.span.start, 0)), env) for wid, env in worlds]
            return self._join(then + other, s)
        if isinstance(s, (n.For, n.While)):
            if isinstance(s, n.For) and s.init is not None:
                worlds = self._stmt(s.init, worlds, record)
            return self._loop(s, worlds, record)
        if isinstance(s, (n.Return, n.Break, n.Continue)):
            return worlds
        # anything else (switch, try, a lambda's statement...): what it writes is unknown
        return [(wid, self._clobber(s, dict(env))) for wid, env in worlds]

    def _decl(self, s: n.DeclStmt, env: Env, record: bool) -> Env:
        env = dict(env)
        for d in s.decls:
            if d.init is not None:
                env = self._effects(d.init, env, record)
            if d.decl not in self.vars:
                continue
            if d.init is None:
                env[d.decl] = self._symbol(f"undef:{d.decl}", None,
                                           f"'{d.name}' is declared without a value")
            else:
                env[d.decl] = self._value(d.init, env, d)
        return env

    def _join(self, worlds: list[World], at: n.Stmt) -> list[World]:
        """Worlds with equal environments are one (the common part of their paths)."""
        merged: list[World] = []
        for wid, env in worlds:
            k = next((i for i, (_, e) in enumerate(merged) if e == env), None)
            if k is None:
                merged.append((wid, env))
            else:
                old = merged[k][0]
                common = 0
                while common < min(len(old), len(wid)) and old[common] == wid[common]:
                    common += 1
                merged[k] = (old[:common], env)
        if len(merged) <= MAX_WORLDS:
            return merged
        envs = [e for _, e in merged]
        one: Env = {}
        for d in set().union(*envs):
            vals = {e.get(d) for e in envs}
            one[d] = vals.pop() if len(vals) == 1 and None not in vals else \
                self._unknown(d, at, f"'{self.vars.get(d, d)}' takes too many values")
        common_id = merged[0][0]
        for wid, _ in merged[1:]:
            k = 0
            while k < min(len(common_id), len(wid)) and common_id[k] == wid[k]:
                k += 1
            common_id = common_id[:k]
        return [(common_id, one)]

    def _loop(self, loop: n.For | n.While, worlds: list[World], record: bool
              ) -> list[World]:
        inside = {d.decl for d in loop.walk() if isinstance(d, n.VarDecl)}
        written = sorted(self._writes(loop) - inside)  # (a body's own locals start anew)
        tag = loop.span.start
        if not written:
            self._body(loop, worlds, record)
            return worlds
        self.written |= set(written)
        if self._depth >= MAX_LOOP_DEPTH:
            return [(wid, self._clobber(loop, dict(env))) for wid, env in worlds]
        entry = {d: self._symbol(f"{d}@L{tag}", self.points.sets.get(d)) for d in written}
        start = [(wid, {**env, **entry}) for wid, env in worlds]
        self._depth += 1
        try:
            out = self._body(loop, start, False)
            permuted = self._permutes(loop, out, entry) and all(
                all(self.atoms_distinct(env[a], env[b]) for a in written for b in written
                    if a < b and a in env and b in env) and all(d in env for d in written)
                for _, env in worlds)
            if permuted:
                may: set[str] | None = set()
                for _, env in worlds:
                    for d in written:
                        m = self.may.get(env[d])
                        may = None if m is None or may is None else may | m
                for sym in entry.values():
                    self.may[sym] = frozenset(may) if may is not None else None
                    self.perm[sym] = f"L{tag}"
            self._body(loop, start, record)
        finally:
            self._depth -= 1
        after: list[World] = []
        for wid, env in worlds:
            env = dict(env)
            for d in written:
                if permuted:
                    sym = self._symbol(f"{d}@E{tag}", self.may[entry[d]])
                    self.perm[sym] = f"E{tag}"
                    env[d] = sym
                else:
                    env[d] = self._unknown(d, loop, f"'{self.vars[d]}' changes in the loop")
            after.append((wid, env))
        return after

    def _body(self, loop: n.For | n.While, worlds: list[World], record: bool) -> list[World]:
        worlds = [(wid, self._effects(loop.cond, dict(env), False)) if loop.cond is not None
                  else (wid, env) for wid, env in worlds]
        worlds = self._stmt(loop.body, worlds, record)
        if isinstance(loop, n.For) and loop.inc is not None:
            worlds = [(wid, self._effects(loop.inc, dict(env), False)) for wid, env in worlds]
        return worlds

    def _permutes(self, loop: n.Stmt, out: list[World], entry: dict[str, str]) -> bool:
        """Whether one run of the body leaves the written pointers holding a permutation of
        what they held at its start (every path; none leaves the body early)."""
        if any(isinstance(x, (n.Return, n.OtherStmt)) for x in loop.walk()) or \
                _leaves(loop):
            return False
        want = sorted(entry.values())
        return all(sorted(env.get(d, "") for d in entry) == want for _, env in out)

    def _writes(self, node: n.Node) -> set[str]:
        """Pointer variables the node may write (assigned, exchanged, given by address or
        by reference to a call)."""
        out: set[str] = set()
        for x in node.walk():
            target = None
            if isinstance(x, n.Binary) and x.is_assignment:
                target = _strip(x.lhs)
            elif isinstance(x, n.Unary) and x.op in ("++", "--", "&"):
                target = _strip(x.operand)
            if isinstance(target, n.Ref) and target.decl in self.vars:
                out.add(target.decl)
            if isinstance(x, n.Call):
                out |= {r.decl for r in self._by_reference(x)}
        return out

    def _by_reference(self, call: n.Call) -> list[n.Ref]:
        """Pointer variables a call is given by reference (`std::swap(a, b)`, a helper
        taking `float *&`)."""
        fn = self.definition(call)
        refs = []
        for i, a in enumerate(call.args):
            r = _strip(a)
            if not (isinstance(r, n.Ref) and r.decl in self.vars):
                continue
            if fn is not None and i < len(fn.params) and fn.params[i].is_reference or \
                    fn is None and call.callee in LIBRARY_SWAPS:
                refs.append(r)
        return refs

    def _clobber(self, s: n.Node, env: Env) -> Env:
        for d in self._writes(s):
            self.written.add(d)
            env[d] = self._unknown(d, s, f"'{self.vars[d]}' is written by a statement "
                                         "cudafuse does not evaluate")
        return env

    # ---- expressions --------------------------------------------------------------------------

    def _effects(self, e: n.Expr | None, env: Env, record: bool, top: bool = False) -> Env:
        """The pointer variables `e` writes, evaluated in order (operands first)."""
        e = _strip(e)
        if e is None:
            return env
        if isinstance(e, n.KernelLaunch):
            return env
        if isinstance(e, n.Binary) and e.is_assignment:
            env = self._effects(e.rhs, env, record)
            target = _strip(e.lhs)
            if isinstance(target, n.Ref) and target.decl in self.vars:
                self.written.add(target.decl)
                if e.op == "=":
                    env[target.decl] = self._value(e.rhs, env, e)
                    if top:
                        self.modelled.add(id(e))
                else:  # p += off: inside the same buffer, at another offset
                    env[target.decl] = self._unknown(target.decl, e,
                                                     f"'{target.name}' is moved by an offset")
                return env
            return self._effects(e.lhs, env, record)
        if isinstance(e, n.Unary) and e.op in ("++", "--"):
            target = _strip(e.operand)
            if isinstance(target, n.Ref) and target.decl in self.vars:
                self.written.add(target.decl)
                env[target.decl] = self._unknown(target.decl, e,
                                                 f"'{target.name}' is moved by an offset")
                return env
        if isinstance(e, n.Call):
            for a in e.args:
                env = self._effects(a, env, record)
            return self._call(e, env, top)
        for c in e.children():
            if isinstance(c, n.Expr):
                env = self._effects(c, env, record)
        return env

    def _call(self, call: n.Call, env: Env, top: bool) -> Env:
        fn = self.definition(call)
        if fn is None and call.callee in LIBRARY_SWAPS and len(call.args) == 2:
            a, b = (_strip(x) for x in call.args)
            if isinstance(a, n.Ref) and isinstance(b, n.Ref) and a.decl in self.vars and \
                    b.decl in self.vars:
                env[a.decl], env[b.decl] = env.get(b.decl, ""), env.get(a.decl, "")
                self.written |= {a.decl, b.decl}
                if top:
                    self.modelled.add(id(call))
                return env
        addressed = [(i, v) for i, a in enumerate(call.args)
                     if (v := _var_of_address(a)) is not None and v in self.vars]
        refs = {r.decl for r in self._by_reference(call)}
        by_ref = [(i, r.decl) for i, a in enumerate(call.args)
                  if isinstance(r := _strip(a), n.Ref) and r.decl in refs]
        if not addressed and not by_ref:
            return env
        if call.callee in ALLOCATORS:
            for i, v in addressed:
                self.written.add(v)
                env[v] = self._allocation(v, call) if i == 0 else \
                    self._unknown(v, call, f"its address is passed to '{call.callee}'")
            return env
        if fn is not None:
            got = _HelperRun(self, fn, call, env).run()
            if got is not None:
                if top:
                    self.modelled.add(id(call))
                    self.modelled.update(id(_strip(call.args[i])) for i, _ in addressed)
                self.written |= {v for _, v in addressed + by_ref}
                return got
        for i, v in addressed + by_ref:
            self.written.add(v)
            if self.points.allocates is not None and call.args and \
                    self.points.allocates(call, i):
                env[v] = self._allocation(v, call)
            else:
                env[v] = self._unknown(v, call, f"'{self.vars[v]}' is given to "
                                                f"'{call.callee}', which may change it")
        return env

    def _allocation(self, v: str, call: n.Node) -> str:
        """A fresh buffer: the root pointsto.py names after the local (one allocation site),
        or one per site, which may be the root's other buffers."""
        if self._alloc_sites.get(v, 0) <= 1 and v not in self.points.params:
            return self._root(v)
        atom = self._symbol(f"{v}#{call.span.start}", frozenset({v}))
        self.perm[atom] = "fresh"  # fresh memory: no other buffer still in use
        return atom

    def _value(self, e: n.Expr, env: Env, at: n.Node) -> str:
        got = self._eval(e, env, at)
        if got is None:
            got = self._symbol(f"?@{at.span.start}:{e.span.start}", self.points.roots(e),
                               f"a value cudafuse does not follow at line {at.span.line}")
        return got

    def _eval(self, e: n.Expr | None, env: Env, at: n.Node | None) -> str | None:
        """The atom a pointer expression holds (None: not followed; with `at`, the caller
        makes a symbol for it)."""
        e = _strip(e)
        if e is None:
            return None
        if isinstance(e, n.Ref):
            if e.decl in self.escaped:
                return self._symbol(f"?escaped:{e.decl}", None,
                                    f"'{e.name}' may be changed through a reference, a kept "
                                    "address or a lambda")
            if e.decl in env:
                return env[e.decl]
            if e.kind == "global":
                return self._root(e.decl or e.name)
            if e.kind == "local" and e.decl in self.points.decls and \
                    self.points.decls[e.decl].array_dims:
                return self._root(e.decl)
            if e.kind == "param" and e.decl in self.points.params:
                return self._root(e.decl)
            return None
        if isinstance(e, n.Member):
            key = struct_field(e)
            if key is not None and key.rpartition(".")[0] not in self.points.changed_structs:
                return self._root(key)
            return None
        if isinstance(e, n.Binary) and e.op == ",":
            return self._eval(e.rhs, env, at)
        if isinstance(e, n.IntLit) and e.value == 0 or \
                isinstance(e, n.OtherExpr) and e.kind in ("CXX_NULL_PTR_LITERAL_EXPR",
                                                          "GNU_NULL_EXPR"):
            return self._symbol("null", frozenset())
        if isinstance(e, n.Call) and e.callee in FRESH_CALLS or \
                isinstance(e, n.OtherExpr) and e.kind == "CXX_NEW_EXPR":
            return self._root(f"new@{e.span.start}")
        if at is None:
            return None
        if isinstance(e, n.Cond):  # one of two: a value of its own
            a, b = self._eval(e.then, env, at), self._eval(e.else_, env, at)
            ma = self.may.get(a) if a is not None else None
            mb = self.may.get(b) if b is not None else None
            return self._symbol(f"?@{at.span.start}:{e.span.start}",
                                None if ma is None or mb is None else ma | mb,
                                f"a choice cudafuse does not follow at line {at.span.line}")
        if isinstance(e, n.Binary) and e.op in ("+", "-"):  # another offset in its buffer
            base = self._eval(e.lhs, env, at)
            return self._symbol(f"?@{at.span.start}:{e.span.start}",
                                self.may.get(base) if base is not None else None,
                                f"pointer arithmetic at line {at.span.line}")
        return None


class _HelperRun:
    """A helper of the program given pointer variables by address (`float **`) or by
    reference (`float *&`), run on the caller's values: straight-line bodies of copies and
    exchanges (a swap helper); anything else gives up (None)."""

    def __init__(self, outer: PointerValues, fn: Function, call: n.Call, env: Env):
        self.outer, self.fn, self.call = outer, fn, call
        self.env = dict(env)
        self.local: Env = {}
        self.slot: dict[str, str] = {}  # helper param decl -> caller variable decl
        self.deref: dict[str, str] = {}  # `T **` param decl -> caller variable decl

    def run(self) -> Env | None:
        fn = self.fn
        if fn.body is None or fn.is_template and not self.call.callee_decl:
            return None
        for i, p in enumerate(fn.params):
            if i >= len(self.call.args):
                return None
            a = _strip(self.call.args[i])
            v = _var_of_address(self.call.args[i])
            if p.is_reference and isinstance(a, n.Ref) and a.decl in self.outer.vars:
                self.slot[p.decl] = a.decl
            elif v is not None and v in self.outer.vars:
                self.deref[p.decl] = v
            elif _is_pointer(p.type) and p.type.count("*") == 1:
                got = self.outer._eval(a, self.env, None)
                if got is None:
                    return None
                self.local[p.decl] = got
        for s in fn.body.body:
            if isinstance(s, n.Return) and s is fn.body.body[-1] and s.value is None:
                break
            if isinstance(s, n.DeclStmt):
                for d in s.decls:
                    if d.array_dims or d.init is None or not _is_pointer(d.var_type):
                        return None
                    got = self.read(d.init)
                    if got is None:
                        return None
                    self.local[d.decl] = got
            elif isinstance(s, n.ExprStmt) and isinstance(s.expr, n.Binary) and \
                    s.expr.op == "=":
                got = self.read(s.expr.rhs)
                if got is None or not self.write(s.expr.lhs, got):
                    return None
            elif isinstance(s, n.ExprStmt) and isinstance(s.expr, n.Call) and \
                    s.expr.callee in LIBRARY_SWAPS and len(s.expr.args) == 2:
                x, y = (self.read(a) for a in s.expr.args)
                if x is None or y is None or not self.write(s.expr.args[0], y) or \
                        not self.write(s.expr.args[1], x):
                    return None
            else:
                return None
        return self.env

    def _place(self, e: n.Expr) -> tuple[str, str] | None:
        """Where an lvalue lives: ('outer', caller decl) or ('local', helper decl)."""
        e = _strip(e)
        if isinstance(e, n.Unary) and e.op == "*":
            p = _strip(e.operand)
            if isinstance(p, n.Ref) and p.decl in self.deref:
                return "outer", self.deref[p.decl]
            return None
        if isinstance(e, n.Ref):
            if e.decl in self.slot:
                return "outer", self.slot[e.decl]
            if e.decl in self.local:
                return "local", e.decl
        return None

    def read(self, e: n.Expr) -> str | None:
        place = self._place(e)
        if place is None:
            return None
        kind, d = place
        return self.env.get(d) if kind == "outer" else self.local.get(d)

    def write(self, e: n.Expr, value: str) -> bool:
        place = self._place(e)
        if place is None:
            return False
        kind, d = place
        (self.env if kind == "outer" else self.local)[d] = value
        return True


def _var_of_address(e: n.Expr) -> str | None:
    """`&v` (through casts): v's decl."""
    e = _strip(e)
    if isinstance(e, n.Unary) and e.op == "&":
        r = _strip(e.operand)
        if isinstance(r, n.Ref) and r.kind in ("local", "param"):
            return r.decl
    return None


def _leaves(loop: n.Stmt) -> bool:
    """A break or continue of this loop (not of a loop or switch inside it)."""
    def visit(node: n.Node, inner: bool) -> bool:
        if isinstance(node, (n.Break, n.Continue)) and not inner:
            return True
        for c in node.children():
            if c is not None and visit(c, inner or isinstance(c, (n.For, n.While)) or
                                       isinstance(c, n.OtherStmt)):
                return True
        return False
    body = loop.body if isinstance(loop, (n.For, n.While)) else loop
    return visit(body, False)
