"""State a grid-stride loop carries from one iteration to the next: a dependence on the
block size that neither index arithmetic nor the stores show.

Profiling gives a part another block size under the same grid (the pair spec's, sized for
the native block), so each thread runs another number of iterations of its grid-stride
loop: with half the threads, two where it ran one. That changes nothing when every
iteration starts afresh from the loop variable. It changes everything when the body writes
a variable that outlives the iteration: PyTorch's ATen kernels of 2019 (`im2col_kernel`,
`MaxPoolForward`) advance their pointer parameters (`data_col += ...`) and divide the loop
variable itself (`index /= width_col`) inside `CUDA_KERNEL_LOOP`; they are right only when
each thread runs one iteration, and a second one writes far past the output (an illegal
memory access on the H200, 2026-11-28). A per-thread sum over a grid-stride loop is the same
case: what each thread sums is set by the number of threads.

Judged by meaning, on the IR: a loop is grid-stride when a step `v += e` (or `v = v + e`)
in its increment or body adds an `e` that depends on `gridDim` (directly or through locals
fixed for the thread, `const int stride = blockDim.x * gridDim.x`; the `for` of a macro
too); it carries state when its condition or body (that step aside) writes a variable
declared outside the body: its own loop variable, a parameter, a local of the function (an
assignment, `++`/`--`, a member or an element of a local array, its address taken, or an
argument to a helper's non-const reference parameter: a callee may write through either).
A variable that every iteration sets first (a plain `v = e` as the first statement naming
it) and that nothing outside the loop reads is no state. Conservative otherwise: a value
carried that is a function of the loop variable alone counts (the part keeps its size;
nothing is wrong, profiling just tries fewer sizes).
"""

from __future__ import annotations

from dataclasses import dataclass

from cudafuse.analysis.callgraph import CallGraph
from cudafuse.ir import nodes as n
from cudafuse.ir.casts import strip_casts as _strip
from cudafuse.ir.program import Function, Param, TranslationUnit

_VARIABLES = frozenset({"local", "param"})


def _grid_constants(fn: Function) -> set[str]:
    """The locals that hold, for the whole thread, a value depending on `gridDim`
    (`const int stride = blockDim.x * gridDim.x`, through other such locals too): declared
    with it and never written again. A variable the loop steps is none of them."""
    assert fn.body is not None
    nodes = list(fn.body.walk())
    written = {(r.decl or r.name) for x in nodes if (r := _written(x, set())) is not None}
    found: set[str] = set()

    def depends(e: n.Node) -> bool:
        return any(isinstance(x, n.Ref) and (x.kind == "builtin" and x.name == "gridDim" or
                                             (x.decl or x.name) in found) for x in e.walk())

    for _ in range(2):  # twice: a local declared from a later one (rare) still counts
        for node in nodes:
            if isinstance(node, n.VarDecl) and node.init is not None and \
                    (node.decl or node.name) not in written and depends(node.init):
                found.add(node.decl or node.name)
    return found


def _stride_step(e: n.Node, grid: set[str]) -> n.Ref | None:
    """The variable `e` steps by the whole grid (`v += blockDim.x * gridDim.x`, `v = v +
    stride`), or None."""
    if not isinstance(e, n.Binary) or e.op not in ("+=", "="):
        return None
    var = _strip(e.lhs)
    if not isinstance(var, n.Ref) or var.kind not in _VARIABLES:
        return None
    step = e.rhs
    if e.op == "=":
        rhs = _strip(e.rhs)
        if not (isinstance(rhs, n.Binary) and rhs.op == "+"):
            return None
        a, b = _strip(rhs.lhs), _strip(rhs.rhs)
        if isinstance(a, n.Ref) and a.decl == var.decl:
            step = b
        elif isinstance(b, n.Ref) and b.decl == var.decl:
            step = a
        else:
            return None
    on_grid = any(isinstance(x, n.Ref) and (x.kind == "builtin" and x.name == "gridDim" or
                                            x.kind == "local" and (x.decl or x.name) in grid)
                  for x in step.walk())
    return var if on_grid else None


def _root(e: n.Expr, arrays: set[str]) -> n.Ref | None:
    """The variable a write to `e` changes: `v`, `v.f`, `a[i]` of a local array `a`."""
    e = _strip(e)
    while True:
        if isinstance(e, n.Member) and not e.arrow:
            e = _strip(e.base)
        elif isinstance(e, n.Index) and isinstance(_strip(e.base), n.Ref) and \
                (_strip(e.base).decl or "") in arrays:  # type: ignore[union-attr]
            e = _strip(e.base)
        else:
            break
    return e if isinstance(e, n.Ref) and e.kind in _VARIABLES else None


def _mutable_reference(param: Param) -> bool:
    """A parameter through which the callee may write the caller's variable: a reference
    to a non-const object (`float *&p`, `int &k`; not `const int &k`, `float *const &p`)."""
    if not param.is_reference:
        return False
    referent = param.type.replace("&", " ").strip()
    return not (referent.endswith("const") or
                "*" not in referent and referent.split()[:1] == ["const"])


def _written(node: n.Node, arrays: set[str], graph: CallGraph | None = None
             ) -> n.Ref | None:
    if isinstance(node, n.Binary) and node.is_assignment:
        return _root(node.lhs, arrays)
    if isinstance(node, n.Unary) and node.op in ("++", "--", "&"):
        return _root(node.operand, arrays)
    if isinstance(node, n.Call) and graph is not None:  # a helper writing through a reference
        callee = graph.resolve(node)
        for param, arg in zip(callee.params if callee is not None else (), node.args,
                              strict=False):
            ref = _root(arg, arrays) if _mutable_reference(param) else None
            if ref is not None:
                return ref
    return None


@dataclass(frozen=True)
class _Loop:
    """A loop's parts that run every iteration (`inc` None for a while loop)."""

    node: n.Stmt
    cond: n.Expr | None
    inc: n.Expr | None
    body: n.Stmt


def _as_loop(node: n.Node) -> _Loop | None:
    if isinstance(node, n.For):
        return _Loop(node, node.cond, node.inc, node.body)
    if isinstance(node, n.While):
        return _Loop(node, node.cond, None, node.body)
    # A `for` written by a macro (ATen's CUDA_KERNEL_LOOP, Caffe's) reaches the IR as an
    # OtherStmt: the front end places a for's parts by the ';'s of its header, which the
    # macro's text does not show. With all four parts there, they are in order.
    if isinstance(node, n.OtherStmt) and node.kind == "FOR_STMT" and len(node.items) == 4:
        init, cond, inc, body = node.items
        if isinstance(body, n.Expr):  # `GS_LOOP(i, n) acc += x[i];`
            body = n.ExprStmt(body, span=body.span)
        if isinstance(init, n.Stmt) and isinstance(cond, n.Expr) and \
                isinstance(inc, n.Expr) and isinstance(body, n.Stmt):
            return _Loop(node, cond, inc, body)
    return None


def _mentions(node: n.Node, decl: str) -> bool:
    return any(isinstance(x, n.Ref) and (x.decl or x.name) == decl for x in node.walk())


def _fresh_each_iteration(loop: _Loop, decl: str, outside: list[n.Node]) -> bool:
    """Whether every iteration sets the variable before reading it, and nothing outside
    the loop reads it (`mu = f(x[i]); ... use mu`): then no value crosses iterations. The
    first statement of the body that names it must be a plain `v = e` with no `v` in e."""
    if loop.cond is not None and _mentions(loop.cond, decl) or \
            any(_mentions(x, decl) for x in outside):
        return False
    stmts = loop.body.body if isinstance(loop.body, n.Compound) else (loop.body,)
    for s in stmts:
        if not _mentions(s, decl):
            continue
        # `v = e;`, or a loop that starts by setting it: `for (v = e; ...)`.
        e = s.expr if isinstance(s, n.ExprStmt) else \
            s.init.expr if isinstance(s, n.For) and isinstance(s.init, n.ExprStmt) else None
        return isinstance(e, n.Binary) and e.op == "=" and isinstance(_strip(e.lhs), n.Ref) \
            and (_strip(e.lhs).decl or "") == decl and not _mentions(e.rhs, decl)  # type: ignore[union-attr]
    return False


def _carried(fn_body: n.Stmt, loop: _Loop, step: n.Node, arrays: set[str],
             graph: CallGraph) -> n.Ref | None:
    """The first variable declared outside the loop's body that the loop writes and a
    later iteration (or the code after the loop) may read, the grid-stride step aside."""
    inner = {x.decl or x.name for x in loop.body.walk() if isinstance(x, n.VarDecl)}
    within = {id(x) for x in loop.node.walk()}
    outside = [x for x in fn_body.walk() if id(x) not in within and isinstance(x, n.Ref)]
    for part in (loop.cond, loop.body):
        if part is None:
            continue
        for node in part.walk():
            if node is step:
                continue
            ref = _written(node, arrays, graph)
            decl = ref.decl or ref.name if ref is not None else ""
            if ref is not None and decl not in inner and \
                    not _fresh_each_iteration(loop, decl, outside):
                return ref
    return None


def _loops(fn: Function) -> list[tuple[_Loop, n.Node, n.Ref]]:
    """The grid-stride loops of `fn`: (loop, its step, its variable)."""
    assert fn.body is not None
    grid = _grid_constants(fn)
    out: list[tuple[_Loop, n.Node, n.Ref]] = []
    for node in fn.body.walk():
        loop = _as_loop(node)
        if loop is None:
            continue
        var = _stride_step(loop.inc, grid) if loop.inc is not None else None
        if var is not None:
            out.append((loop, loop.inc, var))  # type: ignore[arg-type]
            continue
        # The while form: `while (i < n) { ...; i += blockDim.x * gridDim.x; }`, the step a
        # statement of the body itself (one in a nested loop is that loop's).
        top = loop.body.body if isinstance(loop.body, n.Compound) else (loop.body,)
        steps = [(x.expr, v) for x in top if isinstance(x, n.ExprStmt) and
                 (v := _stride_step(x.expr, grid)) is not None]
        if len(steps) == 1:
            out.append((loop, steps[0][0], steps[0][1]))
    return out


def carried_state(unit: TranslationUnit, fn: Function) -> list[str]:
    """Why `fn` (or a function it calls) computes other results when its threads run
    another number of grid-stride iterations (empty: no loop carries state)."""
    if fn.body is None:
        return []
    graph = CallGraph(unit)
    functions = [fn, *(h for h in graph.transitive(fn) if h.body is not None)]
    for f in functions:
        assert f.body is not None
        arrays = {x.decl or x.name for x in f.body.walk() if isinstance(x, n.VarDecl) and
                  x.array_dims and "shared" not in x.storage}
        for loop, step, var in _loops(f):
            ref = _carried(f.body, loop, step, arrays, graph)
            if ref is None:
                continue
            what = f"its loop variable '{ref.name}'" if ref.decl == var.decl else \
                f"{'parameter' if ref.kind == 'param' else 'variable'} '{ref.name}'"
            where = f" of '{f.name}'" if f is not fn else ""
            return [f"its grid-stride loop{where} (line {loop.node.span.line}) carries {what} "
                    f"from one iteration into the next (written at line {ref.span.line}): "
                    "right only with as many iterations per thread as its own launch gives; "
                    "another block size under the same grid changes that count"]
    return []


def _stores(node: n.Node) -> bool:
    """A write to memory: through a subscript or a dereference (not of a local array), or
    an atomic."""
    if isinstance(node, n.Binary) and node.is_assignment:
        lhs = _strip(node.lhs)
        return isinstance(lhs, n.Index) or isinstance(lhs, n.Unary) and lhs.op == "*" or \
            isinstance(lhs, n.Member) and lhs.arrow
    return isinstance(node, n.Call) and node.callee.split("::")[-1].startswith("atomic")


def grid_strided(unit: TranslationUnit, fn: Function) -> bool:
    """Whether every store of the kernel (and every call of a function of the program) is
    inside one of its grid-stride loops: then the threads share out the work whatever their
    number, so fewer threads under the same grid compute the same (when no loop carries
    state: carried_state). A kernel that writes one element per thread (`if (i < n) y[i] =
    ...`) covers only grid x block elements: under its grid, a smaller block leaves some
    unwritten, so profiling gives it only larger ones."""
    if fn.body is None:
        return False
    graph = CallGraph(unit)
    inside: set[int] = set()
    loops = _loops(fn)
    if not loops:
        return False
    for loop, _, _ in loops:
        inside |= {id(x) for x in loop.node.walk()}
    local_arrays = {x.decl or x.name for x in fn.body.walk() if isinstance(x, n.VarDecl) and
                    x.array_dims and "shared" not in x.storage}
    for node in fn.body.walk():
        if id(node) in inside:
            continue
        if _stores(node) and not (isinstance(node, n.Binary) and
                                  _root(node.lhs, local_arrays) is not None):
            return False
        if isinstance(node, n.Call):
            callee = graph.resolve(node)
            if callee is not None and callee.body is not None:
                return False
    return True
