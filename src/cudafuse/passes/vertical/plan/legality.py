"""May these launches become one kernel? Each refusal says why, in words.

A group is legal when, besides the structural conditions of `partition.structural_reason`:
- every kernel but the last is a pure producer (see `view.KernelView.producer_reason`; a
  1D grid-stride loop counts, and needs no covering grid) and
  not a template; the last kernel is not a template;
- every read of an intermediate is a direct subscript classified point or stencil, with a
  recognised border handling on each dimension it offsets (so every element read lies in the
  producer's iteration space);
- all kernels have the same iteration space (guard bounds, as host values) and each
  producer's row stride equals its width, and each producer's grid provably covers it; a
  producer that keeps its guard (domain.py) needs only its readers' row stride and, when
  its output is stored, a last kernel whose guard contains its own;
- nothing the fused kernel writes to memory is read from memory by a producer (a producer
  runs at other threads' elements, after they may have stored), unless it reads only the
  fused thread's own element before that thread stores it (_read_before_update); and no
  two kernels of the group write the same buffer;
- no launch outside the group but between its launches depends on a group member (the
  members' work moves to the last launch);
- launch arguments have no side effects, and all launches use the same stream.
"""

from __future__ import annotations

from dataclasses import dataclass

from cudafuse.analysis.callgraph import CallGraph
from cudafuse.analysis.evaluate import partial_store
from cudafuse.analysis.kernel_facts import KernelFacts
from cudafuse.ir import nodes as n
from cudafuse.ir.program import TranslationUnit
from cudafuse.passes.vertical.host.coverage import Resolver, covers
from cudafuse.passes.vertical.host.hostview import (
    LaunchSite,
    param_key,
    side_effect_free,
    value_key,
)
from cudafuse.passes.vertical.host.runtime_check import (
    at_most_check,
    block_check,
    coverage_check,
    covers_meaning,
    unknown,
)
from cudafuse.passes.vertical.kernel.channels import (
    Channels,
    channel_reads_reason,
    decoded_reads,
    frame,
)
from cudafuse.passes.vertical.kernel.domain import gather_reason, keeps_guard
from cudafuse.passes.vertical.kernel.escape import subscript_only
from cudafuse.passes.vertical.kernel.macro_stmts import shared_text_reason
from cudafuse.passes.vertical.kernel.ownvalue import store_anchor
from cudafuse.passes.vertical.kernel.pointwise import loop_variable, pointwise_reason
from cudafuse.passes.vertical.kernel.staged_copy import copied_meaning
from cudafuse.passes.vertical.kernel.tile_stores import (
    TileStore,
    group_tile_stores,
    reach_meaning,
    tile_store,
)
from cudafuse.passes.vertical.kernel.view import KernelView
from cudafuse.passes.vertical.plan.model import PipelineModel

# Border handlings that keep every read inside the image ("interior": the kernel reads only
# where the whole window fits; "mixed(a,b)": different reads handled differently).
HANDLED_BORDERS = frozenset({"clamp", "mirror", "mirror101", "wrap", "constant", "interior"})


def handled(border: str) -> bool:
    if border.startswith("mixed(") and border.endswith(")"):
        return all(b in HANDLED_BORDERS for b in border[6:-1].split(","))
    return border in HANDLED_BORDERS


@dataclass
class LaunchInfo:
    site: LaunchSite
    view: KernelView
    facts: KernelFacts
    reads: dict[str, str]  # buffer key -> the kernel's parameter name
    writes: dict[str, str]


def stream_key(site: LaunchSite) -> str:
    """The stream a launch uses; the default stream (omitted, 0 or nullptr) is one key."""
    stream = site.launch.stream
    if stream is None or (isinstance(stream, n.IntLit) and stream.value == 0) or (
            isinstance(stream, n.OtherExpr) and stream.kind == "CXX_NULL_PTR_LITERAL_EXPR"):
        return "default"
    return value_key(stream, "stream")


class Legality:
    def __init__(self, unit: TranslationUnit, model: PipelineModel, infos: list[LaunchInfo],
                 resolver: Resolver):
        self.unit, self.model, self.infos, self.resolver = unit, model, infos, resolver
        self._kernel: dict[int, str | None] = {}
        # Launch index -> the run-time coverage check a producer is fused under
        # (host/runtime_check.py), where its coverage is not shown statically.
        self.checks: dict[int, str] = {}
        # Launch index -> each of its checks' meaning (condition -> what it stands for),
        # in the words of the module that made it: --explain and --report say them.
        self.meanings: dict[int, dict[str, str]] = {}
        # What a group's legality asks of each member and each edge inside it, the same in
        # every group: the search asks thousands of groups that share them. (kernel_reason's
        # one effect, a launch's run-time check in `checks`, is made on its first call: a
        # second would add the same check again, which `checks` keeps once.)
        self._member_reasons: dict[tuple[int, bool], str | None] = {}
        self._edge_reasons: dict[tuple[int, int, str], str | None] = {}
        # keeps_guard(producer, readers) is `any` over the readers (and the producer
        # alone): asked per (producer, reader), not per group. Reader -1: none.
        self._keeps: dict[tuple[int, int], bool] = {}
        # What the last kernel storing a group's intermediates needs (a store anchor, a grid
        # covering the image), which depends on that kernel alone: (why, run-time check).
        self._sink_store: dict[int, tuple[str | None, str | None]] = {}
        # Each launch's dependents (true and ordering edges) as a bitmask (bit q: launch
        # q), for the check that no launch between a group's depends on one of them.
        self._dependents: tuple[int, list[int]] | None = None

    def _stored(self, group: frozenset[int]) -> set[str]:
        """The intermediates the fused kernel must still store (as the driver decides)."""
        last = max(group)
        return {key for i in group - {last} for key in self.infos[i].writes
                if key in self.model.live_out or any(
                    key in bufs for c, bufs in self.model.consumers(i) if c not in group)}

    def _readers(self, group: frozenset[int], i: int, key: str) -> list[int]:
        """The members whose views see producer i's `key` (as code generation counts them:
        any member binding the buffer, and the last kernel)."""
        last = max(group)
        return [j for j in sorted(group) if j != i and (j == last or any(
            param_key(p, a) == key for p, a in self.infos[j].site.bindings if p.is_pointer))]

    def _domain_reason(self, group: frozenset[int]) -> str | None:
        """Producers that keep their guard (domain.py): the fused code loads the elements
        they do not write at their own row stride, which every reader must share, and the
        last kernel, when it stores their output, must do so at every element they write."""
        last = max(group)
        sink = self.infos[last]
        stored = self._stored(group)
        if sink.view.lower_bounded:  # its intermediates are stored before its guard
            for i in sorted(group - {last}):
                for key in sorted(k for k in self.infos[i].writes if k in stored):
                    why = self._union_reason(i, last)
                    if why:
                        buf = key.split(":", 1)[1].split("@")[0]
                        return (f"'{sink.site.kernel.name}' writes only the interior, so the "
                                f"fused kernel must store '{buf}' before its guard, at every "
                                f"element '{self.infos[i].site.kernel.name}' writes: {why}")
        for i in sorted(group - {last}):
            src = self.infos[i]
            name = src.site.kernel.name
            for key, pname in sorted(src.writes.items()):
                if pname not in src.view.stores:
                    continue
                readers = self._readers(group, i, key)
                if not self._keeps_guard(i, readers):
                    continue
                buf = key.split(":", 1)[1].split("@")[0]
                for j in readers:
                    view = self.infos[j].view
                    if src.view.dims == 2 and view.dims == 2 and \
                            not self._same(i, src.view.stride, j, _view_width(view)) and \
                            not (key not in stored and self._decoded(i, j, key, pname)):
                        return (f"'{name}' and '{self.infos[j].site.kernel.name}' do not "
                                f"provably have the same row stride ('{name}' writes only "
                                f"part of '{buf}', whose other elements are read from memory)")
                if key in stored and not sink.view.lower_bounded and sink.view.dims and (
                        not self._flat_same(i, last) if sink.view.dims != src.view.dims
                        else len(sink.view.bounds) != len(src.view.bounds) or not all(
                            self._at_most(i, a, last, b) for a, b in
                            zip(src.view.bounds, sink.view.bounds, strict=True))):
                    return (f"'{name}' and '{sink.site.kernel.name}' do not provably have the "
                            f"same iteration space: '{sink.site.kernel.name}' must still "
                            f"store '{buf}', but only where its own guard holds, which may "
                            f"miss elements '{name}' writes")
        return None

    def _keeps_guard(self, i: int, readers: list[int]) -> bool:
        """keeps_guard of producer i with `readers`, from its answers for each reader."""
        for j in (-1, *readers):
            if (i, j) not in self._keeps:
                self._keeps[(i, j)] = keeps_guard(
                    self.infos[i].view, [] if j < 0 else [self.infos[j].view])
            if self._keeps[(i, j)]:
                return True
        return False

    def _dependent_masks(self) -> list[int]:
        edges = len(self.model.edges) + len(self.model.order_edges)
        if self._dependents is None or self._dependents[0] != edges:
            masks = [0] * len(self.infos)
            for g, q in (*self.model.edges, *self.model.order_edges):
                masks[g] |= 1 << q
            self._dependents = (edges, masks)
        return self._dependents[1]

    def _sink_store_reason(self, last: int) -> tuple[str | None, str | None]:
        """(why the last kernel cannot store the group's intermediates, the run-time
        coverage check it may store them under instead), asked once per last kernel."""
        if last in self._sink_store:
            return self._sink_store[last]
        _, why = store_anchor(self.infos[last].view)
        check = None
        if not why:
            info = self.infos[last]
            params = {p.decl: a for p, a in info.site.bindings}
            why = covers(self.resolver.with_params(params), info.site.launch.grid,
                         info.site.launch.block, info.view.grid_bounds) \
                if info.view.bounds else "it has no recognisable bounds guard"
            if info.view.grid_stride and info.view.bounds:
                why = None  # its loop visits every element whatever the grid
            check = coverage_check(info.site, info.view.grid_bounds) \
                if why and unknown(why) else None
            if check:
                why = None
            elif why:
                why = (f"'{info.site.kernel.name}' would store the group's intermediates, "
                       f"but {why}")
        self._sink_store[last] = (why, check)
        return why, check

    def _decoded(self, i: int, j: int, key: str, pname: str) -> bool:
        """Whether member j reads producer i's channels of `key` only through the view's
        subscript (channels.decoded_reads): its own row stride is then never used for them."""
        chans = self.infos[i].view.channels.get(pname)
        view = self.infos[j].view
        names = [p.name for p, a in self.infos[j].site.bindings
                 if p.is_pointer and param_key(p, a) == key]
        if chans is None or len(names) != 1 or view.fn.body is None or not view.coords:
            return False
        return decoded_reads(view.reads.get(names[0], []),
                             frame(view.fn.body, view.coords, view.bounds), chans)

    def _union_reason(self, i: int, last: int) -> str | None:
        """Why the last kernel cannot store producer i's `key` over the producer's own domain
        when its own guard is narrower (an interior stencil after a whole-image stage): the
        fused kernel then stores it before that guard, under the producer's bounds
        (codegen.GroupEmitter._domain_stores), so every thread of the last kernel's grid
        must be one of the producer's, at the same element: same dimensions, plain
        coordinates, one row stride, and a grid that covers the producer's bounds."""
        src, sink = self.infos[i], self.infos[last]
        if src.view.lower_bounded:
            return f"'{src.site.kernel.name}' too writes only part of its elements"
        if sink.view.grid_stride or src.view.grid_stride or sink.view.guard is None or \
                src.view.dims != sink.view.dims or src.view.dims not in (1, 2) or \
                src.view.channels or sink.view.channels or \
                any(sink.view.block_sizes) or any(src.view.block_sizes):
            return ("the two kernels do not map threads to elements alike (dimensions, "
                    "grid-stride loops, channels or fixed block sizes differ)")
        if src.view.dims == 2 and (src.view.stride is None or sink.view.stride is None or
                                   not self._same(i, src.view.stride, last,
                                                  sink.view.stride)):
            return "their row strides are not provably equal"
        params = {p.decl: a for p, a in src.site.bindings}
        r = covers(self.resolver.with_params(params), sink.site.launch.grid,
                   sink.site.launch.block, sink.view.in_grid_order(src.view.bounds))
        return r or None

    def _in_place_reason(self, group: frozenset[int], i: int, key: str) -> str:
        """Producer i updates `key` in place (`a[i] += ...`) and the fused kernel stores it:
        a thread that reads the element after its owner stored it sees the new value."""
        name = self.infos[i].site.kernel.name
        buf = key.split(":", 1)[1].split("@")[0]
        for j in sorted(group):
            pname = self.infos[j].reads.get(key)
            load = next((ld for ld in self.infos[j].facts.loads if ld.pointer == pname), None)
            if j == i or load is None:
                continue
            if load.kind == "gather":
                return (f"'{self.infos[j].site.kernel.name}' reads '{pname}' at run-time "
                        "offsets, elements another thread of the fused kernel may already "
                        f"have overwritten ('{name}' updates '{buf}' in place and '{buf}' "
                        "must still be stored)")
            if not any(lo or hi for lo, hi in load.extent):
                continue
            offsets = ", ".join(f"{lo:+d}..{hi:+d} in {d}" if lo != hi else f"{lo:+d} in {d}"
                                for d, (lo, hi) in zip(load.dims, load.extent, strict=True)
                                if (lo, hi) != (0, 0))
            return (f"'{self.infos[j].site.kernel.name}' reads '{pname}' at offset {offsets}, "
                    f"an element another thread of the fused kernel may already have "
                    f"overwritten ('{name}' updates '{buf}' in place and '{buf}' must still "
                    "be stored)")
        return (f"'{name}' updates '{buf}' in place and the fused kernel must still store "
                f"'{buf}': a read of it after the store would see the new value")

    def _read_before_update(self, group: frozenset[int], i: int, key: str) -> str | None:
        """Why producer i's reads of `key`, which the last kernel updates, are not each
        thread's own element read before that thread stores it (None when they are: diff_A
        reads dev_A[tid], then add2to1 does dev_A[tid] += diff_A[tid]). By the evaluated
        accesses (analysis/evaluate.py): i reads `key` only at the element it stores, every
        kernel on the way to the last reads i's value only at its own element (so i runs at
        the fused thread's element alone), the last kernel stores `key` only at that element,
        and it reads the group's values before its first store of `key`. No other member
        writes `key` (the group's one-writer rule)."""
        last = max(group)
        if key not in self.infos[last].writes or key in self._stored(group):
            return "the last kernel does not write it, or it is a stored intermediate"
        info = self.infos[i]
        if info.view.grid_stride or info.view.channels or key in info.writes:
            return "the reader is a grid-stride loop, stores channels or writes it"
        mine = _own_element(info.facts, info.writes.values())
        if mine is None or not _accesses_at(info.facts, info.reads[key], mine, "load"):
            return "the reader does not read it at the element it stores"
        if not self._own_evaluated(group, i, set()):
            return "the reader's value is read at another element than the reader's own"
        sink = self.infos[last]
        pname = sink.writes[key]
        own = _own_element(sink.facts, [pname])
        if own is None or not _accesses_at(sink.facts, pname, own, "store", "load"):
            return "the last kernel stores it other than at one element of its own"
        values = {p for b, p in sink.reads.items() if any(
            b in self.infos[j].writes for j in group - {last})}
        return _read_first(sink.site.kernel, pname, values)

    def _own_evaluated(self, group: frozenset[int], i: int, seen: set[int]) -> bool:
        """Every member reading producer i's outputs reads them at its own element only (the
        element it stores), and is itself the last kernel or read so: then i is evaluated at
        the fused thread's element alone."""
        last = max(group)
        if i in seen:
            return True
        seen.add(i)
        for c, bufs in self.model.consumers(i):
            if c not in group:
                continue
            dst = self.infos[c]
            outs = [dst.writes[b] for b in self.infos[last].writes if b in dst.writes] \
                if c == last else list(dst.writes.values())
            own = _own_element(dst.facts, outs)
            if own is None or dst.view.grid_stride or dst.view.dims not in (1, 2) or \
                    dst.view.dims != self.infos[i].view.dims:
                return False
            if dst.view.dims == 2 and not self._same(i, self.infos[i].view.stride,
                                                     c, dst.view.stride):
                return False
            if any(not _accesses_at(dst.facts, dst.reads[b], own, "load")
                   for b in bufs if b in dst.reads):
                return False
            if c != last and not self._own_evaluated(group, c, seen):
                return False
        return True

    def _stores_intermediates(self, group: frozenset[int]) -> bool:
        last = max(group)
        for i in group - {last}:
            for key in self.infos[i].writes:
                if key in self.model.live_out or any(
                        key in bufs for c, bufs in self.model.consumers(i) if c not in group):
                    return True
        return False

    def kernel_reason(self, i: int, as_producer: bool) -> str | None:
        info = self.infos[i]
        name = info.site.kernel.name
        if info.site.kernel.is_template:
            from cudafuse.passes.vertical.kernel.instances import template_reason

            return template_reason(self.unit, info.site.launch, name)
        if info.facts.textures:
            # A texture or surface reaches memory through an object: which buffer it reads
            # or writes (perhaps an intermediate fusion would no longer store) is unknown.
            op = info.facts.textures[0]
            return f"'{name}' uses a texture or surface object ('{op.name}', line {op.line})"
        # (a producer that cannot be recomputed says so first: that holds whatever its
        # arguments are, `scan<<<1, n>>>(sums, out + 1)` a per-block step at any offset)
        if as_producer and info.view.producer_reason:
            return f"'{name}' cannot be recomputed: {info.view.producer_reason}"
        for p, arg in info.site.bindings:
            if not side_effect_free(arg):
                return f"argument for '{p.name}' of '{name}' has side effects"
            if p.is_pointer and param_key(p, arg) is None:
                return f"argument for '{p.name}' of '{name}' is not a plain buffer variable"
        if as_producer:
            effect = self._unseen_writes(info) or self._helper_effects(info)
            if effect:
                return f"'{name}' cannot be recomputed: {effect}"
            key = (i, "cover")
            if info.view.grid_stride:  # a grid-stride loop covers its space with any grid
                self._kernel[key] = None
            if key not in self._kernel:
                params = {p.decl: a for p, a in info.site.bindings}
                r = covers(self.resolver.with_params(params), info.site.launch.grid,
                           info.site.launch.block, info.view.grid_bounds)
                check = coverage_check(info.site, info.view.grid_bounds) \
                    if r and unknown(r) else None
                if check:  # fused under that check, the original launches otherwise
                    self.checks[i] = check
                    self.meanings[i] = {check: covers_meaning(name)}
                    r = None
                self._kernel[key] = f"'{name}': {r}" if r else None
            if self._kernel[key]:
                return self._kernel[key]
            wrong = self._block_mismatch(i)
            if wrong:
                return f"'{name}' {wrong}"
            if info.view.dims == 2 and not self._same(i, info.view.stride, i,
                                                      info.view.bounds[0]) and (
                    info.view.grid_stride or
                    not self._at_most(i, info.view.bounds[0], i, info.view.stride)):
                # (a guard narrower than the row, x < w - 1, is kept by the view: domain.py;
                # a grid-stride loop keeps none)
                check = None if info.view.grid_stride or info.view.stride is None else \
                    at_most_check(info.site, info.view.bounds[0], info.view.stride)
                if check is None:
                    return f"'{name}' stores rows with a stride other than its width"
                # a row no wider than the stride, checked where the group runs
                self._add_checks(i, [check], f"the rows '{name}' stores are no wider than "
                                 "the stride it stores them with")
            # (after coverage, which sets the launch's check rather than adding to it)
            copied = self._staged_copy_check(i)
            if copied:
                return f"'{name}' cannot be recomputed: {copied}"
        return None

    def _unseen_writes(self, info: LaunchInfo) -> str | None:
        """Writes the analysis finds, in the body or its helpers, that are not the view's
        own-element stores: a pointer stored to only through a member or a reference (a
        helper's `px &q` parameter), a store the view takes for whole elements that the
        analysis finds partial, or a non-const pointer handed where it cannot follow."""
        params = {p.decl: p for p in info.site.kernel.params if p.is_pointer}
        for a in info.facts.accesses:
            p = params.get(a.base)
            if p is None or a.mode == "load" or a.mode == "escape" and p.pointee_const:
                continue
            name = p.name
            if partial_store(a.note):
                return f"it writes '{name}' through a member of its element or a " \
                       f"reference (line {a.span.line}): {a.note}"
            if name not in info.view.stores:
                return f"it writes '{name}' (line {a.span.line}) other than by a store " \
                       "at its own element"
        return None

    def _helper_effects(self, info: LaunchInfo) -> str | None:
        """Side effects hidden in the helpers a producer calls (its own body is checked by
        the view): atomics, barriers, warp collectives, writes to globals."""
        facts = info.facts
        copy = info.view.staged_copy  # (its barriers are gone with its shared copy)
        gone = {s.line for s in copy.dropped} if copy is not None else set()
        barriers = [b for b in facts.barriers if b.line not in gone]
        for ops, what in ((facts.atomics, "an atomic"), (barriers, "a barrier"),
                          (facts.warp_ops, "a warp collective")):
            if ops:
                return f"it calls {what} ('{ops[0].name}', through a helper)"
        for helper in CallGraph(self.unit).transitive(info.site.kernel):
            if helper.body is None:
                continue
            for node in helper.body.walk():
                if isinstance(node, n.Binary) and node.is_assignment:
                    target = node.lhs
                    while isinstance(target, (n.Index, n.Member, n.Cast)):
                        target = target.operand if isinstance(target, n.Cast) else target.base
                    if isinstance(target, n.Ref) and target.kind == "global":
                        return f"its helper '{helper.name}' writes global '{target.name}'"
        return None

    def _staged_copy_check(self, i: int) -> str | None:
        """A producer read without its shared copy (kernel/staged_copy.py) is fused under
        the inequalities that make every element it reads one it copied, checked where the
        group runs (the original launches run when they fail)."""
        info = self.infos[i]
        copy = info.view.staged_copy
        if copy is None or not copy.requires and not copy.per_block:
            return None
        key = (i, "staged copy")
        if key not in self._kernel:  # (asked once per launch: the check is added once)
            checks = [at_most_check(info.site, a, b) for a, b in copy.requires] + [
                block_check(info.site, a, d) for a, d in copy.per_block]
            if any(c is None for c in checks):
                self._kernel[key] = (
                    "its shared copy is read at elements that depend on values cudafuse "
                    "cannot check at the group's launch (that each was copied)")
            else:
                self._kernel[key] = None
                self._add_checks(i, [c for c in checks if c],
                                 copied_meaning(info.site.kernel.name))
        return self._kernel[key]

    def _add_checks(self, i: int, checks: list[str], meaning: str) -> None:
        """Launch i fused only when `checks` hold too, each standing for `meaning`."""
        self.checks[i] = " && ".join(dict.fromkeys(
            c for c in (self.checks.get(i), *checks) if c))
        for c in checks:
            self.meanings.setdefault(i, {}).setdefault(c, meaning)

    def _block_mismatch(self, i: int) -> str | None:
        """A mapping written blockIdx.x * 256 + threadIdx.x is the usual one only when the
        launch's block really is 256 wide."""
        info = self.infos[i]
        if not any(info.view.block_sizes):
            return None
        comps = self.resolver.dim3(info.site.launch.block)
        for d, want in enumerate(info.view.block_sizes):
            if want is None:
                continue
            got = self.resolver.linear(comps[d]) if comps else None
            if got is None or got[0] or got[1] != want:
                return (f"assumes {'xyz'[d]} blocks of {want} threads, which its launch does "
                        "not provably use")
        return None

    def _block_reads_reason(self, members: list[int]) -> str | None:
        """A producer reading its block index (kernel/view.KernelView.block_reads) is
        recomputed with x / blockDim.x for it: its element's block only when the fused kernel
        runs with the producer's block, which is the last launch's (the driver keeps that
        block for such a group)."""
        last = self.infos[members[-1]]
        for i in members[:-1]:
            info = self.infos[i]
            if not info.view.block_reads:
                continue
            mine, theirs = (self.resolver.dim3(x.site.launch.block) for x in (info, last))
            a = self._lin(i, mine[0]) if mine else None
            b = self._lin(members[-1], theirs[0]) if theirs else None
            if a is None or a != b:
                m = info.view.block_reads[0]
                return (f"'{info.site.kernel.name}' reads its block index ('{m.base.name}."
                        f"{m.field_name}', line {m.span.line}), its element's only with its own "
                        f"launch's block, which '{last.site.kernel.name}''s launch does not "
                        "provably use")
        return None

    def _lin(self, i: int, e):
        if e is None:  # (a reader with no own-element store has no row stride)
            return None
        params = {p.decl: a for p, a in self.infos[i].site.bindings}
        return self.resolver.with_params(params).linear(e)

    def _same(self, i: int, a, j: int, b) -> bool:
        la, lb = self._lin(i, a), self._lin(j, b)
        return la is not None and la == lb

    def _flat_same(self, i: int, j: int) -> bool:
        """Launches i and j, one 1-D over n and one 2-D over w x h, cover the same elements:
        n = w * h provably (host values), and the 2-D kernel writes its rows whole and as
        wide as w (its own element y * w + x is then element i of the 1-D one)."""
        one, two = (i, j) if self.infos[i].view.dims == 1 else (j, i)
        v1, v2 = self.infos[one].view, self.infos[two].view
        if v1.dims != 1 or v2.dims != 2 or len(v1.bounds) != 1 or len(v2.bounds) != 2 or \
                v1.lower_bounded or v2.lower_bounded or v2.stride is None or \
                not self._same(two, v2.stride, two, v2.bounds[0]):
            return False
        area = n.Binary("*", v2.bounds[0], v2.bounds[1], type=v2.bounds[0].type)
        return self._same(one, v1.bounds[0], two, area)

    def _flat_read_exact(self, a: int, c: int) -> bool:
        """A producer read by a consumer of the other dimension whose domain need not be its
        own (a 2-D interior stencil after a 1-D mask over the image, `x < 1 || x > cols - 2
        ...`; a 1-D kernel over fewer elements than a 2-D stage): the consumer's reads are
        flat indices, and a producer that keeps its guard (domain.keeps_guard) is recomputed
        there only where its guard holds, yielding memory elsewhere, as the original left it
        (a 2-D one at (i % S, i / S), S its own row stride, which is where it stores element
        i). So every read is exact wherever it falls. Asked only of an intermediate the
        program does not read afterwards (edge_reason): one still stored must be stored by
        the last kernel at every element the producer writes, which such a consumer's threads
        need not reach (_domain_reason asks that of one a later launch reads)."""
        src, dst = self.infos[a].view, self.infos[c].view
        return {src.dims, dst.dims} == {1, 2} and self._any_index_exact(a, c)

    def _any_index_exact(self, a: int, c: int) -> bool:
        """Producer a's value function, as consumer c sees it, is exact at any flat index:
        it keeps its guard, yielding memory where that does not hold (a 2-D one decoded at
        (i % S, i / S), S its own row stride). So a read of it at any element is, wherever
        the reader's index falls: a gather at clamped positions of a kernel whose threads are
        not one per element (overlapping tiles, `min(max(p, 0), cols - 1)` of a block's
        patch origin), as a 1-D read of a 2-D producer (_flat_read_exact). Asked only of an
        intermediate the program does not read afterwards, like that one."""
        src, dst = self.infos[a].view, self.infos[c].view
        if src.grid_stride or src.channels:
            return False
        if src.dims == 2 and (src.stride is None or src.grid_dims or src.launch_extents):
            return False  # (decoded in element order from its own stride, written plainly)
        return keeps_guard(src, [dst])

    def _at_most(self, i: int, a, j: int, b) -> bool:
        """a (in launch i's terms) <= b (in launch j's), provably: they differ by a constant."""
        if a is None or b is None:
            return False
        la, lb = self._lin(i, a), self._lin(j, b)
        return la is not None and lb is not None and la[0] == lb[0] and la[1] <= lb[1]

    def _tile_loaded(self, c: int, pname: str) -> bool:
        """Every thread of c, with no coordinates of its own, loads `pname` at a clamped
        tile position (kernel/tile_stores.py): the fused kernel can store it there."""
        return self.infos[c].view.dims == 0 and isinstance(
            tile_store(self.infos[c].site.kernel, pname), TileStore)

    def _tile_stores_reason(self, group: frozenset[int]) -> str | None:
        """Why a last kernel with no coordinates of its own cannot store the group's stored
        intermediates at its tile loads; the condition it does so under goes to checks."""
        last = max(group)
        sink = self.infos[last]
        stored = self._stored(group)
        reads = {key: sink.reads[key] for i in group - {last} for key in self.infos[i].writes
                 if key in sink.reads}
        found = group_tile_stores(sink.site, reads, [
            (key, self.infos[i].site, self.infos[i].view) for i in sorted(group - {last})
            for key in sorted(self.infos[i].writes) if key in stored])
        if isinstance(found, str):
            return (f"'{sink.site.kernel.name}' has no coordinates of its own and would store "
                    f"the group's intermediates where its threads load its tile, but {found}")
        self._add_checks(last, [found[1]], reach_meaning(sink.site.kernel.name))
        return None

    def edge_reason(self, a: int, c: int, buffer: str) -> str | None:
        """Why consumer c cannot read `buffer` from producer a through a view."""
        src, dst = self.infos[a], self.infos[c]
        pname = dst.reads.get(buffer)
        cname = dst.site.kernel.name
        if pname is None:
            return None
        _, why = subscript_only(self.unit, dst.site.kernel, pname)
        if why:
            return why
        if buffer in dst.writes:
            return f"'{cname}' also writes '{pname}'"
        wrote = next((p for p, _ in src.site.bindings if p.name == src.writes.get(buffer)), None)
        read = next((p for p, _ in dst.site.bindings if p.name == pname), None)
        if wrote is not None and read is not None and wrote.pointee != read.pointee:
            return (f"'{cname}' reads '{pname}' as '{read.pointee}', which "
                    f"'{src.site.kernel.name}' writes as '{wrote.pointee}'")
        channels = src.view.channels.get(src.writes.get(buffer, ""))
        if channels is not None:
            return self._channel_edge_reason(a, c, pname, channels)
        load = next((ld for ld in dst.facts.loads if ld.pointer == pname), None)
        if load is not None and load.kind == "other" and self._tile_loaded(c, pname) and \
                self._any_index_exact(a, c) and src.view.stores.get(
                    src.writes.get(buffer, "")) is not None:
            return None  # its one load is a clamped tile position (kernel/tile_stores.py)
        if load is not None and load.kind == "other" and \
                loop_variable(dst.facts, pname) is not None:
            return self._loop_read_reason(a, c, buffer, pname)
        if load is None or load.kind not in ("point", "stencil", "gather"):
            why = load.reason if load is not None else "no load classification"
            return f"'{cname}' reads '{pname}' in a way cudafuse cannot map: {why}"
        if load.kind == "gather":
            why = gather_reason(dst.view, load)
            tiled = self._tile_loaded(c, pname) and self._any_index_exact(a, c)
            if why and self._any_index_exact(a, c) and buffer in self.model.live_out and \
                    dst.view.dims == 0 and not tiled:
                return _unowned(cname, buffer, src.site.kernel.name,
                                tile_store(dst.site.kernel, pname))
            if why and not tiled and (
                    buffer in self.model.live_out or not self._any_index_exact(a, c)):
                return f"'{cname}' reads '{pname}' {why}"
        for d, (lo, hi), border in zip(load.dims, load.extent, load.border, strict=True):
            if (lo, hi) != (0, 0) and not handled(border):
                return (f"'{cname}' reads '{pname}' at offsets {lo}..{hi} in {d} with "
                        f"{border} border handling: out-of-range reads cannot be reproduced")
        if src.view.stores.get(src.writes.get(buffer, "")) is None:
            return f"'{src.site.kernel.name}' does not store '{buffer}' at its own element"
        if dst.view.dims != src.view.dims:
            # (a reader with no coordinates of its own, overlapping tiles: any index)
            exact = self._any_index_exact(a, c) if dst.view.dims == 0 else \
                self._flat_read_exact(a, c)
            # (overlapping tiles that load it whole store it there: kernel/tile_stores.py)
            tiled = dst.view.dims == 0 and exact and self._tile_loaded(c, pname)
            if dst.view.dims == 0 and exact and buffer in self.model.live_out and not tiled:
                return _unowned(cname, buffer, src.site.kernel.name,
                                tile_store(dst.site.kernel, pname))
            if not self._flat_same(a, c) and not tiled and (
                    buffer in self.model.live_out or not exact):
                return (f"'{src.site.kernel.name}' and '{cname}' do not provably have the "
                        "same iteration space (a 1-D kernel's bound must be the 2-D one's "
                        "width times height, its rows as wide as its width)")
        elif not dst.view.bounds or (
                not keeps_guard(src.view, [dst.view]) and any(
                    not self._same(a, x, c, y) for x, y in
                    zip(src.view.bounds, dst.view.bounds, strict=False))):
            return (f"'{src.site.kernel.name}' and '{cname}' do not provably have the same "
                    "iteration space")
        return None

    def _loop_read_reason(self, a: int, c: int, buffer: str, pname: str) -> str | None:
        """A consumer reading `pname` at run-time loop indices (kernel/pointwise.py): fused
        when the producer is point-wise in its stored element (recomputed at each read for
        about the load it replaces), its value function is exact at any element, and the
        intermediate is not read after the group (no thread would store it)."""
        src, dst = self.infos[a], self.infos[c]
        cname, sname = dst.site.kernel.name, src.site.kernel.name
        at = (f"'{cname}' reads '{pname}' at run-time indices (loop variable "
              f"'{loop_variable(dst.facts, pname)}')")
        why = pointwise_reason(self.unit, src.view, src.facts, src.writes.get(buffer, ""))
        if why:
            return f"{at}, where {why}"
        if not self._any_index_exact(a, c):
            v = src.view
            how = "it is a grid-stride loop" if v.grid_stride else \
                "it stores channels" if v.channels else \
                "its elements are not decoded from a plain row stride" if v.dims == 2 and (
                    v.stride is None or v.grid_dims or v.launch_extents) else \
                f"its guard is dropped ('{cname}''s bounds are its own)"
            return (f"{at}, where '{sname}''s value at an element is exact only where its "
                    f"threads store ({how}): a read elsewhere would not see memory as the "
                    "original does")
        if buffer in self.model.live_out:
            return (f"{at}, and '{buffer.split(':', 1)[1].split('@')[0]}' may be read after "
                    f"the group: the fused kernel would have to store it at every element "
                    f"'{sname}' writes, which '{cname}''s threads do not own")
        return None

    def _channel_edge_reason(self, a: int, c: int, pname: str, channels: Channels
                             ) -> str | None:
        """A consumer of a producer's channels reads each at its own element, at a constant
        channel the producer stores, directly in its body, over the same iteration space."""
        src, dst = self.infos[a], self.infos[c]
        cname = dst.site.kernel.name
        needed, _ = subscript_only(self.unit, dst.site.kernel, pname)
        if needed:
            return (f"'{cname}' hands '{pname}', which holds channels, to a helper "
                    f"('{sorted(needed)[0][0]}'), where its reads cannot be mapped to channels")
        view = dst.view
        assert view.fn.body is not None
        fr = frame(view.fn.body, view.coords, view.bounds) if view.coords else None
        why = channel_reads_reason(cname, pname, view.reads.get(pname, []), fr, channels)
        if why:
            return why
        if (view.dims != src.view.dims or len(view.bounds) != len(src.view.bounds) or any(
                not self._same(a, x, c, y) for x, y in
                zip(src.view.bounds, view.bounds, strict=True))) and not (
                view.dims == src.view.dims and keeps_guard(src.view, [view]) and
                decoded_reads(view.reads.get(pname, []), fr, channels)):
            return (f"'{src.site.kernel.name}' and '{cname}' do not provably have the same "
                    "iteration space (the channels' plane is its size)")
        return None

    def _shared_text(self, i: int) -> str | None:
        """A producer's index statements and guard are rewritten as text (inlined into the
        next kernel): refused when one macro writes them together (kernel/macro_stmts.py).
        The last kernel's are kept as written, macro or not."""
        key = (i, "shared text")
        if key not in self._kernel:
            why = shared_text_reason(self.unit, self.infos[i].view)
            self._kernel[key] = f"'{self.infos[i].site.kernel.name}': {why}" if why else None
        return self._kernel[key]

    def __call__(self, group: frozenset[int]) -> str | None:
        members = sorted(group)
        last = members[-1]
        for i in members:
            key = (i, i != last)
            if key in self._member_reasons:
                r = self._member_reasons[key]
            else:
                r = self._member_reasons[key] = self.kernel_reason(i, as_producer=i != last)
            if r:
                return r
        r = self._block_reads_reason(members)
        if r:
            return r
        edges = self.model.edges
        for a in members:  # the edges inside the group, by (producer, consumer)
            out = self.model.consumers(a)  # (not every edge of the model: 1,000s)
            # (a producer of many consumers: its edges to later members, looked up, in the
            # same order, consumers ascending)
            inside = [(c, edges[(a, c)]) for c in members if c > a and (a, c) in edges] \
                if len(out) > len(members) else [(c, bufs) for c, bufs in out if c in group]
            for c, bufs in inside:
                for b in bufs:
                    edge = (a, c, b)
                    if edge in self._edge_reasons:
                        r = self._edge_reasons[edge]
                    else:
                        r = self._edge_reasons[edge] = self.edge_reason(a, c, b)
                    if r:
                        return r
        for i in members[:-1]:  # (after the edges: a reader's own reason is the first to say)
            r = self._shared_text(i)
            if r:
                return r
        mappings = {self.infos[i].view.grid_dims or (0, 1) for i in members
                    if self.infos[i].view.dims == 2}
        if len(mappings) > 1:
            # (recomputing at an element is mapping-free, but stored intermediates, tiles
            # and a producer's value at the thread's own element assume one mapping)
            return ("its kernels map threads to elements differently: in one the grid's x "
                    "walks the rows (out[x * cols + y]), in another the columns")
        streams = {stream_key(self.infos[i].site) for i in members}
        if len(streams) > 1:  # the fused launch runs on one stream: others' ordering would change
            return "its launches use different streams"
        writers: dict[str, list[int]] = {}
        for i in members:
            for b in self.infos[i].writes:
                writers.setdefault(b, []).append(i)
        for b, who in sorted(writers.items()):
            if len(who) > 1:  # one value per element and buffer, or views would be ambiguous
                names = " and ".join(f"'{self.infos[i].site.kernel.name}'" for i in who[:2])
                return f"{names} both write '{b.split(':', 1)[1].split('@')[0]}'"
        # What the fused kernel writes: the last kernel's outputs and the stored
        # intermediates (a producer's other outputs are never written to memory).
        stored = self._stored(group)
        written = set(self.infos[last].writes) | stored
        for i in members[:-1]:
            info = self.infos[i]
            # A producer reading its own output only at its own element (`a[i] += ...`, or
            # a channel of it: the view admits no other read of a buffer of channels,
            # view._channel_limits) reads what it read originally, unless the fused kernel
            # stores that buffer.
            own = sorted(b for b, p in info.reads.items() if b in info.writes and (any(
                ld.pointer == p and ld.kind == "point" for ld in info.facts.loads) or
                p in info.view.channels)
                and (p not in info.view.accumulators or p in info.view.loaded))
            # (accumulators read a local, not memory, unless loaded from it first)
            if any(b in written for b in own):
                return self._in_place_reason(group, i, next(b for b in own if b in written))
            clash = sorted(b for b in info.reads if b not in own and (
                b in written or b in info.writes) and
                info.reads[b] not in info.view.accumulators and not any(
                b in self.model.edges.get((a, i), ()) for a in members) and
                self._read_before_update(group, i, b) is not None)
            if clash:
                buf = clash[0].split(":", 1)[1].split("@")[0]
                return (f"'{self.infos[i].site.kernel.name}' reads '{buf}' from memory, which "
                        "the fused kernel writes")
        r = self._domain_reason(group)
        if r:
            return r
        if self._stores_intermediates(group) and self.infos[last].view.dims == 0:
            r = self._tile_stores_reason(group)
            if r:
                return r
        elif self._stores_intermediates(group) and not self.infos[last].view.lower_bounded:
            # (A last kernel bounded from below stores them before its guard, where each
            # producer's grid coverage is checked: _domain_reason.)
            # The last kernel's threads store them, before its own store (or the statement
            # holding its if/else stores): that place must exist for every element, and it
            # must cover the whole image too (or be fused under a run-time check that it
            # does, host/runtime_check.py).
            why, check = self._sink_store_reason(last)
            if why:
                return why
            if check:
                self._add_checks(last, [check], covers_meaning(
                    self.infos[last].site.kernel.name, storing=True))
        # The first launch between the group's that depends on a member, and the first
        # member it depends on (every edge goes forward: a member's dependents come after it).
        dependents = self._dependent_masks()
        inside = 0
        reached = 0
        for g in members:
            inside |= 1 << g
            reached |= dependents[g]
        between = reached & ~inside & ((1 << last) - 1)
        if between:
            q = (between & -between).bit_length() - 1
            g = next(g for g in members if dependents[g] >> q & 1)
            return (f"launch of '{self.infos[q].site.kernel.name}' between the group's "
                    f"launches depends on '{self.infos[g].site.kernel.name}'")
        return None


def _unowned(cname: str, buffer: str, pname: str, tiled: TileStore | str) -> str:
    """Why a reader with no coordinates of its own cannot end a group that must still store
    the intermediate it reads (at any element, exactly: legality._any_index_exact), nor store
    it where it loads a tile (`tiled`: kernel/tile_stores.py's reason)."""
    return (f"'{cname}' has no coordinates of its own (its threads are not one per element) "
            f"and '{buffer.split(':', 1)[1].split('@')[0]}' may be read after the group: the "
            f"fused kernel would have to store it at every element '{pname}' writes, which "
            f"no thread of '{cname}' owns" + (
                f", and {tiled}" if isinstance(tiled, str) else ""))


def _view_width(reader: KernelView) -> n.Expr | None:
    """The row stride a reader's views of a producer that keeps its guard take as the
    image's width (codegen's _view_init): its own stores' row stride, or, for a reader that
    stores no element of its own (a histogram, a min/max with atomics), its guard's x bound,
    which its reads `in[y * w + x]` then name. The `at2` fast path serves a read at that
    stride from the producer's coordinates, so the producer's own stride must equal it."""
    return reader.stride if reader.stride is not None else \
        reader.bounds[0] if reader.bounds else None


def _own_element(facts: KernelFacts, pointers) -> object | None:
    """The one element (its evaluated index) at which a kernel stores the given pointer
    parameters, or None when they are stored at several, or not at all."""
    names = set(pointers)
    found = {a.index for a in facts.accesses
             if a.name in names and a.base_kind == "param" and a.mode != "load"}
    return next(iter(found)) if len(found) == 1 else None


def _accesses_at(facts: KernelFacts, pname: str, index, *modes: str) -> bool:
    """Every access through parameter `pname` is one of `modes`, at `index`."""
    accesses = [a for a in facts.accesses if a.name == pname and a.base_kind == "param"]
    return bool(accesses) and all(a.mode in modes and a.index == index for a in accesses)


def _strip(e: n.Expr) -> n.Expr:
    while isinstance(e, n.Cast):
        e = e.operand
    return e


def _param_ref(e: n.Expr, name: str) -> bool:
    e = _strip(e)
    return isinstance(e, n.Ref) and e.kind == "param" and e.name == name


def _read_first(kernel: n.Node, pname: str, values: set[str]) -> str | None:
    """Why the last kernel may not read every group value (`values`, its parameters) before
    it first stores its parameter `pname`, in the order it runs: outside loops, `goto` and
    what the IR keeps opaque, a value read in the right-hand side of the store counting as
    before it; `pname` used other than by subscripts; a store and a read unsequenced in one
    expression. None when it reads them first."""
    events: list[tuple[str, int]] = []  # ("store" | "read", line)

    def walk(node: n.Node) -> str | None:
        if isinstance(node, n.Binary) and node.is_assignment and \
                isinstance(_strip(node.lhs), n.Index) and \
                _param_ref(_strip(node.lhs).base, pname):  # type: ignore[union-attr]
            why = walk(node.rhs) or walk(_strip(node.lhs).index)  # type: ignore[union-attr]
            events.append(("store", node.span.line))
            return why
        if isinstance(node, n.Unary) and node.op in ("++", "--") and \
                isinstance(_strip(node.operand), n.Index) and \
                _param_ref(_strip(node.operand).base, pname):  # type: ignore[union-attr]
            why = walk(_strip(node.operand).index)  # type: ignore[union-attr]
            events.append(("store", node.span.line))
            return why
        if isinstance(node, n.Index) and _param_ref(node.base, pname):
            return walk(node.index)  # its own read of the buffer: as in the original
        if isinstance(node, n.Ref) and node.kind == "param":
            if node.name == pname:
                return f"it uses '{pname}' other than by a subscript (line {node.span.line})"
            if node.name in values:
                events.append(("read", node.span.line))
            return None
        start = len(events)
        parts = []
        for child in node.children():
            before = len(events)
            why = walk(child)
            if why:
                return why
            parts.append({kind for kind, _ in events[before:]})
        inner = {kind for kind, _ in events[start:]}
        if len(inner) == 2 and isinstance(node, (n.For, n.While, n.OtherStmt, n.OtherExpr)):
            return f"it stores '{pname}' and reads the group's values in a loop or a " \
                   f"statement cudafuse does not model (line {node.span.line})"
        if isinstance(node, n.Expr) and not (isinstance(node, n.Binary) and node.op == ",") \
                and sum(1 for p in parts if p) > 1 and len(inner) == 2:
            return f"it stores '{pname}' and reads the group's values unsequenced in one " \
                   f"expression (line {node.span.line})"
        return None

    body = getattr(kernel, "body", None)
    if body is None:
        return "its body is not visible"
    jump = next((x for x in body.walk() if isinstance(x, n.OtherStmt) and "GOTO" in x.kind), None)
    if jump is not None:
        return f"it jumps with goto (line {jump.span.line}): its order is not its text's"
    why = walk(body)
    if why:
        return why
    kinds = [kind for kind, _ in events]
    if "store" in kinds:
        first = kinds.index("store")
        late = next((line for kind, line in events[first:] if kind == "read"), None)
        if late is not None:
            return (f"it stores '{pname}' (line {events[first][1]}) before it reads the "
                    f"group's values (line {late})")
    return None
