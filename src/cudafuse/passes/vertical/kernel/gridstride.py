"""Grid-stride loops, 1D and 2D: the view of a kernel whose body is such a loop.

A 1D grid-stride kernel's body ends in

    [int s = blockDim.x * gridDim.x;]
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += <whole grid>) { ... }
or
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    while (i < n) { ...; i += <whole grid>; }

and a 2D one in two such loops nested, one over y and one over x (either outside), each in
either form (the inner while form's variable declared in the outer loop's body, so that it
starts again at every row):

    for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += blockDim.y * gridDim.y)
      for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < w; x += blockDim.x * gridDim.x)
        out[y * w + x] = ...;

The loop variables are the kernel's coordinates (x first), the loop conditions its guard:
such a kernel compares, stores and reads like a plain 1D or 2D one, and its value at an
element is the innermost body at that element (codegen's `_unloop`). Whatever the grid, the
loops visit every element of [0, w) x [0, h) exactly once, which is why legality asks no
covering grid of them.

Refused as producers, with the reason in words: a step other than the whole grid in the
loop's own dimension, a start assuming a block size, a condition other than `i < n`, a body
that writes a loop variable or a variable declared outside the loops (a value carried from
one element to the next), break or continue, a step variable used elsewhere, other
statements between the two loops, and a bound the loops change. (A break or continue of a
loop nested in the body, or a break of a switch there, is that statement's: the body at an
element still runs to its end.)

A 1D loop may build an output in memory at its element (accumulate.py: `a[i] = 0; for (..)
a[i] += ...`, a struct element's copies too, `a[i] = cf_a` after respell/member_stores.py):
its value function keeps it in a local declared with the loop variable, returned after the
body, as for a plain kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

from cudafuse.analysis.evaluate import assigned_decls
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function
from cudafuse.passes.vertical.kernel.accumulate import accumulator_writes, accumulators
from cudafuse.passes.vertical.kernel.view import (
    DIM_NAMES,
    ImpliedGuard,
    KernelView,
    OwnStore,
    _bound_of_params,
    _bounds_from,
    _impurity,
    _is,
    _pointer_uses,
    _ref_to,
    _strip,
    coordinate,
    own_index,
    store_parts,
    writes_to,
)


def _grid_total(e: n.Expr, stride_vars: dict[str, str]) -> str | None:
    """'x' for blockDim.x * gridDim.x (either order, or a variable holding it), else None."""
    e = _strip(e)
    if isinstance(e, n.Ref) and e.decl in stride_vars:
        return stride_vars[e.decl]
    if not (isinstance(e, n.Binary) and e.op == "*"):
        return None
    a, b = _strip(e.lhs), _strip(e.rhs)
    for d in DIM_NAMES:
        if (_is(a, "blockDim", d) and _is(b, "gridDim", d)) or \
                (_is(a, "gridDim", d) and _is(b, "blockDim", d)):
            return d
    return None


def _step(inc: n.Expr | None, var: str) -> n.Expr | None:
    """S of `i += S` (or `i = i + S`) on the variable with declaration id `var`."""
    if isinstance(inc, n.Binary) and inc.op == "+=" and _ref_to(inc.lhs, {var: 0}) == 0:
        return inc.rhs
    if isinstance(inc, n.Binary) and inc.op == "=" and _ref_to(inc.lhs, {var: 0}) == 0:
        rhs = _strip(inc.rhs)
        if isinstance(rhs, n.Binary) and rhs.op == "+":
            if _ref_to(rhs.lhs, {var: 0}) == 0:
                return rhs.rhs
            if _ref_to(rhs.rhs, {var: 0}) == 0:
                return rhs.lhs
    return None


@dataclass
class _Decls:
    """Leading declarations of a statement list: which are step variables (decl -> dim),
    which coordinates, and which statements hold nothing else (the view removes those)."""
    stride_vars: dict[str, str]
    coords: dict[str, tuple[n.VarDecl, n.DeclStmt]]
    removable: list[n.DeclStmt]
    mixed: bool


def _leading_decls(stmts: list[n.Stmt]) -> _Decls:
    out = _Decls({}, {}, [], False)
    for s in stmts:
        assert isinstance(s, n.DeclStmt)
        kinds = []
        for d in s.decls:
            total = _grid_total(d.init, {}) if d.init is not None else None
            if total is not None:
                out.stride_vars[d.decl] = total
                kinds.append(True)
            elif d.init is not None and coordinate(d.init) is not None:
                out.coords[d.decl] = (d, s)
                kinds.append(True)
            else:
                kinds.append(False)
        if all(kinds):
            out.removable.append(s)
        elif any(kinds):
            out.mixed = True
    return out


@dataclass
class _Loop:
    """One grid-stride loop's header: the variable, its start (coordinate() of it), the
    step, the condition, the body's statements (less the while form's increment), the
    header's nodes, the while form's increment statement and the variable's declaration
    statement (while form: it sits before the loop)."""
    stmt: n.For | n.While
    var: n.VarDecl
    found: tuple[str, int | None]
    step: n.Expr | None
    cond: n.Expr | None
    tail: list[n.Stmt]
    header: set[int]
    inc: n.Stmt | None
    decl_stmt: n.DeclStmt | None

    @property
    def dim(self) -> str:
        return self.found[0]

    def var_writes(self) -> list[n.Node]:
        return [w for w in writes_to(self.stmt.body, self.var.decl) if id(w) not in self.header]


def _parse_loop(loop: n.Stmt, coords: dict[str, tuple[n.VarDecl, n.DeclStmt]]
                ) -> _Loop | None:
    """`loop` as a grid-stride loop over a coordinate (declared in its header, or for the
    while form among `coords`), or None when its header has another shape."""
    if isinstance(loop, n.For):
        init = loop.init
        if not (isinstance(init, n.DeclStmt) and len(init.decls) == 1 and
                init.decls[0].init is not None and coordinate(init.decls[0].init)):
            return None
        var = init.decls[0]
        found = coordinate(var.init)  # type: ignore[arg-type]
        assert found is not None
        header = {id(x) for part in (init, loop.cond, loop.inc) if part is not None
                  for x in part.walk()}
        tail = list(loop.body.body) if isinstance(loop.body, n.Compound) else [loop.body]
        return _Loop(loop, var, found, _step(loop.inc, var.decl), loop.cond, tail, header,
                     None, None)
    if not isinstance(loop, n.While) or loop.do_while or not isinstance(loop.cond, n.Binary):
        return None
    cand = [c for c in coords.values() if _ref_to(loop.cond.lhs, {c[0].decl: 0}) == 0]
    if not cand:
        return None
    var, decl_stmt = cand[0]
    found = coordinate(var.init)  # type: ignore[arg-type]
    assert found is not None
    stmts = list(loop.body.body) if isinstance(loop.body, n.Compound) else []
    last = stmts[-1] if stmts else None
    step = _step(last.expr, var.decl) if isinstance(last, n.ExprStmt) else None
    if step is None or last is None:
        return None
    header = {id(x) for part in (loop.cond, last) for x in part.walk()}
    return _Loop(loop, var, found, step, loop.cond, stmts[:-1], header, last, decl_stmt)


def _split(stmts: list[n.Stmt]) -> int:
    k = 0
    while k < len(stmts) and isinstance(stmts[k], n.DeclStmt):
        k += 1
    return k


def grid_stride_view(fn: Function) -> KernelView | None:
    """The view of a kernel whose body ends in a 1D or 2D grid-stride loop (see the module's
    text), or None when it does not (the plain shape is tried instead)."""
    assert fn.body is not None
    body = list(fn.body.body)
    k = _split(body)
    if k != len(body) - 1:
        return None
    top = _leading_decls(body[:k])  # type: ignore[arg-type]
    outer = _parse_loop(body[k], top.coords)
    if outer is None:
        return None
    if any(isinstance(s, (n.For, n.While)) and _over_coordinate(s, outer.tail[:q], top.coords)
           for q, s in enumerate(outer.tail)):
        return _view_2d(fn, top, outer)
    return _view_1d(fn, top, outer)


def _over_coordinate(loop: n.For | n.While, decls: list[n.Stmt],
                     top: dict[str, tuple[n.VarDecl, n.DeclStmt]]) -> bool:
    """Whether a loop nested in a grid-stride loop's body is meant as a second one: its
    header declares, or its condition tests, a thread coordinate."""
    if isinstance(loop, n.For):
        init = loop.init
        if isinstance(init, n.DeclStmt) and any(
                d.init is not None and coordinate(d.init) for d in init.decls):
            return True
    coords = set(top) | {d.decl for s in decls if isinstance(s, n.DeclStmt) for d in s.decls
                         if d.init is not None and coordinate(d.init)}
    cond = loop.cond
    return cond is not None and any(isinstance(x, n.Ref) and x.decl in coords
                                    for x in cond.walk())


def _common_reason(fn: Function, loops: list[_Loop], stride_vars: dict[str, str],
                   mixed: bool, skip: set[int], inside: list[n.Stmt]) -> str | None:
    """What both shapes refuse: `loops` outermost first, `inside` the innermost body."""
    for lp in loops:
        if lp.found[1] is not None:
            return "its grid-stride loop's start assumes a block size (a constant instead " \
                   f"of blockDim.{lp.dim})"
        if lp.step is None or _grid_total(lp.step, stride_vars) != lp.dim:
            return "its grid-stride loop's step is not the whole grid (blockDim." \
                   f"{lp.dim} * gridDim.{lp.dim})"
    if mixed:
        return "it declares its grid-stride variables together with other variables"
    for lp in loops:
        bounds = _bounds_from(lp.cond, {lp.var.decl: 0}, negated=True) \
            if lp.cond is not None else None
        if bounds is None or 0 not in bounds:
            return "its grid-stride loop's condition is not a bound on the loop variable " \
                   f"({lp.var.name} < n)"
    for lp in loops:
        if lp.var_writes():
            return f"its grid-stride loop's body writes the loop variable '{lp.var.name}'"
    if any(_leaves_loop(s) for s in inside):
        return "its grid-stride loop's body uses break or continue"
    assert fn.body is not None
    if any(isinstance(x, n.Ref) and x.decl in stride_vars and id(x) not in skip
           for x in fn.body.walk()):
        return "its grid-stride step variable is used other than as the loop's step"
    # A variable declared outside the loops and written in them carries a value from one
    # element to the next (`acc += in[i]; out[i] = acc;`): the value at an element is then
    # not the body at that element alone.
    # (In 2D, one declared in the outer body carries it along a row.)
    outermost = loops[0].stmt
    inside_decls = {x.decl for x in loops[-1].stmt.walk() if isinstance(x, n.VarDecl)}
    loop_vars = {lp.var.decl for lp in loops}
    for x in outermost.walk():
        target = x.lhs if isinstance(x, n.Binary) and x.is_assignment else \
            x.operand if isinstance(x, n.Unary) and x.op in ("++", "--") else None
        target = _strip(target) if target is not None else None
        if isinstance(target, n.Ref) and target.kind == "local" and \
                target.decl not in inside_decls and target.decl not in loop_vars and \
                not _killed_first(outermost, inside, target.decl):
            return (f"its grid-stride loop's body writes '{target.name}', declared outside "
                    "the loop (a value carried from one element to the next)")
    for lp in loops:
        bounds = _bounds_from(lp.cond, {lp.var.decl: 0}, negated=True) or {}
        written = [r.name for r in bounds[0].walk() if isinstance(r, n.Ref) and r.decl and
                   (r.decl in loop_vars or writes_to(outermost, r.decl))]
        if written:
            return f"its grid-stride loop's bound changes in the loop ('{written[0]}')"
    return None


def _killed_first(outermost: n.Stmt, inside: list[n.Stmt], decl: str) -> bool:
    """Whether variable `decl`, declared outside the loops, carries nothing from one element
    to the next: every use of it is in the innermost body, and the first statement there
    that names it assigns it first, unconditionally, from a value that does not read it
    (`j = 0;`, or a for loop's `for (j = 0; ...)`, whose initialisation runs before its
    condition, body and increment)."""
    def names(node: n.Node) -> bool:
        return any(isinstance(x, n.Ref) and x.decl == decl for x in node.walk())

    inner = {id(x) for s in inside for x in s.walk()}
    if any(isinstance(x, n.Ref) and x.decl == decl and id(x) not in inner
           for x in outermost.walk()):
        return False
    first = next((s for s in inside if names(s)), None)
    init = first.init if isinstance(first, n.For) else first
    expr = init.expr if isinstance(init, n.ExprStmt) else None
    if not (isinstance(expr, n.Binary) and expr.op == "="):
        return False
    target = _strip(expr.lhs)
    return isinstance(target, n.Ref) and target.decl == decl and not names(expr.rhs)


# Statements a break or continue inside belongs to (libclang kinds of loops left opaque).
_LOOP_KINDS = ("FOR_STMT", "CXX_FOR_RANGE_STMT", "WHILE_STMT", "DO_STMT")


def _leaves_loop(stmt: n.Node) -> bool:
    """Whether `stmt`, a statement of the grid-stride loop's body, holds a break or continue
    of that loop: one inside a nested loop is that loop's, a break inside a switch is the
    switch's (a continue there still leaves the grid-stride loop's iteration)."""
    def visit(node: n.Node, in_loop: bool, in_switch: bool) -> bool:
        if isinstance(node, n.Continue):
            return not in_loop
        if isinstance(node, n.Break):
            return not (in_loop or in_switch)
        loop = isinstance(node, (n.For, n.While)) or \
            isinstance(node, n.OtherStmt) and node.kind in _LOOP_KINDS
        switch = isinstance(node, n.OtherStmt) and node.kind == "SWITCH_STMT"
        return any(visit(c, in_loop or loop, in_switch or switch)
                   for c in node.children() if c is not None)
    return visit(stmt, False, False)


def _stores(fn: Function, tail: list[n.Stmt], coords: list[n.VarDecl]
            ) -> tuple[dict[str, OwnStore], n.Expr | None]:
    """The own-element stores `p[own] = v` among the innermost body's statements, and the
    row stride of the first (2D)."""
    pointer_params = {p.decl: p.name for p in fn.params if p.is_pointer}
    stores: dict[str, OwnStore] = {}
    locals_: dict[str, n.Expr] = {}
    stride: n.Expr | None = None
    written = set().union(*(assigned_decls(s) for s in tail))
    for s in tail:
        if isinstance(s, n.DeclStmt):
            for d in s.decls:
                if d.init is not None and d.decl not in written:
                    locals_[d.decl] = d.init
        parts = store_parts(s.expr) if isinstance(s, n.ExprStmt) else None
        if parts is not None and parts[2] == "=":
            target, value, _ = parts
            base = _strip(target.base)
            if isinstance(base, n.Ref) and base.decl in pointer_params:
                own, st = own_index(target.index, coords, locals_)
                if own and base.name not in stores:
                    stores[base.name] = OwnStore(base.name, s, value, target.index)
                    stride = stride or st
    return stores, stride


def _view_1d(fn: Function, top: _Decls, lp: _Loop) -> KernelView:
    removable = top.removable
    if lp.decl_stmt is not None:  # the while form's variable, declared before the loop
        removable = [s for s in removable if s is not lp.decl_stmt or len(s.decls) == 1]
    # Other coordinate declarations than the loop variable stay (and are refused below).
    removable = [s for s in removable if all(d.decl in top.stride_vars or d.decl == lp.var.decl
                                             for d in s.decls)]
    skip = set(lp.header)
    for s in removable:
        skip |= {id(x) for x in s.walk()}
    bounds = _bounds_from(lp.cond, {lp.var.decl: 0}, negated=True) \
        if lp.cond is not None else None
    if bounds and 0 in bounds:
        bounds[0] = _bound_of_params(fn, bounds[0], lp.stmt)
    reason = None
    if lp.dim != "x":
        reason = f"its grid-stride loop runs over {lp.dim} alone (a 1D loop must be over x)"
    else:
        reason = _common_reason(fn, [lp], top.stride_vars, top.mixed, skip, lp.tail)
    stores, _ = _stores(fn, lp.tail, [lp.var])
    pointer_params = {p.decl: p.name for p in fn.params if p.is_pointer}
    assert fn.body is not None
    # Outputs built in memory at the element (accumulate.py), the first store of each among
    # the body's statements standing for all of them: `a[i] = 0; for (..) a[i] += ...`.
    accum, loaded = accumulators(fn.body, lp.tail, (lp.var,), (bounds[0],), pointer_params,
                                 whole_elements=True) \
        if bounds and 0 in bounds else (frozenset(), frozenset())
    accum = frozenset(a for a in accum if a in stores)
    loaded = loaded & accum
    reads, other = _pointer_uses(fn, pointer_params, stores, tuple(
        OwnStore(name, stmt, value, elem.index, op)
        for name, stmt, elem, value, op in accumulator_writes(fn.body, accum, pointer_params)))
    if reason is None:
        reason = _impurity(fn, [], None, stores, other, frozenset(skip))
    return KernelView(fn, (lp.var,), tuple(removable), None, "gridstride",
                      (bounds[0],) if bounds and 0 in bounds else (), None, stores, reads,
                      other, reason, (None,), lp.stmt, lp.inc, accumulators=accum,
                      loaded=loaded)


_NESTING = ("its nested grid-stride loops are not one over y and one over x, each "
            "`for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < w; x += blockDim.x * "
            "gridDim.x)` or its while form with the variable declared just before the loop")


def _view_2d(fn: Function, top: _Decls, outer: _Loop) -> KernelView:
    """Two nested grid-stride loops: the outer one's body is declarations (step variables,
    the inner while form's variable) and the inner loop, nothing else."""
    j = _split(outer.tail)
    mid = _leading_decls(outer.tail[:j])  # type: ignore[arg-type]
    reason = None
    inner = None
    if j != len(outer.tail) - 1:
        reason = "its outer grid-stride loop's body holds statements other than the inner " \
                 "loop and declarations before it"
    else:
        inner = _parse_loop(outer.tail[j], mid.coords)
        if inner is None or {outer.dim, inner.dim} != {"x", "y"}:
            reason = _NESTING
    stride_vars = {**top.stride_vars, **mid.stride_vars}
    loops = [outer] + ([inner] if inner is not None else [])
    var_of = {lp.dim: lp.var for lp in loops}
    coords = [var_of[d] for d in ("x", "y") if d in var_of]
    ids = {lp.var.decl for lp in loops}
    # The declarations that go with the loops: step variables and the while forms' loop
    # variables. Any other coordinate declaration stays (and is refused as a builtin read).
    removable = [s for s in top.removable + mid.removable
                 if all(d.decl in stride_vars or d.decl in ids for d in s.decls)]
    if outer.decl_stmt is not None and outer.decl_stmt not in top.removable:
        reason = reason or "it declares its grid-stride variables together with other variables"
    if inner is not None and inner.decl_stmt is not None and \
            inner.decl_stmt not in mid.removable:
        reason = reason or "it declares its grid-stride variables together with other variables"
    skip: set[int] = set()
    for lp in loops:
        skip |= lp.header
    for s in removable:
        skip |= {id(x) for x in s.walk()}
    bounds: dict[str, n.Expr] = {}
    for lp in loops:
        found = _bounds_from(lp.cond, {lp.var.decl: 0}, negated=True) \
            if lp.cond is not None else None
        if found and 0 in found:
            bounds[lp.dim] = _bound_of_params(fn, found[0], outer.stmt)
    tail = inner.tail if inner is not None else []
    if reason is None and inner is not None:
        reason = _common_reason(fn, loops, stride_vars, top.mixed or mid.mixed, skip, tail)
    stores, stride = _stores(fn, tail, coords) if len(coords) == 2 else ({}, None)
    if reason is None and stride is not None and any(
            isinstance(x, n.Ref) and x.decl in ids for x in stride.walk()):
        reason = "its row stride depends on a coordinate"
    pointer_params = {p.decl: p.name for p in fn.params if p.is_pointer}
    reads, other = _pointer_uses(fn, pointer_params, stores)
    if reason is None:
        reason = _impurity(fn, [], None, stores, other, frozenset(skip))
    return KernelView(
        fn, tuple(coords), tuple(removable), None, "gridstride",
        tuple(bounds[d] for d in ("x", "y")) if len(bounds) == 2 else (), stride, stores,
        reads, other, reason, (None,) * len(coords), outer.stmt, outer.inc,
        inner_loop=inner.stmt if inner is not None else None,
        inner_inc=inner.inc if inner is not None else None)


def row_loop_view(fn: Function, guard: ImpliedGuard) -> KernelView | None:
    """A block's threads walking its row (launchshape.py's "rowloop": `int y = blockIdx.x;
    for (int x = threadIdx.x; x < w; x += blockDim.x)`, read with its launches' grid as `y`
    a coordinate under the implied guard `y < rows` and the loop a grid-stride loop over x
    of a virtual grid one block wide): a 2D view whose loop is the x loop and whose y is
    the declared coordinate, bounded by the launches' grid. Whatever the block, the loop
    visits every x of the row once; every launch's grid is the rows (checked for the whole
    file when the kernel was read so), so legality asks no covering grid of it, as of any
    grid-stride loop."""
    assert fn.body is not None
    body = list(fn.body.body)
    k = _split(body)
    if k != len(body) - 1 or body[k] is not guard or not isinstance(guard.then, n.Compound) \
            or len(guard.then.body) != 1:
        return None
    top = _leading_decls(body[:k])  # type: ignore[arg-type]
    lp = _parse_loop(guard.then.body[0], top.coords)
    ys = [v for v, _ in top.coords.values() if v.init is not None and
          (coordinate(v.init) or ("",))[0] == "y"]
    if lp is None or lp.dim != "x" or len(top.coords) != 1 or len(ys) != 1:
        return None
    y = ys[0]
    bound_y = _bounds_from(guard.cond, {y.decl: 0}, negated=True)
    bound_x = _bounds_from(lp.cond, {lp.var.decl: 0}, negated=True) \
        if lp.cond is not None else None
    if not bound_y or not bound_x or 0 not in bound_x:
        return None
    removable = [s for s in top.removable if all(d.decl in top.stride_vars or d.decl == y.decl
                                                 for d in s.decls)]
    skip = set(lp.header) | {id(x) for x in guard.cond.walk()}
    for s in removable:
        skip |= {id(x) for x in s.walk()}
    reason = _common_reason(fn, [lp], top.stride_vars, top.mixed, skip, lp.tail)
    stores, stride = _stores(fn, lp.tail, [lp.var, y])
    pointer_params = {p.decl: p.name for p in fn.params if p.is_pointer}
    reads, other = _pointer_uses(fn, pointer_params, stores)
    if reason is None and stride is not None and any(
            isinstance(x, n.Ref) and x.decl in (y.decl, lp.var.decl) for x in stride.walk()):
        reason = "its row stride depends on a coordinate"
    if reason is None:
        reason = _impurity(fn, [], None, stores, other, frozenset(skip))
    return KernelView(fn, (lp.var, y), tuple(removable), None, "gridstride",
                      (_bound_of_params(fn, bound_x[0], guard), bound_y[0]), stride, stores,
                      reads, other, reason, (None, None), lp.stmt, lp.inc, grid_dims=(0, 0),
                      launch_extents=("loop.x", "grid.x"))
