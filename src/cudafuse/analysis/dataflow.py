"""Host pipelines: the kernel launches of a host function and the buffers that flow between them.

A buffer is named by the host-side declaration behind a pointer argument: `d_tmp`, `d_tmp + n`
and `&d_tmp[n]` all name `d_tmp` (an offset is conservatively taken to alias the whole
allocation), and a host local initialised from another pointer (`float* p = d_tmp + 4;`,
never reassigned) names the same buffer. In a member function, a data member of `this`
names a buffer however it is spelled (`tmp_`, `this->tmp_`). Other arguments that are not
rooted in a declaration (another object's member, a call) are named by their source text.

Edges: `raw` (flow: writes that may still be read, to a later launch that reads them), `war`
(reads to a later overwrite) and `waw` (writes to a later write). Passing the buffer itself
redefines it; passing an offset into it only adds a writer (see `_deps`).
The DAG (`Pipeline.graph`) holds the raw edges; all three kinds are in `Pipeline.deps`.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cudafuse.analysis.evaluate import assigned_decls
from cudafuse.analysis.kernel_facts import KernelFacts
from cudafuse.analysis.memo import per_object
from cudafuse.analysis.unit_index import unit_index
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit

if TYPE_CHECKING:
    import networkx as nx

_NOT_USES = {"cudaFree", "cudaFreeAsync", "cudaFreeHost"}


@dataclass(frozen=True)
class LaunchArg:
    param: str  # the kernel parameter it binds to ("" if there are more args than params)
    expr: str
    buffer: str  # "" for scalars
    access: str  # "", r, w, rw


@dataclass(frozen=True)
class Launch:
    index: int
    kernel: str
    template_args: str  # "<2>" for box_blur<2><<<...>>>, else ""
    line: int
    grid: str
    block: str
    shared: str | None
    stream: str | None
    args: tuple[LaunchArg, ...]
    resolved: bool  # the kernel's body was analysed (else pointer args count as r and w)
    loops: tuple[int, ...] = ()  # lines of the loops around it, outermost first


@dataclass(frozen=True)
class Loop:
    """A loop of the host function with launches in its body (at any depth)."""

    line: int
    kind: str  # for, while, do
    launches: tuple[int, ...]
    parent: int | None  # the line of the loop around it


@dataclass(frozen=True)
class CarriedDep:
    """A dependence from one iteration of a loop to the next: src in iteration t, dst in
    t + 1. Pointers the loop exchanges (`std::swap(a, b)`, `t = a; a = b; b = t;`) count
    as one buffer, named `a/b`, since each names the other's memory in the next iteration."""

    src: int
    dst: int
    kind: str
    buffer: str
    loop: int  # the loop's line


@dataclass(frozen=True)
class Dep:
    src: int
    dst: int
    kind: str  # raw, war, waw
    buffer: str


@dataclass(frozen=True)
class Pipeline:
    function: str
    line: int
    launches: tuple[Launch, ...]
    deps: tuple[Dep, ...]
    inputs: tuple[str, ...]  # buffers read before any launch writes them
    outputs: tuple[str, ...]  # buffers written and visible after the sequence
    temporaries: tuple[str, ...]  # buffers written and not visible after the sequence
    loops: tuple[Loop, ...] = ()
    carried: tuple[CarriedDep, ...] = ()

    @property
    def graph(self) -> nx.DiGraph:
        import networkx as nx  # noqa: PLC0415 - 0.2 s to import; `analyze` never needs it

        g = nx.DiGraph()
        for la in self.launches:
            g.add_node(la.index, kernel=la.kernel)
        for d in self.deps:
            if d.kind == "raw":
                if g.has_edge(d.src, d.dst):
                    g.edges[d.src, d.dst]["buffers"].append(d.buffer)
                else:
                    g.add_edge(d.src, d.dst, buffers=[d.buffer])
        return g


class _Buffers:
    """Host-side buffer identity: declaration id -> display name, through simple aliases."""

    def __init__(self, unit: TranslationUnit, fn: Function):
        self.unit = unit
        self.alias: dict[str, n.Expr] = {}
        self.names: dict[str, str] = {}
        if fn.body is None:
            return
        mutable = assigned_decls(fn.body)
        for node in fn.body.nodes_of(n.VarDecl):
            if node.init is not None and node.decl not in mutable and "*" in node.var_type:
                self.alias[node.decl] = node.init

    def root(self, e: n.Expr, depth: int = 0) -> tuple[str, str]:
        """(identity, display name) of the buffer an argument points into."""
        ident, name, _ = self.root_whole(e, depth)
        return ident, name

    def root_whole(self, e: n.Expr, depth: int = 0) -> tuple[str, str, bool]:
        """root(), and whether the argument is the buffer itself rather than an offset into it
        (only then does a write count as redefining the whole buffer)."""
        if isinstance(e, n.Cast):
            return self.root_whole(e.operand, depth)
        if isinstance(e, n.Ref) and e.kind in ("param", "local", "global"):
            if e.decl in self.alias and depth < 16:
                r = self.root_whole(self.alias[e.decl], depth + 1)
                if r[0].startswith("decl:"):
                    return r
            return "decl:" + e.decl, e.name, True
        if isinstance(e, n.Binary) and e.op in ("+", "-"):
            for side in (e.lhs, e.rhs):
                if "*" in side.type or "[" in side.type:
                    ident, name, _ = self.root_whole(side, depth)
                    return ident, name, False
        if isinstance(e, n.Unary) and e.op == "&" and isinstance(e.operand, n.Index):
            ident, name, _ = self.root_whole(e.operand.base, depth)
            return ident, name, False
        if isinstance(e, n.Member) and _is_this(e.base):
            return "member:" + e.field_name, e.field_name, True
        text = " ".join(self.unit.text(e.span).split())
        return "text:" + text, text, True


def _is_this(e: n.Expr) -> bool:
    """`this`, written or implied (as passes.vertical.members.is_this)."""
    return (isinstance(e, n.OtherExpr) and e.kind == "CXX_THIS_EXPR") or (
        isinstance(e, n.Ref) and e.name == "this" and e.kind == "other" and not e.decl)


def _held_pointers(bufs: _Buffers, e: n.Expr) -> list[tuple[str, str]]:
    """Buffers named inside a non-pointer argument (a constructor call, a braced init)."""
    out: list[tuple[str, str]] = []
    for node in e.walk():
        if isinstance(node, n.Ref) and node.kind in ("param", "local", "global") and (
                "*" in node.type or "[" in node.type):
            r = bufs.root(node)
            if r not in out:
                out.append(r)
    return out


def _text(unit: TranslationUnit, e: n.Expr | None) -> str | None:
    return None if e is None else " ".join(unit.text(e.span).split())


def analyze_host(unit: TranslationUnit, fn: Function,
                 kernels: dict[str, KernelFacts]) -> Pipeline:
    """The launch sequence of host function `fn`; `kernels` maps kernel decl id to its facts."""
    bufs = _Buffers(unit, fn)
    # Kernels by name, for a launch whose declaration id is not among them; built on the
    # first such launch only: built for every host, it was quadratic in a file of many.
    by_name: dict[str, KernelFacts] | None = None
    launches: list[Launch] = []
    accesses: list[dict[str, str]] = []  # per launch: buffer id -> r/w/rw
    display: dict[str, str] = {}
    sites = unit.launches.get(fn.name, [])
    for i, la in enumerate(sites):
        facts = kernels.get(la.kernel_decl)
        if not facts:
            if by_name is None:
                by_name = {k.name: k for k in kernels.values()}
            facts = by_name.get(la.kernel)
        args: list[LaunchArg] = []
        acc: dict[str, str] = {}
        for j, a in enumerate(la.args):
            p = facts.params[j] if facts is not None and j < len(facts.params) else None
            pointer = p.is_pointer if p is not None else ("*" in a.type or "[" in a.type)
            mode = ""
            ident = ""
            if pointer:
                ident, name, whole = bufs.root_whole(a)
                display[ident] = name
                if p is None:
                    mode = "rw"
                else:
                    mode = ("r" if p.reads or p.atomic else "") + \
                        ("w" if p.writes or p.atomic else "")
                if mode:
                    # W: a write through the buffer itself; w: only through an offset
                    merged = set(acc.get(ident, "")) | set(mode.replace("w", "W" if whole else "w"))
                    acc[ident] = "".join(c for c in "rwW" if c in merged)
            label = display.get(ident, "") if pointer else ""
            if not pointer:
                # A struct or class argument holding pointers (ImageView(in, w), Img{a, b}):
                # the kernel's accesses through it are not followed, so count them as r and w.
                held = _held_pointers(bufs, a)
                for hid, hname in held:
                    display[hid] = hname
                    acc[hid] = "rw"
                if held:
                    mode = "rw"
                    label = ", ".join(h[1] for h in held)
            args.append(LaunchArg(p.name if p is not None else "", _text(unit, a) or "",
                                  label, mode))
        launches.append(Launch(i, la.kernel, la.template_args, la.span.line,
                               _text(unit, la.grid) or "", _text(unit, la.block) or "",
                               _text(unit, la.shared),
                               _text(unit, la.stream), tuple(args), facts is not None,
                               tuple(lp.span.line for lp in _loops_around(fn, la))))
        accesses.append(acc)
    deps, inputs, last_write = _deps(accesses, display)
    live = _live_out(unit, fn, sites, last_write)
    outputs = [display[b] for b in sorted(last_write, key=lambda b: display[b]) if b in live]
    temps = [display[b] for b in sorted(last_write, key=lambda b: display[b]) if b not in live]
    loops, carried = _carried(unit, fn, sites, accesses, display)
    return Pipeline(fn.name, fn.span.line, tuple(launches), tuple(deps), tuple(inputs),
                    tuple(outputs), tuple(temps), loops, carried)


@per_object()  # (asked for every launch of the host)
def _all_loops(fn: Function) -> list[n.Stmt]:
    return list(fn.body.nodes_of((n.For, n.While))) if fn.body is not None else []


def _loops_around(fn: Function, node: n.Node) -> list[n.Stmt]:
    return [lp for lp in _all_loops(fn)
            if lp.span.start <= node.span.start < lp.span.end and lp.span.end > node.span.end - 1]


def _carried(unit: TranslationUnit, fn: Function, sites: list[n.KernelLaunch],
             accesses: list[dict[str, str]], display: dict[str, str]
             ) -> tuple[tuple[Loop, ...], tuple[CarriedDep, ...]]:
    """The loops holding launches, and the dependences from one iteration to the next:
    the typed dependences of the loop's launches run twice, from the first run to the
    second."""
    bufs = _Buffers(unit, fn)
    loops: list[Loop] = []
    carried: list[CarriedDep] = []
    for lp in _all_loops(fn):
        inside = [i for i, la in enumerate(sites)
                  if lp.span.start <= la.span.start < lp.span.end]
        if not inside:
            continue
        outer = [o for o in _loops_around(fn, lp) if o is not lp]
        kind = "do" if isinstance(lp, n.While) and lp.do_while else \
            "while" if isinstance(lp, n.While) else "for"
        loops.append(Loop(lp.span.line, kind, tuple(inside),
                          outer[-1].span.line if outer else None))
        merged = _exchanged(bufs, lp)
        names = dict(display)
        for group in sorted(set(merged.values())):
            names[group] = "/".join(sorted({display.get(m, m.split("@")[0].split(":")[-1])
                                            for m, g in merged.items() if g == group}))
        twice = [{merged.get(b, b): m for b, m in accesses[i].items()} for i in inside] * 2
        deps, _, _ = _deps(twice, names)
        k = len(inside)
        carried += [CarriedDep(inside[d.src], inside[d.dst - k], d.kind, d.buffer, lp.span.line)
                    for d in deps if d.src < k <= d.dst]
    carried.sort(key=lambda d: (d.loop, d.dst, d.src, d.kind, d.buffer))
    return tuple(loops), tuple(carried)


def _exchanged(bufs: _Buffers, loop: n.Stmt) -> dict[str, str]:
    """Buffer ids of pointers the loop copies into each other (swaps, exchanges through a
    temporary), each mapped to one id for its whole class."""
    pairs: list[tuple[n.Expr, n.Expr]] = []
    for node in loop.walk():
        if isinstance(node, n.Call) and node.callee in ("swap", "std::swap") and \
                len(node.args) == 2:
            pairs.append((node.args[0], node.args[1]))
        elif isinstance(node, n.Binary) and node.op == "=" and "*" in node.lhs.type:
            pairs.append((node.lhs, node.rhs))
        elif isinstance(node, n.VarDecl) and node.init is not None and "*" in node.var_type:
            pairs.append((n.Ref(node.name, kind="local", decl=node.decl), node.init))
    group: dict[str, set[str]] = {}
    for x, y in pairs:
        a = "decl:" + x.decl if isinstance(x, n.Ref) else bufs.root(x)[0]
        b = bufs.root(y)[0]
        merged = group.get(a, {a}) | group.get(b, {b})
        for m in merged:
            group[m] = merged
    return {m: min(g) for m, g in group.items() if len(g) > 1}


def _deps(accesses: list[dict[str, str]], display: dict[str, str]
          ) -> tuple[list[Dep], list[str], dict[str, int]]:
    """Typed dependences. A write through the buffer itself ends the reach of earlier writes;
    one through an offset (`a + n/2`) does not, so later readers depend on both writers."""
    deps: list[Dep] = []
    inputs: list[str] = []
    last_write: dict[str, int] = {}
    writers: dict[str, list[int]] = {}  # writes that may still be read
    whole: set[str] = set()  # buffers some launch wrote through the buffer itself
    readers: dict[str, list[int]] = {}
    for i, acc in enumerate(accesses):
        for b in sorted(acc, key=lambda b: display[b]):
            mode = acc[b]
            name = display[b]
            writes = "w" in mode or "W" in mode
            if "r" in mode:
                deps += [Dep(w, i, "raw", name) for w in writers.get(b, [])]
                if b not in whole and name not in inputs:
                    inputs.append(name)
            if writes:
                deps += [Dep(r, i, "war", name) for r in readers.get(b, []) if r != i]
                deps += [Dep(w, i, "waw", name) for w in writers.get(b, [])]
                if "W" in mode:
                    writers[b] = [i]
                    whole.add(b)
                    readers[b] = []
                else:
                    writers.setdefault(b, []).append(i)
                last_write[b] = i
            if "r" in mode:
                readers.setdefault(b, []).append(i)
    deps = sorted(set(deps), key=lambda d: (d.dst, d.src, d.kind, d.buffer))
    return deps, inputs, last_write


def _live_out(unit: TranslationUnit, fn: Function, sites: list[n.KernelLaunch],
              last_write: dict[str, int]) -> set[str]:
    """Written buffers the caller or later host code can see."""
    live: set[str] = set()
    if fn.body is None:
        return live
    bufs = _Buffers(unit, fn)
    params = {p.decl for p in fn.params}
    globals_ = unit_index(unit).globals  # (by decl: not every global per buffer and host)
    for b in last_write:
        kind = b.split(":", 1)[0]
        decl = b.split(":", 1)[1]
        if kind in ("text", "member"):
            live.add(b)  # a member or expression: assume the caller sees it
            continue
        if decl in params or decl in globals_:
            live.add(b)
    ignore: list[tuple[int, int]] = [(s.span.start, s.span.end) for s in sites]
    for call in fn.body.nodes_of(n.Call):
        if call.callee in _NOT_USES:
            ignore.append((call.span.start, call.span.end))
    ignored = _Ranges(ignore)
    for node in fn.body.nodes_of(n.Ref):
        if node.kind not in ("local", "param", "global"):
            continue
        ident, _ = bufs.root(node)
        if ident not in last_write:
            continue
        after = sites[last_write[ident]].span.end
        if node.span.start >= after and node.span.start not in ignored:
            live.add(ident)
    return live


class _Ranges:
    """The union of half-open ranges, asked by bisection: a host function of n launches
    asks for every mention, which a scan of the n ranges made quadratic (issue 27)."""

    def __init__(self, ranges: list[tuple[int, int]]):
        merged: list[tuple[int, int]] = []
        for s, e in sorted(r for r in ranges if r[0] < r[1]):
            if merged and s <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], e))
            else:
                merged.append((s, e))
        self.starts = [s for s, _ in merged]
        self.ends = [e for _, e in merged]

    def __contains__(self, at: int) -> bool:
        k = bisect.bisect_right(self.starts, at) - 1
        return k >= 0 and at < self.ends[k]
