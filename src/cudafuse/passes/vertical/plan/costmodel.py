"""The benefit model: device time saved by fusing a group of kernels.

Each kernel, fused or not, is priced as a throughput figure per element of its iteration
space (cycles of one SM, `arch.py`), from two terms:
- memory: the DRAM words it moves (each distinct buffer read once, each store once;
  neighbours of a stencil come from the caches) at t_global each;
- issue: its arithmetic (c_alu, c_sfu per operation), its loads served by the caches
  (t_cached each), and in a fused kernel each evaluation of a producer through the emitted
  accessor (t_access: the 64-bit index arithmetic and bounds checks of the view) and the
  shared-memory tiles (below).
The two overlap: a kernel takes max(memory, issue) + overlap * min(memory, issue) (overlap
0 is a perfect roofline, 1 adds them). The benefit of a group is the members' times, alone,
minus the fused kernel's, plus the launch term gamma for each launch removed. So a fusion
that removes DRAM words but makes the fused kernel issue-bound (a stencil recomputing a
stencil: a 5-tap consumer of a 5-tap producer issues 25 cached loads per element) is priced
at what it costs, not only at what it saves. Constants are fitted to measured times
(benchmarks/calibrate.py, docs/cost-model.md).

As in Hipacc, groups are costed as a whole, not as a sum of pairwise edges: each producer's
evaluation footprint is composed through the chain (a 3x3 feeding a 3x3 feeding a 3x3
evaluates the first kernel 25 times per output pixel), an intermediate that must still be
stored keeps its store, and a producer read by the last kernel alone may be staged in a
shared-memory tile instead of recomputed, the cheaper of the two kept. A tile costs its
fill: ceil(tile / threads) rounds of the block, each evaluating the producer once per
element and ending in a barrier that holds the block until its slowest warp (t_barrier per
round), plus a shared-memory load per read (t_shared); the warps issue only the tile's
elements (rounded up to whole warps).
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cudafuse.passes.vertical.plan.arch import ArchParams
from cudafuse.passes.vertical.plan.footprint import EMPTY, ORIGIN, Footprint
from cudafuse.passes.vertical.plan.model import KernelCost, Offset, PipelineModel

EPSILON = 1.0  # the paper's epsilon: weight of an edge that must not (or need not) be fused
DEFAULT_BLOCK = (32, 8)
WARP = 32


@dataclass(frozen=True)
class GroupCost:
    benefit: float
    saved_traffic: float  # memory cycles the group no longer spends (members' - fused)
    recompute: float  # issue cycles the fused kernel spends beyond its members'
    launch: float
    strategies: dict[int, str] = field(default_factory=dict)  # producer -> recompute|tile|once
    footprints: dict[int, int] = field(default_factory=dict)  # producer -> evaluations/pixel
    shared_bytes: int = 0
    time: float = 0.0  # the fused kernel's cycles over the iteration space
    members_time: float = 0.0  # its members' cycles, alone, over the same space
    words: int = 0  # DRAM words per element of the fused kernel (group_words)


@dataclass(frozen=True, slots=True)
class _Alone:
    """One kernel's figures launched alone (kernel_issue, kernel_words, kernel_time), which
    the searches would otherwise recompute for each of the thousands of groups it is in."""

    arith: float  # c_alu * n_alu + c_sfu * n_sfu: the arithmetic of one evaluation
    issue: float  # kernel_issue
    size_issue: float  # size * kernel_issue
    words: int  # kernel_words
    time: float  # kernel_time
    n_loads: int


def alone(model: PipelineModel, node: int, arch: ArchParams) -> _Alone:
    """`node`'s _Alone figures, memoised on the model (while its KernelCost and `arch` are
    the objects the entry was made from). The same expressions as kernel_issue and
    kernel_time, evaluated in the same order, so every figure is the same float."""
    k = model.kernels[node]
    hit = model._alone.get(node)
    if hit is not None and hit[0] is k and hit[1] is arch:
        return hit[2]  # type: ignore[return-value]
    n_loads = k.n_loads
    arith = arch.c_alu * k.n_alu + arch.c_sfu * k.n_sfu
    issue = arith + n_loads * arch.t_cached
    words = len(k.reads) + len(k.writes)
    figures = _Alone(arith, issue, k.size * issue, words,
                     k.size * combine(words * arch.t_global, issue, arch), n_loads)
    model._alone[node] = (k, arch, figures)
    return figures


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


def combine(memory: float, issue: float, arch: ArchParams) -> float:
    """A kernel's time from its memory and issue terms (per element, or summed)."""
    return max(memory, issue) + arch.overlap * min(memory, issue)


def kernel_issue(model: PipelineModel, node: int, arch: ArchParams) -> float:
    """Issue cycles per element of one kernel launched alone."""
    k = model.kernels[node]
    return arch.c_alu * k.n_alu + arch.c_sfu * k.n_sfu + k.n_loads * arch.t_cached


def kernel_words(model: PipelineModel, node: int) -> int:
    """DRAM words per element of one kernel launched alone."""
    k = model.kernels[node]
    return len(k.reads) + len(k.writes)


def kernel_time(model: PipelineModel, node: int, arch: ArchParams) -> float:
    """Cycles of one kernel launched alone, over its iteration space."""
    k = model.kernels[node]
    return k.size * combine(kernel_words(model, node) * arch.t_global,
                            kernel_issue(model, node, arch), arch)


def group_words(model: PipelineModel, group: frozenset[int]) -> int:
    """DRAM words per element of the fused kernel: each buffer read from outside the group
    once, the last kernel's stores and the intermediates needed outside the group."""
    inner = _writer_of(model, group)
    sink = max(group)
    stores = {b for i in group for b in model.kernels[i].writes
              if i == sink or _needed_outside(model, group, i, b)}
    return _words(model, group, inner, stores)


def _words(model: PipelineModel, group: frozenset[int], inner: dict[str, int],
           stores: set[str]) -> int:
    reads = {b for i in group for b in model.kernels[i].reads if b not in inner}
    return len(reads) + len(stores)


def tile_shape(block: tuple[int, int], halo: tuple[int, int]) -> tuple[float, int]:
    """(evaluations per output element the warps issue, rounds of the block) of filling a
    tile of `block` plus `halo` with one evaluation per element."""
    bx, by = block
    rx, ry = halo
    elems = (bx + 2 * rx) * (by + 2 * ry)
    threads = bx * by
    issued = math.ceil(elems / WARP) * WARP / threads
    return issued, math.ceil(elems / threads)


@functools.cache
def _window_of(offsets: frozenset[Offset]) -> Footprint:
    return Footprint.of(offsets)


@dataclass(frozen=True, slots=True)
class _Member:
    """What group_cost reads of one kernel and the edges leaving it, the same in every
    group it is in: built once per kernel (memoised on the model) rather than looked up
    again for each of the thousands of groups the search scores."""

    kernel: KernelCost  # the entry counts only while this is the model's kernel
    writes: tuple[str, ...]
    live: bool  # it writes a buffer used after the sequence
    # (consumer, buffers, each buffer's window there, one of them gathered there, one of
    # them with no tile to serve that consumer: model.no_tile)
    consumers: tuple[tuple[int, tuple[str, ...], tuple[Footprint, ...], bool, bool], ...]
    reads: tuple[tuple[str, int], ...]  # (buffer, offsets it reads it at)


def _member(model: PipelineModel, node: int) -> _Member:
    """`node`'s _Member, memoised on the model while the edges, live-out buffers and
    no-tile reasons it was made from are (a model's edges are only ever added to)."""
    kernels = model.kernels
    k = kernels[node]
    memo = model._members
    stamp = (len(model.edges), model.live_out, id(model.no_tile), len(model.no_tile))
    if memo.get(-1) != stamp:
        memo.clear()
        memo[-1] = stamp
    hit = memo.get(node)
    if hit is not None and hit.kernel is k:
        return hit
    no_tile = model.no_tile
    consumers = []
    for c, bufs in model.consumers(node):
        ck = kernels[c]
        consumers.append((c, bufs, tuple(_window_of(ck.reads.get(b, _NONE)) for b in bufs),
                          any(b in ck.gathers for b in bufs),
                          any((c, b) in no_tile for b in bufs)))
    entry = _Member(k, k.writes, any(b in model.live_out for b in k.writes),
                    tuple(consumers), tuple((b, len(offs)) for b, offs in k.reads.items()))
    memo[node] = entry
    return entry


class Partials:
    """group_cost's work part-way through the groups it costed, for a caller that costs
    thousands of groups of one model with one arch and tile setting (the partition search:
    partition.cost_scorer), most of them a group it costed before plus one kernel.

    group_cost visits a group's members from its last kernel back, and what it works out
    for a member (footprint, evaluations, strategy, issue, stores) depends only on the
    members after it, on the edges leaving it (every edge goes forward), and on which of the
    buffers it reads the group writes. So its state after visiting some last members is the
    same in every group with those last members that writes the same of the buffers they
    read: each group's state before its first member is kept under that key, and a group
    whose members but its first (or first two) were kept so starts there. The floats are
    computed by the same operations in the same order as from scratch: the cost is the
    same to the last bit (tests/test_scale.py). Answers only for the model it was first
    used with, while its edges, live-out buffers, no-tile reasons and kernels are the ones
    it saw (otherwise group_cost works from scratch or starts the records again)."""

    LIMIT = 50_000  # states kept (each a few small dicts); beyond it they are dropped

    def __init__(self, arch: ArchParams, allow_tiles: bool):
        self.arch, self.allow_tiles = arch, allow_tiles
        self.model: PipelineModel | None = None
        self.stamp: object = None
        self.ok = False  # every edge goes forward (what the states rely on)
        # suffix mask -> (the reads of its members as bits, {those the group writes: state})
        self.states: dict[int, tuple[int, dict[int, _State]]] = {}
        self.kept = 0
        # Per kernel, made when the model is first seen: the KernelCosts, and for each its
        # bit, reads and writes as bits of buffers, writes, size, shared bytes, figures alone.
        self.kernels: tuple[KernelCost, ...] = ()
        self.bit: list[int] = []
        self.buffer: dict[str, int] = {}  # buffer -> its bit's index
        self.reads: list[int] = []
        self.writes: list[int] = []
        self.size: list[int] = []
        self.shared: list[int] = []
        self.time: list[float] = []
        self.words: list[int] = []
        self.size_issue: list[float] = []

    def ready(self, model: PipelineModel, stamp: object,
              pick: Callable[[Sequence[Any]], tuple[Any, ...]]) -> bool:
        """Whether the records answer for `model` (made again when it changed); `pick`
        takes a group's items of a list by kernel."""
        kernels = model.kernels
        if self.model is model and self.stamp == stamp and len(kernels) == len(self.kernels) \
                and pick(kernels) == pick(self.kernels):
            return self.ok
        self.model, self.stamp, self.kernels = model, stamp, tuple(kernels)
        self.ok = all(a < c for a, c in model.edges)
        self.states.clear()
        self.kept = 0
        buffers = self.buffer = {}
        self.bit = [1 << i for i in range(len(kernels))]
        self.reads, self.writes = [], []
        for k in kernels:
            reads = writes = 0
            for b in k.reads:
                reads |= 1 << buffers.setdefault(b, len(buffers))
            for b in k.writes:
                writes |= 1 << buffers.setdefault(b, len(buffers))
            self.reads.append(reads)
            self.writes.append(writes)
        self.size = [k.size for k in kernels]
        self.shared = [k.shared_bytes for k in kernels]
        figures = [alone(model, i, self.arch) for i in range(len(kernels))]
        self.time = [f.time for f in figures]
        self.words = [f.words for f in figures]
        self.size_issue = [f.size_issue for f in figures]
        return self.ok

    def find(self, suffix: int, writes: int) -> _State | None:
        hit = self.states.get(suffix)
        return hit[1].get(hit[0] & writes) if hit is not None else None

    def keep(self, suffix: int, reads: int, writes: int, state: _State) -> None:
        if self.kept >= self.LIMIT:
            self.states.clear()
            self.kept = 0
        entry = self.states.setdefault(suffix, (reads, {}))
        if (reads & writes) not in entry[1]:
            entry[1][reads & writes] = state
            self.kept += 1


class _Written:
    """The buffers a group writes, as `b in inner` asks (`inner` a set of names) from the
    group's writes as bits (Partials)."""

    __slots__ = ("bits", "buffer")

    def __init__(self, bits: int, buffer: dict[str, int]):
        self.bits, self.buffer = bits, buffer

    def __contains__(self, name: object) -> bool:
        at = self.buffer.get(name)  # type: ignore[call-overload]
        return at is not None and bool(self.bits >> at & 1)


@dataclass(frozen=True, slots=True)
class _State:
    """group_cost's loop after visiting some last members of a group (Partials)."""

    issue: float
    tile_shared: int  # shared bytes of the tiles chosen so far
    stores: frozenset[str]
    foot: dict[int, Footprint]
    scale: dict[int, float]
    strategies: dict[int, str]
    evaluations: dict[int, float]
    rounded: dict[int, int]  # the evaluations rounded (GroupCost.footprints)


def group_cost(model: PipelineModel, group: frozenset[int], arch: ArchParams,
               block: tuple[int, int] | None = None, allow_tiles: bool = True,
               staged: frozenset[int] | None = None,
               partials: Partials | None = None) -> GroupCost:
    """Benefit of fusing `group` into one kernel (positive = cycles saved).

    A tile is considered only for a producer read by the group's last kernel alone (the
    kernel whose body the fused kernel runs), and only when its block shape is known.
    `staged`: the producers to stage in tiles, instead of the cheaper of tile and
    recomputation for each (to price a partition as it was emitted). `partials`: what
    group_cost kept of the groups it costed before with this model, `arch` and
    `allow_tiles` (and no `block` or `staged`), to start from (Partials)."""
    if len(group) < 2:
        return GroupCost(0.0, 0.0, 0.0, 0.0)
    kernels = model.kernels
    members_desc = sorted(group, reverse=True)  # consumers come later in launch order
    sink = members_desc[0]
    if partials is not None and (staged is not None or block is not None or
                                 partials.arch is not arch or
                                 partials.allow_tiles != allow_tiles):
        partials = None
    block = block or kernels[sink].block
    allow_tiles = allow_tiles and block is not None
    block = block or DEFAULT_BLOCK
    memo = model._members
    stamp = (len(model.edges), model.live_out, id(model.no_tile), len(model.no_tile))
    if memo.get(-1) != stamp:
        memo.clear()  # (_member stamps it again)
    # (a group's items of a per-kernel list, in the order `for i in group` visits them: one
    # C call for what would be a loop per list)
    pick = operator.itemgetter(*group)
    if partials is not None and not partials.ready(model, stamp, pick):
        partials = None
    start = 0
    state = None
    if partials is None:
        inner: set[str] = set()  # (_writer_of's keys: the buffers written inside the group)
        for i in members_desc:
            inner.update(kernels[i].writes)
        size = max(kernels[i].size for i in group)
    else:
        bit = partials.bit
        writes = functools.reduce(operator.or_, pick(partials.writes))
        suffix = sum(pick(bit))  # (one bit each: their sum is their union)
        for at in (len(members_desc) - 1, len(members_desc) - 2):  # (all but the first, two)
            suffix ^= bit[members_desc[at]]
            state = partials.find(suffix, writes) if at else None
            if state is not None:
                start = at
                break
        inner = _Written(writes, partials.buffer)  # type: ignore[assignment]
        size = max(pick(partials.size))
    if state is not None:
        foot, scale = dict(state.foot), dict(state.scale)
        strategies, evaluations = dict(state.strategies), dict(state.evaluations)
        rounded = dict(state.rounded)
        issue, tile_shared, stores = state.issue, state.tile_shared, set(state.stores)
        reads = partials.states[suffix][0]  # type: ignore[union-attr]
    else:
        foot: dict[int, Footprint] = {}  # type: ignore[no-redef]
        scale: dict[int, float] = {}  # evaluations per footprint point (a tile's fill ratio)
        strategies: dict[int, str] = {}  # type: ignore[no-redef]
        evaluations: dict[int, float] = {}  # type: ignore[no-redef]
        rounded: dict[int, int] = {}  # type: ignore[no-redef]
        issue = 0.0
        tile_shared = 0
        stores: set[str] = set()  # group_words's: the sink's and those needed outside
        reads = suffix = 0
    figs: dict[int, _Alone] = {}
    bx, by = block
    live_out = model.live_out
    t_cached, t_access = arch.t_cached, arch.t_access
    alone_memo = model._alone
    keep = len(members_desc) - 2 if partials is not None else -1  # (the state to keep)
    for at in range(start, len(members_desc)):
        node = members_desc[at]
        m = memo.get(node)
        if m is None or m.kernel is not kernels[node]:
            m = _member(model, node)
        points = EMPTY
        inside = []
        outside: set[str] = set()  # read by a consumer outside the group
        for edge in m.consumers:
            if edge[0] in group:
                inside.append(edge)
            else:
                outside.update(edge[1])
        # (_needed_outside of each buffer, from the one pass over the consumers)
        if node == sink:
            stores.update(m.writes)
            needed = m.live or not outside.isdisjoint(m.writes)
        elif m.live or outside:
            written = [b for b in m.writes if b in live_out or b in outside]
            stores.update(written)
            needed = bool(written)
        else:
            needed = False
        if needed or not inside:
            points = ORIGIN
        mult = 1.0
        gathered = untileable = False
        only_sink = True  # the group's last kernel the only consumer inside it
        for c, _, windows, gathers, no_tile in inside:
            mult = max(mult, scale.get(c, 1.0))
            base = foot.get(c, ORIGIN)
            b = base.rect
            for window in windows:
                w = window.rect
                if b is None or w is None:
                    points = points.union(base.plus(window))
                    continue
                # (Footprint.plus and .union of two rectangles, without the objects
                # when the sum adds nothing)
                sx0, sx1, sy0, sy1 = b[0] + w[0], b[1] + w[1], b[2] + w[2], b[3] + w[3]
                p = points.rect
                if p is not None and p[0] <= sx0 and sx1 <= p[1] and p[2] <= sy0 and \
                        sy1 <= p[3]:
                    continue
                rect = (sx0, sx1, sy0, sy1)
                summed = _RECTS.get(rect)
                if summed is None:
                    if len(_RECTS) > 4096:  # (a bound on what a long run keeps)
                        _RECTS.clear()
                    summed = _RECTS[rect] = Footprint(rect)
                if (p is None and not points.points) or (
                        p is not None and sx0 <= p[0] and p[1] <= sx1 and sy0 <= p[2] and
                        p[3] <= sy1):
                    points = summed
                else:
                    points = points.union(summed)
            gathered = gathered or gathers
            untileable = untileable or no_tile
            if c != sink:
                only_sink = False
        npoints = len(points)
        evals = npoints * mult
        ext_loads = 0
        for b, count in m.reads:
            if b not in inner:
                ext_loads += count
        hit = alone_memo.get(node)
        fig = figs[node] = hit[2] if hit is not None and hit[0] is kernels[node] and \
            hit[1] is arch else alone(model, node, arch)  # type: ignore[assignment]
        # Issue cycles to evaluate `node` once inside the group: its arithmetic plus the
        # loads of buffers not produced inside it (served by the caches when it is evaluated
        # at many points; the DRAM words are counted once per group, in the memory term).
        cost_once = fig.arith + ext_loads * t_cached
        access = t_access if node != sink else 0.0
        work = evals * (cost_once + access)
        strategy = "once" if npoints == 1 else "recompute"
        # (the group's last kernel the only consumer inside it)
        can_tile = npoints > 1 and allow_tiles and not gathered and not untileable and \
            bool(inside) and only_sink
        if can_tile and (staged is None or node in staged):
            rx, ry = points.extent()
            issued, rounds = tile_shape((bx, by), (rx, ry))
            tile = (issued * (cost_once + access) + npoints * arch.t_shared
                    + rounds * arch.t_barrier)
            if staged is not None or tile < work:
                work, strategy = tile, "tile"
                tile_shared += (bx + 2 * rx) * (by + 2 * ry) * 4
                points, evals = ORIGIN, issued  # upstream: evaluated per tile element
                mult = issued
        foot[node] = points
        scale[node] = mult
        strategies[node] = strategy
        evaluations[node] = evals
        rounded[node] = round(evals)
        issue += work
        if partials is not None:
            reads |= partials.reads[node]
            suffix |= partials.bit[node]
            if at == keep:
                partials.keep(suffix, reads, writes, _State(
                    issue, tile_shared, frozenset(stores), dict(foot), dict(scale),
                    dict(strategies), dict(evaluations), dict(rounded)))
    if partials is None:
        # (group_words's reads: each buffer read from outside the group once)
        words = len({b for i in group for b in kernels[i].reads if b not in inner})
    else:
        words = (reads & ~writes).bit_count()  # (the same count, as bits of buffers)
    words += len(stores)
    time = size * combine(words * arch.t_global, issue, arch)
    if partials is None:
        shared = sum(kernels[i].shared_bytes for i in group) + tile_shared
        figures = [figs[i] if i in figs else alone(model, i, arch) for i in group]
        members = sum(f.time for f in figures)
        saved = size * (sum(f.words for f in figures) - words) * arch.t_global
        extra = size * issue - sum(f.size_issue for f in figures)
    else:  # (the same sums, in the same order, from the figures kept per kernel)
        shared = sum(pick(partials.shared)) + tile_shared
        members = sum(pick(partials.time))
        saved = size * (sum(pick(partials.words)) - words) * arch.t_global
        extra = size * issue - sum(pick(partials.size_issue))
    launch = (len(group) - 1) * arch.launch
    return GroupCost(members - time + launch, saved, extra, launch, strategies, rounded,
                     shared, time, members, words)


_NONE: frozenset[Offset] = frozenset()
# Rectangular footprints by their bounds, shared (Footprint is never changed once made): a
# chain's groups compose the same few rectangles thousands of times.
_RECTS: dict[tuple[int, int, int, int], Footprint] = {}


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
