"""What the partition search charges a candidate group for the occupancy it may lose and
the registers it may spill, before anything is emitted: registers estimated from the
kernels' loads (or ptxas's figures of a group this run already compiled, which
resources.annotate records here), occupancy at the launch block, and the model's price of
running below `occupancy_knee`. Split from resources.py (the figures after emission) so that
the search depends on nothing the pass reports.

The charge is the model's, not a measurement: a memory-bound kernel is taken to need
`occupancy_knee` of the SM's warps to hide DRAM latency; below that its time grows as
knee / occupancy. The fused kernel's time is priced as its DRAM traffic plus its arithmetic
(each member counted once per evaluation), and it pays only for the occupancy its members
did not already lack. Spills cost one local-memory access per spilled word per element.
"""

from __future__ import annotations

import functools
import operator
from contextvars import ContextVar

from cudafuse.analysis.occupancy import DeviceLimits, occupancy
from cudafuse.passes.vertical.plan.arch import ArchParams, arch_params
from cudafuse.passes.vertical.plan.costmodel import alone as figures_alone
from cudafuse.passes.vertical.plan.costmodel import combine, group_words
from cudafuse.passes.vertical.plan.model import KernelCost, PipelineModel

DEFAULT_THREADS = 256  # when a launch's block is not a constant
ESTIMATE_CAP = 32  # a plain kernel's estimate: ptxas keeps the samples' kernels under 32


_FIRST, _SECOND, _THIRD = (operator.itemgetter(i) for i in range(3))


def limits_for(arch: str) -> DeviceLimits:
    """The SM limits of `arch`, or of the arch whose cost-model parameters it takes
    (arch_params: the nearest older one known, else the oldest: sm_80 for sm_75)."""
    try:
        return DeviceLimits.for_arch(arch)
    except ValueError:
        return DeviceLimits.for_arch(arch_params(arch).name)


def limits_note(arch: str) -> str:
    """'' when `arch` has SM limits of its own, else which arch's are used."""
    try:
        DeviceLimits.for_arch(arch)
        return ""
    except ValueError:
        return (f"occupancy with {arch_params(arch).name}'s SM limits (none built in for "
                f"{arch})")


def estimate_registers(model: PipelineModel, members: list[int]) -> int:
    """Registers per thread without ptxas: a kernel keeps about two per value it loads on
    top of ten for indices and pointers (capped at ESTIMATE_CAP); a fused kernel keeps its
    largest member's plus four per other member (values live across the inlined bodies).
    Against ptxas on the samples (docs/benchmarks.md) it is within a few registers for
    most groups and far below for some (shitomasi --fuse-all: 96)."""
    return fused_estimate([min(10 + 2 * model.kernels[i].n_loads, ESTIMATE_CAP)
                           for i in members])


def fused_estimate(own: list[int]) -> int:
    """A fused kernel's estimated registers from its members' (estimate_registers)."""
    return min(max(own) + 4 * (len(own) - 1), 255)


def occupancy_charge(fused_cycles: float, fused_occ: float, members_occ: float,
                     arch: ArchParams) -> float:
    """Cycles the model adds to a fused kernel of `fused_cycles` for running at
    `fused_occ` where its members ran at `members_occ` (their lowest)."""
    if fused_occ <= 0:
        return float("inf")  # a block does not fit: the launch fails

    def stretch(occ: float) -> float:
        return max(1.0, arch.occupancy_knee / occ) if occ > 0 else 1.0

    return fused_cycles * max(0.0, stretch(fused_occ) - stretch(members_occ))


def fused_cycles(size: int, dram_bytes: int | None, operations: float,
                 arch: ArchParams) -> float:
    """The fused kernel's time as the model prices it: its DRAM traffic (4-byte words at
    t_global) and its arithmetic (traffic.Traffic's operations per element: every member
    once per evaluation, at c_alu), combined as costmodel.combine does, over the
    iteration space."""
    return size * combine((dram_bytes or 0) / 4 * arch.t_global, operations * arch.c_alu,
                          arch)


@functools.cache
def _fraction(arch: str, threads: int, regs: int, shared: int) -> float:
    return occupancy(limits_for(arch), threads, regs, shared).fraction


# ptxas's figures of groups already emitted and compiled in this run, by their kernels'
# names in launch order: (registers, spill bytes). `annotate` fills it before planning
# again, so that the search prices those groups with what the compiler made of them.
_MEASURED: ContextVar[dict[tuple[str, ...], tuple[int, int]] | None] = ContextVar(
    "cudafuse_measured_groups", default=None)


# __maxnreg__ caps to emit, by the fused kernel's name and its members' names in launch
# order (both must match: a plan made again may name other groups alike). `annotate` fills
# it before running the pass again; codegen asks `register_cap` when it writes the head.
_CAPS: ContextVar[dict[tuple[str, tuple[str, ...]], int] | None] = ContextVar(
    "cudafuse_register_caps", default=None)


def register_cap(name: str, kernels: tuple[str, ...]) -> int | None:
    """The `__maxnreg__` cap the fused kernel `name` of `kernels` is to carry, if any."""
    return (_CAPS.get() or {}).get((name, kernels))


# Launch bounds written in place of a cap, by the same keys as _CAPS: (threads, min blocks
# per SM, 0: not given), where ptxas gives the kernel under them no more registers than
# under the cap and no spills (resources.weigh_bounds). The H200 timed shitomasi's fused
# kernel 5% faster under __launch_bounds__(256) than under __maxnreg__(32), at the same 32
# registers (docs/cost-model.md): the same occupancy, other code.
_BOUNDS: ContextVar[dict[tuple[str, tuple[str, ...]], tuple[int, int]] | None] = ContextVar(
    "cudafuse_launch_bounds", default=None)


def bounds_text(threads: int, blocks: int) -> str:
    return f"__launch_bounds__({threads}{f', {blocks}' if blocks else ''})"


def register_limit(name: str, kernels: tuple[str, ...]) -> str | None:
    """The attribute that limits the registers of the fused kernel `name` of `kernels`:
    launch bounds where ptxas was seen to give the cap's registers under them, else
    `__maxnreg__(cap)`; None when it carries no cap."""
    cap = register_cap(name, kernels)
    if cap is None:
        return None
    held = (_BOUNDS.get() or {}).get((name, kernels))
    return bounds_text(*held) if held is not None else f"__maxnreg__({cap})"


# Launch blocks chosen for fused groups that lose occupancy at their last kernel's block, by
# host function and the group's kernels in launch order. `annotate` fills it (weigh_blocks)
# before running the pass again; the driver applies one only where it proves the group's
# meaning does not depend on the block (as for --block), and says why where it does not.
_BLOCKS: ContextVar[dict[tuple[str, tuple[str, ...]], tuple[int, int]] | None] = ContextVar(
    "cudafuse_launch_blocks", default=None)


def chosen_block(host: str, kernels: tuple[str, ...]) -> tuple[int, int] | None:
    """The block `annotate` chose for the fused launch of `kernels` in `host`, if any."""
    return (_BLOCKS.get() or {}).get((host, kernels))


def estimated_charge(model: PipelineModel, group: frozenset[int], footprints: dict[int, int],
                     arch: ArchParams, words: int | None = None,
                     alone_memo: dict[int, tuple[KernelCost, int, float]] | None = None) -> float:
    """The charge of `occupancy_charge` (plus spills) for a candidate group during the
    partition search: from ptxas's figures where this run compiled the same group before
    (`annotate`), else from estimated registers (thousands of groups are scored, none
    compiled). `footprints`: evaluations per element of each member
    (costmodel.GroupCost.footprints); `words`: group_words, when the caller has it
    (GroupCost.words). `alone_memo`: node -> (its kernel, its registers, its occupancy
    launched alone), kept by a caller that charges many groups of one model, arch and run (the
    search: partition.cost_scorer), since they are the same in every group."""
    members = sorted(group)
    kernels = model.kernels
    sink = kernels[members[-1]]
    measured = _MEASURED.get() or {}

    def occ(regs: int, block: tuple[int, int] | None, shared: int) -> float:
        threads = block[0] * block[1] if block else DEFAULT_THREADS
        return _fraction(arch.name, threads, regs, shared)

    hits = list(map(alone_memo.get, members)) if alone_memo is not None else None
    if hits is not None and None not in hits and all(
            map(operator.is_, map(_FIRST, hits), map(kernels.__getitem__, members))):
        # (every member's figures alone are in the caller's memo: the loop below's answers)
        own = list(map(_SECOND, hits))
        alone = min(map(_THIRD, hits))
    else:
        own = []
        alone = 1.0
        first = True
        for i in members:
            k = kernels[i]
            hit = alone_memo.get(i) if alone_memo is not None else None
            if hit is None or hit[0] is not k:
                # (estimate_registers(model, [i]), from the n_loads costmodel memoises per
                # kernel)
                regs = measured.get((k.name,), (fused_estimate(
                    [min(10 + 2 * figures_alone(model, i, arch).n_loads, ESTIMATE_CAP)]),
                    0))[0]
                hit = (k, regs, occ(regs, k.block, k.shared_bytes))
                if alone_memo is not None:
                    alone_memo[i] = hit
            own.append(hit[1])
            if first or hit[2] < alone:
                alone, first = hit[2], False
    regs, spills = measured.get(tuple(kernels[i].name for i in members),
                                (fused_estimate(own), 0)) if measured else \
        (fused_estimate(own), 0)
    fused = occ(regs, sink.block, sum(kernels[i].shared_bytes for i in members))
    spill = sink.size * spills / 4 * arch.spill_access
    if fused >= alone or fused >= arch.occupancy_knee:
        return spill
    # (its stores include the intermediates needed outside the group, as group_resources
    # counts them from traffic.py: the search and the figures after emission agree)
    if words is None:  # (the search passes GroupCost.words: the same count)
        words = group_words(model, group)
    ops = sum(footprints.get(i, 1) * (kernels[i].n_alu + kernels[i].n_sfu)
              for i in members)
    return spill + occupancy_charge(fused_cycles(sink.size, words * 4, ops, arch), fused,
                                    alone, arch)
