"""Kernels with no bounds guard, correct only for the block and grid their launches use.

Course and student code often launches one block per image row and no thread too many:

    __global__ void blur(const float *in, float *out, int rows, int cols) {
        int c = threadIdx.x;  int r = blockIdx.x;          // or: int i = blockIdx.x * cols
        out[r * cols + c] = ...;                            //           + threadIdx.x;
    }
    blur<<<rows, cols>>>(in, out, rows, cols);              // or dim3 grid(rows), block(cols)

Read alone, such a kernel stores an element per thread of whatever launch runs it; it writes
exactly the image only because every launch's block is `cols` threads and its grid `rows`
blocks. Those are facts of the host: at each launch, the block's and grid's x (host/
resolver.py evaluates them over the host function's never-reassigned locals) equal, as host
values, the arguments the launch passes for some of the kernel's parameters. When every
launch of the kernel in the file shows the same parameters (or the same constants), and a
1-D block and grid, the kernel analysis uses them, as constargs.py uses parameters every
launch passes as one constant: the kernel is read as the one it equals at those launches,

  * `blockIdx.x * cols + threadIdx.x` (or `* blockDim.x`), the first declaration: the usual
    1-D coordinate, over `rows * cols` elements (cols is blockDim.x there);
  * `threadIdx.x` and `blockIdx.x` declared apart (`c = threadIdx.x; r = blockIdx.x`, rows
    or columns): a 2-D coordinate each, the thread's column (or row) in [0, cols) and its
    block's row (or column) in [0, rows);

  * `int y = blockIdx.x;` and, last, `for (int x = threadIdx.x; x < cols; x += blockDim.x)`
    (a block's threads walking its row, any block): y a coordinate in [0, rows), the loop a
    grid-stride loop over x of a grid one block wide (gridstride.row_loop_view);

with the guard those bounds imply (`if (c < cols && r < rows) {...}`, an `ImpliedGuard`: in
no text, true at every thread of those launches) around the rest of its body. The rest of
the vertical pass then reads it like any guarded kernel: which element each thread stores
and loads, whether another kernel's reads stay inside what it writes. Only the analysis sees
the rewrite; code generation keeps the user's text (the guard, inserted where a value must
fall back to memory, is printed from the bounds), and the fused launch is the last kernel's
own, so its threads are the ones the facts were shown for. Coverage (host/coverage.py) asks
each launch again that its block and grid are exactly the bounds.

A kernel launched with other shapes (a block of 32 threads somewhere, a block size no
parameter equals, a 2-D grid) keeps its text's meaning and stays unfused; a note says which
launch.
"""

from __future__ import annotations

import dataclasses

from cudafuse.analysis.evaluate import assigned_decls
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, Param, TranslationUnit
from cudafuse.ir.source import Span
from cudafuse.ir.substitute import replace_nodes
from cudafuse.ir.types import is_integral
from cudafuse.passes.vertical.host.gridsize import text
from cudafuse.passes.vertical.host.hostview import host_locals
from cudafuse.passes.vertical.host.resolver import Resolver
from cudafuse.passes.vertical.kernel.gridstride import grid_stride_view
from cudafuse.passes.vertical.kernel.recognise import build_view
from cudafuse.passes.vertical.kernel.view import (
    UNMAPPED,
    ImpliedGuard,
    _strip,
    launch_mapped,
    plain_view,
)
from cudafuse.passes.vertical.kernel.view import (
    coordinate as view_coordinate,
)

_BUILTINS = ("threadIdx", "blockIdx", "blockDim", "gridDim")


def _builtin(e: n.Expr, name: str | None = None) -> tuple[str, str] | None:
    """(built-in, field) of `threadIdx.x` and its kind, casts stripped."""
    e = _strip(e)
    if isinstance(e, n.Member) and isinstance(e.base, n.Ref) and e.base.kind == "builtin" \
            and e.base.name in _BUILTINS and e.field_name in ("x", "y", "z") and \
            (name is None or e.base.name == name):
        return e.base.name, e.field_name
    return None


def _member(base: str, dim: str, span: Span) -> n.Member:
    ref = n.Ref(base, kind="builtin", decl=base, type="const uint3", span=span)
    return n.Member(ref, dim, type="const unsigned int", span=span)


def _coord_expr(dim: str, span: Span) -> n.Expr:
    """blockIdx.d * blockDim.d + threadIdx.d, the usual coordinate, at `span`."""
    prod = n.Binary("*", _member("blockIdx", dim, span), _member("blockDim", dim, span),
                    type="unsigned int", span=span)
    return n.Binary("+", prod, _member("threadIdx", dim, span), type="unsigned int",
                    span=span)


def _flat_size(init: n.Expr) -> n.Expr | None:
    """S of `blockIdx.x * S + threadIdx.x` in any operand order (S not a built-in other
    than blockDim.x), else None."""
    e = _strip(init)
    if not (isinstance(e, n.Binary) and e.op == "+"):
        return None
    for prod, tid in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
        prod = _strip(prod)
        if _builtin(tid) != ("threadIdx", "x") or not (isinstance(prod, n.Binary) and
                                                        prod.op == "*"):
            continue
        for bid, size in ((prod.lhs, prod.rhs), (prod.rhs, prod.lhs)):
            if _builtin(bid) == ("blockIdx", "x") and (
                    _builtin(size) in (None, ("blockDim", "x"))):
                return size
    return None


@dataclasses.dataclass(frozen=True)
class _Shape:
    """How a guard-free kernel maps threads to elements, read from its leading
    declarations: "flat" (one coordinate, blockIdx.x * S + threadIdx.x), "apart"
    (threadIdx.x and blockIdx.x, each a coordinate) or "rowloop" (blockIdx.x a row, the
    body's last statement a loop over its columns from threadIdx.x by blockDim.x)."""

    kind: str
    decls: tuple[n.VarDecl, ...]  # the coordinates: flat (i,), apart (from threadIdx, blockIdx)
    last: int  # index of the body statement declaring the last of them
    size: n.Expr | None = None  # flat: S


def _block_stride(loop: n.Stmt) -> bool:
    """`for (int x = threadIdx.x; x < w; x += blockDim.x)`: a block's threads walking a row."""
    if not (isinstance(loop, n.For) and isinstance(loop.init, n.DeclStmt) and
            len(loop.init.decls) == 1 and loop.init.decls[0].init is not None and
            _builtin(loop.init.decls[0].init) == ("threadIdx", "x")):
        return False
    var = loop.init.decls[0].decl
    inc = loop.inc
    if isinstance(inc, n.Binary) and inc.op == "+=" and isinstance(_strip(inc.lhs), n.Ref) \
            and _strip(inc.lhs).decl == var:  # type: ignore[attr-defined]
        return _builtin(inc.rhs) == ("blockDim", "x")
    return False


def _shape(fn: Function) -> _Shape | None:
    assert fn.body is not None
    body = fn.body.body
    tid: n.VarDecl | None = None
    bid: n.VarDecl | None = None
    for k, stmt in enumerate(body):
        if not isinstance(stmt, n.DeclStmt):
            if bid is not None and tid is None and k == len(body) - 1 and k > 0 and \
                    _block_stride(stmt):
                return _Shape("rowloop", (bid,), k - 1)
            return None
        for d in stmt.decls:
            if d.init is None:
                continue
            if k == 0 and d is stmt.decls[0] and (size := _flat_size(d.init)) is not None:
                return _Shape("flat", (d,), k, size)
            b = _builtin(d.init)
            if b == ("threadIdx", "x") and tid is None:
                tid = d
            elif b == ("blockIdx", "x") and bid is None:
                bid = d
        if tid is not None and bid is not None:
            return _Shape("apart", (tid, bid), k)
    return None


class _Launches:
    """Every launch of each kernel in the file, with the host function around it."""

    def __init__(self, unit: TranslationUnit):
        self.unit = unit
        self.by_kernel: dict[str, list[tuple[Function, n.KernelLaunch]]] = {}
        self.other_use: set[str] = set()
        fns = (*unit.functions, *unit.methods, *unit.method_hosts, *unit.header_functions)
        for f in fns:
            if f.body is None:
                continue
            for node in f.body.walk():
                if isinstance(node, n.KernelLaunch):
                    self.by_kernel.setdefault(node.kernel_decl, []).append((f, node))
                elif isinstance(node, n.Ref) and node.kind == "function":
                    self.other_use.add(node.decl)


def _where(unit: TranslationUnit, node: n.Node) -> str:
    return f"{node.span.file or unit.path}:{node.span.line}"


def _extent_value(fn: Function, resolver: Resolver, launch: n.KernelLaunch, comp: n.Expr,
                  scalars: list[Param]) -> tuple[set[str], int | None] | None:
    """The kernel parameters whose argument at this launch equals the launch's extent
    `comp` (as host values), and the extent when it is a constant; None when it is
    unknown."""
    want = resolver.linear(comp)
    if want is None:
        return None
    mine = {p.decl for p in scalars}
    params = {p.decl for p, arg in zip(fn.params, launch.args, strict=True)
              if p.decl in mine and resolver.linear(arg) == want}
    return params, (want[1] if not want[0] else None)


@dataclasses.dataclass
class _Extent:
    """What every launch agrees a block or grid x size is: the kernel parameters each passes
    equal to it, and the constants it is (None: not a constant at some launch)."""

    params: set[str] | None = None
    consts: set[int | None] = dataclasses.field(default_factory=set)

    def add(self, params: set[str], const: int | None) -> None:
        self.params = params if self.params is None else self.params & params
        self.consts.add(const)

    def known(self) -> bool:
        return bool(self.params) or (None not in self.consts and len(self.consts) == 1)

    def expr(self, fn: Function, prefer: n.Expr | None = None) -> n.Expr | None:
        """A parameter (`prefer` when it is one of them) or the constant; None when the
        launches do not show `prefer` equal to it."""
        s = _strip(prefer) if prefer is not None else None
        if isinstance(s, n.Ref) and s.kind == "param" and s.const_value is None:
            return s if self.params and s.decl in self.params else None
        if s is not None and _builtin(s) is None:
            value = s.value if isinstance(s, n.IntLit) else s.const_value \
                if isinstance(s, n.Ref) else None
            return s if isinstance(value, int) and self.consts == {value} else None
        if self.params:
            p = next(q for q in fn.params if q.decl in self.params)
            return n.Ref(p.name, kind="param", decl=p.decl, type=p.type)
        if self.known():
            (value,) = self.consts
            assert value is not None
            return n.IntLit(value, type="int")
        return None


def _facts(unit: TranslationUnit, fn: Function, sites: list[tuple[Function, n.KernelLaunch]],
           need_block: bool = True) -> tuple[dict[str, _Extent] | None, str]:
    """What every launch's block and grid x sizes are, or why they are not known (a
    block-stride loop needs no block size: `need_block` False)."""
    assert fn.body is not None
    written = assigned_decls(fn.body)
    scalars = [p for p in fn.params if not p.is_pointer and not p.is_reference and
               is_integral(p.type) and "bool" not in p.type and p.decl not in written]
    per = {"block": _Extent(), "grid": _Extent()}
    for host, launch in sites:
        if launch.template_args or len(launch.args) != len(fn.params) or host.body is None:
            return None, f"its launch at {_where(unit, launch)} is not one cudafuse reads"
        resolver = Resolver(host_locals(host), unit=unit)
        grid, block = resolver.dim3(launch.grid), resolver.dim3(launch.block)
        if grid is None or block is None:
            return None, (f"the grid or block of its launch at {_where(unit, launch)} is not "
                          "a dim3 built in the host function")
        for what, comps in (("grid", grid), ("block", block)):
            for k in (1, 2):
                if resolver.linear(comps[k]) != ((), 1):
                    return None, (f"its launch at {_where(unit, launch)} has a {what} "
                                  f"{'yz'[k - 1]} size of {text(comps[k])}, not 1")
        for what, comp in (("block", block[0]), ("grid", grid[0])):
            got = _extent_value(fn, resolver, launch, comp, scalars)
            if got is None:
                return None, (f"the {what} x size {text(comp)} of its launch at "
                              f"{_where(unit, launch)} is not a simple expression")
            per[what].add(*got)
            if not per[what].known() and (need_block or what == "grid"):
                return None, (f"its launch at {_where(unit, launch)} passes it no parameter "
                              f"equal to its {what}'s x size {text(comp)} (that every "
                              "launch passes so), nor is that size a constant every launch "
                              "shares")
    return per, ""


def _less(a: n.Expr, b: n.Expr) -> n.Expr:
    return n.Binary("<", a, b, type="bool")


def _local(d: n.VarDecl) -> n.Ref:
    return n.Ref(d.name, kind="local", decl=d.decl, type=d.var_type)


def _after_line(data: bytes, end: int) -> int:
    """`end` moved past a following `;` and the rest of its line when that is blank: where
    the implied guard sits, after what code generation removes with the declarations."""
    pos = end
    while data[pos:pos + 1] in (b" ", b"\t"):
        pos += 1
    if data[pos:pos + 1] == b";":
        pos += 1
    rest = pos
    while data[rest:rest + 1] in (b" ", b"\t", b"\r"):
        rest += 1
    if data[rest:rest + 1] != b"\n":
        return pos
    rest += 1
    while data[rest:rest + 1] in (b" ", b"\t"):  # (what is inserted there, indented)
        rest += 1
    return rest


def _rewrite(unit: TranslationUnit, fn: Function, shape: _Shape, block: n.Expr | None,
             grid: n.Expr) -> Function:
    """`fn` as the kernel it equals at launches of `block` x 1 x 1 threads and `grid` x 1 x 1
    blocks (see the module's docstring); the user's spans kept."""
    assert fn.body is not None
    sizes = {"blockDim": block, "gridDim": grid}  # (a row loop's block: any size)
    size_node = shape.size

    def change(node: n.Node) -> n.Node | None:
        if node is size_node and _builtin(node) is None:  # flat: S is blockDim.x here
            return _member("blockDim", "x", node.span)
        b = _builtin(node) if isinstance(node, n.Member) else None
        if b is None:
            return None
        base, dim = b
        if dim != "x":  # 1-D launches: y and z are 0 (indices) and 1 (sizes)
            value = 0 if base in ("threadIdx", "blockIdx") else 1
            return n.IntLit(value, type="unsigned int", span=node.span)
        if shape.kind in ("apart", "rowloop") and base in ("threadIdx", "blockIdx"):
            return _coord_expr("x" if base == "threadIdx" else "y", node.span)
        if shape.kind == "rowloop" and base == "blockDim":  # the step: the whole (virtual) grid
            return n.Binary("*", _member("blockDim", "x", node.span),
                            _member("gridDim", "x", node.span), type="unsigned int",
                            span=node.span)
        if base in sizes and (shape.kind == "apart" or base == "gridDim"):
            size = sizes[base]
            return dataclasses.replace(size, span=node.span) if size is not None else None
        return None

    body = replace_nodes(fn.body, change)
    assert isinstance(body, n.Compound)
    head, rest = list(body.body[:shape.last + 1]), list(body.body[shape.last + 1:])
    new_decls = {d.decl: d for s in head if isinstance(s, n.DeclStmt) for d in s.decls}
    coords = [new_decls[d.decl] for d in shape.decls]
    if shape.kind == "rowloop":
        loop = rest[0]
        assert isinstance(loop, n.For) and isinstance(loop.init, n.DeclStmt)
        cond = _less(_local(coords[0]), grid)
        extents = {coords[0].decl: "grid.x", loop.init.decls[0].decl: "loop.x"}
    elif shape.kind == "flat":
        assert block is not None
        total = n.Binary("*", grid, block, type="int")
        cond: n.Expr = _less(_local(coords[0]), total)
        extents = {coords[0].decl: "grid.x*block.x"}
    else:
        assert block is not None
        cond = n.Binary("&&", _less(_local(coords[0]), block), _less(_local(coords[1]), grid),
                        type="bool")
        extents = {coords[0].decl: "block.x", coords[1].decl: "grid.x"}
    start = _after_line(unit.source_of(fn.body.span.file).data, head[-1].span.end)
    end = max(start, fn.body.span.end - 1)
    span = Span(fn.body.span.file, start, end, head[-1].span.line, head[-1].span.col)
    then = n.Compound(tuple(rest), span=span)
    guard = ImpliedGuard(cond, then, span=span, extents=tuple(sorted(extents.items())))
    return dataclasses.replace(fn, body=dataclasses.replace(body, body=(*head, guard)))


def _one_block(unit: TranslationUnit, sites: list[tuple[Function, n.KernelLaunch]],
               extent: str = "grid") -> bool:
    """Does every launch give the kernel a grid of one block (1 in x, y and z, as host
    values: `k<<<1, n>>>`, `dim3 grid(1, 1)`)? Then blockIdx is 0 in every dimension.
    With `extent` "block": a block of one thread (`k<<<n, 1>>>`), threadIdx 0."""
    for host, launch in sites:
        if host.body is None:
            return False
        resolver = Resolver(host_locals(host), unit=unit)
        dims = resolver.dim3(launch.grid if extent == "grid" else launch.block)
        if dims is None or any(resolver.linear(c) != ((), 1) for c in dims):
            return False
    return bool(sites)


def _as_one_block(fn: Function) -> Function:
    """`fn` read at launches of one block: there blockIdx.d is 0, so threadIdx.d equals
    blockIdx.d * blockDim.d + threadIdx.d, the usual coordinate, and a lone blockIdx.d is
    0. Expressions that already are the coordinate stay as they are; gridDim (a grid-stride
    loop's step) too. The rewrite is an identity at those launches: every analysis may use
    it, code generation keeps the user's text (the fused launch is the last kernel's own,
    and host/coverage.py asks each launch again for its extents)."""
    return _with_one_index_zero(fn, coordinate="threadIdx", zero="blockIdx")


def _as_one_thread(fn: Function) -> Function:
    """`fn` read at launches of one-thread blocks (`k<<<n, 1>>>`): there threadIdx.d is 0,
    so blockIdx.d equals blockIdx.d * blockDim.d + threadIdx.d, the usual coordinate, and a
    lone threadIdx.d is 0 (_as_one_block's mirror; an identity at those launches, which
    code generation and coverage ask again)."""
    return _with_one_index_zero(fn, coordinate="blockIdx", zero="threadIdx")


def _with_one_index_zero(fn: Function, coordinate: str, zero: str) -> Function:
    """`fn` with each lone `coordinate`.d read as the usual coordinate of d and each lone
    `zero`.d as 0 (the two launch shapes above)."""
    assert fn.body is not None

    def change(node: n.Node) -> n.Node | None:
        if isinstance(node, n.Expr) and not isinstance(node, n.Member) and \
                view_coordinate(node) is not None:
            return node  # (already blockIdx * blockDim + threadIdx: not entered)
        b = _builtin(node) if isinstance(node, n.Member) else None
        if b is None:
            return None
        base, dim = b
        if base == coordinate:
            return _coord_expr(dim, node.span)
        if base == zero:
            return n.IntLit(0, type="unsigned int", span=node.span)
        return None

    body = replace_nodes(fn.body, change)
    assert isinstance(body, n.Compound)
    return dataclasses.replace(fn, body=body)


def _reads_block_builtins(fn: Function) -> bool:
    """Does the kernel read threadIdx or blockIdx other than as the usual coordinate?"""
    assert fn.body is not None
    skip: set[int] = set()
    for node in fn.body.walk():
        if id(node) in skip:
            continue
        if isinstance(node, n.Expr) and not isinstance(node, n.Member) and \
                view_coordinate(node) is not None:
            skip |= {id(x) for x in node.walk()}
        elif _builtin(node) is not None and _builtin(node)[0] in ("threadIdx", "blockIdx"):  # type: ignore[index]
            return True
    return False


def _needs_shape(fn: Function, one_block: bool = False) -> bool:
    """A kernel the plain reading refuses for want of the usual coordinates or of a guard,
    with no guard at all and threads that do not work together (view.launch_mapped), and
    no grid-stride loop."""
    assert fn.body is not None
    why = plain_view(fn).producer_reason or ""
    # (one block: its threads' shared memory and barriers are the whole grid's, so they do
    # not stand in the way of reading its coordinate from the launch)
    return any(u in why for u in UNMAPPED) and (one_block or launch_mapped(
        list(fn.body.body))) and grid_stride_view(fn) is None


def with_launch_shapes(unit: TranslationUnit) -> tuple[TranslationUnit, list[str]]:
    """A copy of `unit` whose guard-free kernels are read with the block and grid every
    launch gives them, and a note per kernel saying how, or why not."""
    kernels = [f for f in unit.functions if f.is_kernel and f.body is not None and
               not f.is_template]
    launches: _Launches | None = None
    notes: list[str] = []
    changed: dict[str, Function] = {}
    for fn in kernels:
        where = f"{fn.span.file or unit.path}:{fn.span.line}"
        one_block = False
        if _reads_block_builtins(fn):
            launches = launches or _Launches(unit)
            sites = launches.by_kernel.get(fn.decl, [])
            if fn.decl not in launches.other_use and _one_block(unit, sites):
                one_block = True
                fn = _as_one_block(fn)
                changed[fn.decl] = fn
                notes.append(f"{where}: kernel '{fn.name}' is launched as one block at every "
                             "launch in the file: analysed with blockIdx = 0, its threadIdx "
                             "its global coordinate")
            elif fn.decl not in launches.other_use and _one_block(unit, sites, "block"):
                fn = _as_one_thread(fn)
                changed[fn.decl] = fn
                notes.append(f"{where}: kernel '{fn.name}' is launched with blocks of one "
                             "thread at every launch in the file: analysed with threadIdx = "
                             "0, its blockIdx its global coordinate")
        shape = _shape(fn)
        if shape is None or not _needs_shape(fn, one_block):
            continue
        launches = launches or _Launches(unit)
        sites = launches.by_kernel.get(fn.decl, [])
        if not sites or fn.decl in launches.other_use:
            continue
        rowloop = shape.kind == "rowloop"
        facts, why = _facts(unit, fn, sites, need_block=not rowloop)
        block = grid = None
        if facts is not None and rowloop:
            grid = facts["grid"].expr(fn)
            why = "its launches do not agree on a grid x size"
        elif facts is not None:
            # (a flat coordinate's S must be the block size itself: blockDim.x, or what every
            # launch shows equal to it)
            flat = shape.size if shape.kind == "flat" and _builtin(shape.size) is None \
                else None
            block, grid = facts["block"].expr(fn, flat), facts["grid"].expr(fn)
            if block is None or grid is None:
                why = (f"its launches do not show '{text(flat)}' equal to their block's x "
                       "size" if flat is not None and grid is not None else
                       "its launches do not agree on a block or grid x size")
        if (block is None and not rowloop) or grid is None:
            notes.append(f"{where}: kernel '{fn.name}' has no bounds guard, so which elements "
                         f"it stores depends on its launches' block and grid; not read with "
                         f"them: {why}")
            continue
        assert grid is not None
        new = _rewrite(unit, fn, shape, block, grid)
        still = build_view(new).producer_reason or ""
        if any(u in still for u in UNMAPPED):
            continue  # (still not the usual shape: left as written)
        changed[fn.decl] = new
        names = [d.name for d in shape.decls]
        if rowloop:
            notes.append(f"{where}: kernel '{fn.name}' has no bounds guard; every launch in "
                         f"the file gives it a 1-D block and a grid of {text(grid)} blocks: "
                         f"analysed with '{names[0]}' in [0, {text(grid)}) and its loop from "
                         "threadIdx.x by blockDim.x as a grid-stride loop over that row")
            continue
        how = (f"'{names[0]}' in [0, {text(grid)} * {text(block)})" if shape.kind == "flat"
               else f"'{names[0]}' in [0, {text(block)}) and '{names[1]}' in [0, "
                    f"{text(grid)})")
        notes.append(f"{where}: kernel '{fn.name}' has no bounds guard; every launch in the "
                     f"file gives it blocks of {text(block)} threads and a grid of "
                     f"{text(grid)} blocks: analysed with {how}")
    if not changed:
        return unit, notes
    functions = [changed.get(f.decl, f) for f in unit.functions]
    return dataclasses.replace(unit, functions=functions), notes
