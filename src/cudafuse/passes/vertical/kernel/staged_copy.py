"""Shared memory that only caches a read-only buffer: a producer read without it.

Third-party stencils often copy their filter (or any small read-only table) into shared
memory before a barrier and read the copy after it:

    __shared__ float fs[81];
    if (threadIdx.x == 0 && threadIdx.y == 0)
        for (int i = 0; i < fw * fw; i++) fs[i] = filter[i];
    __syncthreads();
    ... sum += in[...] * fs[(r + half) * fw + c + half]; ...

Such a kernel's value at its element is the same computation with every read `fs[k]` replaced
by `filter[k]`, provided three facts hold, which this module proves or refuses:

1. every store into the shared array is a copy of one read-only buffer parameter at the same
   element, with no conversion: the array's element counted as one index (`k[i][j]` of a
   `[K][K]` array is `i * K + j`) equals the buffer's subscript as a polynomial (`fs[S] =
   filter[S]`, `k[i][j] = g[i * K + j]`): whatever thread stored element k, it stored
   `filter[k]`, so any read of a stored element reads it;
2. the stores all come before the kernel's first barrier and the reads all after it, nothing
   else touches the array (no pointer into it, no helper), and the buffer is never written;
3. every element read was stored in the reader's block: one thread (thread 0, under a
   condition that holds for it: `threadIdx.x == 0 && threadIdx.y == 0`, `tid == 0`) copies
   a whole range [A, E) in a loop (or every thread copies all of it), that thread reaches the
   copy whenever a reader does (the only return before it is the bounds guard, an upper
   bound per coordinate, which thread 0 of the reader's block passes when the reader does),
   and each read's subscript lies in [A, E) for every value of its loop variables. A
   subscript that is affine in each loop variable on its own takes its extremes at the
   corners of the loops' ranges, so the corners suffice; where they are not constants the
   inequalities are checked when the program runs (runtime_check.at_most_check: the group
   is fused under them, the original launches run otherwise). The copy staying inside the
   declared array (E <= its extent) is checked the same way.

A copy made by many threads, each its own element (`if (tx < fw && ty < fw) fs[ty * fw + tx]
= filter[ty * fw + tx];`), is refused: after an early return, the threads at the image's
edge that would store some elements never reach the store, and the original reads what no
thread stored there. A shared tile of the image (reads that depend on the thread's element)
is not a copy this module reads; those kernels keep the view's reason.

The result (`StagedCopy`) says what code generation removes (the shared declarations, the
copy, the barriers) and which reads it renames, and the function the view reads instead
(the same tree with those statements gone and the reads renamed, spans kept).
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass

from cudafuse.analysis.symbolic import Atom, Poly, builtin
from cudafuse.codegen.exprprint import Unprintable, to_c
from cudafuse.ir import nodes as n
from cudafuse.ir.casts import strip_casts as _strip
from cudafuse.ir.lvalue import write_targets, written_root
from cudafuse.ir.program import Function
from cudafuse.ir.source import Span
from cudafuse.ir.substitute import replace_nodes
from cudafuse.ir.types import unqualified

_BARRIER = "__syncthreads"
_MAX_LOOPS = 3  # corners grow as 2^loops


@dataclass(frozen=True)
class StagedCopy:
    """What reading a kernel without its shared copy takes."""

    fn: Function  # the kernel without the copy (spans of the original)
    dropped: tuple[Span, ...]  # top-level statements code generation removes
    # Each read of the copy: the span replaced (a 1-D array's name, or a whole subscript
    # chain `k[i][j]`) and its text (the buffer's name, or `g[<the flat subscript>]`).
    renamed: tuple[tuple[Span, str], ...]
    requires: tuple[tuple[n.Expr, n.Expr], ...]  # (a, b): a <= b, checked at run time
    # Where thread 0's copy starts (only the bounds guard may return before it); -1 when
    # every thread makes the whole copy (a reader made the one it reads).
    copier_start: int
    # (a, d): a < blockDim.x * ... over d dimensions, checked at run time (a copy whose
    # thread t copies element t holds the elements below the block's size).
    per_block: tuple[tuple[n.Expr, int], ...] = ()
    # A tile of the image (staged_tile.py): the block, per dimension from x, that its
    # coordinates `blockIdx.d * K + threadIdx.d` assume (the view's block_sizes must be it).
    tile_block: tuple[int, ...] = ()
    # The kernel as written (a tile's): a group's last kernel keeps its tile (recognise.
    # written_view), only a recomputed producer is read without it.
    original: Function | None = None


def copied_meaning(kernel: str) -> str:
    """What a StagedCopy's `requires` and `per_block` checks stand for, as --explain and
    --report say it."""
    return (f"every element '{kernel}' reads of its shared copy is one its block copied, "
            "so reading the producer's buffer instead gives the same values")


def _written(body: n.Node) -> set[str]:
    """Declarations assigned, incremented or whose address is taken."""
    return {r.decl for t in write_targets(body) if (r := written_root(t)) is not None}


def _is_barrier(x: n.Node) -> bool:
    return isinstance(x, n.Call) and x.callee == _BARRIER


def _inline(e: n.Expr, once: dict[str, n.Expr]) -> n.Expr:
    """`e` with locals set once (at their declaration) replaced by their initialisers."""
    for _ in range(8):
        if not any(isinstance(x, n.Ref) and x.decl in once for x in e.walk()):
            break
        e = replace_nodes(e, lambda x: once.get(x.decl) if isinstance(x, n.Ref) else None)
    return e


def _degree(e: n.Expr, v: str) -> int | None:
    """The degree of `e` in loop variable `v` (None: `v` under an operator that is not a
    sum or a product, where corners say nothing)."""
    if not any(isinstance(x, n.Ref) and x.decl == v for x in e.walk()):
        return 0
    if isinstance(e, n.Ref):
        return 1
    if isinstance(e, n.Cast):
        return _degree(e.operand, v) if "float" not in e.type and "double" not in e.type \
            else None
    if isinstance(e, n.Unary) and e.op in ("-", "+"):
        return _degree(e.operand, v)
    if isinstance(e, n.Binary) and e.op in ("+", "-", "*"):
        a, b = _degree(e.lhs, v), _degree(e.rhs, v)
        if a is None or b is None:
            return None
        return a + b if e.op == "*" else max(a, b)
    return None


def _sub(a: n.Expr, k: int) -> n.Expr:
    return n.Binary("-", a, n.IntLit(k, type="int"), type=a.type or "int") if k else a


@dataclass(frozen=True)
class _Loop:
    var: str
    low: n.Expr
    high: n.Expr  # inclusive


def _counting_loop(s: n.For) -> _Loop | None:
    """`for (int v = L; v < U (or <=); ++v)` with v not written in the body."""
    init = s.init
    if not (isinstance(init, n.DeclStmt) and len(init.decls) == 1 and
            init.decls[0].init is not None):
        return None
    d = init.decls[0]
    cond, inc = s.cond, s.inc
    if not (isinstance(cond, n.Binary) and cond.op in ("<", "<=") and
            isinstance(_strip(cond.lhs), n.Ref) and _strip(cond.lhs).decl == d.decl):
        return None
    step = (isinstance(inc, n.Unary) and inc.op == "++" and
            isinstance(_strip(inc.operand), n.Ref) and _strip(inc.operand).decl == d.decl) or (
        isinstance(inc, n.Binary) and inc.op == "+=" and n.int_constant(inc.rhs) == 1 and
        isinstance(_strip(inc.lhs), n.Ref) and _strip(inc.lhs).decl == d.decl)
    if not step or d.decl in _written(s.body):
        return None
    high = cond.rhs if cond.op == "<=" else _sub(cond.rhs, 1)
    return _Loop(d.decl, d.init, high)


def node_path(root: n.Node, target: n.Node) -> list[n.Node]:
    """The nodes from `root` down to `target` (both included), or [] if `target` is not
    inside `root`."""
    path: list[n.Node] = []

    def find(node: n.Node) -> bool:
        path.append(node)
        if node is target:
            return True
        for c in node.children():
            if c is not None and find(c):
                return True
        path.pop()
        return False

    find(root)
    return path


def _enclosing_loops(root: n.Node, target: n.Node) -> list[n.For] | None:
    """The `for` statements around `target` inside `root`, outermost first."""
    path = node_path(root, target)
    if not path:
        return None
    return [p for p in path if isinstance(p, n.For)]


def _thread_zero(cond: n.Expr, once: dict[str, n.Expr]) -> bool:
    """Whether thread 0 of the block (threadIdx 0 in every dimension) takes this branch
    whatever else holds: a conjunction of equalities, each true as polynomials once every
    threadIdx is 0 (`threadIdx.x == 0 && threadIdx.y == 0`, `tid == 0` with `int tid =
    threadIdx.y * blockDim.x + threadIdx.x`)."""
    stack = [_inline(cond, once)]
    seen = False
    while stack:
        c = _strip(stack.pop())
        if isinstance(c, n.Binary) and c.op == "&&":
            stack += [c.lhs, c.rhs]
            continue
        if not (isinstance(c, n.Binary) and c.op == "=="):
            return False
        at0 = [replace_nodes(side, lambda x: n.IntLit(0, type="int") if isinstance(
            x, n.Member) and isinstance(x.base, n.Ref) and x.base.name == "threadIdx" and
            x.base.kind == "builtin" else None) for side in (c.lhs, c.rhs)]
        pa, pb = (_poly(e, opaque=True) for e in at0)  # type: ignore[arg-type]
        if pa is None or pa != pb:
            return False
        seen = True
    return seen


@dataclasses.dataclass(frozen=True)
class StagingFrame:
    """What a kernel that stages shared arrays before its first barrier is made of: its
    body's top-level statements, the shared arrays by decl, the barriers' statement indices
    (`first` the first), the statements declaring the arrays, the variables written, and
    the locals set once (decl -> initialiser). Read by staged_copy and staged_tile."""

    body: n.Compound
    top: list[n.Stmt]
    shared: dict[str, n.VarDecl]
    bar_stmts: list[int]
    first: int
    decl_stmts: list[int]
    written: set[str]
    once: dict[str, n.Expr]


def staging_frame(fn: Function) -> StagingFrame | None:
    """The frame of a kernel whose shared arrays are declared at its top level (alone in
    their declarations) and whose barriers are all statements of its top level; None
    otherwise (no shared memory, barriers in branches or loops, collectives: rounds)."""
    body = fn.body
    if body is None:
        return None
    top = list(body.body)
    shared = {x.decl: x for x in body.walk() if isinstance(x, n.VarDecl) and
              "shared" in x.storage and x.decl}
    if not shared:
        return None
    barriers = [x for x in body.walk() if isinstance(x, n.Call) and
                x.callee.startswith(_BARRIER)]
    bar_stmts = [i for i, s in enumerate(top) if isinstance(s, n.ExprStmt) and
                 _is_barrier(s.expr)]
    if len(bar_stmts) != len(barriers) or not bar_stmts:
        return None
    decl_stmts = [i for i, s in enumerate(top) if isinstance(s, n.DeclStmt) and
                  any(d.decl in shared for d in s.decls)]
    if any(not all(d.decl in shared for d in top[i].decls) for i in decl_stmts) or \
            sum(len(top[i].decls) for i in decl_stmts) != len(shared):
        return None
    written = _written(body)
    once = {d.decl: d.init for d in body.walk() if isinstance(d, n.VarDecl) and
            d.init is not None and not d.array_dims and d.decl not in written and
            d.decl not in shared}
    return StagingFrame(body, top, shared, bar_stmts, bar_stmts[0], decl_stmts, written, once)


def staged_copy(fn: Function) -> StagedCopy | str | None:
    """The kernel read without its shared copy of a read-only buffer; a reason when it has
    shared memory of that kind that cannot be shown to be one; None when it has none (or
    shared memory this module does not read: a tile of the image)."""
    frame = staging_frame(fn)
    if frame is None:
        return None
    body, top, shared = frame.body, frame.top, frame.shared
    bar_stmts, first, decl_stmts = frame.bar_stmts, frame.first, frame.decl_stmts
    written, once = frame.written, frame.once
    if not all(_copies_a_table(body, d, once) for d in shared.values()):
        return None  # (a tile of the image, or a block's partial results: not a copy)
    for d in shared.values():
        if any(n.int_constant(e) is None for e in d.array_dims[1:]):
            return (f"its shared '{d.name}' (line {d.span.line}) has a row extent that is "
                    "not a constant: where its elements lie is not followed")
    copies: dict[str, tuple[int, n.Binary, n.Ref]] = {}
    reads: dict[str, list[n.Index]] = {k: [] for k in shared}
    uses: set[int] = set()
    for i, s in enumerate(top):
        for x in s.walk():
            if isinstance(x, n.Binary) and x.is_assignment:
                r = written_root(x.lhs)
                if r is not None and r.decl in shared:
                    if i >= first:
                        return None  # (stored after a barrier: rounds, cooperation's reason)
                    found = _copy(x, shared[r.decl], written, fn, once)
                    if isinstance(found, str):
                        return found
                    if r.decl in copies:
                        return (f"it stores shared '{r.name}' in more than one place (line "
                                f"{x.span.line}): cudafuse reads a shared copy only when "
                                "one loop nest makes it")
                    copies[r.decl] = (i, x, found)
                    uses.update(id(y) for y in x.lhs.walk())
            elif isinstance(x, n.Index) and id(x) not in uses:
                root, subs = _subscripts(x)
                if root is None or root.decl not in shared:
                    continue
                if i <= first:
                    return None
                if len(subs) != len(shared[root.decl].array_dims):
                    return (f"it uses shared '{root.name}' other than by whole subscripts "
                            f"(line {x.span.line}): where its elements are read is not "
                            "followed")
                reads[root.decl].append(x)
                uses.update(id(y) for y in _bases(x))
        for x in s.walk():
            # (any statement but the arrays' own declarations: `float m = f(fs, k);` uses
            # the array as much as `m = f(fs, k);` does)
            if isinstance(x, n.Ref) and x.decl in shared and id(x) not in uses and \
                    i not in decl_stmts:
                call = next((c for c in s.walk() if isinstance(c, n.Call) and any(
                    _strip(a) is x for a in c.args)), None)
                if call is not None:
                    return (f"it passes shared '{x.name}' to '{call.callee}' (line "
                            f"{call.span.line}): which of its elements the callee reads is "
                            "not followed, so reading the copied buffer there instead is "
                            "not shown to read the same values")
                return (f"it uses shared '{x.name}' other than by subscripts (line "
                        f"{x.span.line}): where its elements are read is not followed")
    if set(copies) != set(shared):
        return None
    requires: list[tuple[n.Expr, n.Expr]] = []
    per_block: list[tuple[n.Expr, int]] = []
    staging = set()
    renamed: list[tuple[Span, str]] = []
    replace: dict[int, n.Node] = {}
    starts = []
    for decl, (i, store, buf) in copies.items():
        stmt = top[i]
        arr = shared[decl]
        what = f"copy of '{buf.name}' into shared '{arr.name}' (line {store.span.line})"
        shape = _copier(stmt, store, once)
        early = any(isinstance(x, n.Return) for s in top[:i] for x in s.walk())
        threads = None if shape is not None or early else _per_thread(stmt, store, arr, once)
        if threads is not None:  # (thread t copies element t, t < K: [0, K) if the block
            shape = [(n.IntLit(0, type="int"), _sub(threads[0], 1))], False  # has K threads)
        if shape is None:
            if early:
                return (f"its {what} is made by the threads of the block, each its own "
                        "elements, after a return: a thread that returns at the bounds "
                        "guard stores nothing, so a block at the image's edge may read "
                        "elements no thread stored")
            return (f"its {what} is made by the threads of the block, each its own "
                    "elements: cudafuse proves a copy complete only when one thread of "
                    "the block makes all of it, or thread t copies element t below a bound "
                    "(if (t < K) s[t] = g[t];)")
        # (after the copier: a copy some threads never make fails whatever its element)
        elsewhere = _elsewhere(store, arr, buf, once)
        if elsewhere:
            return elsewhere
        ranges, by_thread_zero = shape
        ranges = [(_inline(lo, once), _inline(hi, once)) for lo, hi in ranges]
        if any(isinstance(x, n.Ref) and x.kind not in ("param", "enum") and
               n.int_constant(x) is None for lo, hi in ranges for e in (lo, hi) for x in e.walk()):
            return (f"its {what} covers a range that is not the same in every thread "
                    "(not only parameters and constants)")
        staging.add(i)
        if by_thread_zero:  # (a copy each thread makes whole is made by every reader)
            starts.append(stmt.span.start)
        for (lo, hi), extent in zip(ranges, arr.array_dims, strict=True):
            requires.append((n.IntLit(0, type="int"), lo))
            if extent is not None:
                requires.append((hi, _sub(extent, 1)))
        for r in reads[decl]:
            _, subs = _subscripts(r)
            for k, sub in enumerate(subs):
                found = _read_corners(body, r, sub, once, *ranges[k], arr.name)
                if isinstance(found, str):
                    return found
                if found is None:
                    return None  # (a tile of the image: the read depends on the thread)
                requires += found
                if threads is not None:
                    per_block += [(a, threads[1]) for a, b in found if b is ranges[k][1]]
            if len(subs) == 1:
                base = _strip(r.base)
                renamed.append((base.span, buf.name))
                replace[id(base)] = dataclasses.replace(buf, span=base.span)
                continue
            flat = _flat(subs, arr)
            try:
                text = to_c(flat)
            except Unprintable:
                return f"its read of shared '{arr.name}' (line {r.span.line}) cannot be printed"
            renamed.append((r.span, f"{buf.name}[{text}]"))
            replace[id(r)] = n.Index(buf, flat, span=r.span, type=r.type)
    requires = _settle(requires)
    if isinstance(requires, str):
        return requires
    dropped, new_body = without_staging(body, staging | set(decl_stmts) | set(bar_stmts),
                                        first, once, replace)
    return StagedCopy(dataclasses.replace(fn, body=new_body),
                      tuple(top[j].span for j in dropped), tuple(renamed), tuple(requires),
                      min(starts, default=-1), tuple(dict.fromkeys(per_block)))


def without_staging(body: n.Compound, gone: set[int], first: int, once: dict[str, n.Expr],
                    replace: dict[int, n.Node]) -> tuple[list[int], n.Compound]:
    """The indices of `body`'s statements dropped (`gone`: the staging, the shared arrays'
    declarations, the barriers; and the locals only those used, declared before statement
    `first`), and the body without them, with `replace`'s nodes (by id) put in. Shared by a
    copied table (here) and a staged tile (staged_tile.py)."""
    top = body.body
    gone = set(gone)
    # Locals only the copy used (`int tid = threadIdx.y * blockDim.x + threadIdx.x;`) go too.
    used = {x.decl for j, s in enumerate(top) if j not in gone and not isinstance(s, n.DeclStmt)
            for x in s.walk() if isinstance(x, n.Ref)}
    for j, s in enumerate(top[:first]):
        if isinstance(s, n.DeclStmt) and not any(  # (nothing with an effect of its own)
                isinstance(x, n.Call) or isinstance(x, n.Binary) and x.is_assignment or
                isinstance(x, n.Unary) and x.op in ("++", "--") for x in s.walk()) and all(
                d.decl in once and d.decl not in used and not any(
                isinstance(x, n.Ref) and x.decl == d.decl for t in top if t is not s
                and isinstance(t, n.DeclStmt) for x in t.walk()) for d in s.decls):
            gone.add(j)
    dropped = sorted(gone)
    kept = tuple(s for j, s in enumerate(top) if j not in dropped)
    new_body = replace_nodes(dataclasses.replace(body, body=kept),
                             lambda x: replace.get(id(x)))
    assert isinstance(new_body, n.Compound)
    return dropped, new_body


def _bases(ix: n.Index) -> list[n.Node]:
    """The subscripted expressions of a chain `s[a][b]` (s[a], s and the casts around them)."""
    out: list[n.Node] = []
    e: n.Expr = ix.base
    while True:
        out.append(e)
        if isinstance(e, n.Cast):
            e = e.operand
        elif isinstance(e, n.Index):
            e = e.base
        else:
            return out


def _subscripts(ix: n.Index) -> tuple[n.Ref | None, list[n.Expr]]:
    """The array and the subscripts, outermost first, of `s[a][b]`."""
    subs = [ix.index]
    e = _strip(ix.base)
    while isinstance(e, n.Index):
        subs.append(e.index)
        e = _strip(e.base)
    return (e if isinstance(e, n.Ref) else None), subs[::-1]


def _flat(subs: list[n.Expr], arr: n.VarDecl) -> n.Expr:
    """The element of `arr` that subscripts `subs` name, counted as one index."""
    out = subs[0]
    for sub, extent in zip(subs[1:], arr.array_dims[1:], strict=True):
        k = n.int_constant(extent)
        assert k is not None
        out = n.Binary("+", n.Binary("*", out, n.IntLit(k, type="int"), type="int"), sub,
                       type="int")
    return out


def _poly(e: n.Expr, opaque: bool = False) -> Poly | None:
    """`e` as a polynomial over the variables it reads (by declaration), when it is one.
    `opaque`: a division, remainder or shift of such (`fw / 2`) is one more variable, named
    by its text (the same text, the same value: they read only parameters and constants)."""
    c = n.int_constant(e)
    if c is not None:
        return Poly.const(c)
    if isinstance(e, n.Cast):
        return None if "float" in e.type or "double" in e.type else _poly(e.operand, opaque)
    if isinstance(e, n.Ref):
        return Poly.atom(Atom("var", e.decl or e.name))
    if isinstance(e, n.Member) and isinstance(e.base, n.Ref) and e.base.kind == "builtin":
        return Poly.atom(builtin(e.base.name, e.field_name))  # (threadIdx.x)
    if isinstance(e, n.Unary) and e.op in ("-", "+"):
        p = _poly(e.operand, opaque)
        return None if p is None else -p if e.op == "-" else p
    if opaque and isinstance(e, n.Binary) and e.op in ("/", "%", ">>", "<<") and \
            _poly(e.lhs, opaque) is not None and _poly(e.rhs, opaque) is not None:
        try:
            return Poly.atom(Atom("opaque", f"({to_c(e)})"))
        except Unprintable:
            return None
    if isinstance(e, n.Binary) and e.op in ("+", "-", "*"):
        a, b = _poly(e.lhs, opaque), _poly(e.rhs, opaque)
        if a is None or b is None:
            return None
        return a * b if e.op == "*" else a + b if e.op == "+" else a - b
    return None


def _copies_a_table(body: n.Compound, arr: n.VarDecl, once: dict[str, n.Expr]) -> bool:
    """Whether every store into `arr` copies a buffer parameter at an element the block's
    position does not choose (a filter or table, not a tile of the image)."""
    stores = [x for x in body.walk() if isinstance(x, n.Binary) and x.is_assignment and
              (r := written_root(x.lhs)) is not None and r.decl == arr.decl]
    for x in stores:
        rhs = _strip(x.rhs)
        if not (isinstance(rhs, n.Index) and isinstance(b := _strip(rhs.base), n.Ref) and
                b.kind == "param"):
            return False
        if any(isinstance(y, n.Ref) and y.name == "blockIdx"
               for y in _inline(rhs.index, once).walk()):
            return False
    return bool(stores)


def _copy(store: n.Binary, arr: n.VarDecl, written: set[str], fn: Function,
          once: dict[str, n.Expr]) -> n.Ref | str:
    """The buffer parameter a shared store copies at the same element, or why not."""
    where = f"its store to shared '{arr.name}' (line {store.span.line})"
    lhs, rhs = _strip(store.lhs), _strip(store.rhs)
    if store.op != "=" or not isinstance(lhs, n.Index) or not isinstance(rhs, n.Index):
        return f"{where} is not a copy of a buffer's element"
    base = _strip(rhs.base)
    params = {p.decl: p for p in fn.params}
    if not (isinstance(base, n.Ref) and base.decl in params and params[base.decl].is_pointer):
        return f"{where} is not a copy of a buffer parameter's element"
    if base.decl in written:
        return f"{where} copies '{base.name}', which the kernel writes"
    if unqualified(lhs.type) != unqualified(rhs.type) or not lhs.type:
        # (a conversion on the way: the copy does not hold the buffer's values)
        return (f"{where} converts the elements of '{base.name}' ({rhs.type or '?'} to "
                f"{lhs.type or '?'})")
    _, subs = _subscripts(lhs)
    if len(subs) != len(arr.array_dims):
        return f"{where} is not at a whole element of the array"
    return base


def _elsewhere(store: n.Binary, arr: n.VarDecl, buf: n.Ref, once: dict[str, n.Expr]
               ) -> str | None:
    """Why a copy's element of the array is not the buffer's subscript, if it is not."""
    lhs, rhs = _strip(store.lhs), _strip(store.rhs)
    assert isinstance(lhs, n.Index) and isinstance(rhs, n.Index)
    _, subs = _subscripts(lhs)
    mine = _poly(_inline(_flat(subs, arr), once))
    if mine is None or mine != _poly(_inline(rhs.index, once)):
        return (f"its store to shared '{arr.name}' (line {store.span.line}) copies "
                f"'{buf.name}' at another element than its own (the element of the array is "
                "not the buffer's subscript)")
    return None


def _copier(stmt: n.Stmt, store: n.Binary, once: dict[str, n.Expr]
            ) -> tuple[list[tuple[n.Expr, n.Expr]], bool] | None:
    """[low, high] per dimension of the elements a copy stores, when a thread makes all of
    it in a nest of counting loops, one per subscript: every thread (`for (i...) for (j...)
    s[i][j] = g[i * K + j];`, before any barrier), or thread 0 of the block (`if
    (threadIdx.x == 0 && ...) for (...) ...`); and whether it is thread 0."""
    s = stmt
    zero = isinstance(s, n.If) and s.else_ is None and _thread_zero(s.cond, once)
    if zero:
        assert isinstance(s, n.If)
        s = s.then
    loops: dict[str, _Loop] = {}
    while True:
        while isinstance(s, n.Compound) and len(s.body) == 1:
            s = s.body[0]
        if not isinstance(s, n.For):
            break
        loop = _counting_loop(s)
        if loop is None:
            return None
        loops[loop.var] = loop
        s = s.body
    if not (isinstance(s, n.ExprStmt) and s.expr is store) or not loops:
        return None
    _, subs = _subscripts(_strip(store.lhs))  # type: ignore[arg-type]
    names = set(loops)
    ranges = []
    for sub in subs:
        sub = _strip(sub)
        if not (isinstance(sub, n.Ref) and sub.decl in loops):
            return None
        lp = loops.pop(sub.decl)
        ranges.append((lp.low, lp.high))
    if loops or any(isinstance(x, n.Ref) and x.decl in names  # (a box, not a triangle)
                    for lo, hi in ranges for e in (lo, hi) for x in e.walk()):
        return None
    return ranges, zero


# A thread's index in its block, as a polynomial: threadIdx.x (over one dimension of the
# block) or threadIdx.y * blockDim.x + threadIdx.x (over two).
_THREAD_INDEX = (Poly.atom(builtin("threadIdx", "x")),
                 Poly.atom(builtin("threadIdx", "x")) +
                 Poly.atom(builtin("blockDim", "x")) * Poly.atom(builtin("threadIdx", "y")))


def _per_thread(stmt: n.Stmt, store: n.Binary, arr: n.VarDecl, once: dict[str, n.Expr]
                ) -> tuple[n.Expr, int] | None:
    """(K, d) for a copy whose thread t of the block copies element t when t < K (`int t =
    threadIdx.y * blockDim.x + threadIdx.x; if (t < K) s[t] = g[t];`): with no return
    before it, every thread of the block makes its part, so elements [0, K) are stored
    when the block has at least K threads over its first d dimensions (checked at run
    time). None for any other copy."""
    if isinstance(stmt, n.ExprStmt) and stmt.expr is store and len(arr.array_dims) == 1 \
            and arr.array_dims[0] is not None:
        # (unconditional, `s[threadIdx.x] = g[threadIdx.x];`: thread t stores element t for
        # every t of the block; within the array that is [0, extent) when the block has
        # that many threads, as if written `if (t < extent)`. A block larger than the array
        # makes the original store past it, undefined behaviour there.)
        _, subs = _subscripts(_strip(store.lhs))  # type: ignore[arg-type]
        t = _poly(_inline(subs[0], once)) if len(subs) == 1 else None
        if t is None or t not in _THREAD_INDEX:
            return None
        return arr.array_dims[0], _THREAD_INDEX.index(t) + 1
    if not (isinstance(stmt, n.If) and stmt.else_ is None):
        return None
    cond = _strip(stmt.cond)
    s = stmt.then
    while isinstance(s, n.Compound) and len(s.body) == 1:
        s = s.body[0]
    if not (isinstance(s, n.ExprStmt) and s.expr is store and isinstance(cond, n.Binary) and
            cond.op == "<"):
        return None
    _, subs = _subscripts(_strip(store.lhs))  # type: ignore[arg-type]
    t = _poly(_inline(subs[0], once)) if len(subs) == 1 else None
    if t is None or t != _poly(_inline(cond.lhs, once)) or t not in _THREAD_INDEX:
        return None
    return _inline(cond.rhs, once), _THREAD_INDEX.index(t) + 1


def _read_corners(body: n.Compound, read: n.Index, sub: n.Expr, once: dict[str, n.Expr],
                  low: n.Expr, high: n.Expr, name: str
                  ) -> list[tuple[n.Expr, n.Expr]] | str | None:
    """`low <= R <= high` at every corner of the loops around subscript `R` of a read (None:
    the subscript depends on the thread, a tile this module does not read)."""
    sub = _inline(sub, once)
    if any(isinstance(x, n.Ref) and x.kind == "builtin" for x in sub.walk()):
        return None
    loops = _enclosing_loops(body, read) or []
    ranges: list[_Loop] = []
    for s in loops:
        lp = _counting_loop(s)
        if lp is not None and any(isinstance(x, n.Ref) and x.decl == lp.var
                                  for x in sub.walk()):
            ranges.append(lp)
    where = f"its read of shared '{name}' (line {read.span.line})"
    loop_vars = {lp.var for lp in ranges}
    for x in sub.walk():
        if isinstance(x, n.Ref) and x.kind not in ("param", "enum") and \
                x.decl not in loop_vars and n.int_constant(x) is None:
            return (f"{where} is at an element that depends on '{x.name}', which is neither "
                    "a counting loop's variable nor set once from parameters")
    if len(ranges) > _MAX_LOOPS:
        return f"{where} depends on more than {_MAX_LOOPS} loops"
    for lp in ranges:
        if _degree(sub, lp.var) not in (0, 1):
            return f"{where} is not affine in its loop variables"
        if any(isinstance(x, n.Ref) and x.decl in loop_vars
               for e in (lp.low, lp.high) for x in e.walk()):
            return f"{where} is in loops whose bounds depend on each other"
    out = []
    for corner in itertools.product(*((lp.low, lp.high) for lp in ranges)):
        m = {lp.var: _inline(c, once) for lp, c in zip(ranges, corner, strict=True)}
        at = replace_nodes(sub, lambda x, m=m: m.get(x.decl) if isinstance(x, n.Ref) else None)
        assert isinstance(at, n.Expr)
        out += [(low, at), (at, high)]
    return out


def _settle(pairs: list[tuple[n.Expr, n.Expr]]) -> list[tuple[n.Expr, n.Expr]] | str:
    """The inequalities constants do not settle (a false one is a reason)."""
    out = []
    for a, b in pairs:
        pa, pb = _poly(a, opaque=True), _poly(b, opaque=True)
        gap = None if pa is None or pb is None else (pb - pa).const_value
        if gap is not None:  # b - a is a constant
            if gap < 0:
                return (f"it reads its shared copy outside the elements it stores ({to_c(a)} "
                        f"> {to_c(b)}): the original reads what no thread stored")
            continue
        if (a, b) not in out:  # (IR equality ignores spans)
            out.append((a, b))
    return out
