"""The benefit model: cycles saved by fusing a group of kernels.

It follows the Hipacc model (locality gain from moving an intermediate out of DRAM, minus the
cost of recomputing producers, plus the launch term gamma) and goes past it in three ways:
- Groups are costed as a whole, not as a sum of pairwise edges: each producer's evaluation
  footprint is composed through the chain (a 3x3 feeding a 3x3 feeding a 3x3 evaluates the
  first kernel 25 times per output pixel, not 9), which is what index-exchange code does.
- An intermediate that must still be stored (read outside the group, or live after the
  pipeline) only saves its reads, not its write.
- For each recomputed producer the model also prices a shared-memory tile (block plus halo,
  one evaluation per tile element, a barrier) and keeps the cheaper of the two.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from cudafuse.passes.vertical.plan.arch import ArchParams
from cudafuse.passes.vertical.plan.footprint import EMPTY, ORIGIN, Footprint
from cudafuse.passes.vertical.plan.model import Offset, PipelineModel

EPSILON = 1.0  # the paper's epsilon: weight of an edge that must not (or need not) be fused
DEFAULT_BLOCK = (32, 8)


@dataclass(frozen=True)
class GroupCost:
    benefit: float
    saved_traffic: float
    recompute: float
    launch: float
    strategies: dict[int, str] = field(default_factory=dict)  # producer -> recompute|tile|once
    footprints: dict[int, int] = field(default_factory=dict)  # producer -> evaluations/pixel
    shared_bytes: int = 0


def _writer_of(model: PipelineModel, group: frozenset[int]) -> dict[str, int]:
    out: dict[str, int] = {}
    for i in sorted(group):
        for b in model.kernels[i].writes:
            out[b] = i
    return out


def _needed_outside(model: PipelineModel, group: frozenset[int], node: int, buf: str) -> bool:
    if buf in model.live_out:
        return True
    return any(buf in bufs for c, bufs in model.consumers(node) if c not in group)


def eval_cost(model: PipelineModel, group: frozenset[int], node: int, arch: ArchParams,
              inner: dict[str, int] | None = None) -> float:
    """Cycles to evaluate `node` once inside the group: its arithmetic plus the loads of
    buffers not produced inside the group (neighbours' loads mostly hit the caches).
    `inner`: the group's buffer -> writer map, when the caller has it."""
    k = model.kernels[node]
    inner = _writer_of(model, group) if inner is None else inner
    ext_loads = sum(len(offs) for b, offs in k.reads.items() if b not in inner)
    return arch.c_alu * k.n_alu + arch.c_sfu * k.n_sfu + ext_loads * arch.t_cached


@functools.cache
def _window_of(offsets: frozenset[Offset]) -> Footprint:
    return Footprint.of(offsets)


def _window(model: PipelineModel, consumer: int, buf: str) -> Footprint:
    return _window_of(model.kernels[consumer].window(buf))


def group_cost(model: PipelineModel, group: frozenset[int], arch: ArchParams,
               block: tuple[int, int] | None = None, allow_tiles: bool = True) -> GroupCost:
    """Benefit of fusing `group` into one kernel (positive = cycles saved).

    A tile is considered only for a producer read by the group's last kernel alone (the
    kernel whose body the fused kernel runs), and only when its block shape is known."""
    if len(group) < 2:
        return GroupCost(0.0, 0.0, 0.0, 0.0)
    sink = max(group)
    block = block or model.kernels[sink].block
    allow_tiles = allow_tiles and block is not None
    block = block or DEFAULT_BLOCK
    inner = _writer_of(model, group)
    size = max(model.kernels[i].size for i in group)
    foot: dict[int, Footprint] = {}
    strategies: dict[int, str] = {}
    recompute = 0.0
    shared = sum(model.kernels[i].shared_bytes for i in group)
    bx, by = block
    for node in sorted(group, reverse=True):  # consumers come later in launch order
        k = model.kernels[node]
        points = EMPTY
        inside = [(c, bufs) for c, bufs in model.consumers(node) if c in group]
        root = any(_needed_outside(model, group, node, b) for b in k.writes) or not inside
        if root:
            points = ORIGIN
        for c, bufs in inside:
            for b in bufs:
                window = _window(model, c, b)
                points = points.union(foot.get(c, ORIGIN).plus(window))
        evals = len(points)
        cost_once = eval_cost(model, group, node, arch, inner)
        redo = size * (evals - 1) * cost_once
        strategy = "once" if evals == 1 else "recompute"
        consumers = {c for c, _ in inside}
        gathered = any(b in model.kernels[c].gathers for c, bufs in inside for b in bufs)
        if evals > 1 and allow_tiles and consumers == {sink} and not gathered:
            rx, ry = points.extent()
            halo = ((bx + 2 * rx) * (by + 2 * ry)) / (bx * by)
            tile = size * ((halo - 1) * cost_once + evals * arch.t_shared + arch.barrier)
            if tile < redo:
                redo, strategy = tile, "tile"
                shared += (bx + 2 * rx) * (by + 2 * ry) * 4
                points = ORIGIN  # upstream producers are evaluated per tile element
        foot[node] = points
        strategies[node] = strategy
        recompute += redo
    saved = 0.0
    for a in sorted(group):
        for c, bufs in model.consumers(a):
            if c not in group:
                continue
            for b in bufs:
                window = model.kernels[c].window(b)
                saved += size * (arch.t_global + (len(window) - 1) * arch.t_cached)
    for b, w in inner.items():
        if not _needed_outside(model, group, w, b):
            saved += size * arch.t_global  # the store disappears too
    launch = (len(group) - 1) * arch.launch
    return GroupCost(saved - recompute + launch, saved, recompute, launch, strategies,
                     {n: len(p) for n, p in foot.items()}, shared)


def edge_weight(model: PipelineModel, a: int, b: int, arch: ArchParams, legal: bool,
                tiles: bool = True) -> float:
    """The paper's w_e = max(w + gamma, epsilon), w from the pair's group cost."""
    if not legal:
        return EPSILON
    return max(group_cost(model, frozenset((a, b)), arch, allow_tiles=tiles).benefit, EPSILON)


def shared_ratio_ok(model: PipelineModel, group: frozenset[int], cost: GroupCost,
                    arch: ArchParams) -> str | None:
    """The paper's Eq. (2) plus the per-block limit; a reason string when violated."""
    if cost.shared_bytes > arch.max_shared_per_block:
        return (f"needs {cost.shared_bytes} bytes of shared memory per block "
                f"(limit {arch.max_shared_per_block})")
    users = [model.kernels[i].shared_bytes for i in group if model.kernels[i].shared_bytes]
    if users and cost.shared_bytes / max(users) > arch.shared_ratio:
        return (f"shared memory grows {cost.shared_bytes / max(users):.1f}x "
                f"(limit {arch.shared_ratio:g}x, Eq. 2)")
    return None
