"""What code generation needs to know about one kernel's body, found structurally.

A kernel can be fused as a *producer* when its body has the shape

    <coordinate declarations>        int x = blockIdx.x * blockDim.x + threadIdx.x; ...
    <guard>                          if (x >= w || y >= h) return;   or   if (x < w && ...) {
    <statements>                         ...
    out[<own index>] = <value>;          out[y * w + x] = v;  (one store per output buffer)

and does nothing else with memory, threads or control flow; or a 1D or 2D grid-stride loop
whose body has that shape after its header (see gridstride.py). Anything outside that shape
makes `producer_reason` say why, in words; such a kernel can still be the last kernel (the
body the fused kernel keeps) of a group.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from cudafuse.analysis.evaluate import assigned_decls, exits
from cudafuse.analysis.kernel_facts import is_cooperative_groups_call
from cudafuse.analysis.symbolic import Poly, builtin
from cudafuse.ir import nodes as n
from cudafuse.ir.casts import strip_casts as _strip
from cudafuse.ir.program import Function
from cudafuse.ir.types import unqualified
from cudafuse.passes.vertical.kernel.accumulate import accumulators
from cudafuse.passes.vertical.kernel.channels import (
    Channels,
    Layout,
    classify,
    find_channels,
    frame,
)
from cudafuse.passes.vertical.kernel.guardmeaning import (
    guard_reading,
    linear_own,
    own_row_stride,
)
from cudafuse.passes.vertical.kernel.staged_copy import StagedCopy

DIM_NAMES = ("x", "y", "z")
_COLLECTIVES = ("__syncthreads", "__syncwarp", "__shfl", "__ballot", "__any_sync", "__all_sync",
                "__activemask", "atomic", "__threadfence", "bar_sync", "CUDAFUSE_BAR_SYNC")


@dataclass(frozen=True)
class OwnStore:
    param: str
    stmt: n.ExprStmt
    value: n.Expr
    index: n.Expr
    op: str = "="  # or a compound assignment (+=, -=...): a read-modify-write of the element
    nested: bool = False  # inside an if/else of the body, not a statement of its own

    @property
    def target(self) -> n.Index:
        """The stored element, `p[i]`."""
        parts = store_parts(self.stmt.expr)
        assert parts is not None
        return parts[0]


def store_parts(e: n.Expr) -> tuple[n.Index, n.Expr, str] | None:
    """(element, value, operator) of `p[i] = v` or `p[i] op= v`, and of the copy of a whole
    struct element (`out[i] = px` with a uchar4 `px` is a call of uchar4's operator=)."""
    if isinstance(e, n.Binary) and e.op in ("=", *_COMPOUND) and isinstance(e.lhs, n.Index):
        return e.lhs, e.rhs, e.op
    if isinstance(e, n.Call) and e.callee == "operator=" and len(e.args) == 2 and \
            isinstance(e.args[0], n.Index):
        return e.args[0], e.args[1], "="
    return None


@dataclass(frozen=True)
class ImpliedGuard(n.If):
    """The guard a guard-free kernel's launches imply (launchshape.py): `if (c < cols && r <
    rows) { <the rest of the body> }`, built from the launches' block and grid; in no text.
    Its span is empty, where the body's coordinate declarations end (what code generation
    inserts there, it prints). `extents`: per coordinate declaration, the launch's extent that
    bounds it ("block.x", "grid.x" or "grid.x*block.x")."""

    extents: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class NestedGuard(n.If):
    """Nested ifs where a guard stands, `if (x < w) { if (y < h) { ... } }` (each with no
    else and nothing else in it, testing no data): the body runs under exactly the
    conjunction, which is the guard's `cond` (built here, its span empty: printed from the
    tree). `then` stays the outer if's, so code generation, removing the text from the
    guard to its `then`, keeps the inner ifs (true wherever the guard holds); `inner` is the
    innermost body, the kernel's statements under the guard."""

    inner: n.Stmt | None = None


def _nested_guard(outer: n.If) -> NestedGuard | None:
    conds = [outer.cond]
    node = outer
    while True:
        then = node.then
        inner = then.body[0] if isinstance(then, n.Compound) and len(then.body) == 1 else then
        if not (isinstance(inner, n.If) and inner.else_ is None) or any(
                isinstance(x, (n.Index, n.Call)) or isinstance(x, n.Unary) and x.op == "*"
                for x in inner.cond.walk()):
            break  # (a test of data is no bound: it stays a condition of the body)
        conds.append(inner.cond)
        node = inner
    if len(conds) < 2:
        return None
    at = outer.cond.span._replace(end=outer.cond.span.start)
    cond = conds[0]
    for c in conds[1:]:
        cond = n.Binary("&&", cond, c, type="bool", span=at)
    return NestedGuard(cond, outer.then, inner=node.then, span=outer.span)


@dataclass(frozen=True)
class LaunchExtent(n.Expr):
    """A coordinate's bound that a launch must give exactly (a guard-free kernel writes
    every element of its launch's extent, and none beyond): `bound`, in the kernel's terms,
    must equal the launch's `extent` ("block.x", "grid.x", "grid.x*block.x"). What
    KernelView.grid_bounds yields for such kernels; host/coverage.py checks it per launch."""

    bound: n.Expr
    extent: str

    def children(self) -> tuple[n.Node, ...]:
        return (self.bound,)


@dataclass(frozen=True)
class KernelView:
    fn: Function
    coords: tuple[n.VarDecl, ...] = ()  # the thread's coordinate variables, fastest first
    coord_stmts: tuple[n.Stmt, ...] = ()  # top-level statements that only declare them
    guard: n.If | None = None
    guard_kind: str = ""  # "return" (if (out of range) return;) or "enclose" (if (in range) {..})
    bounds: tuple[n.Expr, ...] = ()  # the guard's upper bound per coordinate
    stride: n.Expr | None = None  # row stride of the own-element stores (2D)
    stores: dict[str, OwnStore] = field(default_factory=dict)
    reads: dict[str, list[n.Index]] = field(default_factory=dict)  # direct subscripts of params
    other_uses: dict[str, str] = field(default_factory=dict)  # param -> non-subscript use
    producer_reason: str | None = None
    block_sizes: tuple[int | None, ...] = ()  # per grid dimension (x, y): the block size the
    # mapping assumes when written with a constant (blockIdx.x * 256 + threadIdx.x), else None
    # A 1D grid-stride loop (guard_kind "gridstride"): the `for` or `while` statement, and
    # for the while form the trailing `i += stride;` statement.
    loop: n.For | n.While | None = None
    loop_inc: n.Stmt | None = None
    # A 2D grid-stride loop (see gridstride.py): `loop` is the outer loop, these the inner.
    inner_loop: n.For | n.While | None = None
    inner_inc: n.Stmt | None = None
    # The guard bounds a coordinate from below too (`x >= 1 && x < w - 1`), or its bounds are
    # loose (guardmeaning.guard_reading: `i / n < Q && i % n < n` over a parameter n): the
    # producer does not write every element below its bounds, and a view must yield memory
    # where it does not.
    lower_bounded: bool = False
    # Every own-element store per output, when one sits under an if/else (`if (v > t) out[i]
    # = a; else out[i] = b;`): on a path that stores nothing the element keeps its contents.
    all_stores: dict[str, tuple[OwnStore, ...]] = field(default_factory=dict)
    # Outputs stored as several channels of the element (see channels.py); their entry in
    # `stores` is the lowest channel's store.
    channels: dict[str, Channels] = field(default_factory=dict)
    # Outputs the kernel builds in memory at its own element (accumulate.py): every access
    # is at the own element, the first an unconditional store; `stores` holds that one.
    accumulators: frozenset[str] = frozenset()
    # Those of them whose first value is the element's contents in memory (accumulate.py).
    loaded: frozenset[str] = frozenset()
    # The grid dimension each coordinate comes from, when not the coordinate's own position:
    # (1, 0) for a kernel whose x walks the rows (`out[x * cols + y]`, x from blockIdx.x).
    # Coordinates, bounds and strides are always in element order (the column first), so
    # value-at-element functions need not know; only what relates them to a launch's grid
    # and block (coverage, tiles, a new block) reads this.
    grid_dims: tuple[int, ...] = ()
    # A guard-free kernel read with its launches' block and grid (launchshape.py): per
    # coordinate (element order), the launch extent that bounds it. Its 2-D views have
    # grid_dims (0, 0): both coordinates come from the launch's x (one from the block, one
    # from the grid), so no tile or other block shape is used for them.
    launch_extents: tuple[str, ...] = ()
    # `return;` statements past the guard (plain views only; see _early_returns): code
    # generation turns each into a return of the element's contents in memory.
    early_returns: tuple[n.Return, ...] = ()
    # A kernel read without its shared copy of a read-only buffer (staged_copy.py): `fn` is
    # the kernel without it; code generation removes and renames what this says.
    staged_copy: StagedCopy | None = None
    # `blockIdx.x`, `threadIdx.x` and `blockDim.x` read past the coordinate declarations of
    # a 1-D kernel whose x is blockIdx.x * blockDim.x + threadIdx.x (a per-block table,
    # `out[i] = in[i] + sums[blockIdx.x]`, as multi-block scans add their blocks' sums):
    # at element x they are x / blockDim.x, x % blockDim.x and the block size, so the value
    # function is one of x wherever the fused kernel's block is the producer's (legality).
    block_reads: tuple[n.Member, ...] = ()

    @property
    def grid_stride(self) -> bool:
        return self.loop is not None

    @property
    def dims(self) -> int:
        return len(self.coords)

    @property
    def transposed(self) -> bool:
        return self.grid_dims not in ((), tuple(range(len(self.coords))))

    def in_grid_order(self, per_coord: tuple[n.Expr, ...] | list[n.Expr]) -> list[n.Expr]:
        """Per-coordinate bounds (this kernel's or a producer's, in element order) in the
        order of this kernel's grid dimensions, as coverage of its launch reads them."""
        if not self.transposed or self.launch_extents:
            # (a launch-shaped kernel's bounds are checked as LaunchExtents, in element order)
            return list(per_coord)
        out = list(per_coord)
        for k, g in enumerate(self.grid_dims):
            out[g] = per_coord[k]
        return out

    @property
    def grid_bounds(self) -> list[n.Expr]:
        if self.launch_extents:
            return [LaunchExtent(b, e, type=b.type)
                    for b, e in zip(self.bounds, self.launch_extents, strict=True)]
        return self.in_grid_order(self.bounds)


def _is(e: n.Expr, base: str, dim: str) -> bool:
    return isinstance(e, n.Member) and isinstance(e.base, n.Ref) and e.base.name == base and \
        e.base.kind == "builtin" and e.field_name == dim


def retyped(base: n.Expr, ref: n.Ref) -> str | None:
    """The type a subscript's pointer is explicitly cast to when the cast changes what it
    points to (`reinterpret_cast<int *>(p)[i]`): the element is then not read or stored as
    the parameter's type, so it is no value of that type at the element."""
    own = unqualified(ref.type)
    while isinstance(base, n.Cast):
        if base.explicit and unqualified(base.type) != own:
            return base.type
        base = base.operand
    return None


def _const_int(e: n.Expr) -> int | None:
    e = _strip(e)
    if isinstance(e, n.IntLit):
        return e.value
    if isinstance(e, n.Ref) and isinstance(e.const_value, int):
        return e.const_value
    return None


def coordinate(e: n.Expr) -> tuple[str, int | None] | None:
    """('x', None) for blockIdx.x * blockDim.x + threadIdx.x in any operand order, or any
    expression of the built-ins that evaluates to it (`__umul24(blockIdx.x, blockDim.x) +
    threadIdx.x`); ('x', 256) for blockIdx.x * 256 + threadIdx.x (valid only when the
    launch's block is 256 wide); None for anything else."""
    e = _strip(e)
    if not (isinstance(e, n.Binary) and e.op == "+"):
        return _coordinate_value(e)
    for prod, tid in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
        prod, tid = _strip(prod), _strip(tid)
        if not (isinstance(prod, n.Binary) and prod.op == "*"):
            continue
        for d in DIM_NAMES:
            if not _is(tid, "threadIdx", d):
                continue
            for bid, size in ((prod.lhs, prod.rhs), (prod.rhs, prod.lhs)):
                if not _is(_strip(bid), "blockIdx", d):
                    continue
                if _is(_strip(size), "blockDim", d):
                    return d, None
                c = _const_int(size)
                if c is not None and c > 0:
                    return d, c
    return _coordinate_value(e)


# 24-bit multiplies: exact for operands below 2^24, as CUDA documents their use (a block
# index times a block size, in code written for older GPUs)
_MUL24 = ("__umul24", "__mul24")


def _builtin_poly(e: n.Expr) -> Poly | None:
    """`e` as a polynomial over the built-ins (`blockIdx.x`...) with integer coefficients:
    + - *, integral casts, literals and the 24-bit multiplies; None for anything else."""
    e = _strip(e)
    if isinstance(e, n.IntLit):
        return Poly.const(e.value)
    if isinstance(e, n.Member) and isinstance(e.base, n.Ref) and e.base.kind == "builtin" \
            and e.base.name in ("blockIdx", "blockDim", "threadIdx") and \
            e.field_name in DIM_NAMES:
        return Poly.atom(builtin(e.base.name, e.field_name))
    parts: tuple[n.Expr, n.Expr] | None = None
    op = ""
    if isinstance(e, n.Binary) and e.op in ("+", "-", "*"):
        parts, op = (e.lhs, e.rhs), e.op
    elif isinstance(e, n.Call) and e.callee in _MUL24 and len(e.args) == 2:
        parts, op = (e.args[0], e.args[1]), "*"
    if parts is None:
        return None
    a, b = _builtin_poly(parts[0]), _builtin_poly(parts[1])
    if a is None or b is None:
        return None
    return a * b if op == "*" else a + b if op == "+" else a - b


def _coordinate_value(e: n.Expr) -> tuple[str, int | None] | None:
    """The dimension d when `e` evaluates to exactly blockIdx.d * blockDim.d + threadIdx.d."""
    poly = _builtin_poly(e)
    if poly is None:
        return None
    for d in DIM_NAMES:
        if poly == Poly.atom(builtin("blockIdx", d)) * Poly.atom(builtin("blockDim", d)) + \
                Poly.atom(builtin("threadIdx", d)):
            return d, None
    return None


def _ref_to(e: n.Expr, decls: dict[str, int]) -> int | None:
    e = _strip(e)
    return decls.get(e.decl) if isinstance(e, n.Ref) else None


def _bounds_from(cond: n.Expr, decls: dict[str, int], negated: bool,
                 lower: dict[int, n.Expr] | None = None) -> dict[int, n.Expr] | None:
    """Upper bounds from `c >= B || ...` (negated=False, the out-of-range test) or from
    `c < B && ...` (negated=True, the in-range test). None when the condition has another shape.
    With `lower` given, lower bounds (`c >= L`, `c > L`; `c < L`, `c <= L` out of range) are
    accepted too and recorded there, one per coordinate."""
    cond = _strip(cond)
    if isinstance(cond, n.Unary) and cond.op == "!":
        return _bounds_from(cond.operand, decls, not negated, lower)
    if _trivial_lower(cond, decls, negated):
        return {}
    join = "&&" if negated else "||"
    if isinstance(cond, n.Binary) and cond.op == join:
        left = _bounds_from(cond.lhs, decls, negated, lower)
        right = _bounds_from(cond.rhs, decls, negated, lower)
        if left is None or right is None or set(left) & set(right):
            return None
        return {**left, **right}
    if lower is not None and _block_condition(cond, decls):
        # (`i >= n || blockIdx.x == 0`: the first block stores nothing, as the last step of a
        # multi-block scan skips it; kept with the guard, memory where it holds)
        lower[-1 - sum(k < 0 for k in lower)] = cond
        return {}
    if not isinstance(cond, n.Binary):
        return None
    if lower is not None and _lower_bound(cond, decls, negated, lower):
        return {}
    lhs_c, rhs_c = _ref_to(cond.lhs, decls), _ref_to(cond.rhs, decls)
    # `x > w - 1` out of range, `x <= w - 1` in range (and mirrored): the bound is w.
    inclusive = "<=" if negated else ">"
    if lhs_c is not None and cond.op == inclusive and (b := _less_one(cond.rhs)) is not None:
        return {lhs_c: b}
    if rhs_c is not None and cond.op == {"<=": ">=", ">": "<"}[inclusive] and \
            (b := _less_one(cond.lhs)) is not None:
        return {rhs_c: b}
    ops = {"<", ">"} if negated else {">=", "<="}
    if cond.op not in ops:
        return None
    want_left = ">=" if not negated else "<"
    if lhs_c is not None and cond.op == want_left:
        return {lhs_c: cond.rhs}
    if rhs_c is not None and cond.op != want_left:
        return {rhs_c: cond.lhs}
    return None


def _guard_bounds(fn: Function, cond: n.Expr, coords: list[n.VarDecl], in_range: bool,
                  locals_: dict[str, n.Expr] | None = None
                  ) -> tuple[dict[int, n.Expr] | None, dict[int, n.Expr]]:
    """A guard condition's upper bounds per coordinate and its lower bounds: the plain
    reading (`_bounds_from`), or, where that does not bound every coordinate, what the
    condition means (upper bounds only)."""
    ids = {c.decl: k for k, c in enumerate(coords)}
    lower: dict[int, n.Expr] = {}
    found = _bounds_from(cond, ids, negated=in_range, lower=lower)
    if found is None or len(found) != len(coords):
        meant = _by_meaning(fn, cond, coords, in_range, locals_)
        if meant is not None:
            # (loose bounds, guardmeaning.guard_reading: the kernel writes part of the
            # elements below them, as with a lower bound; the guard is that lower bound)
            return meant[0], {0: cond} if meant[1] else {}
    return found, lower


def _by_meaning(fn: Function, cond: n.Expr, coords: list[n.VarDecl], in_range: bool,
                locals_: dict[str, n.Expr] | None = None
                ) -> tuple[dict[int, n.Expr], bool] | None:
    """The guard's bounds read by what the condition means (guardmeaning.py), when its
    spelling is not the plain one (upper bounds only), and whether they are loose."""
    if not coords:
        return None
    found = guard_reading(fn, cond, coords, in_range, locals_)
    return (dict(enumerate(found[0])), found[1]) if found is not None else None


def _less_one(e: n.Expr) -> n.Expr | None:
    """B for `B - 1` computed in a signed type (unsigned, B = 0 would wrap to the largest
    value, and `x <= B - 1` would hold for every x)."""
    e = _strip(e)
    if isinstance(e, n.Binary) and e.op == "-" and _const_int(e.rhs) == 1 and \
            not re.search(r"unsigned|size_t|uint|char16|char32|bool", e.type):
        return e.lhs
    return None


def _lower_bound(cond: n.Binary, decls: dict[str, int], negated: bool,
                 lower: dict[int, n.Expr]) -> bool:
    """Record `c >= L`, `c > L`, `L <= c`, `L < c` (in-range form) or their negations (out of
    range) as coordinate c's lower bound, L free of coordinates; False for anything else."""
    lhs_c, rhs_c = _ref_to(cond.lhs, decls), _ref_to(cond.rhs, decls)
    in_range = {">=", ">"} if negated else {"<", "<="}
    flipped = {"<=", "<"} if negated else {">", ">="}
    c, other = (lhs_c, cond.rhs) if lhs_c is not None and cond.op in in_range else \
        (rhs_c, cond.lhs) if rhs_c is not None and cond.op in flipped else (None, None)
    if c is None or other is None or c in lower or any(
            isinstance(x, n.Ref) and x.decl in decls for x in other.walk()):
        return False
    lower[c] = cond
    return True


_BLOCK_BUILTINS = ("blockIdx", "threadIdx", "blockDim")


def _block_condition(cond: n.Expr, decls: dict[str, int]) -> bool:
    """A guard's test of the thread's block or place in it (`blockIdx.x == 0`, `threadIdx.x
    >= k`), over the x built-ins, parameters and constants only: the threads it selects
    store nothing, so the kernel writes part of its elements (as a lower bound does), and
    the test is one of the element wherever KernelView.block_reads are (plain_view checks
    that the kernel has them)."""
    if not (isinstance(cond, n.Binary) and cond.op in ("==", "!=", "<", "<=", ">", ">=")):
        return False
    seen = False
    for x in cond.walk():
        if isinstance(x, n.Member):
            if not (isinstance(x.base, n.Ref) and x.base.kind == "builtin" and
                    x.base.name in _BLOCK_BUILTINS and x.field_name == "x"):
                return False
            seen = True
        elif isinstance(x, n.Ref):
            if x.kind == "builtin":
                continue  # (the base of a Member checked above)
            if x.decl in decls or not (x.kind == "param" or isinstance(x.const_value, int)):
                return False
            if "*" in x.type or "[" in x.type:
                return False
        elif not isinstance(x, (n.Binary, n.Unary, n.IntLit, n.Cast)) or \
                isinstance(x, n.Binary) and x.is_assignment or \
                isinstance(x, n.Unary) and x.op in ("++", "--", "*", "&"):
            return False
    return seen


def _trivial_lower(cond: n.Expr, decls: dict[str, int], negated: bool) -> bool:
    """`x >= 0` (in-range form) or `x < 0` (out-of-range form): always true/false for a
    coordinate computed from unsigned builtins, so it constrains nothing."""
    if not isinstance(cond, n.Binary):
        return False
    zero_l = isinstance(_strip(cond.lhs), n.IntLit) and _strip(cond.lhs).value == 0
    zero_r = isinstance(_strip(cond.rhs), n.IntLit) and _strip(cond.rhs).value == 0
    if negated:
        return (cond.op == ">=" and zero_r and _ref_to(cond.lhs, decls) is not None) or \
            (cond.op == "<=" and zero_l and _ref_to(cond.rhs, decls) is not None)
    return (cond.op == "<" and zero_r and _ref_to(cond.lhs, decls) is not None) or \
        (cond.op == ">" and zero_l and _ref_to(cond.rhs, decls) is not None)


def _returns_only(s: n.Stmt) -> bool:
    if isinstance(s, n.Return):
        return s.value is None
    return isinstance(s, n.Compound) and len(s.body) == 1 and _returns_only(s.body[0])


def own_index(index: n.Expr, coords: list[n.VarDecl], locals_: dict[str, n.Expr]
               ) -> tuple[bool, n.Expr | None]:
    """Is `index` this thread's own element (x, or y * S + x)? Returns (yes, stride)."""
    index = _strip(index)
    if isinstance(index, n.Ref) and index.decl in locals_:
        index = _strip(locals_[index.decl])
    ids = {c.decl: i for i, c in enumerate(coords)}
    if len(coords) == 1:
        return _ref_to(index, ids) == 0 or linear_own(index, coords[0], locals_), None
    if len(coords) != 2:
        return False, None
    if isinstance(index, n.Binary) and index.op == "+":
        for a, b in ((index.lhs, index.rhs), (index.rhs, index.lhs)):
            a = _strip(a)
            if _ref_to(b, ids) != 0 or not (isinstance(a, n.Binary) and a.op == "*"):
                continue
            if _ref_to(a.lhs, ids) == 1:
                return True, a.rhs
            if _ref_to(a.rhs, ids) == 1:
                return True, a.lhs
    # Any other spelling is read by its value (copies of the coordinates, the terms in
    # another order): the stride then comes back built from the parameters.
    stride = own_row_stride(index, coords, locals_)
    return stride is not None, stride


def _bound_of_params(fn: Function, bound: n.Expr, loop: n.Stmt) -> n.Expr:
    """`i < n` with `const int n = w * h;` declared before the loop and never assigned
    again: the bound as its initialiser, when that reads parameters only. Compared across
    kernels as launch arguments (legality) and printed in the fused kernel, where the
    producer's local does not exist; anything else stays as it was (and is compared as
    itself, so kernels with different locals do not match)."""
    assert fn.body is not None
    before: dict[str, n.VarDecl] = {}
    for stmt in fn.body.body:
        if stmt is loop:
            break
        if isinstance(stmt, n.DeclStmt):
            before.update((d.decl, d) for d in stmt.decls)
    for _ in range(8):  # a chain of such locals, not a cycle
        e = _strip(bound)
        d = before.get(e.decl) if isinstance(e, n.Ref) and e.kind == "local" else None
        if d is None or d.init is None or writes_to(fn.body, d.decl) or not all(
                x.kind == "param" or x.const_value is not None or x.decl in before
                for x in d.init.walk() if isinstance(x, n.Ref)):
            return bound
        bound = d.init
    return bound


# plain_view's answers by function (kept with it: the key is its id) while `remembered`
# is active: the vertical pass asks it of each kernel twice (launchshape, then the planner's
# build_view), and a KernelView is never changed once made.
_REMEMBERED: ContextVar[dict[int, tuple[Function, KernelView]] | None] = ContextVar(
    "cudafuse_plain_views", default=None)


@contextmanager
def remembered() -> Iterator[None]:
    """Within it, plain_view computes each function's view once."""
    token = _REMEMBERED.set({})
    try:
        yield
    finally:
        _REMEMBERED.reset(token)


def plain_view(fn: Function) -> KernelView:
    """The view of a kernel of the plain shape (coordinates, guard, stores); grid-stride
    loops are gridstride.py's (recognise.build_view tries them first)."""
    memo = _REMEMBERED.get()
    if memo is None:
        return _plain_view(fn)
    hit = memo.get(id(fn))
    if hit is None or hit[0] is not fn:
        hit = memo[id(fn)] = (fn, _plain_view(fn))
    return hit[1]


def _plain_view(fn: Function) -> KernelView:
    assert fn.body is not None
    body = list(fn.body.body)
    coords: list[n.VarDecl] = []
    coord_stmts: list[n.Stmt] = []
    locals_: dict[str, n.Expr] = {}
    pointer_params = {p.decl: p.name for p in fn.params if p.is_pointer}
    i = 0
    by_dim: dict[str, n.VarDecl] = {}
    sizes: dict[str, int | None] = {}
    # Leading declarations that are not coordinates (a shared tile, an accumulator) stay in
    # the body; scanning stops at a declaration that mixes both.
    while i < len(body) and isinstance(body[i], n.DeclStmt):
        decls = body[i].decls
        found = [coordinate(d.init) if d.init is not None else None for d in decls]
        dims = [f[0] if f else None for f in found]
        if all(dims):
            for d, f in zip(decls, found, strict=True):
                assert f is not None
                if f[0] not in by_dim:
                    by_dim[f[0]] = d
                    sizes[f[0]] = f[1]
            coord_stmts.append(body[i])
        elif any(dims):
            break
        i += 1
    for dim in DIM_NAMES:
        if dim not in by_dim:
            break
        coords.append(by_dim[dim])
    # A local declared with the coordinates and never assigned (`const int i = y * w + x;`
    # before the guard) may index the own-element stores, as one declared after it can.
    # (nor one whose address is taken: a call through it may change it)
    changed = assigned_decls(fn.body)
    for stmt in body[:i]:
        if isinstance(stmt, n.DeclStmt) and stmt not in coord_stmts:
            locals_.update((d.decl, d.init) for d in stmt.decls
                           if d.init is not None and d.decl not in changed)
    reason = None
    if not coords or len(coords) != len(by_dim):
        reason = _launch_mapping(body) or _block_mapping(body) or \
            "its thread-to-element mapping is not blockIdx * blockDim + threadIdx " \
            "per dimension, declared first"
    guard, kind, bounds = None, "", {}
    lower: dict[int, n.Expr] = {}
    rest = body[i:]
    if rest and isinstance(rest[0], n.If) and rest[0].else_ is None:
        cand = rest[0]
        early = _returns_only(cand.then)
        if early or len(rest) == 1:
            found, low = _guard_bounds(fn, cand.cond, coords, not early,
                                       locals_)
            if found is not None:
                guard, kind, bounds = cand, "return" if early else "enclose", found
                lower.update(low)
        nested = _nested_guard(cand) if len(rest) == 1 and not early and (
            guard is None or len(bounds) != len(coords)) else None
        if nested is not None:
            found, low = _guard_bounds(fn, nested.cond, coords, True,
                                       locals_)
            if found is not None and len(found) == len(coords):
                guard, kind, bounds, lower = nested, "enclose", found, dict(low)
    staged = None
    if guard is None and coords and len(rest) > 1 and isinstance(rest[-1], n.If) and \
            rest[-1].else_ is None and not _returns_only(rest[-1].then):
        # Work before the guard (a tile and its halo staged in shared memory, a barrier),
        # then `if (x < w && y < h) { ... }` as the last statement: such a kernel can end a
        # group (its body is kept, its reads served by views); it cannot be recomputed.
        cand = rest[-1]
        found, low = _guard_bounds(fn, cand.cond, coords, True,
                                       locals_)
        if found is not None and len(found) == len(coords) and not low:
            guard, kind, bounds, staged = cand, "enclose", found, rest[:-1]
    returned = 0
    if guard is None and coords and len(rest) > 1:
        # The same with the guard an early return after the work (`__syncthreads(); if (x
        # >= w || y >= h) return; ...`): the statements after it are the guarded body.
        returned = next((j for j, s in enumerate(rest) if j and isinstance(s, n.If) and
                         s.else_ is None and _returns_only(s.then)), 0)
        work = {d for s in rest[:returned] for d in assigned_decls(s)}
        if returned and not any(isinstance(x, n.Return) for s in rest[:returned]
                                for x in s.walk()) and not any(
                isinstance(x, n.Ref) and x.decl in work for x in rest[returned].cond.walk()):
            # (a bound the work sets, `if (h > 10) lim = w - 1;`, is not the kernel's own)
            cand = rest[returned]
            found, low = _guard_bounds(fn, cand.cond, coords, False,
                                       locals_)
            if found is not None and len(found) == len(coords) and not low:
                guard, kind, bounds, staged = cand, "return", found, rest[:returned]
    if reason is None and (guard is None or len(bounds) != len(coords)):
        reason = "it has no recognisable bounds guard (if (x >= w || y >= h) return;) " \
                 "covering every coordinate"
        free = [c.name for k, c in enumerate(coords) if k not in bounds]
        if guard is not None and free:
            reason += f" (the guard at line {guard.span.line} bounds no '{free[0]}')"
    if reason is None and staged:
        reason = (f"it does work before its bounds guard (line {staged[0].span.line}), such "
                  "as staging a tile in shared memory: it can only be the last kernel of a "
                  "group")
    if guard is None:
        tail = rest
    elif kind == "return":
        tail = rest[returned + 1:] if staged else rest[1:]
    else:
        inner = guard.inner if isinstance(guard, NestedGuard) and guard.inner else guard.then
        tail = list(inner.body) if isinstance(inner, n.Compound) else [inner]
    grid_dims: tuple[int, ...] = ()
    if guard is not None and len(coords) == 2 and len(bounds) == 2 and \
            _rows_first(tail, coords, dict(locals_), pointer_params):
        # x walks the rows: the kernel is the usual one with its coordinates swapped.
        coords = [coords[1], coords[0]]
        bounds = {0: bounds[1], 1: bounds[0]}
        lower = {1 - k: v for k, v in lower.items()}
        grid_dims = (1, 0)
    found_stores: list[tuple[OwnStore, tuple[tuple[int, int], ...]]] = []
    if coords and guard:
        _own_stores(tail, coords, locals_, pointer_params, (), found_stores)
    channels: dict[str, Channels] = {}
    channel_reason = None
    if coords and guard and len(bounds) == len(coords):
        channels, channel_reason = find_channels(fn.body, tail, tuple(coords), tuple(
            bounds[k] for k in sorted(bounds)), pointer_params)
    found_stores = [(s, p) for s, p in found_stores if s.param not in channels]
    accum, loaded = accumulators(fn.body, tail, tuple(coords), tuple(
        bounds[k] for k in sorted(bounds)), pointer_params) \
        if coords and guard and len(bounds) == len(coords) else (frozenset(), frozenset())
    acc_writes = _accumulator_writes(fn.body, accum)
    # An accumulated output's first store stands for all of them (accumulate.py).
    found_stores = [(s, p) for s, p in found_stores
                    if s.param not in accum or s is min(
                        (t for t, _ in found_stores if t.param == s.param),
                        key=lambda t: t.stmt.span.start)]
    stores: dict[str, OwnStore] = {}
    stride: n.Expr | None = None
    for store, _ in found_stores:
        if store.param not in stores:
            stores[store.param] = store
            _, st = own_index(store.index, coords, locals_)
            stride = stride or st
    all_stores = {p: tuple(s for s, _ in found_stores if s.param == p) for p in stores}
    channel_stores = tuple(OwnStore(name, s.stmt, s.value, s.index, nested=s.nested)
                           for name, ch in channels.items() for s in ch.stores)
    for store in channel_stores:
        stores.setdefault(store.param, store)
    if channels and len(coords) == 2:
        stride = stride or bounds[0]  # a channel's own element is y * w + x (channels.frame)
    reads, other = _pointer_uses(fn, pointer_params, stores,
                                 tuple(s for s, _ in found_stores) + channel_stores + acc_writes)
    if reason is None:
        reason = _store_paths(found_stores) or channel_reason or _channel_limits(
            fn.body, channels, reads, tuple(coords), tuple(bounds[k] for k in sorted(bounds))
        ) or _self_reads({k: v for k, v in stores.items() if k not in channels}, reads,
                         coords, locals_)
    if reason is None and accum and lower:
        reason = (f"it accumulates '{sorted(accum)[0]}' at its element and its guard bounds a "
                  "coordinate from below")
    returns = _early_returns(fn.body, guard, kind)
    if reason is None and returns and accum:
        reason = (f"it returns early (line {returns[0].span.line}) and builds "
                  f"'{sorted(accum)[0]}' in place (a value-at-element function reads an "
                  "early return only for outputs stored at most once on each path)")
    exits = any(k < 0 for k in lower)
    block = _block_reads(fn, coords, coord_stmts, guard, sizes, exits) \
        if reason is None else ()
    if reason is None and exits and not block:
        reason = ("its guard tests the thread's block or place in it, which cudafuse reads "
                  "as one of the element only in a 1-D kernel whose x is blockIdx.x * "
                  "blockDim.x + threadIdx.x")
    if reason is None:
        reason = _impurity(fn, coord_stmts, guard, stores, other,
                           frozenset(id(r) for r in returns) | {id(m.base) for m in block})
    return KernelView(fn, tuple(coords), tuple(coord_stmts), guard, kind,
                      tuple(bounds[k] for k in sorted(bounds)), stride, stores, reads, other,
                      reason, tuple(sizes[d] for d in DIM_NAMES[:len(coords)]),
                      grid_dims=grid_dims,
                      lower_bounded=bool(lower) and guard is not None,
                      all_stores=all_stores if any(
                          len(v) > 1 or v[0].nested for v in all_stores.values()) else {},
                      channels=channels, accumulators=accum, loaded=loaded,
                      early_returns=returns, block_reads=block)


def _block_reads(fn: Function, coords: list[n.VarDecl], coord_stmts: list[n.Stmt],
                 guard: n.If | None, sizes: dict[str, int | None], exits: bool = False
                 ) -> tuple[n.Member, ...]:
    """The x built-ins a 1-D kernel reads in its body (not its coordinate declarations, nor
    its guard unless `exits`: the guard tests the block, _block_condition), when its x is
    blockIdx.x * blockDim.x + threadIdx.x: each is then a function of the element, x /
    blockDim.x, x % blockDim.x or blockDim.x (see KernelView.block_reads). Empty when any
    other built-in is read there (gridDim, another dimension: _impurity refuses those), or
    for a 2-D kernel, or one whose block size is written as a constant."""
    assert fn.body is not None
    if len(coords) != 1 or sizes.get("x", 0) is not None:
        return ()
    skip = {id(x) for s in coord_stmts for x in s.walk()}
    if guard is not None and not exits:
        skip |= {id(x) for x in guard.cond.walk()}
    found = []
    for node in fn.body.walk():
        if id(node) in skip or not (isinstance(node, n.Member) and
                                    isinstance(node.base, n.Ref) and
                                    node.base.kind == "builtin"):
            continue
        if node.base.name not in ("blockIdx", "threadIdx", "blockDim") or \
                node.field_name != "x":
            return ()
        found.append(node)
    return tuple(found)


def _early_returns(body: n.Compound, guard: n.If | None, kind: str) -> tuple[n.Return, ...]:
    """The `return;` statements of a kernel past its bounds guard (`if (x == 0 || ...) {
    out[i] = 0; return; }`, `if (m[i] == 0) return;`). A thread leaving there stores
    nothing more, so a value-at-element function returns there what the element holds: the
    value of the store that ran on that path (already returned), else the memory (domain.py
    keeps such a producer's guard and memory fallback)."""
    skip = {id(x) for x in guard.then.walk()} if guard is not None and kind == "return" \
        and guard.then is not None else set()
    # (a return with a value is a lambda's, or no kernel's: it stays a reason to refuse)
    return tuple(x for x in body.walk() if isinstance(x, n.Return) and x.value is None
                 and id(x) not in skip)


LAUNCH_SHAPED = "its element comes from its launch's shape"
BLOCK_STRIDE = "walks several elements per thread in a loop from threadIdx.x"
UNMAPPED = ("thread-to-element mapping", "no recognisable bounds guard", LAUNCH_SHAPED,
            BLOCK_STRIDE)


def launch_mapped(body: list[n.Stmt]) -> bool:
    """A body with no guard (no `if` without `else` among its statements, no `return`
    anywhere) whose threads do not work together (no shared memory, barriers, collectives
    or atomics: that would be the larger obstacle): which elements it stores can only come
    from its launch's shape (launchshape.py)."""
    # (an if with an else chooses what to store, it bounds nothing: `if (b) ones[i] = 1;
    # else zeros[i] = 1;`; one without may be a guard the plain reading did not take)
    if any(isinstance(s, n.If) and s.else_ is None for s in body):
        return False
    for node in (x for s in body for x in s.walk()):
        if isinstance(node, n.Return) or isinstance(node, n.VarDecl) and \
                "shared" in node.storage or \
                isinstance(node, n.Call) and node.callee.startswith(_COLLECTIVES):
            return False
    return True


def _launch_mapping(body: list[n.Stmt]) -> str | None:
    """Why a kernel that maps threads to elements through its launch's shape (`c =
    threadIdx.x; r = blockIdx.x`, `i = blockIdx.x * cols + threadIdx.x`), with no guard,
    has no view: cudafuse reads it so only with its launches' block and grid
    (launchshape.py), which did not show it (their notes say why)."""
    if not launch_mapped(body):
        return None
    for loop in (x for s in body for x in s.walk() if isinstance(x, n.For)):
        init = loop.init.decls[0].init if isinstance(loop.init, n.DeclStmt) and \
            loop.init.decls and loop.init.decls[0].init is not None else None
        if init is not None and any(_is(_strip(x), "threadIdx", "x") for x in init.walk()):
            return (f"it {BLOCK_STRIDE} (line {loop.span.line}; a block-stride loop): "
                    "cudafuse reads such a loop over a row only when every launch's grid is "
                    "as many blocks as a parameter it is passed (see the assumed notes)")
    for stmt in body:
        if not isinstance(stmt, n.DeclStmt):
            break
        for d in stmt.decls:
            init = _strip(d.init) if d.init is not None else None
            if _is(init, "threadIdx", "x") or _is(init, "blockIdx", "x") or (
                    isinstance(init, n.Binary) and init.op == "+" and any(
                        _is(_strip(t), "threadIdx", "x") for t in (init.lhs, init.rhs))):
                return (f"{LAUNCH_SHAPED} ('{d.name}', line "
                        f"{d.span.line}) with no bounds guard: it is its own only for the "
                        "block and grid its launches use, and these do not show them equal "
                        "to parameters it is passed (see the assumed notes)")
    return None


def _helper_stores(fn: Function) -> str | None:
    """Why a kernel that stores nothing itself has no view, when it hands a pointer it may
    write to a function (`pixel_average(out, in, x, y, ...)`): its stores are the helper's."""
    assert fn.body is not None
    writable = {p.decl for p in fn.params if p.is_pointer and not p.pointee_const}
    for call in fn.body.nodes_of(n.Call):
        for arg in call.args:
            a = _strip(arg)
            if isinstance(a, n.Ref) and a.decl in writable and \
                    call.callee.startswith("atomic") and call.callee_expr is None:
                # (CUDA's atomics, which the evaluator reads as updates of their first
                # argument: no helper of the user's, cooperation.py's reason)
                return (f"it updates '{a.name}' with atomics ('{call.callee}', line "
                        f"{call.span.line}): other threads update the same elements, so none "
                        "of them holds one thread's value (a histogram or reduction)")
            if isinstance(a, n.Ref) and a.decl in writable:
                return (f"its stores are inside a call: it passes '{a.name}' to "
                        f"'{call.callee}' (line {call.span.line}), whose stores cudafuse "
                        "reads only where respell/void_helpers.py writes the call as the "
                        "helper's body (kernels of the main file, not of an included header)")
    return None


def _block_mapping(body: list[n.Stmt]) -> str | None:
    """Why a kernel whose leading declarations make its element its block's index (`int i =
    blockIdx.x;`) has no view: that is each thread's own element only where every block is
    one thread (launchshape.py reads it so when every launch in the file shows it)."""
    for stmt in body:
        if not isinstance(stmt, n.DeclStmt):
            break
        for d in stmt.decls:
            poly = _builtin_poly(d.init) if d.init is not None else None
            for dim in DIM_NAMES if poly is not None else ():
                if poly == Poly.atom(builtin("blockIdx", dim)):
                    return (f"its thread-to-element mapping is its block's index ('{d.name}' "
                            f"= blockIdx.{dim}, line {d.span.line}): each thread's own "
                            "element only in blocks of one thread, which not every launch in "
                            "the file provably gives")
    return None


def _accumulator_writes(body: n.Compound, accum: frozenset[str]) -> tuple[OwnStore, ...]:
    """Every store statement of an accumulated output (none is a use of another kind)."""
    out = []
    for s in body.walk():
        x = s.expr if isinstance(s, n.ExprStmt) else None
        if isinstance(x, n.Binary) and x.is_assignment and isinstance(x.lhs, n.Index):
            base = _strip(x.lhs.base)
            if isinstance(base, n.Ref) and base.name in accum:
                out.append(OwnStore(base.name, s, x.rhs, x.lhs.index, x.op))
    return tuple(out)


def elements_per_item(view: KernelView, pname: str) -> int:
    """How many elements of buffer `pname` the kernel touches per element of its iteration
    space: its channels when it stores them, the distinct constant channels of its own
    element it reads (`rgb[3 * i]`, `rgb[3 * i + 1]`...), else one (a stencil's neighbours
    come from the caches). The traffic figures count bytes with it."""
    if pname in view.channels:
        return len(view.channels[pname].numbers)
    reads = view.reads.get(pname, [])
    fr = frame(view.fn.body, view.coords, view.bounds) \
        if reads and view.fn.body is not None and view.coords else None
    if fr is None:
        return 1
    found = {classify(r.index, fr) for r in reads}
    if None in found:
        return 1
    # (the plain element is planar channel 0: `planes[i]` beside `planes[plane + i]`)
    return len({(k[0] or Layout("planar"), k[1]) for k in found if k is not None})


def _channel_limits(body: n.Compound, channels: dict[str, Channels],
                    reads: dict[str, list[n.Index]], coords: tuple[n.VarDecl, ...],
                    bounds: tuple[n.Expr, ...]) -> str | None:
    """How a producer of channels may read the buffer it stores them in: only channel c of
    its own element, and only before it stores channel c or in the value it stores there
    (`x[i * K + c] = x[i * K + c] / b[i]`, an in-place update). The value function of
    channel c turns every other channel's store into nothing, so a read of channel d after
    d's store would see memory, not the value stored; and where no store runs (a guard
    bounding a coordinate from below, an if without else, an early return), each channel's
    function yields the element's channel from memory, as the original leaves it
    (domain.keeps_guard)."""
    fr = frame(body, coords, bounds) if channels else None
    for name, ch in sorted(channels.items()):
        what = f"it stores '{name}' as {ch.describe()}"
        for node in reads.get(name, []):
            k = classify(node.index, fr) if fr is not None else None
            layout = (k[0] or Layout("planar")) if k is not None else None
            if k is None or layout != ch.layout:
                return f"{what} and reads it other than at a channel of its own element " \
                       f"(line {node.span.line})"
            mine = [s for s in ch.stores if s.channel == k[1]]
            if not all(node.span.end <= s.stmt.span.start or
                       s.value.span.start <= node.span.start < s.value.span.end
                       for s in mine):
                return f"{what} and reads channel {k[1]} (line {node.span.line}) after " \
                       "storing it"
    return None


_COMPOUND = ("+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=")


def _own_stores(stmts: list[n.Stmt], coords: list[n.VarDecl], locals_: dict[str, n.Expr],
                pointer_params: dict[str, str], path: tuple[tuple[int, int], ...],
                out: list[tuple[OwnStore, tuple[tuple[int, int], ...]]],
                exited: tuple[tuple[int, int], ...] = ()) -> None:
    """Stores `p[own] = v` (or `p[own] op= v`) among `stmts` and, through if/else, inside
    them, each with its path: the (if, branch) pairs it runs under. An if one of whose
    branches always leaves the kernel (`if (border) { out[i] = 0; return; }`) puts the
    statements after it on its other branch, as evaluation does (`exits`): a store there
    and one in the leaving branch never run on one path. `nested` stays the store's
    place in the text (inside an if/else of the body or not). Loops are not entered (a
    store there may run many times)."""
    # (a local written after its declaration, or whose address is taken, is not the value
    # it was declared with: its stores are not read through it)
    written = set().union(*(assigned_decls(s) for s in stmts)) if not path else set()
    for k, s in enumerate(stmts):
        if isinstance(s, n.DeclStmt) and not path:
            for d in s.decls:
                if d.init is not None and d.decl not in written:
                    locals_[d.decl] = d.init
        parts = store_parts(s.expr) if isinstance(s, n.ExprStmt) else None
        if parts is not None:
            target, value, op = parts
            base = _strip(target.base)
            if isinstance(base, n.Ref) and base.decl in pointer_params and \
                    retyped(target.base, base) is None:
                own, _ = own_index(target.index, coords, locals_)
                if own:
                    # (LEAVES: a statement after it in its list always leaves the kernel,
                    # so no store runs after this one)
                    leaves = ((id(s), LEAVES),) if any(exits(t) for t in stmts[k + 1:]) \
                        else ()
                    out.append((OwnStore(base.name, s, value, target.index, op, bool(path)),
                                (*path, *exited, *leaves)))
        elif isinstance(s, n.If):
            for branch, part in enumerate((s.then, s.else_)):
                if part is not None:
                    inner = list(part.body) if isinstance(part, n.Compound) else [part]
                    _own_stores(inner, coords, locals_, pointer_params,
                                (*path, (id(s), branch)), out, exited)
            leaves = (exits(s.then), s.else_ is not None and exits(s.else_))
            if leaves[0] != leaves[1]:
                exited = (*exited, (id(s), 1 if leaves[0] else 0))
        elif isinstance(s, n.Compound) and not path:
            _own_stores(list(s.body), coords, locals_, pointer_params, path, out, exited)


def _rows_first(stmts: list[n.Stmt], coords: list[n.VarDecl], locals_: dict[str, n.Expr],
                pointer_params: dict[str, str]) -> bool:
    """Does the kernel store its own element as `x * S + y` (x, from the grid's x, walking
    the rows) and never as `y * S + x`? Judged on the stores of the guarded body, as
    _own_stores finds them with the coordinates either way round."""
    plain: list[tuple[OwnStore, tuple[tuple[int, int], ...]]] = []
    swapped: list[tuple[OwnStore, tuple[tuple[int, int], ...]]] = []
    _own_stores(stmts, coords, dict(locals_), pointer_params, (), plain)
    _own_stores(stmts, [coords[1], coords[0]], dict(locals_), pointer_params, (), swapped)
    return bool(swapped) and not plain


LEAVES = -1  # a path entry (store, LEAVES): the kernel returns after that store


def _store_paths(found: list[tuple[OwnStore, tuple[tuple[int, int], ...]]]) -> str | None:
    """Why one output may be stored twice on one path (its value at an element is then the
    last store's, which a value-at-element function returning at the first would miss).
    `found` is in the order the stores run; two are on no common path when they sit in
    different branches of one if (a branch that always leaves counts for the statements
    after the if: _own_stores), or when the kernel always returns after the first."""
    for j, (a, pa) in enumerate(found):
        if any(b == LEAVES for _, b in pa):
            continue
        for b, pb in found[j + 1:]:
            if a.param == b.param and not any(
                    x[0] == y[0] and x[1] != y[1] for x in pa for y in pb):
                return (f"it may store '{a.param}' twice at its element (lines "
                        f"{a.stmt.span.line} and {b.stmt.span.line})")
    return None


def _self_reads(stores: dict[str, OwnStore], reads: dict[str, list[n.Index]],
                coords: list[n.VarDecl], locals_: dict[str, n.Expr]) -> str | None:
    """A producer may read what it writes only at its own element (`a[i] = a[i] + b[i]`):
    another element is another thread's, written at a time the fused kernel cannot keep."""
    for name in sorted(stores):
        for node in reads.get(name, []):
            if not own_index(node.index, coords, locals_)[0]:
                return (f"it reads '{name}' at an element other than its own (line "
                        f"{node.span.line}), which another thread writes")
    return None


def _pointer_uses(fn: Function, pointer_params: dict[str, str], stores: dict[str, OwnStore],
                  more: tuple[OwnStore, ...] = ()
                  ) -> tuple[dict[str, list[n.Index]], dict[str, str]]:
    """Direct subscripts `p[i]` read from each pointer parameter, and any other use (the
    stores in `stores` and `more` are neither; a compound store also reads its element)."""
    assert fn.body is not None
    store_lhs = {id(s.target) for s in (*stores.values(), *more)}
    reads: dict[str, list[n.Index]] = {}
    other: dict[str, str] = {}
    subscript_bases: set[int] = set()
    written: set[int] = set()
    for node in fn.body.walk():
        if isinstance(node, n.Index):
            subscript_bases.add(id(_strip(node.base)))
        if isinstance(node, n.Binary) and node.is_assignment and isinstance(node.lhs, n.Index):
            written.add(id(node.lhs))
        if isinstance(node, n.Call) and (parts := store_parts(node)) is not None:
            written.add(id(parts[0]))
        if isinstance(node, n.Unary) and node.op in ("++", "--") and \
                isinstance(node.operand, n.Index):
            written.add(id(node.operand))
    for node in fn.body.walk():
        for name, line, how in _member_writes(node, pointer_params, written):
            other.setdefault(name, f"{how} (line {line})")
    for node in fn.body.walk():
        if isinstance(node, n.Index):
            base = _strip(node.base)
            if isinstance(base, n.Ref) and base.decl in pointer_params:
                cast = retyped(node.base, base)
                if cast is not None:
                    other.setdefault(base.name, f"is accessed as '{cast}' (line "
                                     f"{node.span.line}), not as its own element type")
                    continue
                if id(node) in store_lhs:
                    continue
                if id(node) in written:
                    other.setdefault(base.name, "is written other than at the thread's element")
                else:
                    reads.setdefault(base.name, []).append(node)
        elif isinstance(node, n.Ref) and node.decl in pointer_params and \
                id(node) not in subscript_bases:
            other.setdefault(node.name, "is used other than by subscripting (p[i])")
    return reads, other


MEMBER_WRITE = "is written through a member of its element"
MEMBER_ADDRESS = "has the address of a member of its element taken"


def _lvalue_spine(e: n.Expr) -> list[n.Expr]:
    """The nodes an lvalue (or address) expression designates memory through, outermost
    first: `p[i].f[k]` gives the Index p[i].f[k], the Member p[i].f, the Index p[i] and p;
    index expressions are not part of it."""
    out: list[n.Expr] = []
    todo = [e]
    while todo:
        x = todo.pop()
        out.append(x)
        if isinstance(x, n.Cast):
            todo.append(x.operand)
        elif isinstance(x, (n.Member, n.Index)):
            todo.append(x.base)
        elif isinstance(x, n.Unary) and x.op in ("*", "&"):
            todo.append(x.operand)
        elif isinstance(x, n.Binary) and x.op in ("+", "-"):  # (p + i)->x
            todo += [y for y in (x.lhs, x.rhs) if "*" in y.type or "[" in y.type]
    return out


def _member_writes(node: n.Node, pointer_params: dict[str, str], written: set[int]
                   ) -> list[tuple[str, int, str]]:
    """(pointer, line, how) for a store, increment or address-of whose target is a member
    of an element a pointer parameter reaches: `p[i].x = v`, `p[i].x++`, `(p + i)->x += v`,
    `p[i].f[k] = v`, `&p[i].x`. The subscripts on the way (p[i]) are added to `written`."""
    if isinstance(node, n.Binary) and node.is_assignment:
        target, how = node.lhs, MEMBER_WRITE
    elif isinstance(node, n.Unary) and node.op in ("++", "--"):
        target, how = node.operand, MEMBER_WRITE
    elif isinstance(node, n.Unary) and node.op == "&":
        target, how = node.operand, MEMBER_ADDRESS
    else:
        return []
    spine = _lvalue_spine(target)
    if not any(isinstance(x, n.Member) and not (isinstance(x.base, n.Ref) and
                                                 x.base.kind == "builtin") for x in spine):
        return []
    out = []
    for x in spine:
        if isinstance(x, n.Index) and how == MEMBER_WRITE:
            written.add(id(x))
        if isinstance(x, n.Ref) and x.decl in pointer_params:
            out.append((x.name, node.span.line, how))
    return out


def _impurity(fn: Function, coord_stmts: list[n.Stmt],
              guard: n.If | None, stores: dict[str, OwnStore], other: dict[str, str],
              skip_extra: frozenset[int] = frozenset()) -> str | None:
    """Why this kernel's value at an element is not a pure function of that element."""
    assert fn.body is not None
    const = {p.name for p in fn.params if p.pointee_const}
    for name, why in sorted(other.items()):
        # A store to part of an element is no value at the element a view could return.
        if why.startswith(MEMBER_WRITE) or why.startswith(MEMBER_ADDRESS) and \
                name not in const:
            return f"pointer '{name}' {why}: a store to part of an element is not a " \
                   "value a consumer can recompute"
    for name, why in sorted(other.items()):
        if why.startswith("is accessed as"):
            return f"pointer '{name}' {why}"
    if not stores:
        return _helper_stores(fn) or \
            "it stores no value at the thread's own element (out[y * w + x] = ...)"
    for name, why in sorted(other.items()):
        if "written" in why or name not in const:  # a non-const pointer handed on may be written
            return f"pointer '{name}' {why}"
    if fn.is_template:
        return "it is a template (fusion of templates is not supported yet)"
    skip: set[int] = set(skip_extra)
    for s in coord_stmts:
        skip |= {id(x) for x in s.walk()}
    if guard is not None:
        skip |= {id(x) for x in guard.cond.walk()}
        if isinstance(guard.then, n.Return) or (guard.then is not None and
                                                 _returns_only(guard.then)):
            skip |= {id(x) for x in guard.then.walk()}
    for node in fn.body.walk():
        if id(node) in skip:
            continue
        if isinstance(node, n.Ref) and node.kind == "builtin":
            return (f"it reads '{node.name}' outside its coordinate declarations (line "
                    f"{node.span.line})")
        if isinstance(node, n.Return):
            return "it returns early other than in its bounds guard"
        if isinstance(node, n.Asm):
            return "it contains inline assembly"
        if isinstance(node, n.VarDecl) and ("shared" in node.storage or "static" in node.storage):
            return f"it declares {'shared' if 'shared' in node.storage else 'static'} " \
                   f"variable '{node.name}'"
        if isinstance(node, n.Call) and (node.callee.startswith(_COLLECTIVES) or
                                         is_cooperative_groups_call(node)):
            return f"it calls '{node.callee}' (barriers, warp collectives, cooperative " \
                   "groups and atomics depend on other threads)"
        if isinstance(node, n.Binary) and node.is_assignment:
            target = _strip(node.lhs)
            if isinstance(target, n.Ref) and target.kind == "global":
                return f"it writes global variable '{target.name}'"
        if isinstance(node, n.OtherStmt) and node.kind in ("GOTO_STMT", "LABEL_STMT"):
            return "it uses goto"
    return None


# ---- grid-stride loops (gridstride.py) ------------------------------------------------

def writes_to(node: n.Node, decl: str) -> list[n.Node]:
    out = []
    for x in node.walk():
        if isinstance(x, n.Binary) and x.is_assignment and _ref_to(x.lhs, {decl: 0}) == 0:
            out.append(x)
        elif isinstance(x, n.Unary) and x.op in ("++", "--") and \
                _ref_to(x.operand, {decl: 0}) == 0:
            out.append(x)
    return out

