"""Sibling fusion: independent launches of one sequence become one launch.

Two launches are siblings when neither depends on the other: no buffer one writes is read
or written by the other (a producer/consumer edge is vertical fusion's business). They run
as one launch in two forms:

- `thread`: their launches have the same grid, block and dynamic shared memory (as host
  values, as vertical legality compares them), so one thread of the fused kernel runs both
  bodies at its element, one after the other (sibling_codegen.py);
- `block`: otherwise, a block split as `cudafuse hfuse --mode block` emits it: the first
  grid's blocks run the first kernel, the rest the second (the horizontal pass's emitter).

Vertical groups come first: siblings are paired among the launches of a sequence that no
fused group took. The fused launch stands at the later launch's place, so the earlier
launch's work moves past the launches between them, none of which may conflict with it;
failing that, at the earlier launch's place, when the later launch's work may move before
the launches between (and its arguments name nothing declared in between). Sequences never
span an `if`'s two branches or a host statement that touches buffers (hostview.py), so
neither are siblings.

The benefit, in the vertical cost model's cycles (costmodel.py's unit):
- thread form: one launch saved (gamma), plus each input both read at their own element
  read once (t_global per element of the iteration space), minus the occupancy cost of
  one thread holding both kernels' live values. Registers are not known before compiling,
  so they are estimated, r = 16 + 2 * loads + alu / 8 per kernel, the fused kernel's as
  the sum (less 2 per shared input); up to REG_FREE registers a thread (32 warps an SM on
  sm_80/sm_90, enough to hide a streaming kernel's latency) costs nothing, beyond it the
  fused kernel's arithmetic is charged r / REG_FREE - 1 times over;
- block form: one launch saved, and nothing else (the blocks run as they did); it pays
  only when launch overhead dominates, which the model takes to mean both grids are
  compile-time constants that together fit one wave of the device (at most SMS blocks);
  anything else is left unfused unless --fuse-all (or siblings="always") asks.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from cudafuse.analysis.symbolic import Poly
from cudafuse.codegen.exprprint import Unprintable, to_c
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.passes.vertical.host.hostexprs import root_variable, shared_variables, write_target
from cudafuse.passes.vertical.host.hoststmts import MEMORY_CALLS
from cudafuse.passes.vertical.host.hostview import (
    host_locals,
    param_key,
    side_effect_free,
    value_key,
)
from cudafuse.passes.vertical.host.resolver import Resolver
from cudafuse.passes.vertical.kernel.thread_private import (
    ONE_ELEMENT,
    KernelSide,
    check_text,
    host_atom,
    prove,
)
from cudafuse.passes.vertical.plan.arch import ArchParams
from cudafuse.passes.vertical.plan.legality import LaunchInfo, stream_key
from cudafuse.passes.vertical.plan.model import GATHER_WINDOW, KernelCost

# Streaming multiprocessors per arch: a block split pays when both grids fit one wave.
SMS = {"sm_80": 108, "sm_90": 132}
REG_FREE = 64  # estimated registers per thread that cost no occupancy (see above)


@dataclass
class SiblingNote:
    """One pair of launches considered as siblings, and what became of it."""

    host: str
    first: str  # kernel names, in launch order
    second: str
    first_index: int  # launch indices in the host function
    second_index: int
    fused: bool
    why: str
    form: str = ""  # thread | block ("" when refused before a form applied)
    name: str = ""  # the fused kernel (thread) or launcher (block)
    benefit: float | None = None  # estimated cycles saved (None when refused)
    shared_inputs: tuple[str, ...] = ()
    line: int = 0  # the second launch's, for diagnostics
    col: int = 0
    serial: bool = False  # a dependent pair, one thread running one body after the other


@dataclass
class SiblingPair:
    a: LaunchInfo
    b: LaunchInfo
    form: str
    at_second: bool  # the fused launch stands at the second launch's place
    benefit: float
    shared: tuple[str, ...] = ()  # buffer keys both read at their own element
    note: SiblingNote | None = field(default=None, repr=False)
    # A dependent pair whose dependence stays inside each thread (kernel/thread_private.py):
    # the buffers one writes and the other touches, and the run-time conditions (C text)
    # the fused launch runs under (the original launches otherwise).
    serial: tuple[str, ...] = ()
    checks: tuple[str, ...] = ()
    # Later launches one thread runs after b's body too (a chain of such launches, each
    # checked against every launch before it: SiblingPlanner.extend).
    more: tuple[LaunchInfo, ...] = ()

    @property
    def members(self) -> tuple[LaunchInfo, ...]:
        return (self.a, self.b, *self.more)


def _short(key: str) -> str:
    return key.split(":", 1)[-1].split("@")[0]


def conflict(x: LaunchInfo, y: LaunchInfo) -> str | None:
    """Why launch y depends on launch x or x on y ('x' before 'y'), in words; None when
    they touch no buffer in common but for reads."""
    nx, ny = x.site.kernel.name, y.site.kernel.name
    both = sorted(set(x.writes) & set(y.writes))
    if both:
        return f"'{nx}' and '{ny}' both write '{_short(both[0])}'"
    flow = sorted(set(x.writes) & set(y.reads))
    if flow:
        return f"'{ny}' reads '{_short(flow[0])}', which '{nx}' writes"
    anti = sorted(set(x.reads) & set(y.writes))
    if anti:
        return f"'{ny}' overwrites '{_short(anti[0])}', which '{nx}' reads"
    return None


def dependence_reach(infos: list[LaunchInfo]) -> tuple[list[int], list[int]]:
    """For each launch i, the first later launch that conflicts with it (len(infos) when
    none) and the last earlier one it conflicts with (-1 when none), in the sense of
    `conflict`, from each buffer's readers and writers in order: linear in the launches and
    their buffers, where comparing every pair is quadratic."""
    count = len(infos)
    touch: dict[str, list[int]] = {}  # buffer -> launches reading or writing it, in order
    write: dict[str, list[int]] = {}
    for i, info in enumerate(infos):
        for key in {*info.reads, *info.writes}:
            touch.setdefault(key, []).append(i)
        for key in info.writes:
            write.setdefault(key, []).append(i)
    after, before = [count] * count, [-1] * count
    for i, info in enumerate(infos):
        # (two launches conflict when one writes what the other touches: the launches
        # that conflict with i are those touching what it writes and writing what it reads)
        lists = [touch[k] for k in info.writes] + [write[k] for k in info.reads if k in write]
        for seq in lists:
            at = bisect.bisect_right(seq, i)
            if at < len(seq):
                after[i] = min(after[i], seq[at])
            at = bisect.bisect_left(seq, i)
            if at > 0:
                before[i] = max(before[i], seq[at - 1])
    return after, before


def _global_write(unit: TranslationUnit, info: LaunchInfo) -> str | None:
    """A global variable the kernel (or a helper it calls) writes: which launches read it is
    not tracked, so such a kernel has no siblings."""
    from cudafuse.analysis.callgraph import CallGraph

    fns = [info.site.kernel, *CallGraph(unit).transitive(info.site.kernel)]
    shared = shared_variables(unit, fns)
    for fn in fns:
        if fn.body is None:
            continue
        for node in fn.body.walk():
            target = root_variable(write_target(node))
            if target is not None and target.kind == "global" and target.decl not in shared:
                return f"'{info.site.kernel.name}' writes global '{target.name}'"
    return None


def kernel_reason(unit: TranslationUnit, info: LaunchInfo) -> str | None:
    name = info.site.kernel.name
    if info.site.kernel.is_template:
        from cudafuse.passes.vertical.kernel.instances import template_reason

        return template_reason(unit, info.site.launch, name)
    if info.facts.textures:
        return f"'{name}' uses a texture or surface object ('{info.facts.textures[0].name}')"
    if info.site.wrapper is not None:
        return f"'{name}' is launched by a call of '{info.site.wrapper.fn.name}'"
    for p, arg in info.site.bindings:
        if not p.name:
            return f"'{name}' has an unnamed parameter"
        if not side_effect_free(arg):
            return f"argument for '{p.name}' of '{name}' has side effects"
        if p.is_pointer and param_key(p, arg) is None:
            return f"argument for '{p.name}' of '{name}' is not a plain buffer variable"
    return _global_write(unit, info)


def shared_written(a: LaunchInfo, b: LaunchInfo
                   ) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """The buffers one of the two launches writes and the other touches, with the
    parameters through which each kernel reaches them."""
    touched = [set(x.reads) | set(x.writes) for x in (a, b)]
    keys = (set(a.writes) & touched[1]) | (set(b.writes) & touched[0])
    out = {}
    for key in keys:
        names = tuple(tuple(p.name for p, arg in info.site.bindings
                            if p.is_pointer and param_key(p, arg) == key) or
                      tuple(n for k, n in (*info.reads.items(), *info.writes.items())
                            if k == key)
                      for info in (a, b))
        out[key] = (names[0], names[1])
    return out


def _thread_dims(info: LaunchInfo) -> tuple[str, ...]:
    """The dimensions whose thread or block index the kernel reads (its mapping's may be
    the 2-D image a 1-D index is delinearised into)."""
    return tuple(d for d in "xyz" if f"threadIdx.{d}" in info.facts.builtins or
                 f"blockIdx.{d}" in info.facts.builtins)


def _declared_dim3(host: Function, e: n.Expr | None) -> list[n.Expr] | None:
    """The components a dim3 local is declared with (`dim3 grid(1, 1, 1);`), whatever
    assignments of some of them follow (`grid.x = ...`: _assigns_member says which)."""
    while isinstance(e, n.Cast):
        e = e.operand
    if not isinstance(e, n.Ref) or e.kind != "local" or host.body is None:
        return None
    decl = next((d for d in host.body.walk() if isinstance(d, n.VarDecl) and
                 d.decl == e.decl), None)
    init = decl.init if decl is not None else None
    if not isinstance(init, n.Call) or init.callee != "dim3":
        return None
    comps: list[n.Expr] = [n.IntLit(1) if isinstance(c, n.OtherExpr) and not c.items and
                           c.span.end == c.span.start else c for c in init.args]
    return comps + [n.IntLit(1)] * (3 - len(comps))


def _assigns_member(host: Function, e: n.Expr | None, dim: str) -> bool:
    """Does the host function assign dimension `dim` of the dim3 variable `e` (or the whole
    variable) after its declaration?"""
    root = e
    while isinstance(root, n.Cast):
        root = root.operand
    if not isinstance(root, n.Ref) or host.body is None:
        return False
    for node in host.body.walk():
        target = write_target(node)
        if isinstance(target, n.Ref) and target.decl == root.decl:
            return True
        if isinstance(target, n.Member) and target.field_name == dim and \
                root_variable(target) is not None and root_variable(target).decl == root.decl:
            return True
    return False


class SiblingPlanner:
    """Pairs the unfused launches of one sequence."""

    def __init__(self, unit: TranslationUnit, infos: list[LaunchInfo], arch: ArchParams,
                 size: int, mode: str, fuse_all: bool, costs: list[KernelCost]):
        self.unit, self.infos, self.arch, self.size = unit, infos, arch, size
        self.mode, self.fuse_all, self.costs = mode, fuse_all, costs
        self.resolver = Resolver(host_locals(infos[0].site.host)) if infos else None

    # ---- launch values ------------------------------------------------------------------

    def _dim3(self, e: n.Expr | None) -> tuple[object, ...]:
        """A launch value (grid, block, shared bytes) as comparable constants or terms."""
        if e is None:
            return ("absent",)
        assert self.resolver is not None
        comps = self.resolver.dim3(e)
        if comps is None:
            return ("expr", value_key(e, "dim3"))
        out: list[object] = []
        for c in comps:
            lin = self.resolver.linear(c)
            out.append(lin if lin is not None else value_key(c, "int"))
        return tuple(out)

    def constant_dim3(self, e: n.Expr) -> tuple[int, int, int] | None:
        assert self.resolver is not None
        comps = self.resolver.dim3(e)
        if comps is None:
            return None
        vals = []
        for c in comps:
            lin = self.resolver.linear(c)
            if lin is None or lin[0]:
                return None
            vals.append(lin[1])
        return vals[0], vals[1], vals[2]

    def _shared_bytes(self, info: LaunchInfo) -> tuple[object, ...]:
        e = info.site.launch.shared
        if e is None or (isinstance(e, n.IntLit) and e.value == 0):
            return ("none",)
        return self._dim3(e)

    def same_space(self, a: LaunchInfo, b: LaunchInfo) -> bool:
        la, lb = a.site.launch, b.site.launch
        return (self._dim3(la.grid) == self._dim3(lb.grid) and
                self._dim3(la.block) == self._dim3(lb.block) and
                self._shared_bytes(a) == self._shared_bytes(b))

    # ---- legality -----------------------------------------------------------------------

    def thread_form_reason(self, a: LaunchInfo, b: LaunchInfo) -> str | None:
        """Why one thread cannot run both bodies (the block split may still)."""
        if not self.same_space(a, b):
            return "their grids, blocks or dynamic shared memory differ"
        for info in (a, b):
            f, name = info.facts, info.site.kernel.name
            for ops, what in ((f.barriers, "a barrier"), (f.shared, "shared memory"),
                              (f.warp_ops, "a warp collective"), (f.asm, "inline asm")):
                if ops:
                    # A thread that returns early from one body would go on to the other
                    # and arrive at barriers the original never saw it at.
                    return f"'{name}' uses {what}"
            body = info.site.kernel.body
            text = self.unit.text(body.span) if body is not None else ""
            if "this_thread_block" in text or "this_grid" in text:
                return f"'{name}' uses cooperative groups"
        return None

    def between_reason(self, i: int, j: int) -> tuple[bool, str | None]:
        """(at_second, why not): whether the fused launch may stand at j's place (i's work
        moves past the launches between) or else at i's (j's work moves before them)."""
        between = range(i + 1, j)
        first = next((k for k in between if conflict(self.infos[i], self.infos[k])), None)
        if first is None:
            return True, None
        last = next((k for k in between if conflict(self.infos[k], self.infos[j])), None)
        if last is None and not self._declared_between(i, j) and \
                not self._host_between(i, j):
            return False, None
        k = first
        return True, (f"the launch of '{self.infos[k].site.kernel.name}' between them "
                      f"depends on '{self.infos[i].site.kernel.name}' "
                      f"({conflict(self.infos[i], self.infos[k])})")

    def _declared_between(self, i: int, j: int) -> bool:
        """Does launch j name a variable declared after launch i?"""
        host = self.infos[i].site.host
        assert host.body is not None
        lo, hi = self.infos[i].site.stmt.span.end, self.infos[j].site.stmt.span.start
        decls = {d.decl for d in host.body.walk()
                 if isinstance(d, n.VarDecl) and lo <= d.span.start < hi}
        return any(isinstance(r, n.Ref) and r.decl in decls
                   for r in self.infos[j].site.launch.walk())

    def _host_between(self, i: int, j: int) -> bool:
        """Is there a host statement between launches i and j that launch j's work may not
        move before: one that writes a variable launch j names, or a runtime call that
        touches memory (a sequence continues across those only for the launches before
        them, hoststmts.py)?"""
        host = self.infos[i].site.host
        assert host.body is not None
        lo, hi = self.infos[i].site.stmt.span.end, self.infos[j].site.stmt.span.start
        names = {r.decl for r in self.infos[j].site.launch.walk() if isinstance(r, n.Ref)}
        for node in host.body.walk():
            if not lo <= node.span.start < hi:
                continue
            if isinstance(node, n.Call) and node.callee in MEMORY_CALLS:
                return True
            target = root_variable(write_target(node))
            if target is not None and target.decl in names:
                return True
        return False

    def shared_point_inputs(self, a: LaunchInfo, b: LaunchInfo) -> tuple[str, ...]:
        """Buffers both read at their own element only: one read serves both bodies."""
        out = []
        for key in sorted(set(a.reads) & set(b.reads)):
            loads = [info.facts.load(info.reads[key]) for info in (a, b)]
            if all(ld is not None and ld.kind == "point" and
                   all(lo == hi == 0 for lo, hi in ld.extent) for ld in loads):
                out.append(key)
        return tuple(out)

    def private_proof(self, a: LaunchInfo, b: LaunchInfo,
                      shared: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]
                      ) -> tuple[str, ...] | str:
        """The run-time conditions (C text) under which one thread may run a's body and then
        b's, each thread touching only its own elements of the buffers they share
        (kernel/thread_private.py); or why not."""
        sides, texts = [], {}
        for info in (a, b):
            if not _thread_dims(info):
                return f"'{info.site.kernel.name}' has no thread coordinates"
            why = self._one_thread_per_coordinate(info)
            if why:
                return why
            params: dict[str, Poly] = {}
            for p, arg in info.site.bindings:
                if p.is_pointer:
                    continue
                value = self.resolver.linear(arg) if self.resolver is not None else None
                if value is not None and not value[0]:
                    params[p.name] = Poly.const(value[1])
                    continue
                key = param_key(p, arg)
                try:
                    text = to_c(arg)
                except Unprintable:
                    continue
                if key is None or not side_effect_free(arg):
                    continue
                params[p.name] = host_atom(key)
                texts[key] = text
            sides.append(KernelSide(info.site.kernel, info.facts.accesses,
                                    _thread_dims(info), params))
        proof = prove(self.unit, (sides[0], sides[1]), shared)
        if isinstance(proof, str):
            for key, text in texts.items():  # host values by their spelling
                proof = proof.replace(key, text)
            return proof
        return tuple(check_text(c, texts) for c in proof.checks)

    def _one_thread_per_coordinate(self, info: LaunchInfo) -> str:
        """Why two threads of the launch may share coordinates: a grid or block dimension
        its kernel does not read, not shown to be 1 ('' when none)."""
        assert self.resolver is not None
        host = info.site.host
        for k, dim in enumerate("xyz"):
            if dim in _thread_dims(info):
                continue
            for what, e in (("grid", info.site.launch.grid), ("block", info.site.launch.block)):
                comps = self.resolver.dim3(e) or _declared_dim3(host, e)
                lin = self.resolver.linear(comps[k]) if comps is not None else None
                if lin is None or lin[0] or lin[1] != 1 or \
                        _assigns_member(host, e, dim):
                    return (f"the {what} of '{info.site.kernel.name}' may have more than one "
                            f"thread along {dim}, which its kernel does not read (threads "
                            "sharing coordinates would share elements)")
        return ""

    # ---- cost ---------------------------------------------------------------------------

    def work(self, i: int) -> float:
        k = self.costs[i]
        return k.n_alu * self.arch.c_alu + k.n_sfu * self.arch.c_sfu

    def registers(self, i: int) -> float:
        k = self.costs[i]
        # A read at run-time loop indices carries the vertical planner's recomputation window
        # (driver.py: how often a producer fused into it would be evaluated), not loads of the
        # kernel's own: run as it is, beside a sibling, it holds one value per such read.
        loads = sum(1 if b in k.gathers and o != GATHER_WINDOW else len(o)
                    for b, o in k.reads.items())
        return 16 + 2 * loads + k.n_alu / 8

    def thread_benefit(self, i: int, j: int, shared: tuple[str, ...],
                       serial: bool = False) -> float:
        # A dependent pair runs one body after the other: the first body's values are dead
        # when the second starts, so the thread holds the larger of the two, not the sum.
        regs = max(self.registers(i), self.registers(j)) if serial else \
            self.registers(i) + self.registers(j) - 2 * len(shared)
        penalty = max(0.0, regs / REG_FREE - 1) * (self.work(i) + self.work(j))
        per_element = len(shared) * self.arch.t_global - penalty
        return self.arch.launch + per_element * self.size

    def block_pays(self, a: LaunchInfo, b: LaunchInfo) -> tuple[bool, str]:
        sms = SMS.get(self.arch.name, 108)
        blocks = []
        for info in (a, b):
            g = self.constant_dim3(info.site.launch.grid)
            if g is None:
                return False, (f"the grid of '{info.site.kernel.name}' is not a compile-time "
                               "constant, so launch overhead is not known to dominate")
            blocks.append(g[0] * g[1] * g[2])
        if sum(blocks) > sms:
            return False, (f"their grids ({blocks[0]} + {blocks[1]} blocks) exceed one wave "
                           f"({sms} blocks on {self.arch.name}): launch overhead does not "
                           "dominate")
        return True, f"{blocks[0]} + {blocks[1]} blocks fit one wave of {sms}"

    # ---- pairing ------------------------------------------------------------------------

    def extend(self, members: list[int], k: int) -> tuple[tuple[str, ...], tuple[str, ...]] | str:
        """Whether launch k may join a chain of launches one thread runs in order (the first
        two a dependent pair fused at the second's place): (the buffers it shares with them,
        the run-time conditions), or why not. Each member's work moves to k's place, so no
        launch between a member and k may depend on it."""
        c = self.infos[k]
        why = kernel_reason(self.unit, c)
        if why:
            return why
        shared_all: set[str] = set()
        checks: list[str] = []
        for m in members:
            a = self.infos[m]
            if stream_key(a.site) != stream_key(c.site):
                return "their launches use different streams"
            why = self.thread_form_reason(a, c)
            if why:
                return why
            for x in range(m + 1, k):
                if x not in members and conflict(a, self.infos[x]):
                    return (f"the launch of '{self.infos[x].site.kernel.name}' between them "
                            f"depends on '{a.site.kernel.name}'")
            if conflict(a, c):
                shared = shared_written(a, c)
                proof = self.private_proof(a, c, shared)
                if isinstance(proof, str):
                    return f"'{a.site.kernel.name}' then '{c.site.kernel.name}': {proof}"
                shared_all |= set(shared)
                checks += [x for x in proof if x not in checks]
        if self._host_between(members[-1], k) or self._declared_between(members[0], k):
            return "a host statement between them may change what the launches use"
        return tuple(sorted(shared_all)), tuple(checks)

    def pair(self, i: int, j: int) -> tuple[SiblingPair | None, str, float | None]:
        """The pair (i, j) fused, or why not and its benefit if it were fused."""
        a, b = self.infos[i], self.infos[j]
        why = conflict(a, b)
        serial: tuple[str, ...] = ()
        checks: tuple[str, ...] = ()
        if why:
            # A dependent pair may still run in one thread when every thread touches only
            # its own elements of what they share (the thread form's conditions first).
            if self.thread_form_reason(a, b) is not None:
                return None, f"not siblings: {why}", None
            shared = shared_written(a, b)
            proof = self.private_proof(a, b, shared)
            if proof == ONE_ELEMENT:
                return None, f"not siblings: {why}", None
            if isinstance(proof, str):
                return None, f"not siblings: {why}; nor one thread's: {proof}", None
            serial, checks = tuple(sorted(shared)), proof
        for info in (a, b):
            r = kernel_reason(self.unit, info)
            if r:
                return None, f"not fused: {r}", None
        if stream_key(a.site) != stream_key(b.site):
            return None, "not fused: their launches use different streams", None
        at_second, why = self.between_reason(i, j)
        if why:
            return None, f"not fused: {why}", None
        thread_why = self.thread_form_reason(a, b)
        if serial and thread_why is not None:
            return None, (f"not fused: one thread would run '{a.site.kernel.name}' then "
                          f"'{b.site.kernel.name}', but {thread_why}"), None
        if thread_why is None:
            shared = () if serial else self.shared_point_inputs(a, b)
            benefit = self.thread_benefit(i, j, shared, bool(serial))
            if self.mode == "always" or self.fuse_all or benefit > 0:
                return SiblingPair(a, b, "thread", at_second, benefit, shared,
                                   serial=serial, checks=checks), "", benefit
            return None, (f"not fused: not profitable (estimated benefit {benefit:.3g} "
                          "cycles: the estimated occupancy cost outweighs the launch saved)"
                          ), benefit
        if self.constant_dim3(a.site.launch.block) is None or \
                self.constant_dim3(b.site.launch.block) is None:
            return None, (f"not fused: {thread_why}, and a block split needs both blocks as "
                          "compile-time constants"), None
        pays, how = self.block_pays(a, b)
        benefit = self.arch.launch
        if pays or self.mode == "always" or self.fuse_all:
            return SiblingPair(a, b, "block", at_second, benefit), how, benefit
        return None, f"not fused: {thread_why}, and for a block split {how}", benefit
