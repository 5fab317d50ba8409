"""Launches spelled by the values their host scalars hold at them, so that a sequence may
continue across the assignment of a scalar that earlier launches read (issue 25):

    dim3 block = 256, grid = (n + 255) / 256;
    scale<<<grid, block>>>(in, tmp, n);
    block = dim3(32, 8);                      // what `scale` launched with changes here
    grid = dim3((w + 31) / 32, (h + 7) / 8);
    blur<<<grid, block>>>(tmp, out, w, h);

A fused group evaluates its launches' arguments where its last launch stands (and the
planner reads a producer's grid to prove it covers the producer's domain). After the
assignment `grid` names another value, so the launch of `scale` is re-spelled by the value
`grid` held at it: `dim3((n + 255) / 256)`, the right-hand side of the variable's last
assignment before it in the same statement list (or its declaration's initialiser), read
again, recursively, for the variables it names. That is the same value wherever the group's
launch stands only when every variable the value names is never assigned after its
declaration (a parameter the function never writes, a local that host_locals() lists, a
constant), or a host global no statement between the assignment and the launch may change
(`gridSize = (h_count + 1023) / 1024;` where a helper set `h_count` earlier: assigned, its
address taken, or written by a call there, as effects.py reads the called body, it is not
kept), and it calls nothing but `dim3`, the pure math functions and one-return helpers:
then the earlier launch's grid, block and scalar arguments are the value. (From the launch
on, such a global is named by the re-spelled launch, so a statement that changes it before
the group's last launch splits the sequence, as for a launch naming it itself.) When a
variable's value is not known that way (it is assigned inside a loop or a branch in
between, its address is taken or it is passed to a call in between, the value reads
memory, calls something else or is not found in the same statement list), the launch is
left as written and the assignment keeps splitting the sequence.

The value is printed where it was written, or, when the assignment converts it to the
variable's type (`size_t total = w * h;`), as that conversion spelled out.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Collection

from cudafuse.analysis.mathfuncs import MATH
from cudafuse.ir import nodes as n
from cudafuse.ir.casts import strip_casts as _strip
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.ir.source import NO_SPAN
from cudafuse.ir.substitute import replace_nodes
from cudafuse.ir.types import unqualified
from cudafuse.passes.vertical.host.hostexprs import is_assign_operator, side_effect_free
from cudafuse.passes.vertical.host.stmtnodes import _assigned, _quiet

# CUDA runtime calls that keep an address they are given (the device may use it later).
_KEEPS_ADDRESS = frozenset({"cudaHostRegister", "cudaHostGetDevicePointer",
                            "cudaGraphAddMemcpyNode", "cudaLaunchHostFunc"})

# C's printing functions: variadic, so what they are given is a copy.
_PRINTS = frozenset({"printf", "fprintf", "sprintf", "snprintf"})

MAX_DEPTH = 8  # variables whose values name variables, and helpers calling helpers


class ByValue:
    """Re-spells launches of one host function by the values of their scalars."""

    def __init__(self, unit: TranslationUnit, host: Function, stable: Collection[str],
                 written: Collection[str],
                 writes_global: Callable[[n.Stmt, str], bool] | None = None):
        """`writes_global(stmt, decl)`: whether the statement may change the host global
        (None: no global is kept)."""
        self.unit = unit
        self.writes_global = writes_global
        # Host globals of the main file whose address no code takes: no pointer or reference
        # elsewhere can change them unseen (a write through one is no assignment of theirs).
        self.host_globals = {g.decl for g in unit.globals if g.space == "host" and
                             g.span.file == unit.path and not g.is_extern} - \
            address_kept_globals(unit)
        self.stable = stable  # locals never assigned after their declaration (host_locals)
        self.written = written  # every variable the function assigns
        self.params = {p.decl for p in host.params}
        # A label (goto's, a case's) lets control reach a launch without passing the
        # assignment before it in the list: no value is read in such a function.
        self.jumps = host.body is not None and any(
            isinstance(x, n.OtherStmt) and ("GOTO" in x.kind or "LABEL" in x.kind or
                                            "CASE" in x.kind or "DEFAULT" in x.kind)
            for x in host.body.walk())
        self.escaped = _escaped(host.body) if host.body is not None else set()

    # ---- what a value may be -------------------------------------------------------------

    def _settled(self, r: n.Ref) -> bool:
        """A variable with one value wherever the sequence's launches stand."""
        if r.const_value is not None or r.kind in ("enum", "function"):
            return True
        if r.kind == "param":
            return r.decl in self.params and r.decl not in self.written and "&" not in r.type
        if r.kind == "local":
            return r.decl in self.stable and "&" not in r.type
        return r.kind == "global" and "const" in r.type.split("*")[0] and "&" not in r.type

    def _pure_call(self, call: n.Call, depth: int) -> bool:
        if call.callee == "dim3" or call.callee in MATH and call.callee_expr is None:
            return True
        fn = self._function(call.callee_decl)
        if fn is None or fn.body is None or len(fn.body.body) != 1 or depth >= MAX_DEPTH or \
                any(p.is_reference or "&" in p.type for p in fn.params):
            return False
        ret = fn.body.body[0]
        return isinstance(ret, n.Return) and ret.value is not None and \
            self._pure(ret.value, depth + 1, local_ok=True)

    def _function(self, decl: str) -> Function | None:
        """The definition a call names, in the file or a user header (llm.c's
        `ceil_div<T>` in common.h: frontend/header_callees.py)."""
        if not decl:
            return None
        return self.unit.callee(decl) or next(
            (f for f in self.unit.header_functions if f.decl == decl), None)

    def _pure(self, e: n.Expr, depth: int = 0, local_ok: bool = False) -> bool:
        """Free of side effects and of memory reads, so that evaluating it again elsewhere
        gives the same value when the variables it names are the same (`local_ok`: a
        helper's body, whose parameters are its own)."""
        for node in e.walk():
            if isinstance(node, (n.IntLit, n.FloatLit, n.BoolLit, n.Cast, n.Cond, n.InitList,
                                 n.Ref)):
                continue
            if isinstance(node, n.Binary) and not node.is_assignment and node.op != ",":
                continue
            if isinstance(node, n.Unary) and node.op in ("+", "-", "!", "~"):
                continue
            if isinstance(node, n.Member) and not node.arrow:
                continue
            if isinstance(node, n.OtherExpr) and _quiet(node) and \
                    node.kind != "CXX_THIS_EXPR":
                continue
            if isinstance(node, n.Call) and not is_assign_operator(node) and \
                    self._pure_call(node, depth):
                continue
            return False
        if local_ok:
            return not any(isinstance(x, n.Ref) and x.kind == "global" and
                           x.const_value is None and "const" not in x.type
                           for x in e.walk())
        return True

    # ---- the value a variable holds at a statement ---------------------------------------

    def _kept(self, r: n.Ref, stmts: tuple[n.Stmt, ...], j: int, until: int) -> bool:
        """A host global read at statement j that holds the same value at statement
        `until`: no statement between them may change it."""
        return self.writes_global is not None and r.kind == "global" and \
            r.decl in self.host_globals and r.decl not in self.escaped and \
            "&" not in r.type and \
            not any(self.writes_global(s, r.decl) for s in stmts[j + 1:until])

    def value_at(self, r: n.Ref, stmts: tuple[n.Stmt, ...], k: int, depth: int = 0,
                 until: int | None = None) -> n.Expr | None:
        """What variable `r` holds right before statement `k` of the list, as an
        expression naming only settled variables and host globals kept until statement
        `until` (k when None); None when that is not known."""
        until = k if until is None else until
        if depth >= MAX_DEPTH or r.kind not in ("local", "param") or "&" in r.type or \
                self.jumps or r.decl in self.escaped:
            return None
        fields: dict[int, n.Expr] = {}  # a dim3's component -> its value, set after
        for j in range(k - 1, -1, -1):
            s = stmts[j]
            field = _field_assignment(s, r)
            if field is not None:  # `grid.x = e;`: the latest one gives the component
                i, rhs = field
                if i not in fields:
                    value = self._settle(rhs, "unsigned int", stmts, j, depth, until)
                    if value is None:
                        return None
                    fields[i] = value
                continue
            got = _definition(s, r.decl)
            if got is not None:
                var_type, rhs = got
                if rhs is None:
                    return None
                if isinstance(s, n.DeclStmt):
                    rhs = self._own_spelling(rhs, r)
                value = self._settle(rhs, var_type, stmts, j, depth, until)
                return value if value is None or not fields else _with_fields(value, fields)
            if _touches(s, r.decl, self.unit):
                return None
        return None

    def _own_spelling(self, init: n.Expr, r: n.Ref) -> n.Expr:
        """A declaration's initialiser as a value to print elsewhere. For a direct
        initialisation (`dim3 grid(a, b);`, `dim3 grid{a, b};`) libclang's extent of the
        constructor call begins at the variable's name: `grid(a, b)` is no expression of the
        value (printed elsewhere it would call the variable), so it is printed from the IR
        (`dim3(a, b)`), without the default arguments clang adds (no text of their own)."""
        if self.unit.owns(init.span) and init.span.end > init.span.start and \
                re.match(rf"{re.escape(r.name)}\s*[({{]", self.unit.text(init.span)):
            if isinstance(init, n.Call):
                args = list(init.args)
                while args and isinstance(args[-1], n.OtherExpr) and not args[-1].items and \
                        args[-1].span.end == args[-1].span.start:
                    args.pop()
                return dataclasses.replace(init, args=tuple(args), span=NO_SPAN)
            return dataclasses.replace(init, span=NO_SPAN)
        return init

    def _settle(self, rhs: n.Expr, var_type: str, stmts: tuple[n.Stmt, ...], j: int,
                depth: int, until: int) -> n.Expr | None:
        """`rhs` (read at statement j) as the value the variable of type `var_type` holds
        at statement `until`: its own variables replaced by their values there (a host
        global kept as it is when it still holds that value), converted to the type."""
        if not self._pure(rhs):
            return None
        failed = False

        def change(node: n.Node) -> n.Node | None:
            nonlocal failed
            if isinstance(node, n.Ref) and node.kind in ("local", "param", "global") and \
                    not self._settled(node):
                if self._kept(node, stmts, j, until):
                    return None
                got = self.value_at(node, stmts, j, depth + 1, until)
                if got is None:
                    failed = True
                    return None
                return got
            return None

        value = replace_nodes(rhs, change)
        if failed:
            return None
        assert isinstance(value, n.Expr)
        core = _strip(value)
        if core is not None and (unqualified(core.type) == unqualified(var_type) or
                                 "auto" in var_type or "decltype" in var_type):
            return core  # (`auto n = w * h;` has its initialiser's type)
        # `size_t total = w * h;`: the conversion the assignment made, spelled out (a node
        # without text of its own is printed from the IR).
        return n.Cast(type=var_type.replace("&", "").strip(), operand=core or value,
                      explicit=True, span=NO_SPAN)

    # ---- launches ---------------------------------------------------------------------------

    def at_launch(self, launch: n.KernelLaunch, params: tuple, stmts: tuple[n.Stmt, ...],
                  k: int) -> n.KernelLaunch:
        """The launch at statement k with its grid, block and scalar arguments read by
        value where they name variables assigned elsewhere in the function: what the
        planner proves coverage and compares bounds with (the launch's own text, where it
        stands, is the same value)."""
        decls = {x.decl for e in (launch.grid, launch.block, *launch.args) for x in e.walk()
                 if isinstance(x, n.Ref) and x.kind in ("local", "param") and
                 not self._settled(x)}
        return self.respell(launch, params, decls, stmts, k) if decls else launch

    def respell(self, launch: n.KernelLaunch, params: tuple, decls: Collection[str],
                stmts: tuple[n.Stmt, ...], k: int) -> n.KernelLaunch:
        """The launch at statement k with each reference to a variable of `decls` in its
        grid, block and scalar arguments (those of `params`, the kernel's parameters; none
        when empty) replaced by the value it holds there (where that value is known); the
        launch itself when nothing changes."""
        def change(node: n.Node) -> n.Node | None:
            if isinstance(node, n.Ref) and node.decl in decls:
                return self.value_at(node, stmts, k)
            return None

        grid = replace_nodes(launch.grid, change)
        block = replace_nodes(launch.block, change)
        args = list(launch.args)
        for i, (p, a) in enumerate(zip(params, launch.args, strict=False)):
            if not (p.is_pointer or p.is_reference or p.holds_pointers or "*" in a.type):
                got = replace_nodes(a, change)
                # (an argument calling a function, even a pure one, is refused by legality:
                # such a value keeps the launch as written)
                if isinstance(got, n.Expr) and side_effect_free(got):
                    args[i] = got
        if grid is launch.grid and block is launch.block and \
                all(x is y for x, y in zip(args, launch.args, strict=True)):
            return launch
        return dataclasses.replace(launch, grid=grid, block=block, args=tuple(args))


_FIELDS = ("x", "y", "z")


def _field_assignment(s: n.Stmt, r: n.Ref) -> tuple[int, n.Expr] | None:
    """(component, value) when statement `s` is `v.x = e;` (or y, z) for the dim3 `r`, and
    e does not name v."""
    if unqualified(r.type) != "dim3" or not isinstance(s, n.ExprStmt):
        return None
    e = s.expr
    if not (isinstance(e, n.Binary) and e.op == "="):
        return None
    target = _strip(e.lhs)
    if not (isinstance(target, n.Member) and not target.arrow and
            target.field_name in _FIELDS):
        return None
    base = _strip(target.base)
    if not (isinstance(base, n.Ref) and base.decl == r.decl) or \
            any(isinstance(x, n.Ref) and x.decl == r.decl for x in e.rhs.walk()):
        return None
    return _FIELDS.index(target.field_name), e.rhs


def _with_fields(value: n.Expr, fields: dict[int, n.Expr]) -> n.Expr | None:
    """The dim3 `value` with the given components replaced: `dim3(x, y, z)` printed from
    the IR; None when its components are not written out (a dim3 variable or call)."""
    core = _strip(value)
    if isinstance(core, n.Call) and core.callee == "dim3":
        comps = list(core.args)
    elif isinstance(core, n.InitList):
        comps = list(core.items)
    elif unqualified(core.type) != "dim3":
        comps = [core]  # `dim3 grid = n;`
    else:
        return None
    while comps and isinstance(comps[-1], n.OtherExpr) and not comps[-1].items and \
            comps[-1].span.end == comps[-1].span.start:
        comps.pop()  # clang's default arguments
    if len(comps) > 3:
        return None
    comps += [n.IntLit(1, type="unsigned int")] * (3 - len(comps))
    for i, v in fields.items():
        comps[i] = v
    return n.Call(callee="dim3", args=tuple(comps), type="dim3", span=NO_SPAN)


def _definition(s: n.Stmt, decl: str) -> tuple[str, n.Expr | None] | None:
    """(the variable's type, the value it gets) when statement `s` declares the variable
    or assigns it as a whole (`v = e;`, `grid = dim3(...);`); (type, None) when it declares
    it without a value."""
    if isinstance(s, n.DeclStmt):
        for d in s.decls:
            if d.decl == decl:
                return d.var_type, (None if d.array_dims else d.init)
        return None
    if not isinstance(s, n.ExprStmt):
        return None
    e = s.expr
    if isinstance(e, n.Binary) and e.op == "=":
        target, rhs = _strip(e.lhs), e.rhs
    elif isinstance(e, n.Call) and e.callee == "operator=" and len(e.args) == 2:
        target, rhs = _strip(e.args[0]), e.args[1]
    else:
        return None
    if isinstance(target, n.Ref) and target.decl == decl:
        if any(decl in {r.decl for r in _assigned(x)} for x in rhs.walk()):
            return target.type, None  # `v = (v = 3) + 1`
        return target.type, rhs
    return None


def _touches(s: n.Stmt, decl: str, unit: TranslationUnit) -> bool:
    """Whether statement `s` may change the variable: it assigns it (or a member of it),
    takes its address, binds a reference to it, passes it to a call that may take it by
    reference, or names it in an expression the IR does not model (a lambda's capture).
    Reading it (`int blocks = ceil_div(total, 128);`) changes nothing; nor does a launch."""
    parents = _parents(s)
    for node in s.walk():
        if any(r.decl == decl for r in _assigned(node)):
            return True
        if not (isinstance(node, n.Ref) and node.decl == decl):
            continue
        child: n.Node = node
        parent = parents.get(id(child))
        while isinstance(parent, n.Cast):
            child, parent = parent, parents.get(id(parent))
        if isinstance(parent, n.Call) and child in parent.args and \
                not _by_value_argument(parent, parent.args.index(child), unit):
            return True
        if isinstance(parent, n.VarDecl) and "&" in parent.var_type:
            return True
        up: n.Node | None = node
        while up is not None and not isinstance(up, n.KernelLaunch):
            if isinstance(up, n.OtherExpr) and not _quiet(up):
                return True
            up = parents.get(id(up))
    return False


def _by_value_argument(call: n.Call, i: int, unit: TranslationUnit) -> bool:
    """Whether argument i of the call is taken by value (a copy the callee cannot write
    back through)."""
    if call.callee == "dim3" or call.callee in MATH and call.callee_expr is None:
        return True
    fn = unit.callee(call.callee_decl) if call.callee_decl else None
    return fn is not None and i < len(fn.params) and not fn.params[i].is_reference and \
        "&" not in fn.params[i].type


def address_kept_globals(unit: TranslationUnit) -> set[str]:
    """Host globals whose address may be kept somewhere in the unit: `&g` (but as a direct
    argument of a CUDA runtime call, which writes through it there and keeps nothing:
    `cudaMalloc(&d_img, n)`), a reference bound to g, or a call that may take g by reference,
    in any function cudafuse lowered; or `&g` in the main file's code outside its functions
    (an initialiser of another global, `int *p = &g;`, which the IR does not hold; text
    only ever takes a global out of what is kept)."""
    decls = {g.decl for g in unit.globals if g.space == "host"}
    out: set[str] = set()
    for fn in (*unit.functions, *unit.header_functions):
        if fn.body is None:
            continue
        out |= address_leaks(fn.body) & decls
        parents = _parents(fn.body)
        for node in fn.body.walk():
            if not (isinstance(node, n.Ref) and node.decl in decls):
                continue
            child: n.Node = node
            parent = parents.get(id(child))
            while isinstance(parent, n.Cast):
                child, parent = parent, parents.get(id(parent))
            # (CUDA's runtime is a C API: what it is given is a copy; its C++ templates that
            # take a reference take a __device__ symbol, never a host global)
            if isinstance(parent, n.Call) and child in parent.args and \
                    parent.callee not in _PRINTS and not parent.callee.startswith("cuda") and \
                    not _by_value_argument(parent, parent.args.index(child), unit) or \
                    isinstance(parent, n.VarDecl) and "&" in parent.var_type:
                out.add(node.decl)
    code = bytearray(unit.code_of(unit.path))
    for fn in unit.functions:
        if fn.span.file == unit.path and fn.span.end > fn.span.start:
            code[fn.span.start:fn.span.end] = b" " * (fn.span.end - fn.span.start)
    text = code.decode("utf-8", "replace")
    for g in unit.globals:
        if g.decl in decls and re.search(
                r"(?<!&)&\s*(?:::\s*)?" + re.escape(g.name) + r"\b", text):
            out.add(g.decl)
    return out


def address_leaks(body: n.Node) -> set[str]:
    """Variables whose address the body may keep (as _escaped, less `&x` given directly to
    a CUDA runtime call: `cudaMalloc(&d_x, n)`, `cudaStreamCreate(&s)` write through it
    where they stand, an assignment of x judged as one, and keep nothing; not an
    asynchronous one, which writes later, nor one that maps the memory for kernels)."""
    parents = _parents(body)
    kept: set[int] = set()
    for node in body.walk():
        if isinstance(node, n.Unary) and node.op == "&":
            up = parents.get(id(node))
            while isinstance(up, n.Cast):
                up = parents.get(id(up))
            if isinstance(up, n.Call) and up.callee.startswith("cuda") and \
                    up.callee_expr is None and "Async" not in up.callee and \
                    up.callee not in _KEEPS_ADDRESS:
                kept.add(id(node))
    return _escaped(body, kept)


def _parents(body: n.Node) -> dict[int, n.Node]:
    parents: dict[int, n.Node] = {}
    for node in body.walk():
        for c in node.children():
            if c is not None:
                parents[id(c)] = node
    return parents


def _escaped(body: n.Node, kept: Collection[int] = frozenset()) -> set[str]:
    """Variables that may be changed where they are not named: their address taken (other
    than by the `&` nodes whose ids `kept` holds), a reference bound to them, or named
    inside a lambda (which may capture them by reference and run later)."""
    out: set[str] = set()
    for node in body.walk():
        if isinstance(node, n.Unary) and node.op == "&" and id(node) not in kept:
            target = _strip(node.operand)
            while isinstance(target, (n.Member, n.Index)):
                target = _strip(target.base)
            if isinstance(target, n.Ref):
                out.add(target.decl)
        elif isinstance(node, n.VarDecl) and "&" in node.var_type and node.init is not None:
            target = _strip(node.init)
            if isinstance(target, n.Ref):
                out.add(target.decl)
        elif isinstance(node, n.OtherExpr) and node.kind == "LAMBDA_EXPR":
            out.update(x.decl for x in node.walk() if isinstance(x, n.Ref))
    return out
