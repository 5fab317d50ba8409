"""Vertical fusion of a translation unit: plan every launch sequence, emit the fused code."""

from __future__ import annotations

import dataclasses
from typing import Any

from cudafuse.analysis.kernel_facts import KernelFacts, analyze_kernel, elem_size
from cudafuse.codegen.splice import Rewriter
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.ir.source import SourceFile
from cudafuse.passes.vertical.emit.codegen import (
    CodegenError,
    FusedGroup,
    GroupEmitter,
    launch_block_problem,
    param_key,
    pick_prefix,
    prologue,
    tile_problem,
)
from cudafuse.passes.vertical.emit.helper_calls import group_host_edits, wrapper_host_edits
from cudafuse.passes.vertical.emit.sibling_codegen import SiblingEmitter, sibling_pass
from cudafuse.passes.vertical.emit.wrapper_codegen import launcher
from cudafuse.passes.vertical.host.coverage import Resolver, covers
from cudafuse.passes.vertical.host.hostview import (
    Placement,
    Sequence,
    alias_roots,
    host_locals,
    host_view,
    moved_buffers,
    rotations,
    touch_key,
)
from cudafuse.passes.vertical.host.wrappers import hosts_with_wrappers
from cudafuse.passes.vertical.kernel.constargs import with_launch_constants
from cudafuse.passes.vertical.kernel.cooperation import explained
from cudafuse.passes.vertical.kernel.pointwise import loop_variable, loop_window
from cudafuse.passes.vertical.kernel.recognise import build_view
from cudafuse.passes.vertical.kernel.view import KernelView, elements_per_item
from cudafuse.passes.vertical.plan.arch import ArchParams, arch_params
from cudafuse.passes.vertical.plan.charge import chosen_block
from cudafuse.passes.vertical.plan.costmodel import GroupCost, group_cost, shared_ratio_ok
from cudafuse.passes.vertical.plan.killed import kills
from cudafuse.passes.vertical.plan.legality import LaunchInfo, Legality
from cudafuse.passes.vertical.plan.model import GATHER_WINDOW, KernelCost, PipelineModel
from cudafuse.passes.vertical.plan.opcount import count_ops
from cudafuse.passes.vertical.plan.partition import (
    choose_partition,
    cost_scorer,
    count_scorer,
    make_legality,
)
from cudafuse.passes.vertical.plan.traffic import GroupShape, pipeline_traffic
from cudafuse.passes.vertical.ranges import Ranges
from cudafuse.passes.vertical.result import (  # noqa: F401 - the pass's public types
    NOMINAL_SIZE,
    EdgeNote,
    FuseOptions,
    FuseResult,
    GroupNote,
    LaunchNote,
    SequencePlan,
    UnfusedGroup,
)
from cudafuse.progress import active, phase_start, phase_step

_DEFAULTS = FuseOptions()



def buffer_name(key: str) -> str:
    """A buffer's key as notes and plans name the buffer: what stands between its first
    ':' and its '@'."""
    return key.split(":", 1)[-1].split("@")[0]


def _builtin_outside_mapping(unit: TranslationUnit, view: KernelView) -> str:
    """Why the last kernel's values may depend on its block: it (or a function it calls)
    reads threadIdx, blockIdx, blockDim or gridDim other than in its coordinate
    declarations and bounds guard ('' when it does not). Under another block those read
    other numbers at the same element."""
    fn = view.fn
    assert fn.body is not None
    skip = {id(x) for s in view.coord_stmts for x in s.walk()}
    if view.guard is not None:
        skip |= {id(x) for x in view.guard.cond.walk()}
    from cudafuse.analysis.callgraph import CallGraph

    graph = CallGraph(unit)
    called = []  # (helpers that compute a coordinate are part of the mapping)
    for node in fn.body.walk():
        if id(node) in skip:
            continue
        if isinstance(node, n.Ref) and node.kind == "builtin":
            return (f"it reads '{node.name}' outside its coordinate declarations (line "
                    f"{node.span.line})")
        if isinstance(node, n.Call) and (helper := graph.resolve(node)) is not None:
            called.append(helper)
    for first in dict.fromkeys(called):
        for helper in (first, *graph.transitive(first)):
            if helper.body is not None and any(isinstance(x, n.Ref) and x.kind == "builtin"
                                               for x in helper.body.walk()):
                return (f"it calls '{helper.name}', which reads the thread's or block's "
                        "index")
    return ""


class _Planner:
    def __init__(self, unit: TranslationUnit, opts: FuseOptions):
        self.unit, self.opts = unit, opts
        self.arch: ArchParams = arch_params(opts.arch)
        self.views: dict[str, KernelView] = {}
        self.facts: dict[str, KernelFacts] = {}
        self.notes: list[str] = []
        # A launch's KernelCost by its site (plan and the sibling pass both ask; the site is
        # kept so that the key stays its own).
        self._costs: dict[int, tuple[object, KernelCost]] = {}
        # Per launch site: the buffers an earlier launch of its sequence writes (infos)
        self._produced: dict[int, frozenset[str]] = {}

    # Keyed by declaration: overloaded kernels share a name.
    def view(self, fn: Function) -> KernelView:
        key = fn.decl or fn.name
        if key not in self.views:
            # (a kernel refused for its spelling is asked what its threads do together)
            self.views[key] = explained(build_view(fn), lambda: self.fact(fn))
        return self.views[key]

    def fact(self, fn: Function) -> KernelFacts:
        key = fn.decl or fn.name
        if key not in self.facts:
            self.facts[key] = analyze_kernel(self.unit, fn)
        return self.facts[key]

    def group_views(self, group: FusedGroup) -> dict[str, KernelView]:
        """The views of a group's kernels by name, as code generation looks them up (two
        instantiations of one template are named apart first: _named_apart)."""
        out: dict[str, KernelView] = {}
        decls: dict[str, str] = {}
        for site in group.launches:
            fn = site.kernel
            if decls.setdefault(fn.name, fn.decl) != fn.decl:
                raise CodegenError(f"two overloads of '{fn.name}' are in the group")
            out[fn.name] = self.view(fn)
        return out

    def infos(self, seq: Sequence) -> list[LaunchInfo]:
        out = []
        new = sum((s.kernel.decl or s.kernel.name) not in self.facts for s in seq.launches)
        progress = active() if new > 1 else None  # (facts already known come at no cost)
        phase_start(progress, f"analysing the launches of '{seq.host.name}'", len(seq.launches))
        produced: set[str] = set()
        for site in seq.launches:
            phase_step(progress)
            facts = self.fact(site.kernel)
            pf = {p.name: p for p in facts.params}
            reads, writes = {}, {}
            for p, arg in site.bindings:
                # (an offset into a buffer, `t + off`, is a use of t: hostview.touch_key)
                key = touch_key(p, arg) if p.is_pointer else None
                if key is None or p.name not in pf:
                    continue
                if pf[p.name].reads:
                    reads[key] = p.name
                if pf[p.name].writes or pf[p.name].atomic:
                    writes[key] = p.name
            out.append(LaunchInfo(site, self.view(site.kernel), facts, reads, writes))
            self._produced[id(site)] = frozenset(produced)
            produced.update(writes)
        return out

    def cost(self, info: LaunchInfo) -> KernelCost:
        hit = self._costs.get(id(info.site))
        if hit is not None and hit[0] is info.site:
            return hit[1]
        cost = self._cost(info)
        self._costs[id(info.site)] = (info.site, cost)
        return cost

    def _cost(self, info: LaunchInfo) -> KernelCost:
        reads: dict[str, frozenset[tuple[int, int]]] = {}
        gathers = set()
        for key, pname in info.reads.items():
            load = next((ld for ld in info.facts.loads if ld.pointer == pname), None)
            if load is not None and load.kind == "gather" and all(
                    b in ("none", "staged") for b in load.border):
                # A tile staged in shared memory: each element (and a thin halo) read once
                # per block, not a window per thread.
                offs = frozenset({(0, 0)})
            elif load is not None and load.kind == "gather":
                offs = GATHER_WINDOW  # how many elements it reads is known at run time only
                gathers.add(key)
            elif load is not None and load.kind == "other" and \
                    key in self._produced.get(id(info.site), ()) and \
                    loop_variable(info.facts, pname) is not None:
                # Reads at run-time loop indices of an intermediate (kernel/pointwise.py):
                # its producer is recomputed at each of them, whichever elements they are.
                offs = loop_window(info.facts, pname)
                gathers.add(key)
            elif load is not None and load.kind in ("point", "stencil") and load.window:
                offs = frozenset((o[0], o[1] if len(o) > 1 else 0) for o in load.window)
            else:
                offs = frozenset({(0, 0)})
            reads[key] = offs
        fn = info.site.kernel
        alu, sfu = count_ops(self.unit, fn.body) if fn.body else (1, 0)
        shared = sum(s.size_bytes or 0 for s in info.facts.shared)
        return KernelCost(fn.name, reads, tuple(info.writes), max(alu, 1), sfu, shared,
                          self.opts.size, self.block_shape(info), frozenset(gathers))

    def block_shape(self, info: LaunchInfo) -> tuple[int, int] | None:
        """The launch's block as constants (bx, by), when it is one and z is 1."""
        resolver = Resolver(host_locals(info.site.host))
        comps = resolver.dim3(info.site.launch.block)
        if comps is None:
            return None
        dims = [resolver.linear(c) for c in comps]
        if any(d is None or d[0] for d in dims):
            return None
        bx, by, bz = (d[1] for d in dims)  # type: ignore[index]
        return (bx, by) if bz == 1 and bx > 0 and by > 0 else None

    def live_out(self, seq: Sequence, infos: list[LaunchInfo]) -> dict[str, str]:
        """The buffers the sequence writes that something after it may read, each with
        why: the caller, host code after the sequence, or, for a sequence in a loop body,
        the next iteration (anything else in the loop, or a launch of the sequence reading
        the buffer before the sequence writes it)."""
        host = seq.host
        assert host.body is not None
        written = [k for info in infos for k in info.writes]
        params = {p.decl: p.name for p in host.params}
        locals_ = {d.decl for d in _local_decls(host)}
        rotated, _ = rotations(host)
        holds = moved_buffers(self.unit, host)  # a variable that may hold other buffers
        loops = seq.scope.loops if seq.scope is not None else ()
        end = seq.launches[-1].stmt.span.end
        # (a mention inside a launch statement of the sequence is found by bisection, not
        # by a scan of every launch per mention)
        mine = Ranges((s.stmt.span.start, s.stmt.span.end) for s in seq.launches)
        # A buffer's free is no read of it, found in the tree: inside a macro's expansion
        # (`CHECK(cudaFree(t))`) every node's span is the invocation's, and may be empty.
        freed = {id(x) for c in host.body.walk()
                 if isinstance(c, n.Call) and c.callee in ("cudaFree", "cudaFreeAsync")
                 for x in c.walk()}
        later: dict[str, str] = {}
        # A mention after a statement that overwrites the whole buffer reads its values
        # (plan/killed.py); only for a sequence outside loops (the next iteration's reads).
        killed = {} if loops else kills(self.unit, host, seq.launches[-1].stmt,
                                        host_locals(host))
        aliases = alias_roots(host)  # a mention of `p` in `float *p = tmp;` is one of tmp
        for node in host.body.walk():
            if not isinstance(node, n.Ref) or id(node) in freed or \
                    node.span.start in mine:
                continue
            key = node.decl or node.name
            key = aliases.get(key, key)
            held = holds.get(key, frozenset())
            keys = [key, *sorted(held or ()), *(["*"] if held is None else [])]
            loop = next((lp for lp in loops
                         if lp.span.start <= node.span.start < lp.span.end), None)
            for k in keys:
                if k in killed and node.span.start >= killed[k][0]:
                    continue
                if loop is not None:
                    later.setdefault(k, f"used again in the loop at line {loop.span.line}")
                elif node.span.start >= end:
                    later.setdefault(k, "read after the sequence")
        if loops:  # read by the sequence before it writes it: the previous iteration's value
            seen: set[str] = set()
            for info in infos:
                for key in info.reads:
                    decl = key.split(":", 1)[1]
                    if key not in seen and key in written:
                        later.setdefault(decl, "read by the next iteration's launch of "
                                         f"'{info.site.kernel.name}'")
                seen.update(info.writes)
        live: dict[str, str] = {}
        for key in written:
            decl = key.split(":", 1)[1]
            if decl in params:
                if params[decl] not in self.opts.scratch:
                    live[key] = "a parameter: the caller may read it"
            elif decl in rotated:
                live[key] = "exchanged with another pointer: it may be read under that name"
            elif decl in later:
                live[key] = later[decl]
            elif "*" in later:  # read by a pointer that may name any buffer
                live[key] = later["*"] + " (by a pointer that may name it)"
            elif decl not in locals_:
                live[key] = "a global or something else the caller can see"
        return live

    def plan(self, seq: Sequence) -> tuple[SequencePlan, list[tuple[FusedGroup, float]],
                                           list[EdgeNote]]:
        infos = self.infos(seq)
        live = self.live_out(seq, infos)
        model = PipelineModel.from_kernels([self.cost(i) for i in infos], frozenset(live))
        model.no_tile = self.no_tile(model, infos)
        legality = Legality(self.unit, model, infos,
                            Resolver(host_locals(seq.host), unit=self.unit))
        legal = make_legality(model, legality)
        score = count_scorer(model) if self.opts.fuse_all else \
            cost_scorer(model, self.arch, tiles=self.opts.tiles != "never")
        phase_start(active(), f"choosing the groups of {len(infos)} launches of "
                    f"'{seq.host.name}'", 1)
        chosen, results = choose_partition(model, score, legal, self.opts.partition)
        phase_step(active())
        plan = SequencePlan(seq.host.name, [i.site.kernel.name for i in infos], results, chosen,
                            [i.site.index for i in infos], [], *self.objective_unit())
        plan.model = model
        plan.where = seq.scope.what if seq.scope is not None else ""
        plan.live = {buffer_name(k): why for k, why in live.items()}
        plan.sizes = {i: {param_key(p, a): _times(elem_size(p.pointee) or
                                                  elem_size(p.pointee_canonical),
                                                  elements_per_item(info.view, p.name))
                          for p, a in info.site.bindings
                          if p.is_pointer and param_key(p, a) is not None}
                      for i, info in enumerate(infos)}
        where = {v: gi for gi, g in enumerate(chosen.groups) for v in g}
        edges = []
        for (a, c), bufs in sorted(model.edges.items()):
            fused = where[a] == where[c] and len(chosen.groups[where[a]]) > 1
            benefit = None
            if fused:
                why = f"fused (group of {len(chosen.groups[where[a]])} kernels)"
                gathered = [b for b in bufs if b in model.kernels[c].gathers]
                reads = len(model.kernels[c].reads.get(gathered[0], ())) if gathered else 0
                if gathered and model.kernels[c].reads.get(gathered[0]) != GATHER_WINDOW:
                    why += (f"; '{model.kernels[c].name}' reads {buffer_name(gathered[0])} at "
                            f"run-time loop indices: recomputed per read, costed as {reads} "
                            f"read{'s' if reads != 1 else ''} of each element")
                elif gathered:
                    why += (f"; '{model.kernels[c].name}' reads {buffer_name(gathered[0])} at "
                            "run-time offsets: recomputed per read, costed as a 5x5 window")
            else:
                pair = frozenset((a, c))
                reason = legal(pair)
                benefit = score(pair)
                joined = chosen.groups[where[a]] | chosen.groups[where[c]]
                # A pair that fuses on its own may still be kept apart because the groups
                # it would join cannot form one kernel: name that refusal, not the search.
                joint = legal(frozenset(joined)) if reason is None and benefit > 0 else None
                if reason:
                    why = f"not fused: {reason}"
                elif joint:
                    names = ", ".join(f"'{infos[v].site.kernel.name}'" for v in sorted(joined))
                    why = (f"not fused: the pair would fuse, but the groups it would join "
                           f"({names}) cannot form one kernel: {joint}")
                else:
                    why = (f"not fused: not profitable (estimated benefit {benefit:.3g} "
                           f"{plan.unit_short})" if benefit <= 0 else "not fused: the "
                           f"partition that maximises the total benefit ({chosen.strategy}) "
                           "keeps them apart")
            edges.append(EdgeNote(seq.host.name, infos[a].site.kernel.name,
                                  infos[c].site.kernel.name, infos[a].site.index,
                                  infos[c].site.index, tuple(buffer_name(b) for b in bufs), fused,
                                  why, bool(legal(frozenset((a, c)))) and not fused,
                                  infos[c].site.launch.span.line,
                                  infos[c].site.launch.span.col, benefit))
        groups = []
        for g in chosen.groups:
            if len(g) < 2:
                continue
            members = sorted(g)
            stored = {key for i in members[:-1] for key in infos[i].writes
                      if key in model.live_out or any(
                          key in bufs for c, bufs in model.consumers(i) if c not in g)}
            cost = group_cost(model, g, self.arch, allow_tiles=self.opts.tiles != "never")
            too_much = shared_ratio_ok(model, g, cost, self.arch)
            if too_much:  # Eq. (2): keep the group, recompute instead of staging tiles
                cost = group_cost(model, g, self.arch, allow_tiles=False)
            block = model.kernels[members[-1]].block
            launch_block = None
            # --block, else the block the plan chose for this group's occupancy
            # (plan/resources.annotate): the same proof either way.
            wanted = self.opts.block or chosen_block(
                seq.host.name, tuple(infos[i].site.kernel.name for i in members))
            if wanted is not None:
                sink = infos[members[-1]]
                why = self.block_problem(seq, sink, bool(stored)) or next((
                    f"'{infos[i].site.kernel.name}' reads its block index, its element's "
                    "only with its own launch's block" for i in members[:-1]
                    if infos[i].view.block_reads), "")
                if why:
                    self.notes.append(f"{seq.host.name}: the group ending in "
                                      f"'{sink.site.kernel.name}' keeps its launch's block: "
                                      f"{why}")
                else:
                    block = launch_block = wanted
            checks = tuple(dict.fromkeys(legality.checks[i] for i in members
                                         if i in legality.checks))
            group = FusedGroup("", [infos[i].site for i in members], stored,
                               self.tiles(model, g, cost, infos,
                                          "never" if too_much else self.opts.tiles,
                                          self.notes),
                               block, launch_block, checks,
                               meanings=_check_meanings(legality, members))
            groups.append((group, cost.benefit))
        return plan, groups, edges


    def block_problem(self, seq: Sequence, sink: LaunchInfo, stores: bool) -> str:
        """Why a fused group whose last launch is `sink` must keep that launch's block ('' when
        it may take another: its meaning does not depend on blockDim and the new grid covers
        what the old one did). `stores`: the group still writes intermediates."""
        why = launch_block_problem(sink.view, sink.site.launch, sink.site.bindings)
        if not why and sink.view.transposed:
            why = "its x coordinate walks the rows (out[x * cols + y])"
        if not why and stores and sink.view.lower_bounded:
            # (its grid was checked to cover the producers' bounds, not a new one)
            why = ("it writes only the interior and stores the group's "
                   "intermediates over its producers' bounds")
        # Defensive: legality does not fuse into a last kernel that uses shared
        # memory or barriers today, but a block of another shape would break it.
        facts = sink.facts
        if not why and (facts.shared or facts.barriers or facts.warp_ops):
            why = ("it uses shared memory, barriers or warp collectives, which may "
                   "assume its block")
        if not why:
            why = _builtin_outside_mapping(self.unit, sink.view)
        if not why:
            from cudafuse.analysis.blocksize import block_dependence
            from cudafuse.codegen.templates import KernelRef

            fn = sink.site.kernel
            depends = [] if fn.is_template else block_dependence(
                self.unit, KernelRef(fn, ()), 0)
            depends = [d for d in depends if "__launch_bounds__" not in d]
            if depends:
                why = depends[0]
        if not why:
            # The new grid covers the whole guard: the original launch must have.
            params = {p.decl: a for p, a in sink.site.bindings}
            host = Resolver(host_locals(seq.host), unit=self.unit)
            cover = covers(host.with_params(params),
                           sink.site.launch.grid, sink.site.launch.block,
                           sink.view.grid_bounds)
            if cover:
                why = f"its launch may not cover the whole image ({cover})"
        return why

    def no_tile(self, model: PipelineModel, infos: list[LaunchInfo]
                ) -> dict[tuple[int, str], str]:
        """(consumer, buffer) -> why a tile of the buffer's producer cannot serve that
        consumer: the emitter's own predicate (tile_problem), asked before the cost model
        prices a tile, so that it prices what will be emitted."""
        out: dict[tuple[int, str], str] = {}
        for (a, c), bufs in model.edges.items():
            sink = infos[c]
            for key in bufs:
                if sink.facts.shared or sink.facts.barriers:
                    why = (f"'{sink.site.kernel.name}' stages its own shared memory and "
                           "synchronises on it")
                elif key not in sink.reads or key not in infos[a].writes:
                    why = f"'{sink.site.kernel.name}' does not read it through a parameter"
                else:
                    try:  # (asked of every edge, legal or not: a pair it cannot print is no
                        # pair to tile)
                        why = tile_problem(self.unit, infos[a].view, infos[a].writes[key],
                                           sink.site.kernel, sink.view, sink.reads[key])
                    except CodegenError as exc:
                        why = str(exc)
                if why is not None:
                    out[(c, key)] = why
        return out

    def objective_unit(self) -> tuple[str, str]:
        """(long, short) names of what the objective counts: fusion.costmodel's benefit
        is per-element cycles times the nominal iteration space, plus the launch term; with
        --fuse-all the scorer counts the producer/consumer edges kept inside groups."""
        if self.opts.fuse_all:
            return ("producer/consumer edges inside groups; --fuse-all does not use the "
                    "cost model", "edge(s)")
        size = self.opts.size
        space = f"2^{size.bit_length() - 1}" if size & (size - 1) == 0 else str(size)
        return (f"estimated cycles saved over a {space}-element iteration space, "
                f"{self.opts.arch} cost model", "cycles")

    @staticmethod
    def tiles(model: PipelineModel, group: frozenset[int], cost: GroupCost,
              infos: list[LaunchInfo], mode: str, notes: list[str]
              ) -> dict[str, tuple[int, int]]:
        """Buffers staged in shared memory (those the cost model chose, or with
        mode "always" every stencil input of the last kernel produced in the group that a
        tile can serve, the others named in `notes`): key -> halo (rx, ry) of the last
        kernel's reads."""
        sink = infos[max(group)]
        out: dict[str, tuple[int, int]] = {}
        # (a grid-stride last kernel, or one staging its own shared memory: model.no_tile)
        if any(infos[i].view.transposed for i in group):
            # a tile is the block's rectangle of elements, x along the row: not where a
            # kernel whose x walks the rows has its threads
            return out
        for node, strategy in sorted(cost.strategies.items()):
            direct = {c for c, _ in model.consumers(node) if c in group} == {max(group)}
            if mode == "never" or not (strategy == "tile" or (mode == "always" and direct)):
                continue
            for key in infos[node].writes:
                pname = sink.reads.get(key)
                load = next((ld for ld in sink.facts.loads if ld.pointer == pname), None)
                if load is None or len(load.extent) != 2:
                    continue
                (x0, x1), (y0, y1) = load.extent
                if (x0, x1, y0, y1) == (0, 0, 0, 0):
                    continue  # (read at its own element: nothing to stage)
                why = model.no_tile.get((max(group), key))
                if why is not None:  # (only "always" asks: the cost model never priced it)
                    notes.append(f"{sink.site.host.name}: tile of {buffer_name(key)} not staged: "
                                 f"{why}; recomputed instead")
                    continue
                out[key] = (max(-x0, x1, 0), max(-y0, y1, 0))
        return out


def _times(size: int | None, count: int) -> int | None:
    return None if size is None else size * count


def _local_decls(host: Function) -> list[n.VarDecl]:
    assert host.body is not None
    return [x for x in host.body.walk() if isinstance(x, n.VarDecl)]


def fuse_unit(unit: TranslationUnit, opts: FuseOptions = _DEFAULTS) -> FuseResult:
    """Fuse every launch sequence of every host function; the result's output is the new
    file (byte-identical to the input where nothing was fused)."""
    from cudafuse.passes.vertical.host.api_launches import with_api_launches
    from cudafuse.passes.vertical.host.pointsto import visible_aliasing
    from cudafuse.passes.vertical.host.table_elements import with_table_elements
    from cudafuse.passes.vertical.kernel.instances import with_instances

    unit = with_table_elements(with_api_launches(unit))
    unit, const_notes = with_launch_constants(with_instances(unit))
    planner = _Planner(unit, opts)
    result = FuseResult(b"")
    rewriter = Rewriter(unit.source)
    # (Fused code follows the #include of lowered files: their names count too.)
    prefix = pick_prefix(SourceFile(unit.path, b"\n".join(
        [unit.source.data, *(s.data for s in unit.sources.values())])))
    counter = 0
    overloads: set[tuple[str, frozenset[int]]] = set()
    wrote_prologue = False
    siblings = SiblingEmitter(unit, prefix)
    for host in hosts_with_wrappers(unit):
        if host.is_template:
            _template_host_note(result, unit, host)
            continue
        emitted: list[str] = []
        edits_before = len(rewriter.edits)
        seqs, breaks, places = host_view(unit, host)
        first_plan = len(result.plans)
        for stmt, why in breaks:
            if isinstance(stmt, n.ExprStmt) and isinstance(stmt.expr, n.KernelLaunch):
                text = f"launch of '{stmt.expr.kernel}' in '{host.name}' left as it is: {why}"
            else:
                text = f"launches in '{host.name}' are not fused across this statement: {why}"
            result.breaks.append((host.name, stmt.span.line, stmt.span.col, text))
        for seq in seqs:
            plan, groups, edges = planner.plan(seq)
            result.plans.append(plan)
            result.edges.extend(edges)
            shapes: list[GroupShape] = []
            position = {id(s): i for i, s in enumerate(seq.launches)}
            phase_start(active(), f"emitting the fused kernels of '{host.name}'", len(groups))
            for group, benefit in groups:
                phase_step(active())
                group.name = f"{prefix}_{host.name.replace('::', '_')}_fused{counter}"
                try:
                    late = [s.kernel.name for s in group.launches
                            if unit.main_end(s.kernel.span) > host.span.start]
                    if late:
                        raise CodegenError(f"'{late[0]}' is defined after '{host.name}'")
                    aliased = visible_aliasing(unit, host, [
                        (a, p.name in planner.infos(Sequence(host, [s]))[0].writes.values())
                        for s in group.launches for p, a in s.bindings if p.is_pointer])
                    if aliased is not None:
                        raise CodegenError(aliased)
                    named = _named_apart(unit, group)
                    emitter = GroupEmitter(unit, planner.group_views(named),
                                           _spelled_at_sink(named), prefix, overloads)
                    code = emitter.emit()
                    extra = None
                    if emitter.sink.wrapper is not None:  # started by a launcher function
                        text, extra = launcher(emitter)
                        code += "\n" + text
                    applied = len(rewriter.edits)
                    try:
                        if extra is None:
                            group_host_edits(emitter, rewriter)
                        else:
                            wrapper_host_edits(emitter, rewriter, extra)
                    except CodegenError:
                        del rewriter.edits[applied:]  # a group is rewritten whole or not at all
                        raise
                except CodegenError as exc:
                    result.notes.append(f"{host.name}: group "
                                        f"{[s.kernel.name for s in group.launches]} left "
                                        f"unfused: {exc}")
                    _left_unfused(plan, edges, group, str(exc))
                    continue
                counter += 1
                emitted.append(code)
                if group.checks:
                    result.assumed.append(
                        f"{host.name}: {group.name} runs when {' && '.join(group.checks)} "
                        f"({_meanings(group)}); the original launches run otherwise")
                untouched = sorted(buffer_name(k) for s in group.launches[:-1]
                                   for k in planner.infos(Sequence(host, [s]))[0].writes
                                   if k not in group.stored)
                plan.groups.append(GroupNote(
                    host.name, group.name, [s.kernel.name for s in group.launches],
                    [s.index for s in group.launches], benefit,
                    sorted(buffer_name(k) for k in group.stored), untouched, {},
                    group.launch_block, tiles={buffer_name(k): h for k, h in
                                               sorted(emitter.staged_tiles.items())},
                    tile_bytes=emitter.tile_bytes,
                    tiles_declined={buffer_name(k): why for k, why in
                                    sorted(emitter.declined_tiles.items())},
                    checks=[(c, group.meanings.get(c, "")) for c in
                            dict.fromkeys(x for x in group.meanings)]))
                # The figures count the tiles the emitter staged, not those planned: a
                # declined tile's producer is recomputed per read, and the notes say so.
                for key, why in sorted(emitter.declined_tiles.items()):
                    result.notes.append(f"{host.name}: {group.name}: tile of {buffer_name(key)} "
                                        f"planned, not staged: {why}; recomputed instead")
                shapes.append(GroupShape(
                    frozenset(position[id(s)] for s in group.launches),
                    frozenset(group.stored), dict(emitter.staged_tiles), group.block))
            assert plan.model is not None
            plan.traffic, per_group = pipeline_traffic(plan.model, shapes, plan.sizes)
            for note, figures in zip(plan.groups, per_group, strict=True):
                note.traffic = figures
                note.stored_why = {b: plan.live.get(b, "read by a launch outside the group")
                                   for b in note.stored}
            if opts.siblings != "never":  # vertical groups first, then siblings (siblings.py)
                code, plan.siblings = sibling_pass(planner, seq, plan, siblings, rewriter)
                emitted.extend(code)
                _serial_edges(edges, plan.siblings)
        _place_launches(result, host, places, first_plan)
        if emitted:
            if not wrote_prologue:
                emitted.insert(0, prologue(prefix))
                wrote_prologue = True
            spec = _host_instance(unit, host) is not None
            rewriter.insert(_insertion_point(unit, host),
                            "\n" * spec + "\n".join(emitted) + "\n",
                            f"fused kernels for {host.name}")
        if len(rewriter.edits) == edits_before and \
                (spec_range := _host_instance(unit, host)) is not None:
            # nothing fused in it: the specialisation cudafuse wrote goes (the template
            # serves this instantiation as before)
            rewriter.replace(unit.source.span(*spec_range), "", "unused specialisation")
    result.output = rewriter.apply()
    result.notes.extend(planner.notes)
    result.assumed.extend(const_notes)
    result.notes.extend(scratch_notes(unit, opts.scratch))
    return result


def _check_meanings(legality: Legality, members: list[int]) -> dict[str, str]:
    """Each run-time check of a group's members with what it stands for; one condition
    two members made (a producer's coverage and the last kernel's, over one grid) says both."""
    out: dict[str, list[str]] = {}
    for i in members:
        for cond, meaning in legality.meanings.get(i, {}).items():
            if meaning not in out.setdefault(cond, []):
                out[cond].append(meaning)
    return {c: "; ".join(ms) for c, ms in out.items()}


def _meanings(group: FusedGroup) -> str:
    """What a group's run-time checks stand for, each once, in the words of the module that
    made it (plan/legality.py collects them)."""
    said = list(dict.fromkeys(group.meanings.values()))
    return "; ".join(said) if said else "a condition not shown from the text"


def _named_apart(unit: TranslationUnit, group: FusedGroup) -> FusedGroup:
    """The group with two instantiations of one template named by their arguments
    (`blur_t<float, 1>`, `blur_t<float, 2>`): code generation knows a group's kernels by
    name. A deduced launch has no argument text: it is numbered (`add_t<#2>`). Overloads
    that are no instantiations stay as they are (group_views refuses them). The names the
    plan knows stay in `planned`: its register caps are keyed by them."""
    decls: dict[str, set[str]] = {}
    for site in group.launches:
        decls.setdefault(site.kernel.name, set()).add(site.kernel.decl)
    if all(len(d) == 1 for d in decls.values()):
        return group
    sites = []
    for k, site in enumerate(group.launches):
        fn = site.kernel
        if len(decls[fn.name]) > 1 and site.launch.callee_span.start in unit.instances:
            shown = " ".join(site.launch.template_args.split()) or f"<#{k}>"
            fn = dataclasses.replace(fn, name=f"{fn.name}{shown}")
            site = dataclasses.replace(site, kernel=fn)
        sites.append(site)
    return dataclasses.replace(group, launches=sites,
                               planned=tuple(s.kernel.name for s in group.launches))


def _spelled_at_sink(group: FusedGroup) -> FusedGroup:
    """The group with its launches' pointer arguments named as at its last launch, where
    the fused launch stands (they differ across a pointer rotation: host/hostview.py)."""
    sink = group.launches[-1]
    try:
        spelled = [s.spelled_at(sink) for s in group.launches]
    except ValueError as exc:
        raise CodegenError(str(exc)) from None
    if group.checks and any(a.bindings != b.bindings
                            for a, b in zip(spelled, group.launches, strict=True)):
        raise CodegenError("pointers are exchanged between its launches, so the original "
                           "launches kept for when its run-time check fails cannot be "
                           "moved to the fused launch")
    if group.checks and any(at < sink.stmt.span.start for s in group.launches[:-1]
                            for at in s.by_value):
        raise CodegenError("a variable its launches read is assigned between them, so the "
                           "original launches kept for when its run-time check fails cannot "
                           "be moved to the fused launch")
    return dataclasses.replace(group, launches=spelled)


def _left_unfused(plan: SequencePlan, edges: list[EdgeNote], group: FusedGroup,
                  why: str) -> None:
    """A group the plan chose that code generation refused: its edges, which the plan
    called fused, say what the output holds (the launches as written) and why, and the plan
    lists the group as left unfused, so that --explain and --report tell what the file does."""
    kernels = [s.kernel.name for s in group.launches]
    indices = {s.index for s in group.launches}
    plan.left_unfused.append(UnfusedGroup(kernels, sorted(indices), why))
    for e in edges:
        if e.fused and e.src_index in indices and e.dst_index in indices:
            e.fused, e.refused = False, True
            e.why = (f"not fused: planned in a group of {len(kernels)} kernels "
                     f"({', '.join(kernels)}), which code generation left unfused: {why}")


def _serial_edges(edges: list[EdgeNote], pairs: list[Any]) -> None:
    """A dependent pair fused with one thread running both bodies (siblings.py, serial) is
    a fused producer/consumer edge: say so on the edge."""
    for s in pairs:
        if not (s.fused and s.serial):
            continue
        for e in edges:
            if (e.src_index, e.dst_index) == (s.first_index, s.second_index):
                e.fused, e.refused, e.benefit = True, False, None
                e.why = s.why


def _template_host_note(result: FuseResult, unit: TranslationUnit, host: Function) -> None:
    """A function template's own launches (Caffe's `template <typename Dtype> void
    Forward_gpu(...) { k1<Dtype><<<...>>>(...); k2<Dtype><<<...>>>(...); }`) name no
    concrete kernel: they are read through the explicit specialisations written for the
    instantiations the file uses (frontend/host_instances.py). Where none was written, one
    note at its first launch says why (when it has two or more launches)."""
    why = unit.host_instances.get(host.span.start, "its instantiations are not read")
    launches = [x for x in host.body.walk() if isinstance(x, n.KernelLaunch)] \
        if host.body is not None and host.span.file == unit.path else []
    if isinstance(why, str) and len(launches) > 1:
        span = launches[0].span
        result.breaks.append((host.name, span.line, span.col,
                              f"launches in '{host.name}' are not fused: it is a function "
                              f"template, and no concrete copy of it is made: {why}"))


def _place_launches(result: FuseResult, host: Function, places: list[Placement],
                    first_plan: int) -> None:
    """Every launch of the host function, with its sequence and group or why it is in no
    sequence; a launch that could have fused but is alone gets a note at its line."""
    groups = {(p, i): g.name for p in range(first_plan, len(result.plans))
              for g in result.plans[p].groups for i in g.launches}
    groups.update({(p, i): s.name for p in range(first_plan, len(result.plans))
                   for s in result.plans[p].siblings if s.fused
                   for i in (s.first_index, s.second_index)})
    noted = {(line, col) for h, line, col, _ in result.breaks if h == host.name}
    for pl in places:
        seq = None if pl.sequence is None else first_plan + pl.sequence
        span = pl.launch.span
        result.launches.append(LaunchNote(
            host.name, pl.index, pl.launch.kernel, span.line, span.col,
            pl.scope.what if pl.scope is not None else "", seq,
            groups.get((seq, pl.index)) if seq is not None else None, pl.why))
        if seq is None and len(places) > 1 and (span.line, span.col) not in noted:
            result.breaks.append((host.name, span.line, span.col,
                                  f"launch of '{pl.launch.kernel}' in '{host.name}' left as "
                                  f"it is: {pl.why}"))


def scratch_notes(unit: TranslationUnit, scratch: frozenset[str]) -> list[str]:
    """A scratch name that is no pointer parameter of a host function launching kernels
    changes nothing: most likely a typo, which would otherwise go unnoticed."""
    import difflib

    known = sorted({p.name for host in unit.hosts() if not host.is_template
                    for p in host.params if p.is_pointer})
    notes = []
    for name in sorted(scratch - set(known)):
        close = difflib.get_close_matches(name, known, n=1)
        hint = (f"did you mean '{close[0]}'?" if close else
                f"they are: {', '.join(known)}" if known else "there are none")
        notes.append(f"scratch '{name}' is not a pointer parameter of any host function "
                     f"that launches kernels ({hint}); it changes nothing")
    return notes


def _insertion_point(unit: TranslationUnit, host: Function) -> int:
    """Start of the line where the host function's declaration begins (before `extern "C"`
    or `static` written on that line); for a member function defined in its class's body,
    where the class begins."""
    data = unit.source.data
    spec = _host_instance(unit, host)
    if spec is not None:
        return spec[0]  # (on the template's last line: frontend/host_instances.py)
    return data.rfind(b"\n", 0, unit.anchor(host)) + 1


def _host_instance(unit: TranslationUnit, host: Function) -> tuple[int, int] | None:
    """The byte range of the explicit specialisation cudafuse wrote for `host`, if it is
    one (frontend/host_instances.py)."""
    return next((r for rs in unit.host_instances.values() if not isinstance(rs, str)
                 for r in rs if r[0] <= host.span.start < r[1]), None)


def report_dict(result: FuseResult) -> dict[str, Any]:
    return {
        "schema": 1,
        "sequences": [{
            "host": p.host, "kernels": p.kernels, "where": p.where,
            "partitions": [{"strategy": q.strategy, "objective": q.objective,
                            "edge_objective": q.edge_objective, "search": q.search,
                            "proven_optimal": q.proven, "gap": q.gap,
                            "groups": [[p.kernels[i] for i in sorted(g)] for g in q.groups]}
                           for q in p.partitions],
            "chosen": p.chosen.strategy,
            "objective_unit": p.objective_unit,
            "traffic": p.traffic.as_dict() if p.traffic else None,
            "fused": [{"name": g.name, "kernels": g.kernels, "launches": g.launches,
                       "estimated_benefit": g.benefit, "stored_intermediates": g.stored,
                       "untouched_intermediates": g.untouched,
                       "stored_why": g.stored_why,
                       "launch_block": list(g.launch_block) if g.launch_block else None,
                       "tiles": {b: list(h) for b, h in g.tiles.items()},
                       "tiles_declined": g.tiles_declined,
                       "run_time_checks": [{"condition": c, "means": m} for c, m in g.checks],
                       "traffic": g.traffic.as_dict() if g.traffic else None,
                       "resources": g.resources.as_dict() if g.resources else None}
                      for g in p.groups],
            "siblings": [{"kernels": [s.first, s.second],
                          "launches": [s.first_index, s.second_index], "fused": s.fused,
                          "form": s.form or None, "name": s.name or None, "why": s.why,
                          "estimated_benefit": s.benefit,
                          "shared_inputs": list(s.shared_inputs)} for s in p.siblings],
            "left_unfused": [{"kernels": u.kernels, "launches": u.launches, "why": u.why}
                             for u in p.left_unfused],
        } for p in result.plans],
        "edges": [{"host": e.host, "from": e.src, "to": e.dst, "from_launch": e.src_index,
                   "to_launch": e.dst_index, "buffers": list(e.buffers), "fused": e.fused,
                   "why": e.why, "estimated_benefit": e.benefit} for e in result.edges],
        "notes": result.notes,
        "assumed": result.assumed,
        "sequence_breaks": [{"host": h, "line": ln, "col": c, "why": w}
                            for h, ln, c, w in result.breaks],
        "launches": [{"host": la.host, "index": la.index, "kernel": la.kernel,
                      "line": la.line, "where": la.where or None, "sequence": la.sequence,
                      "group": la.group, "why": la.why or None} for la in result.launches],
    }

