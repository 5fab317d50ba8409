"""What the compiler makes of a fused group: registers, spills and shared memory (ptxas),
the theoretical occupancy they allow at the launch block, and what the cost model charges
for losing occupancy or spilling (priced by charge.py).

Figures come from ptxas on the emitted file (analysis.ptxas: `nvcc -cubin
--resource-usage`, cached by content) for the fused kernels and the kernels they replace
alike; where nvcc is absent or fails (or CUDAFUSE_NO_PTXAS=1, which the test suite sets),
from an estimate, and every figure says which. The estimate is coarse (see
`estimate_registers`); docs/benchmarks.md compares it with ptxas on the samples.

What the search charges a candidate group before anything is emitted (estimated registers,
the occupancy price) is charge.py's; this module reports what the compiler made of the
emitted groups and feeds ptxas's figures back to that charge (`annotate`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cudafuse.analysis.memo import per_object
from cudafuse.analysis.occupancy import DeviceLimits, occupancy
from cudafuse.passes.vertical.plan.arch import arch_params
from cudafuse.passes.vertical.plan.charge import (
    _BLOCKS,
    _BOUNDS,
    _CAPS,
    _MEASURED,
    DEFAULT_THREADS,
    bounds_text,
    estimate_registers,
    estimated_charge,
    fused_cycles,
    limits_for,
    limits_note,
    occupancy_charge,
)

if TYPE_CHECKING:
    from cudafuse.frontend import ParseOptions
    from cudafuse.passes.vertical.result import FuseResult, GroupNote, SequencePlan

ENV_SKIP = "CUDAFUSE_NO_PTXAS"
REPLANS = 4  # plans again with ptxas figures, at most (one pass and one cached compile each)


@dataclass(frozen=True)
class KernelFigures:
    name: str
    registers: int
    spill_bytes: int  # spill stores + loads, bytes per thread
    shared_bytes: int  # static, per block
    threads: int  # per block, at the launch (DEFAULT_THREADS when not a constant)
    occupancy: float  # theoretical, at `threads`; 0 when a block does not fit
    source: str  # "ptxas", or "estimate (why)"

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "registers": self.registers, "spill_bytes": self.spill_bytes,
                "shared_bytes": self.shared_bytes, "threads": self.threads,
                "occupancy": round(self.occupancy, 4), "source": self.source}

    def short(self) -> str:
        spills = f", {self.spill_bytes} B spilled" if self.spill_bytes else ""
        shared = f", {self.shared_bytes} B shared" if self.shared_bytes else ""
        return f"{self.registers} regs{spills}{shared}, occupancy {self.occupancy:.2f}"


@dataclass(frozen=True)
class GroupResources:
    fused: KernelFigures
    members: tuple[KernelFigures, ...]
    redundant_work: float | None  # operations fused / original (traffic.Traffic)
    dram_bytes: tuple[int | None, int | None]  # per element: the members', the fused kernel's
    benefit: float  # the cost model's estimate, cycles (before the charge below)
    charge: float  # cycles the model charges for lost occupancy and spills
    note: str  # what the figures mean for the choice
    # __maxnreg__ caps weighed for a group that loses occupancy: (cap, spill bytes ptxas
    # needs to meet it, occupancy at the cap), each one compile of the capped kernel.
    caps: tuple[tuple[int, int, float], ...] = ()
    # The cap emitted on the fused kernel (`fused` is then ptxas's figures of the capped
    # kernel) and the figures of the same kernel without it.
    cap: int | None = None
    uncapped: KernelFigures | None = None
    # The model's time of the fused kernel (cycles), which the occupancy charge scales.
    cycles: float = 0.0
    # Blocks weighed for a group that loses occupancy and keeps it after any cap
    # (weigh_blocks): (x, y, occupancy, model charge) at the same registers; the block the
    # plan launched it with (None: its last kernel's) and the figures at that kernel's block.
    blocks: tuple[tuple[int, int, float, float], ...] = ()
    block: tuple[int, int] | None = None
    unblocked: KernelFigures | None = None
    # Launch bounds (threads, min blocks per SM or 0) written in place of `cap`, where
    # ptxas gives the kernel under them the cap's occupancy without spills (weigh_bounds).
    bounds: tuple[int, int] | None = None
    bounds_said: str = ""  # what ptxas made of the kernel under them (weigh_bounds)

    @property
    def net(self) -> float:
        return self.benefit - self.charge

    @property
    def loses_occupancy(self) -> bool:
        return self.fused.occupancy + 1e-9 < min(m.occupancy for m in self.members)

    def as_dict(self) -> dict[str, Any]:
        return {"fused": self.fused.as_dict(), "members": [m.as_dict() for m in self.members],
                "redundant_work": self.redundant_work,
                "dram_bytes_per_element": {"members": self.dram_bytes[0],
                                           "fused": self.dram_bytes[1]},
                "estimated_benefit": self.benefit, "resource_charge": self.charge,
                "net_benefit": self.net, "note": self.note,
                "register_caps": [{"cap": c, "spill_bytes": sp, "occupancy": round(o, 4)}
                                  for c, sp, o in self.caps],
                "register_cap": self.cap,
                "launch_bounds": ({"threads": self.bounds[0],
                                   "min_blocks": self.bounds[1] or None}
                                  if self.bounds else None),
                "uncapped": self.uncapped.as_dict() if self.uncapped else None,
                "blocks_weighed": [{"block": [x, y], "occupancy": round(o, 4),
                                    "charge": c} for x, y, o, c in self.blocks],
                "chosen_block": list(self.block) if self.block else None,
                "at_original_block": self.unblocked.as_dict() if self.unblocked else None}


def _figures(name: str, regs: int, spills: int, shared: int, block: tuple[int, int] | None,
             limits: DeviceLimits, source: str) -> KernelFigures:
    threads = block[0] * block[1] if block else DEFAULT_THREADS
    occ = occupancy(limits, threads, regs, shared)
    return KernelFigures(name, regs, spills, shared, threads, occ.fraction, source)


def group_resources(plan: SequencePlan, note: GroupNote, arch_name: str,
                    ptxas: dict[str, Any] | str) -> GroupResources:
    """The figures of one fused group. `ptxas`: analysis.ptxas's figures for the emitted
    file (fused kernels and originals), or why there are none."""
    from cudafuse.analysis.ptxas import lookup

    model = plan.model
    assert model is not None
    arch = arch_params(arch_name)
    limits = limits_for(arch_name)
    members = sorted(_positions(plan, note))
    sink_block = note.launch_block or model.kernels[members[-1]].block
    why = ptxas if isinstance(ptxas, str) else ""
    found = ptxas if isinstance(ptxas, dict) else {}
    mine = []
    for i in members:
        k = model.kernels[i]
        got = lookup(found, k.name)
        if got is not None:
            mine.append(_figures(k.name, got.registers, got.spill_stores + got.spill_loads,
                                 got.static_shared, k.block, limits, "ptxas"))
        else:
            mine.append(_figures(k.name, estimate_registers(model, [i]), 0, k.shared_bytes,
                                 k.block, limits, f"estimate ({why or 'not in ptxas output'})"))
    got = found.get(note.name)
    if got is not None:
        fused = _figures(note.name, got.registers, got.spill_stores + got.spill_loads,
                         got.static_shared, sink_block, limits, "ptxas")
    else:
        # (with the tiles the emitter staged: ptxas counts them in the figures above)
        shared = sum(model.kernels[i].shared_bytes for i in members) + note.tile_bytes
        fused = _figures(note.name, estimate_registers(model, members), 0, shared, sink_block,
                         limits, f"estimate ({why or 'not in ptxas output'})")
    traffic = note.traffic
    size = max(model.kernels[i].size for i in members)
    dram = (traffic.original, traffic.fused) if traffic is not None else (None, None)
    work = traffic.work_fused if traffic is not None else float(
        sum(model.kernels[i].n_alu + model.kernels[i].n_sfu for i in members))
    time = fused_cycles(size, dram[1], work, arch)
    members_occ = min(m.occupancy for m in mine)
    charge = occupancy_charge(time, fused.occupancy, members_occ, arch)
    charge += size * fused.spill_bytes / 4 * arch.spill_access
    res = GroupResources(fused, tuple(mine),
                         traffic.redundant_work if traffic is not None else None, dram,
                         note.benefit, charge, "", cycles=time)
    res = with_note(res, plan.unit_short)
    other = limits_note(arch_name)
    return replace(res, note=f"{res.note}; {other}") if other else res


def _positions(plan: SequencePlan, note: GroupNote) -> list[int]:
    where = _where(plan.launch_indices)
    return [where[li] for li in note.launches]


@per_object(size=8)
def _where(launch_indices: list[int]) -> dict[int, int]:
    """A plan's position of each launch index (a plan's list is made once, as it is
    planned): once per plan, not once per group (groups x launches on a long chain)."""
    return {li: i for i, li in enumerate(launch_indices)}


def with_note(res: GroupResources, unit: str) -> GroupResources:
    worse = []
    if res.fused.spill_bytes:
        worse.append(f"spills {res.fused.spill_bytes} bytes")
    if res.loses_occupancy:
        worse.append(f"lowers occupancy to {res.fused.occupancy:.2f} from its members' "
                     f"{min(m.occupancy for m in res.members):.2f}")
    if not worse:
        text = "no spills, occupancy kept"
    elif unit != "cycles":  # --fuse-all: the partition did not ask the cost model
        text = (f"{' and '.join(worse)}; --fuse-all fused it without the cost model, which "
                f"would charge {res.charge:.4g} cycles for it")
    elif res.net > 0:
        text = (f"{' and '.join(worse)}; the model says it still wins: benefit "
                f"{res.benefit:.4g} - charge {res.charge:.4g} = {res.net:.4g} cycles")
    else:
        text = (f"{' and '.join(worse)}; the model says it loses: benefit {res.benefit:.4g} "
                f"- charge {res.charge:.4g} = {res.net:.4g} cycles")
    biggest = max(m.registers for m in res.members)
    if res.fused.registers > 2 * biggest:
        text += (f"; {res.fused.registers} registers, more than twice its members' largest "
                 f"({biggest})")
    return replace(res, note=text)


def compile_flags(source_path: str, options: ParseOptions | None) -> tuple[str, ...]:
    flags = ["-std=c++17", f"-I{Path(source_path).resolve().parent}"]
    if options is not None:
        flags += [f"-I{Path(d).resolve()}" for d in options.include_dirs]
        flags += [f"-D{d}" for d in options.defines]
        for f in options.forced_includes:
            flags += ["-include", str(Path(f).resolve())]
    return tuple(flags)


def annotate(result: FuseResult, source_path: str, arch: str,
             options: ParseOptions | None = None,
             rerun: Callable[[], FuseResult] | None = None) -> FuseResult:
    """Set `resources` on every fused group of `result` (ptxas on the emitted file, one
    cached compile, else estimates that say why) and return it. With `rerun` (the pass
    again, same options):
    - a group that loses occupancy and has a `__maxnreg__` cap that ptxas meets without
      spills and that raises its occupancy (weigh_caps) is emitted again with that cap;
    - else, one whose launch block the model prices dearer than another's, or which another
      raises by BLOCK_GAIN at no more charge (weigh_blocks), is emitted again with that
      block where the driver proves the block free (as for --block);
    - when ptxas's figures make a group chosen by the cost model lose under it (its charge
      for lost occupancy and spills at least its benefit, after any cap or block), or charge
      it more than the search did from estimated registers (UNDERPRICED), plan again with
      those figures (the search then weighs smaller groups and other partitions at the
      price ptxas gives);
    at most REPLANS reruns in all; the new result carries a note per group given up."""
    given_up: list[str] = []
    measured = dict(_MEASURED.get() or {})
    caps = dict(_CAPS.get() or {})
    bounds = dict(_BOUNDS.get() or {})
    blocks = dict(_BLOCKS.get() or {})
    before: dict[tuple[str, tuple[str, ...]], GroupResources] = {}
    replanned: set[tuple[str, ...]] = set()
    for attempt in range(REPLANS + 1):
        losers, wanted, moved = _annotate_once(result, source_path, arch, options, caps,
                                               before, blocks, bounds)
        wanted = {k: c for k, c in wanted.items() if k not in caps}
        moved = {k: b for k, b in moved.items() if k not in blocks}
        last = rerun is None or attempt == REPLANS
        if (wanted or moved) and not last:
            caps.update(wanted)  # the same plan, its kernels capped or reblocked: again
            bounds.update({k: held for k in wanted
                           if (held := before[k].bounds) is not None})
            blocks.update(moved)
        else:
            fresh = {tuple(g.kernels) for _, g, _ in losers} - replanned
            if not fresh or last:
                break  # (a group planned with its own figures and kept again stays)
            for _, note in [(p, g) for p in result.plans for g in p.groups]:
                res = note.resources
                if res is not None and res.fused.source == "ptxas":
                    # without its cap: planned again, the group may be named otherwise
                    # and emitted uncapped (register_cap matches the name too)
                    own = res.uncapped or res.fused
                    measured[tuple(note.kernels)] = (own.registers, own.spill_bytes)
                    measured.update({(m.name,): (m.registers, m.spill_bytes)
                                     for m in res.members})
            for plan, note, why in losers:
                assert note.resources is not None
                given_up.append(f"{plan.host}: group {', '.join(note.kernels)} planned "
                                f"again: ptxas gives its fused kernel "
                                f"{note.resources.fused.short()}, and {why}")
            replanned |= fresh
        assert rerun is not None
        tokens = (_MEASURED.set(measured), _CAPS.set(caps), _BLOCKS.set(blocks))
        held = _BOUNDS.set(bounds)
        try:
            result = rerun()
        finally:
            _BOUNDS.reset(held)
            _BLOCKS.reset(tokens[2])
            _CAPS.reset(tokens[1])
            _MEASURED.reset(tokens[0])
    result.notes.extend(given_up)
    return result


Key = tuple[str, tuple[str, ...]]


def _annotate_once(result: FuseResult, source_path: str, arch: str,
                   options: ParseOptions | None,
                   caps: dict[Key, int] | None = None,
                   before: dict[Key, GroupResources] | None = None,
                   blocks: dict[Key, tuple[int, int]] | None = None,
                   bounds: dict[Key, tuple[int, int]] | None = None,
                   ) -> tuple[list[tuple[SequencePlan, GroupNote, str]], dict[Key, int],
                              dict[Key, tuple[int, int]]]:
    """Figures for every group; the groups the cost model chose that they make lose or
    that the search priced below them (with what the figures say of each), the
    caps worth emitting (weigh_caps, by fused kernel and members) and the blocks worth
    launching with (weigh_blocks, by host and members). `caps`, `blocks`, `bounds` (launch
    bounds written in place of a cap): what this output was emitted with; `before`: the
    figures of those groups before (kept across calls)."""
    caps = {} if caps is None else caps
    before = {} if before is None else before
    blocks = {} if blocks is None else blocks
    bounds = {} if bounds is None else bounds
    notes = [(p, g) for p in result.plans for g in p.groups]
    if not notes:
        return [], {}, {}
    ptxas: dict[str, Any] | str
    if os.environ.get(ENV_SKIP):
        ptxas = f"{ENV_SKIP} is set"
    else:
        from cudafuse.analysis.ptxas import compile_figures

        ptxas = compile_figures(result.output, arch, compile_flags(source_path, options),
                                Path(source_path).name)
    losers = []
    wanted = {}
    moved = {}
    for plan, note in notes:
        key = (note.name, tuple(note.kernels))
        where = (plan.host, tuple(note.kernels))
        note.resources = group_resources(plan, note, arch, ptxas)
        measured = note.resources.fused.source == "ptxas"
        cap = caps.get(key)
        limit = bounds_text(*bounds[key]) if key in bounds else f"__maxnreg__({cap})"
        emitted = cap is not None and f"{limit} {note.name}(".encode() in result.output
        if emitted and key in before and measured:
            assert cap is not None
            note.resources = capped_note(note.resources, cap, before[key])
        elif where in blocks and where in before and measured:
            note.resources = blocked_note(note.resources, blocks[where], note.launch_block,
                                          before[where], result.notes, plan.host)
        elif isinstance(ptxas, dict) and measured and note.resources.loses_occupancy:
            note.resources = weigh_caps(note.resources, result.output, arch,
                                        compile_flags(source_path, options),
                                        Path(source_path).name)
            best = best_cap(note.resources)
            if best is not None:
                wanted[key] = best
                # Launch bounds in its place where they hold the same occupancy: only at a
                # constant launch block (a launch of more threads than the bounds fails).
                own_block = plan.model.kernels[_positions(plan, note)[-1]].block \
                    if plan.model is not None and note.launch_block is None else None
                before[key] = weigh_bounds(note.resources, best, result.output, arch,
                                           compile_flags(source_path, options),
                                           Path(source_path).name, own_block)
            elif note.launch_block is None and not note.tile_bytes:
                # (--block is the user's choice; staged tiles are sized for the block)
                original = plan.model.kernels[_positions(plan, note)[-1]].block \
                    if plan.model is not None else None
                note.resources = weigh_blocks(note.resources, arch, original)
                if note.resources.block is not None:
                    moved[where] = note.resources.block
                    before[where] = note.resources
        if plan.unit_short != "cycles" or not measured or key in wanted or where in moved:
            continue
        if note.resources.net <= 0:
            losers.append((plan, note, note.resources.note.split("; ", 1)[-1]))
            continue
        assumed = search_charge(plan, note, arch)
        if note.resources.charge > UNDERPRICED * assumed + 1.0:
            # It still wins, but the search compared it with other partitions at a charge
            # below ptxas's: it plans again knowing the figures (and may keep the group).
            losers.append((plan, note, f"the model charges {note.resources.charge:.4g} "
                                       f"cycles for it where the search, from estimated "
                                       f"registers, charged {assumed:.4g}"))
    return losers, wanted, moved


UNDERPRICED = 1.1  # ptxas's charge above the search's by this factor: plan again


def search_charge(plan: SequencePlan, note: GroupNote, arch: str) -> float:
    """What the partition search charged the group for occupancy and spills (charge.py:
    estimated registers, or ptxas's where this run compiled it before)."""
    from cudafuse.passes.vertical.plan.costmodel import group_cost

    model = plan.model
    assert model is not None
    group = frozenset(_positions(plan, note))
    params = arch_params(arch)
    return estimated_charge(model, group, group_cost(model, group, params).footprints, params)


MAX_CAPS = 4  # caps compiled per group, at most (one cached compile each)


def cap_ladder(limits: DeviceLimits, threads: int, shared: int, registers: int,
               target: float) -> list[int]:
    """Caps worth trying on a kernel of `registers` that reaches less than `target`
    occupancy: for each occupancy level between, the largest register count (a multiple
    of 8, as registers are allocated) that reaches it; most registers first, MAX_CAPS at
    most. A cap just under the kernel's needs costs ptxas least, so it comes first."""
    reached = occupancy(limits, threads, registers, shared).fraction
    ladder = []
    for regs in range(min(registers - 1, 255) // 8 * 8, 15, -8):
        frac = occupancy(limits, threads, regs, shared).fraction
        if frac > reached + 1e-9:
            ladder.append(regs)
            reached = frac
            if frac + 1e-9 >= target or len(ladder) == MAX_CAPS:
                break
    return ladder


def best_cap(res: GroupResources) -> int | None:
    """The cap to emit: of those ptxas met without spills, the one of highest occupancy
    (above the uncapped kernel's). The model then charges less and nothing more: it does
    not price the instructions a tighter allocation may add (no measurement says what).
    A kernel whose block does not fit at all (occupancy 0: the launch would fail with too
    many resources requested) takes the largest cap that fits, spills or not."""
    if res.fused.occupancy <= 0:
        return max((cap for cap, _, occ in res.caps if occ > 0), default=None)
    fine = [(occ, cap) for cap, spills, occ in res.caps
            if spills == 0 and occ > res.fused.occupancy + 1e-9]
    return max(fine)[1] if fine else None


def weigh_caps(res: GroupResources, output: bytes, arch: str, flags: tuple[str, ...],
               name: str) -> GroupResources:
    """A group that loses occupancy: which `__maxnreg__` caps raising it towards its
    members' occupancy does ptxas meet without spills? The caps of `cap_ladder`, each one
    compile of the output with the cap on the fused kernel (cached by content), stopping at
    the first that spills (a lower cap would spill more). The note says what ptxas needed;
    `best_cap` picks the one `annotate` emits."""
    from cudafuse.analysis.ptxas import compile_figures

    limits = limits_for(arch)
    fused = res.fused
    head = f"__global__ void {fused.name}(".encode()
    if output.count(head) != 1:  # already bounded (__launch_bounds__): nvcc takes one only
        return res
    target = min(m.occupancy for m in res.members)
    tried = []
    for cap in cap_ladder(limits, fused.threads, fused.shared_bytes, fused.registers, target):
        text = output.replace(head, f"__global__ void __maxnreg__({cap}) {fused.name}(".encode())
        got = compile_figures(text, arch, flags, name)
        figures = got.get(fused.name) if isinstance(got, dict) else None
        if figures is None:
            continue
        spills = figures.spill_stores + figures.spill_loads
        occ = occupancy(limits, fused.threads, figures.registers,
                        figures.static_shared).fraction
        tried.append((cap, spills, occ))
        if spills:
            break
    if not tried:
        return res
    said = "; ".join(f"a __maxnreg__({c}) cap (occupancy {o:.2f}): "
                     + (f"ptxas spills {sp} bytes to meet it" if sp else
                        "ptxas meets it without spills") for c, sp, o in tried)
    return replace(res, note=f"{res.note}; {said}", caps=tuple(tried))


def weigh_bounds(res: GroupResources, cap: int, output: bytes, arch: str,
                 flags: tuple[str, ...], name: str,
                 block: tuple[int, int] | None) -> GroupResources:
    """The cap `cap` chosen for a fused kernel launched at the constant `block`: does
    `__launch_bounds__(threads)` hold it as well? ptxas compiles the kernel under them; if
    it takes no more registers than the cap, spills no more and reaches at least the cap's
    occupancy, the bounds are emitted in its place (`bounds`). The same occupancy, other
    code: on shitomasi (checkout 1a33236) the H200 timed the launch bounds' code 5% faster
    than the cap's at the same 32 registers (docs/cost-model.md). The bounds with a
    minimum of blocks per SM are not tried: ptxas derives the cap from them, and on harris
    `__launch_bounds__(256, 8)` compiles to `__maxnreg__(32)`'s machine code. Without a
    constant block nothing is tried: bounds below a launch's threads make it fail."""
    from cudafuse.analysis.ptxas import compile_figures

    fused = res.fused
    head = f"__global__ void {fused.name}(".encode()
    at_cap = next(((spills, occ) for c, spills, occ in res.caps if c == cap), None)
    if block is None or at_cap is None or output.count(head) != 1:
        return res
    limits = limits_for(arch)
    threads = block[0] * block[1]
    attribute = bounds_text(threads, 0)
    text = output.replace(head, f"__global__ void {attribute} {fused.name}(".encode())
    got = compile_figures(text, arch, flags, name)
    figures = got.get(fused.name) if isinstance(got, dict) else None
    if figures is None:
        return res
    spills = figures.spill_stores + figures.spill_loads
    occ = occupancy(limits, threads, figures.registers, figures.static_shared).fraction
    said = (f"{attribute}: {figures.registers} registers, "
            + (f"{spills} bytes spilled" if spills else "no spills") + f", occupancy {occ:.2f}")
    if figures.registers <= cap and spills <= at_cap[0] and occ >= at_cap[1] - 1e-9:
        return replace(res, bounds=(threads, 0), bounds_said=said,
                       note=f"{res.note}; in place of __maxnreg__({cap}), {said}")
    said += f", which does not hold __maxnreg__({cap})'s occupancy"
    return replace(res, bounds_said=said, note=f"{res.note}; {said}: the cap is emitted")


# Other blocks weighed for a fused kernel that loses occupancy: a warp wide (coalesced rows
# stay whole), 64 to 1,024 threads.
BLOCK_SHAPES = ((32, 2), (32, 4), (32, 8), (32, 16), (32, 32))
BLOCK_GAIN = 0.125  # occupancy a block must add at no more charge to be chosen (a warp in 8)


def weigh_blocks(res: GroupResources, arch: str,
                 original: tuple[int, int] | None) -> GroupResources:
    """Other launch blocks for a fused kernel that loses occupancy at `original` (its last
    kernel's block), at the same registers and shared memory (occupancy arithmetic, no
    compile), each priced by the model's occupancy charge. The block chosen (`block`) is
    the one the model charges least; among equal charges (at or above the occupancy knee
    the model charges nothing), the highest occupancy, then the thread count nearest the
    original's. It is chosen only when it is charged less than the original block, or
    raises occupancy by BLOCK_GAIN at the same charge; annotate then runs the pass again
    with it, and the driver applies it only where it proves the group's meaning does not
    depend on the block (as for --block)."""
    if original is None:
        return res  # a block that is not a constant: nothing to compare with
    limits = limits_for(arch)
    params = arch_params(arch)
    fused = res.fused
    members_occ = min(m.occupancy for m in res.members)

    def priced(x: int, y: int) -> tuple[int, int, float, float]:
        occ = occupancy(limits, x * y, fused.registers, fused.shared_bytes).fraction
        charge = occupancy_charge(res.cycles, occ, members_occ, params) + \
            res.charge - occupancy_charge(res.cycles, fused.occupancy, members_occ, params)
        return x, y, occ, charge

    here = original[0] * original[1]
    shapes = [priced(x, y) for x, y in BLOCK_SHAPES if (x, y) != original]
    if not shapes:
        return res
    now = priced(*original)
    best = min(shapes, key=lambda b: (b[3], -b[2], abs((b[0] * b[1]).bit_length() -
                                                       here.bit_length())))
    better = best[3] < now[3] - 1e-9 or (
        best[3] <= now[3] + 1e-9 and best[2] >= now[2] + BLOCK_GAIN - 1e-9)
    said = ", ".join(f"{x}x{y}: occupancy {o:.2f}, charge {c:.4g}"
                     for x, y, o, c in [now, *shapes])
    if not better:
        return replace(res, blocks=(now, *shapes),
                       note=f"{res.note}; no other block does better at the same registers "
                            f"({said})")
    x, y = best[0], best[1]
    return replace(res, blocks=(now, *shapes), block=(x, y),
                   note=f"{res.note}; a {x}x{y} block gives occupancy {best[2]:.2f} at the "
                        f"same registers, model charge {best[3]:.4g} cycles ({said})")


def blocked_note(res: GroupResources, asked: tuple[int, int],
                 applied: tuple[int, int] | None, before: GroupResources,
                 notes: list[str], host: str) -> GroupResources:
    """The figures of a fused kernel the plan asked to launch at `asked` (weigh_blocks),
    next to `before`'s (at its last kernel's block): applied, or why the driver kept the
    block (its note on the group)."""
    weighed = before.blocks
    if applied != asked:
        said = f"{host}: the group ending in '{res.members[-1].name}' keeps its launch's block: "
        why = next((n.removeprefix(said) for n in notes if n.startswith(said)),
                   "see the notes")
        return replace(res, blocks=weighed,
                       note=f"{res.note}; a {asked[0]}x{asked[1]} block would give occupancy "
                            f"{next(o for x, y, o, _ in weighed if (x, y) == asked):.2f} "
                            f"(not applied: {why})")
    b = before.fused
    said = (f"launched with a {asked[0]}x{asked[1]} block chosen by the plan: occupancy "
            f"{b.occupancy:.2f} at {b.threads} threads -> {res.fused.occupancy:.2f} at "
            f"{res.fused.threads} (without it: {b.short()}; model charge {before.charge:.4g} "
            f"-> {res.charge:.4g} cycles; weighed at {b.registers} registers: "
            + ", ".join(f"{x}x{y} {o:.2f}" for x, y, o, _ in weighed) + ")")
    return replace(res, blocks=weighed, block=asked, unblocked=b,
                   note=f"{res.note}; {said}")


def capped_note(res: GroupResources, cap: int, before: GroupResources) -> GroupResources:
    """The figures of a fused kernel emitted with `__maxnreg__(cap)`, next to `before`'s
    (the same kernel without it), and what ptxas said of the other caps."""
    others = "; ".join(f"__maxnreg__({c}): {f'{sp} bytes spilled' if sp else 'no spills'}, "
                       f"occupancy {o:.2f}" for c, sp, o in before.caps if c != cap)
    limit = f"__maxnreg__({cap})" if before.bounds is None else \
        f"{bounds_text(*before.bounds)} in place of __maxnreg__({cap})"
    said = (f"emitted with {limit}: ptxas meets it with "
            + (f"{res.fused.spill_bytes} bytes spilled" if res.fused.spill_bytes else
               "no spills")
            + f", occupancy {before.fused.occupancy:.2f} -> {res.fused.occupancy:.2f}"
            + (" (a block did not fit: the launch would have failed)"
               if before.fused.occupancy <= 0 else "") + " "
            f"(without the cap: {before.fused.short()}; model charge {before.charge:.4g} "
            f"-> {res.charge:.4g} cycles)" + (f"; also weighed: {others}" if others else "")
            + (f"; {before.bounds_said}" if before.bounds_said else ""))
    return replace(res, note=f"{res.note}; {said}", caps=before.caps, cap=cap,
                   uncapped=before.fused, bounds=before.bounds, bounds_said=before.bounds_said)
