"""What a called host function touches, read from its body (issue 25: host code by meaning).

A call between two launches of a group is harmless when nothing it does can observe or
change what the earlier launches compute (hoststmts.py says why only the earlier ones
matter). A helper the program defines (`upload(d_in, h_in, n)`, `report(h_out, n)`,
`check(err, #x, __FILE__, __LINE__)`, a helper that launches its own kernels) is judged here
by its body, not cut as an unknown call. Its *effects* are said in its own terms:

* the parameters through which it may read or write memory: a dereference (`p[i]`, `*p`,
  `p->f`), a runtime call that touches memory (cudaMemcpy/cudaMemset/cudaFree, an allocator
  given the pointer itself rather than a variable's address), a kernel launch given the
  pointer, a call of the C library given it, or a call of another helper that touches its
  own parameter there (followed a few levels, MAX_DEPTH);
* the globals it names that way, or that a kernel it launches names;
* the reference parameters it assigns (the caller's variable then changes), and the host
  globals it assigns.

Which buffer each pointer may be comes from the may-point-to sets of the helper
(pointsto.py): memory the helper allocates itself, its locals and its by-value parameters'
own storage are its own and touch nothing of the caller. A pointer whose set is unknown,
a call of a function cudafuse cannot see (other than the harmless ones hoststmts.py knows
by name), a member of `this`, or an expression the IR does not model makes the helper's
effects unknown: the call then splits the sequence, with why. `cudaEventRecord` is a time
stamp, and a timer's events (members of its object) are read for it, unless the file may
order work or memory by an event (timers.py).

The caller (HostStatements.effects_reason) maps each touched parameter to the roots of the
argument it is given and compares them with the buffers of the launches before the call.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass

from cudafuse.ir import nodes as n
from cudafuse.ir.casts import strip_casts as _strip
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.passes.vertical.host.exceptions import (
    thrown_constructor_body,
    unseen_initialisers,
)
from cudafuse.passes.vertical.host.hostexprs import is_assign_operator, launched_kernel
from cudafuse.passes.vertical.host.members import this_member
from cudafuse.passes.vertical.host.pointsto import ALLOCATORS, PointsTo
from cudafuse.passes.vertical.host.stmtnodes import _assigned, _deref_base, _nodes, _quiet
from cudafuse.passes.vertical.host.timers import own_event, timing_arguments

MAX_DEPTH = 6


@dataclass(frozen=True)
class Effects:
    """A helper's effects in its own terms: `touched` holds `param:<index>` (the memory its
    argument points to) and `global:<decl>`; `assigned` holds the indices of reference
    parameters it assigns; `globals_assigned` the host globals it assigns."""

    touched: frozenset[str] = frozenset()
    assigned: frozenset[int] = frozenset()
    globals_assigned: frozenset[str] = frozenset()
    # Parameters (pointers to pointers) it only stores a fresh allocation through:
    # `void alloc(float **p, int n) { cudaMalloc((void **)p, n * sizeof(float)); }`.
    allocates: frozenset[int] = frozenset()
    # It records an event that is a member of its object (a timer's `Start()`): the caller
    # checks that the object is its own (timers.own_event).
    records_member: bool = False
    # It reads (never writes, never follows as a pointer) data members of its object (a
    # checker class's `operator()` printing its `where_`): harmless when that object is a
    # variable the caller holds by value (host memory: checked there, by_value_object).
    reads_members: bool = False


class Unknown(Exception):
    """Why a helper's effects cannot be read (the message is the reason the user sees)."""


# The judge of the calls a body makes that are neither helpers nor memory calls:
# (call, inside a throw) -> None when harmless by name, else the reason.
KnownCall = Callable[[n.Call, bool], "str | None"]


class EffectReader:
    """Reads host functions' effects (cached per function)."""

    def __init__(self, unit: TranslationUnit, memory_calls: dict[str, tuple[tuple[int, ...],
                                                                          tuple[int, ...]]],
                 definition: Callable[[str], Function | None],
                 named: Callable[[str], list[Function]],
                 known: Callable[[n.Call, bool], bool],
                 kernel_globals: Callable[[Function], frozenset[str]],
                 event_reason: Callable[[], str | None] = lambda: "events are not read"):
        self.unit = unit
        # Why a `cudaEventRecord` may order work (timers.py), None when it only times.
        self.event_reason = event_reason
        self.memory_calls = memory_calls
        self.definition, self.named, self.known = definition, named, known
        self.kernel_globals = kernel_globals
        self._cache: dict[str, Effects | str] = {}

    def effects(self, fn: Function, stack: tuple[str, ...] = ()) -> Effects | str:
        """The function's effects, or why they cannot be read."""
        if fn.decl in self._cache:
            return self._cache[fn.decl]
        try:
            got: Effects | str = _Body(self, fn, stack).read()
        except Unknown as e:
            got = str(e)
        if not stack or isinstance(got, Effects):  # (a reason under recursion is its own)
            self._cache[fn.decl] = got
        return got


class _Body:
    def __init__(self, reader: EffectReader, fn: Function, stack: tuple[str, ...]):
        if fn.space == "global" or fn.body is None:
            raise Unknown(f"'{fn.name}' is not a host function cudafuse can see")
        if fn.decl in stack or len(stack) > MAX_DEPTH:
            raise Unknown(f"'{fn.name}' calls itself or nests too deeply")
        if unseen_initialisers(reader.unit, fn):
            raise Unknown(f"'{fn.name}' has member initialisers cudafuse does not read")
        self.reader, self.fn, self.stack = reader, fn, (*stack, fn.decl)
        self.points = PointsTo(fn)
        self.params = {p.decl: i for i, p in enumerate(fn.params)}
        self.refs = {p.decl: i for i, p in enumerate(fn.params) if p.is_reference}
        self.locals = {d.decl for d in fn.body.walk() if isinstance(d, n.VarDecl)}
        self.touched: set[str] = set()
        self.assigned: set[int] = set()
        self.globals_assigned: set[str] = set()
        self.allocates: set[int] = set()
        self.allocated_at: dict[str, int] = {}  # `T **p` param -> where it allocates into *p
        self.records_member = False
        self.reads_members = False
        self.values = {d.decl for d in fn.body.walk() if isinstance(d, n.VarDecl) and
                       "&" not in d.var_type and "*" not in d.var_type}  # objects it owns
        # A timer's events, members of its object, given to the timing event calls
        # (`cudaEventRecord(start_, 0)` in `GpuTimer::Start`): read for their time stamps.
        self.timing = {id(a) for c in fn.body.walk() if isinstance(c, n.Call)
                       for a in timing_arguments(c) if this_member(a) is not None}

    def read(self) -> Effects:
        name = self.fn.name
        assert self.fn.body is not None
        for node, thrown in _nodes(self.fn.body):
            if isinstance(node, n.OtherExpr) and not _quiet(node) and \
                    not (thrown and node.kind != "LAMBDA_EXPR"):
                raise Unknown(f"'{name}' contains an expression cudafuse does not model")
            if this_member(node) is not None and \
                    id(_strip(node)) not in self.timing:  # type: ignore[arg-type]
                if self.fn.parent and not _members_written(self.fn):
                    self.reads_members = True  # (a pointer member used is touched below)
                else:
                    raise Unknown(f"'{name}' uses a data member of its object")
            if self._allocated(node):
                continue  # `*p` after `cudaMalloc(p, ...)`: the buffer it allocated
            base = _deref_base(node)
            if base is not None:
                self.touch(base, "reads or writes memory through")
            for r in _assigned(node):
                self.assign(r)
            if isinstance(node, n.KernelLaunch):
                self.launch(node)
            elif isinstance(node, n.Call):
                self.call(node, thrown)
        allocates = {i for i in self.allocates if f"param:{i}" not in self.touched}
        return Effects(frozenset(self.touched), frozenset(self.assigned),
                       frozenset(self.globals_assigned), frozenset(allocates),
                       self.records_member, self.reads_members)

    # ---- what one pointer names ---------------------------------------------------------

    def _allocated(self, e: n.Node) -> bool:
        """`*p` where the helper has stored a fresh allocation through its parameter p
        (`cudaMalloc(p, ...)` before it): the new buffer, which only the helper touches
        until it returns it to the caller."""
        e = _strip(e) if isinstance(e, n.Expr) else e
        if not (isinstance(e, n.Unary) and e.op == "*"):
            return False
        p = _strip(e.operand)
        return isinstance(p, n.Ref) and p.decl in self.allocated_at and \
            e.span.start > self.allocated_at[p.decl]

    def touch(self, e: n.Expr, how: str) -> None:
        """The memory `e` points to is read or written."""
        if self._allocated(e):
            return
        roots = self.points.roots(e)
        if roots is None:
            raise Unknown(f"'{self.fn.name}' {how} '{_name(e)}', which cudafuse cannot follow")
        for r in roots:
            self._root(r, e, how)

    def _root(self, r: str, e: n.Expr, how: str) -> None:
        if r.startswith("new@"):
            return  # memory it allocates itself
        if r.startswith("&"):  # a variable's own storage
            decl = r[1:]
            if decl in self.refs:
                self.assigned.add(self.refs[decl])
            elif decl not in self.params and decl not in self.locals:
                raise Unknown(f"'{self.fn.name}' {how} the address of '{_name(e)}'")
            return
        if r.rpartition(".")[0] in self.params:  # a struct parameter's field (struct_field):
            # passing the struct whole leaves the caller's field unknown
            raise Unknown(f"'{self.fn.name}' {how} '{_name(e)}', which cudafuse cannot follow")
        if r in self.params:
            self.touched.add(f"param:{self.params[r]}")
        elif r in self.locals:
            return  # a local array, or a buffer it allocated
        else:
            self.touched.add(f"global:{r}")

    def assign_address(self, e: n.Expr) -> None:
        """`&v` given to a helper that allocates through it: v is assigned."""
        e = _strip(e)
        assert isinstance(e, n.Unary)
        target = _lvalue(e.operand)
        if target is None:
            raise Unknown(f"'{self.fn.name}' allocates into '{_name(e)}'")
        self.assign(target)

    def assign(self, r: n.Ref) -> None:
        if r.kind == "local" or r.decl in self.locals:
            return
        if r.kind == "param":
            if r.decl in self.refs:
                self.assigned.add(self.refs[r.decl])
            return  # a by-value parameter is the helper's own copy
        g = next((g for g in self.reader.unit.globals if g.decl == r.decl), None)
        if r.kind == "global" and g is not None and g.space == "host":
            self.globals_assigned.add(r.decl)
            return
        raise Unknown(f"'{self.fn.name}' assigns '{r.name}'")

    # ---- launches and calls ---------------------------------------------------------------

    def launch(self, la: n.KernelLaunch) -> None:
        kernel = launched_kernel(self.reader.unit, la)
        if kernel is None:
            raise Unknown(f"'{self.fn.name}' launches '{la.kernel}', whose body cudafuse "
                          "cannot see")
        for p, a in zip(kernel.params, la.args, strict=False):
            if p.holds_pointers:
                raise Unknown(f"'{self.fn.name}' launches '{la.kernel}' with '{_name(a)}', "
                              "which carries pointers cudafuse does not follow")
            if p.is_pointer or "*" in a.type or "[" in a.type:
                self.touch(a, f"launches '{la.kernel}' with")
        for g in self.reader.kernel_globals(kernel):
            self.touched.add(f"global:{g}")

    def call(self, call: n.Call, thrown: bool) -> None:
        name = call.callee or "?"
        if name == "cudaEventRecord":
            why = self.reader.event_reason()
            if why is None and call.args:
                if this_member(call.args[0]) is not None:
                    self.records_member = True  # (the caller's object: checked there)
                else:
                    why = own_event(self.fn, call.args[0])
            if why is not None:
                raise Unknown(f"'{self.fn.name}' records an event: {why}")
            return  # a time stamp (timers.py)
        if name in self.reader.memory_calls:
            writes, reads = self.reader.memory_calls[name]
            for i, a in enumerate(call.args):
                if i in writes or i in reads:
                    self.touch(a, f"calls '{name}' on")
            if name in ALLOCATORS and call.args and not _address_of(call.args[0]):
                p = _strip(call.args[0])
                if isinstance(p, n.Ref) and p.decl in self.params and \
                        p.decl not in self.refs and not self.points.writes.get(p.decl):
                    self.allocates.add(self.params[p.decl])  # stores through it, only that
                    if not _in_loop(self.fn, call):
                        self.allocated_at.setdefault(p.decl, call.span.end)
                else:
                    self.touch(call.args[0], f"calls '{name}' on")
            elif name in ALLOCATORS and call.args:
                r = _strip(_strip(call.args[0]).operand)  # type: ignore[attr-defined]
                if isinstance(r, n.Ref) and r.decl in self.refs and all(
                        isinstance(w, n.Call) and w.callee in ALLOCATORS
                        for w in self.points.writes.get(r.decl, [])):
                    self.allocates.add(self.refs[r.decl])  # `float *&p`: cudaMalloc(&p, ...)
            return
        inner = self.reader.definition(call.callee_decl)
        if thrown and inner is not None and thrown_constructor_body(inner) is not None and \
                self.reader.known(call, thrown):
            return  # the program's exception class, judged by what it evaluates (issue 31)
        if inner is not None and (not self.reader.known(call, thrown) or
                                  _own_file(self.reader.unit, call)):
            self.helper(call, [inner])
            return
        if self.reader.known(call, thrown):
            return
        if not call.callee_decl and call.callee:
            named = self.reader.named(call.callee)  # a call a template left unresolved
            if named:
                self.helper(call, named)
                return
        if _vector_maker(call):
            return  # make_float2(x, y): a value
        if library_call(call) and self._own_object(call):
            return  # a method of a standard container it owns (`std::vector<T> v;`)
        if library_call(call) and all(plain_argument(a) for a in call.args) and \
                not isinstance(call.callee_expr, n.Member) and \
                not call.callee.startswith("operator"):  # (a method reaches its object too)
            for a in call.args:  # the C library touches memory only through its arguments
                if "*" in a.type or "[" in a.type:
                    self.touch(a, f"calls '{name}' on")
            return
        raise Unknown(f"'{self.fn.name}' calls '{name}'")

    def helper(self, call: n.Call, fns: list[Function]) -> None:
        for inner in fns:
            got = self.reader.effects(inner, self.stack)
            if isinstance(got, str):
                raise Unknown(got)
            for t in got.touched:
                kind, _, what = t.partition(":")
                if kind == "global":
                    self.touched.add(t)
                elif int(what) < len(call.args):
                    self.touch(call.args[int(what)], f"passes to '{inner.name}'")
                else:
                    raise Unknown(f"'{inner.name}' touches a default argument")
            if got.records_member:
                obj = call.callee_expr.base if isinstance(call.callee_expr, n.Member) \
                    else None
                why = "its object is not known" if obj is None else own_event(self.fn, obj)
                if why is not None:
                    raise Unknown(f"'{inner.name}' records an event of its object: {why}")
            if got.reads_members and not by_value_object(call, self.values):
                raise Unknown(f"'{inner.name}' reads data members of an object cudafuse "
                              "cannot follow")
            for i in got.allocates:
                p = _strip(call.args[i]) if i < len(call.args) else None
                if isinstance(p, n.Ref) and p.decl in self.params and \
                        p.decl not in self.refs and not self.points.writes.get(p.decl):
                    self.allocates.add(self.params[p.decl])
                elif p is not None and _address_of(p):
                    self.assign_address(p)
                else:
                    raise Unknown(f"'{inner.name}' allocates through a pointer cudafuse "
                                  "cannot follow")
            for i in got.assigned:
                target = _lvalue(call.args[i]) if i < len(call.args) else None
                if target is None:
                    raise Unknown(f"'{inner.name}' assigns a reference cudafuse cannot follow")
                self.assign(target)
            self.globals_assigned |= got.globals_assigned


    def _own_object(self, call: n.Call) -> bool:
        return own_library_object(call, self.values)


def own_library_object(call: n.Call, values: Collection[str]) -> bool:
    """A member (or operator) of the C++ library called on an object the function declares
    by value (`values`), given only plain values besides: it touches that object, which is
    the function's own. A chain of stream operators (`os << what << ": " << msg`) is called
    on the object at its root: each returns the stream it was given."""
    args = list(call.args)
    obj = _strip(call.callee_expr.base) if isinstance(call.callee_expr, n.Member) and \
        not call.callee_expr.arrow else None
    if obj is None and args and call.callee.startswith("operator"):
        obj = _strip(args.pop(0))
        while isinstance(obj, n.Call) and obj.callee in ("operator<<", "operator>>") and \
                obj.callee == call.callee and library_call(obj) and obj.args and \
                all(plain_argument(a) or _vector_type(a.type) for a in obj.args[1:]):
            obj = _strip(obj.args[0])
    return isinstance(obj, n.Ref) and obj.decl in values and \
        all(plain_argument(a) or _vector_type(a.type) for a in args)


def _members_written(fn: Function) -> bool:
    """Whether the member function may write a data member of its object: it assigns one
    (`n_ = `, `++this->n_`, an element or field of one) or takes one's address."""
    assert fn.body is not None
    for node in fn.body.walk():
        target = node.lhs if isinstance(node, n.Binary) and node.is_assignment else \
            node.operand if isinstance(node, n.Unary) and node.op in ("++", "--", "&") else \
            node.args[0] if isinstance(node, n.Call) and is_assign_operator(node) and \
            node.args else None
        while target is not None:
            if this_member(target) is not None:
                return True
            target = target.operand if isinstance(target, n.Cast) else \
                target.base if isinstance(target, (n.Member, n.Index)) else None
    return False


def by_value_object(call: n.Call, values: Collection[str]) -> bool:
    """Whether the object a member function (or call operator) is called on is a variable
    in `values` (held by value, so host memory of the caller's own)."""
    obj = call.callee_expr.base if isinstance(call.callee_expr, n.Member) and \
        not call.callee_expr.arrow else \
        call.args[0] if call.callee.startswith("operator") and call.args else None
    obj = _strip(obj) if obj is not None else None
    return isinstance(obj, n.Ref) and obj.decl in values


def _in_loop(fn: Function, node: n.Node) -> bool:
    assert fn.body is not None
    return any(isinstance(x, (n.For, n.While)) and x.span.start <= node.span.start < x.span.end
               for x in fn.body.walk())


_VECTOR = re.compile(r"(?:const\s+)?(?:u?char|u?short|u?int|u?long|longlong|ulonglong|float|"
                     r"double)[1-4]")


def _vector_type(t: str) -> bool:
    """A CUDA vector type by value (`uint2`, `const float4`)."""
    return _VECTOR.fullmatch(t.replace("&", "").strip()) is not None


def _vector_maker(call: n.Call) -> bool:
    """`make_uint2(r, c)` of the CUDA headers: builds a value from its arguments."""
    f = _file(call.callee_decl)
    return call.callee.startswith("make_") and _vector_type(call.callee[5:]) and (
        "cuda" in f or not f)


def _name(e: n.Expr) -> str:
    while isinstance(e, (n.Cast, n.Unary)):
        e = e.operand
    if isinstance(e, n.Member):
        return f"{_name(e.base)}{'->' if e.arrow else '.'}{e.field_name}"
    return e.name if isinstance(e, n.Ref) else "?"


def _address_of(e: n.Expr) -> bool:
    while isinstance(e, n.Cast):
        e = e.operand
    return isinstance(e, n.Unary) and e.op == "&"


def _lvalue(e: n.Expr) -> n.Ref | None:
    while isinstance(e, n.Cast):
        e = e.operand
    while isinstance(e, n.Member) and not e.arrow:
        e = e.base
    return e if isinstance(e, n.Ref) else None


def _file(decl: str) -> str:
    return decl.partition("@")[2].rpartition(":")[0]


def _own_file(unit: TranslationUnit, call: n.Call) -> bool:
    return _file(call.callee_decl) == unit.path


def library_call(call: n.Call) -> bool:
    """A function of the C or C++ library (not CUDA's, not Thrust's: those reach device
    memory in ways of their own)."""
    f = _file(call.callee_decl)
    return (f.startswith("/usr/include") or "/include/c++/" in f) and "cuda" not in f and \
        "thrust" not in f


def plain_argument(e: n.Expr) -> bool:
    """An argument through which a library call can reach only the memory it points to:
    a scalar, or a pointer to scalars (not to pointers, not a struct that may hold some)."""
    t = e.type.replace("const", "").replace("volatile", "").strip()
    if t.count("*") + t.count("[") > 1:
        return False
    base = re.sub(r"\[[^\]]*\]", "", t).replace("*", "").strip()  # `float[8]`: float
    return base.split()[-1:] != [] and (base.startswith(("unsigned ", "signed ")) or base in {
        "char", "short", "int", "long", "long long", "float", "double", "bool", "void",
        "size_t", "unsigned", "long double", "int8_t", "uint8_t", "int16_t", "uint16_t",
        "int32_t", "uint32_t", "int64_t", "uint64_t", "FILE", "std::size_t"})
