"""What each host pointer variable may point to: a small may-point-to dataflow over one host
function.

Buffers are *roots*: a pointer parameter (distinct parameters are assumed not to alias, as
with `__restrict__`), a global, a data member of `this`, or the memory a local pointer is
given by an allocation (`cudaMalloc(&t, ...)`, `t = new float[n]`, `malloc`, or a helper of
the program that only allocates through the address it is given, `alloc(&t, n)`: a fresh
buffer, named by the local). A pointer variable may point to the roots of every value it is ever
given: its initialiser, assignments (`?:` gives both sides' roots, `p + off` the roots of
`p`), and `std::swap` with another pointer. The analysis ignores the order of statements,
so its sets hold at every point of the function (loops and rotations included); a value
it cannot follow (a call's result other than an allocation, a field, an element of an
array of pointers, an address passed to a function that may store through it) makes the
variable's set unknown (None).

Two pointer expressions provably name different buffers when both sets are known and
disjoint. A variable set once from another whose value never changes afterwards
(`const float *src = in;`) is a *stable alias*: at every launch it names exactly that
variable's buffer.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from cudafuse.analysis.memo import per_object
from cudafuse.ir import nodes as n
from cudafuse.ir.casts import strip_casts as _strip
from cudafuse.ir.program import Function
from cudafuse.passes.vertical.host.hostexprs import changed_structs, struct_field
from cudafuse.passes.vertical.host.pointer_tables import PointerTables

ALLOCATORS = frozenset({"cudaMalloc", "cudaMallocManaged", "cudaMallocAsync", "cudaMallocPitch",
                        "cudaMallocHost", "cudaHostAlloc", "cudaMallocFromPoolAsync",
                        "cudaMalloc3D"})
# Calls whose result is fresh memory.
FRESH_CALLS = frozenset({"malloc", "calloc", "aligned_alloc", "operator new",
                         "operator new[]"})
SWAPS = frozenset({"swap", "std::swap"})

Roots = frozenset[str]


def _var(e: n.Expr | None) -> n.Ref | None:
    e = _strip(e)
    return e if isinstance(e, n.Ref) and e.kind in ("local", "param") else None


def is_pointer_type(t: str) -> bool:
    return "*" in t or "[" in t


_SMART = re.compile(r"(?:std::)?(?:unique_ptr|auto_ptr|shared_ptr)<")


def _owned_init(init: n.Expr) -> bool:
    """`unique_ptr<T>(new T[n])`, `std::make_unique<T[]>(n)`: fresh memory, given values."""
    init = _strip(init)
    if not isinstance(init, n.Call):
        return False
    args = [_strip(a) for a in init.args]
    if init.callee in ("make_unique", "make_shared"):
        return all(a is not None and not is_pointer_type(a.type) for a in args)
    return len(args) == 1 and isinstance(args[0], n.OtherExpr) and \
        args[0].kind == "CXX_NEW_EXPR"


def _subscript_owner(call: n.Node, owners: set[str]) -> str | None:
    if not (isinstance(call, n.Call) and call.callee == "operator[]" and call.args):
        return None
    base = _strip(call.args[0])
    return base.decl if isinstance(base, n.Ref) and base.decl in owners else None


class PointsTo:
    """May-point-to sets of one host function's pointer variables (see the module text)."""

    def __init__(self, host: Function,
                 allocates: Callable[[n.Call, int], bool] | None = None,
                 definition: Callable[[n.Call], Function | None] | None = None):
        """`allocates(call, i)`: whether the call (of a helper of the program) only stores
        a fresh allocation through its i-th argument, a pointer's address (effects.py).
        `definition(call)`: the function of the program a call runs, if any: a pointer
        variable it takes by reference (`float *&p`) may be given anything, unless the
        helper only exchanges the pointers it is given (`only_exchanges`)."""
        assert host.body is not None
        self.host = host
        self.allocates = allocates
        self.definition = definition
        self.helper_fresh: set[str] = set()  # locals a helper allocates (by address)
        body = host.body
        self.decls = {d.decl: d for d in body.walk() if isinstance(d, n.VarDecl)}
        self.params = {p.decl: p for p in host.params}
        # decl -> expressions it is given (None: something the analysis cannot follow)
        self.given: dict[str, list[n.Expr | None]] = {}
        self.fresh: set[str] = set()  # locals given an allocation
        self.swapped: list[tuple[str, str]] = []
        self.writes: dict[str, list[n.Node]] = {}  # decl -> nodes writing it
        for d in self.decls.values():
            if d.init is not None:
                self.given.setdefault(d.decl, []).append(d.init)
        for node in body.walk():
            self._collect(node)
        self.changed_structs = changed_structs(body)
        self.tables = PointerTables(host, self._stable_after)
        self.owners = self._owners(body)
        self.sets = self._solve()

    # ---- smart pointers -----------------------------------------------------------------------

    def _owners(self, body: n.Node) -> set[str]:
        """Local smart pointers (`std::unique_ptr<int> h(new int[n])`, `std::auto_ptr`,
        `std::shared_ptr`, `std::make_unique<float[]>(n)`) that own the fresh host memory
        they are initialised with and are used only through `.get()` and `[i]`: each is a
        buffer of its own, named by the local (no launch can reach it unless given it).
        Any other use (reset, release, a move, a copy, passed to a function) keeps the
        pointer it holds unknown."""
        found = {d for d, v in self.decls.items() if _SMART.match(v.var_type.replace(
            "const ", "").strip()) and not v.array_dims and v.init is not None and
            _owned_init(v.init)}
        for node in body.walk():
            if isinstance(node, n.Call) and (self.smart_get(node, found) is not None or
                                             _subscript_owner(node, found) is not None):
                continue
            for c in node.children():
                if isinstance(c, n.Ref) and c.decl in found and not (
                        isinstance(node, n.Member) and not node.arrow and
                        node.field_name == "get"):
                    found.discard(c.decl)
        return found

    def smart_get(self, call: n.Node, owners: set[str] | None = None) -> str | None:
        """The owning smart pointer whose `.get()` the call is, if it is one."""
        owners = self.owners if owners is None else owners
        if not (isinstance(call, n.Call) and call.callee == "get" and not call.args and
                isinstance(call.callee_expr, n.Member) and not call.callee_expr.arrow):
            return None
        base = _strip(call.callee_expr.base)
        return base.decl if isinstance(base, n.Ref) and base.decl in owners else None

    def owned_element(self, call: n.Node) -> str | None:
        """The owning smart pointer whose element `h[i]` the call (operator[]) reads."""
        return _subscript_owner(call, self.owners)

    def owner_init(self, call: n.Node) -> bool:
        """The construction of an owning smart pointer's fresh memory (its initialiser)."""
        # (their initialisers by identity, collected once: asked of every node of every
        # host statement, a scan of the declarations made long host functions quadratic)
        inits = self.__dict__.get("_owner_inits")
        if inits is None:
            inits = self.__dict__["_owner_inits"] = {
                id(v.init) for d, v in self.decls.items() if d in self.owners}
        return id(call) in inits

    # ---- facts ------------------------------------------------------------------------------

    def _collect(self, node: n.Node) -> None:
        if isinstance(node, n.Binary) and node.is_assignment:
            v = _var(node.lhs)
            if v is not None:
                self.writes.setdefault(v.decl, []).append(node)
                if node.op != "+=" and node.op != "-=":  # p += off: still its buffer
                    self.given.setdefault(v.decl, []).append(
                        node.rhs if node.op == "=" else None)
        elif isinstance(node, n.Unary) and node.op in ("++", "--"):
            v = _var(node.operand)
            if v is not None:  # p++: still inside its buffer
                self.writes.setdefault(v.decl, []).append(node)
        elif isinstance(node, n.Call):
            if node.callee in SWAPS and len(node.args) == 2:
                a, b = _var(node.args[0]), _var(node.args[1])
                if a is not None and b is not None:
                    self.swapped.append((a.decl, b.decl))
                    self.writes.setdefault(a.decl, []).append(node)
                    self.writes.setdefault(b.decl, []).append(node)
                    return
            fn = self.definition(node) if self.definition is not None else None
            if fn is not None and only_exchanges(fn):
                # it moves the values of the variables it is given among them
                given = [v.decl for a in node.args
                         if (v := _var(_strip(a).operand if isinstance(_strip(a), n.Unary)
                                       and _strip(a).op == "&" else a)) is not None  # type: ignore[union-attr]
                         and is_pointer_type(v.type)]
                for a, b in zip(given, given[1:], strict=False):
                    self.swapped.append((a, b))
                for d in given:
                    self.writes.setdefault(d, []).append(node)
                return
            for i, arg in enumerate(node.args):
                arg = _strip(arg)
                if fn is not None and i < len(fn.params) and fn.params[i].is_reference and \
                        (v := _var(arg)) is not None and is_pointer_type(v.type):
                    self.writes.setdefault(v.decl, []).append(node)
                    if v.kind == "local" and self.allocates is not None and \
                            self.allocates(node, i):
                        self.fresh.add(v.decl)  # `alloc(d_buf, n)` taking `float *&`
                        self.helper_fresh.add(v.decl)
                    else:
                        self.given.setdefault(v.decl, []).append(None)  # set by the callee
                    continue
                if isinstance(arg, n.Unary) and arg.op == "&":
                    v = _var(arg.operand)
                    if v is None or not is_pointer_type(v.type):
                        continue
                    self.writes.setdefault(v.decl, []).append(node)
                    if node.callee in ALLOCATORS and i == 0:
                        self.fresh.add(v.decl)
                    elif self.allocates is not None and v.kind == "local" and \
                            self.allocates(node, i):
                        self.fresh.add(v.decl)  # `alloc(&d_buf, n)`: cudaMalloc inside
                        self.helper_fresh.add(v.decl)
                    else:  # the callee may store any pointer there
                        self.given.setdefault(v.decl, []).append(None)

    def _solve(self) -> dict[str, Roots | None]:
        sets: dict[str, Roots | None] = {}
        for d in self.params:
            sets[d] = frozenset({d})
        for d in self.decls:
            sets[d] = frozenset({d}) if d in self.fresh else frozenset()
        for _ in range(len(sets) + 2):  # monotone: at most one change per variable and root
            changed = False
            for d, values in self.given.items():
                acc = sets.get(d, frozenset())
                for e in values:
                    got = None if e is None or acc is None else self._eval(e, sets)
                    acc = None if got is None or acc is None else acc | got
                if acc != sets.get(d):
                    sets[d], changed = acc, True
            for a, b in self.swapped:
                sa, sb = sets.get(a), sets.get(b)
                both = None if sa is None or sb is None else sa | sb
                if both != sa or both != sb:
                    sets[a] = sets[b] = both
                    changed = True
            if not changed:
                break
        return sets

    def _eval(self, e: n.Expr, sets: dict[str, Roots | None]) -> Roots | None:
        e = _strip(e)
        elem = self.tables.element(e) if e is not None else None
        if elem is not None:  # `bufs[0]` of a table set once (pointer_tables.py)
            return self._eval(elem, sets)
        if isinstance(e, n.Ref):
            if e.kind == "local" and e.decl in self.owners:
                return frozenset({e.decl})  # a smart pointer: the memory it owns
            if e.kind in ("local", "param"):
                if e.decl in self.decls and self.decls[e.decl].array_dims:
                    return frozenset({e.decl})  # a local array is its own buffer
                return sets.get(e.decl, frozenset())
            if e.kind == "global":
                return frozenset({e.decl or e.name})
            return None
        if isinstance(e, n.Member):  # `img.data` of a struct parameter it never changes
            key = struct_field(e)
            return None if key is None or key.rpartition(".")[0] in self.changed_structs \
                else frozenset({key})
        if isinstance(e, n.Cond):
            a, b = self._eval(e.then, sets), self._eval(e.else_, sets)
            return None if a is None or b is None else a | b
        if isinstance(e, n.Binary) and e.op in ("+", "-"):
            if is_pointer_type(_strip(e.lhs).type if _strip(e.lhs) else "") or \
                    self.smart_get(_strip(e.lhs)) is not None:  # (its type: `pointer`)
                return self._eval(e.lhs, sets)
            if e.op == "+" and is_pointer_type(_strip(e.rhs).type if _strip(e.rhs) else ""):
                return self._eval(e.rhs, sets)
            return None
        if isinstance(e, n.Binary) and e.op == ",":
            return self._eval(e.rhs, sets)
        if isinstance(e, n.IntLit) and e.value == 0:
            return frozenset()
        if isinstance(e, n.OtherExpr) and e.kind in ("CXX_NULL_PTR_LITERAL_EXPR",
                                                     "GNU_NULL_EXPR"):
            return frozenset()
        if isinstance(e, (n.Call, n.OtherExpr)) and self._allocation(e):
            return frozenset({f"new@{e.span.start}"})
        if isinstance(e, n.Call) and (owner := self.smart_get(e)) is not None:
            return frozenset({owner})  # the memory the smart pointer owns
        if isinstance(e, n.Call) and self.definition is not None and \
                (fn := self.definition(e)) is not None and returns_fresh(fn):
            return frozenset({f"new@{e.span.start}"})  # `float *t = dev_alloc(n);`
        return None

    @staticmethod
    def _allocation(e: n.Expr) -> bool:
        return isinstance(e, n.Call) and e.callee in FRESH_CALLS or (
            isinstance(e, n.OtherExpr) and e.kind == "CXX_NEW_EXPR")

    # ---- questions ----------------------------------------------------------------------------

    def roots(self, e: n.Expr) -> Roots | None:
        """The buffers a pointer expression may name (None: unknown)."""
        e = _strip(e)
        if isinstance(e, n.Unary) and e.op == "&" and isinstance(e.operand, n.Index) and \
                is_pointer_type(e.operand.base.type):
            return self.roots(e.operand.base)  # `&t[k]`: part of t's buffer
        if isinstance(e, n.Unary) and e.op == "&":
            v = _var(e.operand)  # the variable itself: host memory of its own
            return frozenset({f"&{v.decl}"}) if v is not None else None
        return self._eval(e, self.sets) if e is not None else None

    def disjoint(self, a: n.Expr, b: n.Expr) -> bool:
        ra, rb = self.roots(a), self.roots(b)
        return ra is not None and rb is not None and not ra & rb

    def stable_alias(self, e: n.Expr) -> n.Ref | None:
        """The variable a local pointer is a stable alias of (see the module text), through
        chains of them; None when `e` is not one."""
        v = _var(e)
        seen: set[str] = set()
        found = None
        while v is not None and v.kind == "local" and v.decl not in seen:
            seen.add(v.decl)
            d = self.decls.get(v.decl)
            if d is None or self.writes.get(d.decl) or d.array_dims:
                break
            src = _var(d.init)
            if src is None or not is_pointer_type(src.type) or \
                    any(w.span.start >= d.span.start or self._in_loop_around(w, d)
                        for w in self.writes.get(src.decl, [])):
                break
            found = v = src
        return found

    def selection(self, e: n.Expr) -> bool:
        """A local pointer set once, by its initialiser, to one of several known buffers
        (`float *dst = flip ? out : buf;`): one buffer at every launch after it, which one
        known only at run time."""
        v = _var(e)
        d = self.decls.get(v.decl) if v is not None and v.kind == "local" else None
        if d is None or d.init is None or self.writes.get(d.decl) or d.array_dims or \
                not is_pointer_type(d.var_type):
            return False
        roots = self.roots(d.init)
        return roots is not None and len(roots) > 1

    def element(self, e: n.Expr | None) -> n.Ref | None:
        """The buffer variable `e` names when it is an element of a table of buffers set
        once (`bufs[0]` of `float *bufs[] = {t, out};`: pointer_tables.py)."""
        return self.tables.element(e)

    def _stable_after(self, v: n.Ref, d: n.VarDecl) -> bool:
        """Whether variable v keeps its value from declaration d on."""
        return not any(w.span.start >= d.span.start or self._in_loop_around(w, d)
                       for w in self.writes.get(v.decl, []))

    def _in_loop_around(self, w: n.Node, d: n.VarDecl) -> bool:
        """Is the write inside a loop that also holds the declaration (the next iteration
        writes the variable after the alias was taken)?"""
        assert self.host.body is not None
        return any(isinstance(lp, (n.For, n.While)) and
                   lp.span.start <= w.span.start < lp.span.end and
                   lp.span.start <= d.span.start < lp.span.end
                   for lp in self.host.body.walk())


# Calls that may be given a freshly allocated pointer without keeping it: they touch the
# memory it names, not the pointer.
_TOUCH_ONLY = frozenset({"cudaMemset", "cudaMemsetAsync", "cudaMemcpy", "cudaMemcpyAsync",
                         "memset", "memcpy"})


@per_object()
def returns_fresh(fn: Function) -> bool:
    """Each call of the helper returns memory of its own, named by nothing else: every
    `return` gives an allocation (`return (float *)malloc(n);`) or a non-static local that
    only an allocation sets (`float *p; cudaMalloc(&p, n); return p;`) and that is otherwise
    only given to memsets and copies. A helper returning a parameter, a global, a static
    local (the same buffer at every call) or a pointer it also stored elsewhere does not
    qualify, nor one that calls itself."""
    if fn.body is None or fn.is_kernel or "*" not in fn.return_type:
        return False
    rets = [r for r in fn.body.walk() if isinstance(r, n.Return)]
    if not rets or any(isinstance(c, n.Call) and c.callee_decl == fn.decl and fn.decl
                       for c in fn.body.walk()):
        return False
    points = PointsTo(fn)
    decls = {d.decl: d for d in fn.body.walk() if isinstance(d, n.VarDecl)}
    for r in rets:
        v = _strip(r.value)
        if v is not None and PointsTo._allocation(v):
            continue
        if not (isinstance(v, n.Ref) and v.kind == "local" and v.decl in decls) or \
                "static" in decls[v.decl].storage or \
                points.sets.get(v.decl) != frozenset({v.decl}) or \
                not _only_allocated(fn.body, v.decl, rets):
            return False
    return True


def _only_allocated(body: n.Compound, decl: str, rets: list[n.Return]) -> bool:
    """Every mention of the local is its allocation (`&p` given to an allocator, `p =
    malloc(...)`), a memset or copy of its memory, a test of it, or a return."""
    allowed: set[int] = set()
    for node in body.walk():
        if isinstance(node, n.Call) and (node.callee in ALLOCATORS or
                                         node.callee in _TOUCH_ONLY):
            allowed.update(id(x) for x in node.walk())
        elif isinstance(node, n.Binary) and node.op == "=" and \
                (v := _var(node.lhs)) is not None and v.decl == decl and \
                PointsTo._allocation(_strip(node.rhs) or node.rhs):
            allowed.update(id(x) for x in node.walk())
        elif isinstance(node, (n.If, n.While)) or isinstance(node, n.Unary) and node.op == "!":
            cond = node.cond if isinstance(node, (n.If, n.While)) else node.operand
            if isinstance(_strip(cond), n.Ref) or isinstance(node, n.Unary):
                allowed.update(id(x) for x in cond.walk())  # `if (!p)`, `if (p == ...)`
        elif isinstance(node, n.Binary) and node.op in ("==", "!="):
            allowed.update(id(x) for x in node.walk())
    allowed.update(id(x) for r in rets for x in r.walk())
    return all(id(x) in allowed for x in body.walk()
               if isinstance(x, n.Ref) and x.decl == decl)


def only_exchanges(fn: Function) -> bool:
    """A helper whose body only moves the pointers it is given by address (`float **`) or by
    reference (`float *&`) among themselves: pointer locals copied from them, assignments
    between them, library swaps of them (`void exchange(float **a, float **b) { float *t =
    *a; *a = *b; *b = t; }`). It may leave each of them holding any of their values."""
    if fn.body is None or not fn.body.body:
        return False
    slots = {p.decl for p in fn.params if p.is_reference and is_pointer_type(p.type)}
    boxes = {p.decl for p in fn.params if not p.is_reference and p.type.count("*") == 2}
    if not slots and not boxes:
        return False
    local: set[str] = set()

    def place(e: n.Expr | None) -> bool:
        e = _strip(e)
        if isinstance(e, n.Unary) and e.op == "*":
            r = _strip(e.operand)
            return isinstance(r, n.Ref) and r.decl in boxes
        return isinstance(e, n.Ref) and (e.decl in slots or e.decl in local)

    for s in fn.body.body:
        if isinstance(s, n.Return) and s is fn.body.body[-1] and s.value is None:
            continue
        if isinstance(s, n.DeclStmt) and all(
                not d.array_dims and is_pointer_type(d.var_type) and place(d.init)
                for d in s.decls):
            local |= {d.decl for d in s.decls}
        elif isinstance(s, n.ExprStmt) and isinstance(s.expr, n.Binary) and \
                s.expr.op == "=" and place(s.expr.lhs) and place(s.expr.rhs):
            pass
        elif isinstance(s, n.ExprStmt) and isinstance(s.expr, n.Call) and \
                s.expr.callee in SWAPS | {"thrust::swap"} and len(s.expr.args) == 2 and \
                all(place(a) for a in s.expr.args):
            pass
        else:
            return False
    return True


# ---- rotation by parity ---------------------------------------------------------------------

def _counter(loop: n.For) -> str | None:
    """The counter a for loop steps by exactly one (`t++`, `++t`, `t += 1`, `t = t + 1`)."""
    inc = _strip(loop.inc)
    one = (lambda x: isinstance(_strip(x), n.IntLit) and _strip(x).value == 1)  # noqa: E731
    if isinstance(inc, n.Unary) and inc.op == "++":
        v = _var(inc.operand)
    elif isinstance(inc, n.Binary) and inc.op == "+=" and one(inc.rhs):
        v = _var(inc.lhs)
    elif isinstance(inc, n.Binary) and inc.op == "=" and isinstance(_strip(inc.rhs), n.Binary):
        r = _strip(inc.rhs)
        assert isinstance(r, n.Binary)
        v = _var(inc.lhs)
        if not (v is not None and r.op == "+" and (
                (_var(r.lhs) is not None and _var(r.lhs).decl == v.decl and one(r.rhs)) or  # type: ignore[union-attr]
                (_var(r.rhs) is not None and _var(r.rhs).decl == v.decl and one(r.lhs)))):  # type: ignore[union-attr]
            v = None
    else:
        v = None
    return v.decl if v is not None else None


def _parity_of(e: n.Expr | None, t: str) -> bool:
    """`t % 2`, `t & 1`, or either compared with 0 or 1: true on every other value of t."""
    e = _strip(e)
    if isinstance(e, n.Binary) and e.op in ("==", "!=") and isinstance(_strip(e.rhs), n.IntLit) \
            and _strip(e.rhs).value in (0, 1):  # type: ignore[union-attr]
        e = _strip(e.lhs)
    if isinstance(e, n.Binary) and e.op in ("%", "&"):
        v, k = _var(e.lhs), _strip(e.rhs)
        want = 2 if e.op == "%" else 1
        return v is not None and v.decl == t and isinstance(k, n.IntLit) and k.value == want
    return False


def parity_pairs(points: PointsTo) -> dict[frozenset[str], tuple[int, int]]:
    """Pointer pairs a time loop rotates by the parity of its counter:

        const float *src = in;                       // src set right before the loop
        for (int t = 0; t < steps; ++t) {
            float *dst = t % 2 ? out : buf;          // out and buf distinct, neither in
            ... launches reading src, writing dst ...
            src = dst;                               // src's only write in the loop
        }

    At step t, dst is the buffer of t's parity and src the previous step's (or `in`), so
    the two are distinct buffers at every launch between dst's and src's assignments.
    Returns {frozenset((src, dst)): (start, end)}: the source range where that holds."""
    host = points.host
    assert host.body is not None
    out: dict[frozenset[str], tuple[int, int]] = {}
    for lst in (x for x in host.body.walk() if isinstance(x, n.Compound)):
        for k, loop in enumerate(lst.body):
            if not isinstance(loop, n.For) or not isinstance(loop.body, n.Compound):
                continue
            t = _counter(loop)
            if t is None or any(loop.body.span.start <= w.span.start < loop.body.span.end
                                for w in points.writes.get(t, [])) or \
                    any(isinstance(x, (n.Continue, n.OtherStmt)) for x in loop.body.walk()):
                continue
            found = _parity_pair(points, lst.body[:k], loop, t)
            if found is not None:
                out[found[0]] = found[1]
    return out


def _parity_pair(points: PointsTo, before: tuple[n.Stmt, ...], loop: n.For, t: str
                 ) -> tuple[frozenset[str], tuple[int, int]] | None:
    body = loop.body.body  # type: ignore[attr-defined]
    for i, stmt in enumerate(body):
        got = _selection(stmt)
        if got is None:
            continue
        dst, cond, a, b = got
        ra, rb = points.roots(a), points.roots(b)
        if not _parity_of(cond, t) or ra is None or rb is None or ra & rb or \
                len(points.writes.get(dst.decl, [])) > (0 if isinstance(stmt, n.DeclStmt)
                                                        else 1):
            continue
        for j in range(i + 1, len(body)):
            e = body[j].expr if isinstance(body[j], n.ExprStmt) else None
            src = _var(e.lhs) if isinstance(e, n.Binary) and e.op == "=" else None
            if src is None or _var(e.rhs) is None or _var(e.rhs).decl != dst.decl:  # type: ignore[union-attr]
                continue
            start = _initial(points, before, src.decl, loop)
            if start is None or start & (ra | rb):
                break
            return frozenset((src.decl, dst.decl)), (stmt.span.end, body[j].span.start)
    return None


def _selection(stmt: n.Stmt) -> tuple[n.Ref, n.Expr, n.Expr, n.Expr] | None:
    """`p = c ? a : b;` or `T *p = c ? a : b;`: (p, c, a, b)."""
    if isinstance(stmt, n.DeclStmt) and len(stmt.decls) == 1:
        d = stmt.decls[0]
        init = _strip(d.init)
        if isinstance(init, n.Cond):
            return n.Ref(name=d.name, kind="local", decl=d.decl, type=d.var_type), \
                init.cond, init.then, init.else_
    e = stmt.expr if isinstance(stmt, n.ExprStmt) else None
    if isinstance(e, n.Binary) and e.op == "=" and isinstance(_strip(e.rhs), n.Cond):
        v = _var(e.lhs)
        c = _strip(e.rhs)
        assert isinstance(c, n.Cond)
        if v is not None:
            return v, c.cond, c.then, c.else_
    return None


def _initial(points: PointsTo, before: tuple[n.Stmt, ...], src: str, loop: n.For
             ) -> Roots | None:
    """What `src` names when the loop starts, when every write of it but the loop's last
    one is its declaration or an assignment among the statements right before the loop
    (so each time the loop starts, src was just set)."""
    writes = [w for w in points.writes.get(src, [])
              if not loop.span.start <= w.span.start < loop.span.end]
    d = points.decls.get(src)
    value = None
    if d is not None and any(s.span.start <= d.span.start < s.span.end for s in before):
        value = d.init
    elif d is not None:
        return None  # declared elsewhere: its value when the loop starts is not known here
    if src in points.params:
        return None
    for w in writes:
        if not any(s.span.start <= w.span.start < s.span.end for s in before) or \
                not (isinstance(w, n.Binary) and w.op == "="):
            return None
        value = w.rhs  # (in order: the last one before the loop wins)
    return points.roots(value) if value is not None else None


# ---- pointer parameters a visible call passes one buffer ---------------------------------------

def _permuted(points: PointsTo, a: str, b: str) -> bool:
    """Variables a and b only ever exchange values by library swaps among a set of pointer
    variables that start out naming pairwise distinct known buffers (`std::swap(a, b)` in a
    loop): a permutation of distinct buffers, so a and b name different ones at every point."""
    group, todo = {a}, [a]
    while todo:
        x = todo.pop()
        for p, q in points.swapped:
            for u, v in ((p, q), (q, p)):
                if u == x and v not in group:
                    group.add(v)
                    todo.append(v)
    if b not in group:
        return False
    start: list[Roots] = []
    for v in group:
        for w in points.writes.get(v, []):
            if not (isinstance(w, n.Call) and w.callee in SWAPS and all(
                    (x := _var(arg)) is not None and x.decl in group for arg in w.args)):
                return False
        if v in points.params:
            start.append(frozenset({v}))
            continue
        d = points.decls.get(v)
        roots = points.roots(d.init) if d is not None and d.init is not None else None
        if roots is None or not roots or v in points.fresh or \
                len(points.given.get(v, [])) != 1:
            return False
        start.append(roots)
    return all(not (x & y) for i, x in enumerate(start) for y in start[i + 1:])


@per_object(64)
def _points_of(fn: Function) -> PointsTo:
    return PointsTo(fn)


@per_object(4)
def _calls_in(unit) -> dict[str, list[tuple[Function, n.Call]]]:
    """The calls of each function of the unit that the unit's host functions make, by the
    callee's declaration (one walk of every body)."""
    out: dict[str, list[tuple[Function, n.Call]]] = {}
    seen: set[int] = set()
    for caller in [*unit.functions, *unit.methods]:
        if caller.body is None or id(caller) in seen or caller.is_kernel:
            continue
        seen.add(id(caller))
        for c in caller.body.walk():
            if isinstance(c, n.Call) and c.callee_decl:
                out.setdefault(c.callee_decl, []).append((caller, c))
    return out


def _calls_of(unit, fn: Function) -> list[tuple[Function, n.Call]]:
    return _calls_in(unit).get(fn.decl, []) if fn.decl else []


def visible_aliasing(unit, host: Function, touched: list[tuple[n.Expr, bool]]) -> str | None:
    """Why the fused launches of `host` (their pointer arguments in its terms, each with
    whether a launch of the group writes through it) cannot take two of its pointer
    parameters, or a parameter and a global, as distinct buffers: a call of `host` in the
    file (or, through a caller's own parameters, of a function calling it) passes them
    arguments that may name the same buffer (one variable, offsets into one, a value the
    analysis cannot follow). None when every visible call passes provably distinct ones."""
    if not _calls_of(unit, host):
        return None  # (no call of it in the file: its parameters are taken as distinct)
    points = _points_of(host)
    roots: list[tuple[Roots, bool]] = []
    for e, writes in touched:
        r = points.roots(e)
        if r is not None:
            roots.append((r, writes))
    pairs: set[tuple[str, str]] = set()
    position = {p.decl: i for i, p in enumerate(host.params)}
    # (the roots a call's arguments stand for: its pointer parameters, and the globals it
    # names, the same in the caller; fields of struct parameters are taken as distinct)
    assert host.body is not None
    kept = set(points.params) | {r.decl or r.name for r in host.body.walk()
                                 if isinstance(r, n.Ref) and r.kind == "global"}

    def order(r: str) -> tuple[int, str]:
        return position.get(r, len(position)), r
    for i, (ra, wa) in enumerate(roots):
        for rb, wb in roots[i + 1:] + roots[:i]:
            if not (wa or wb):
                continue
            for x in ra:
                for y in rb:
                    if x != y and {x, y} <= kept and (x in points.params or
                                                      y in points.params):
                        pairs.add((x, y) if order(x) <= order(y) else (y, x))
    cache: dict[int, PointsTo] = {id(host): points}
    for x, y in sorted(pairs, key=lambda p: (order(p[0]), order(p[1]))):
        why = _aliased_at_calls(unit, host, x, y, cache, set())
        if why is not None:
            return why
    return None


def _aliased_at_calls(unit, fn: Function, x: str, y: str, cache: dict[int, PointsTo],
                      seen: set[tuple[str, str, str]]) -> str | None:
    """A call in the file of `fn` whose arguments for its roots x and y (parameters of fn, or
    a global) may name one buffer: the reason, naming the call."""
    if (fn.decl, x, y) in seen:
        return None
    seen.add((fn.decl, x, y))
    index = {p.decl: i for i, p in enumerate(fn.params)}
    names = {p.decl: p.name for p in fn.params}
    for caller, call in _calls_of(unit, fn):
        points = cache.get(id(caller))
        if points is None:
            points = cache[id(caller)] = _points_of(caller)

        def arg(r: str, call: n.Call = call, points: PointsTo = points
                ) -> tuple[n.Expr | None, Roots | None]:
            if r in index:
                i = index[r]
                if i >= len(call.args):
                    return None, frozenset()  # a default argument
                return call.args[i], points.roots(call.args[i])
            return None, frozenset({r})  # a global: the same one in the caller
        (ea, ra), (eb, rb) = arg(x), arg(y)
        if ea is None and eb is None:
            continue
        va, vb = _var(ea), _var(eb)
        if va is not None and vb is not None and va.decl != vb.decl and \
                _permuted(points, va.decl, vb.decl):
            continue

        def said(e: n.Expr | None) -> str:
            text = unit.text(e.span) if e is not None and e.span.file == unit.path and \
                e.span.end > e.span.start else "?"
            return f"'{text}'"
        where = f"'{fn.name}' is called at line {call.span.line}"
        pa, pb = names.get(x), names.get(y)
        if pa is None or pb is None:  # a parameter and a global its launches use
            e, p = (ea, pa) if pb is None else (eb, pb)
            g = next((v.name for v in unit.globals if (v.decl or v.name) == (x if pa is None
                                                                            else y)), "?")
            if (ra if pb is None else rb) is None:
                return (f"{where} with {said(e)} for '{p}', which may name the global '{g}' "
                        f"its launches use (a value the analysis cannot follow)")
            if not ra & rb:
                continue
            return f"{where} with {said(e)} for '{p}', which may name the global '{g}' " \
                "its launches use"
        if ra is None or rb is None:
            return (f"{where} with {said(ea)} for '{pa}' and {said(eb)} for '{pb}', "
                    "which may name the same buffer (a value the analysis cannot follow)")
        common = ra & rb
        if not common:
            continue
        if va is not None and vb is not None and va.decl == vb.decl:
            return f"{where} with '{va.name}' for both '{pa}' and '{pb}'"
        return (f"{where} with {said(ea)} for '{pa}' and {said(eb)} for '{pb}', "
                "which may name the same buffer")
    # a caller's own parameters, passed on: the calls of that caller decide
    for caller, call in _calls_of(unit, fn):
        points = cache[id(caller)]
        ra = points.roots(call.args[index[x]]) if x in index and index[x] < len(call.args) \
            else (frozenset({x}) if x not in index else frozenset())
        rb = points.roots(call.args[index[y]]) if y in index and index[y] < len(call.args) \
            else (frozenset({y}) if y not in index else frozenset())
        if ra is None or rb is None:
            continue
        globals_ = {g.decl or g.name for g in unit.globals}
        for u in ra:
            for v in rb:
                if u != v and {u, v} <= set(points.params) | globals_ and \
                        (u in points.params or v in points.params):
                    why = _aliased_at_calls(unit, caller, min(u, v), max(u, v), cache, seen)
                    if why is not None:
                        return why
    return None
