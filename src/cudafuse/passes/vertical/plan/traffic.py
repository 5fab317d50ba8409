"""What fusion gains, without a GPU: DRAM traffic and arithmetic per output element.

Figures are per element of the pipeline's iteration space (its last kernel's), assuming
every launch of the sequence covers that same space (a fused group's kernels must; for
unfused kernels it is an assumption). Each kernel reads every distinct buffer it reads once
per element of its iteration space (a stencil's neighbours come from the caches, so a 3x3
read of `in` counts one element of `in`) and writes each buffer it stores once; element
sizes come from the kernel parameters' pointee types. Constant memory, textures and
buffers the analyses do not bind to a host variable are not counted.

- original: every kernel's loads and stores;
- fused: a fused group reads each of its external inputs once and stores what it still
  stores (its last kernel's outputs and the intermediates needed outside it); kernels left
  alone count as in the original;
- minimum: the pipeline's external inputs read once and its live outputs written once.

Arithmetic is opcount's ALU + SFU operations per thread; in a fused group each producer
counts once per evaluation per output element (its footprint composed through the chain,
as in the cost model, and the tile's halo ratio when it is staged in shared memory).
These are traffic and operation counts, not a prediction of run time.
"""

from __future__ import annotations

from dataclasses import dataclass

from cudafuse.passes.vertical.plan.model import Offset, PipelineModel

Sizes = dict[int, dict[str, int | None]]  # kernel position -> buffer key -> element bytes


@dataclass(frozen=True)
class GroupShape:
    """A fused group as emitted: its members (model positions), the intermediates it still
    stores, the buffers staged in tiles (key -> halo rx, ry) and its block."""

    members: frozenset[int]
    stored: frozenset[str]
    tiles: dict[str, tuple[int, int]]
    block: tuple[int, int] | None


@dataclass(frozen=True)
class Traffic:
    original: int | None  # DRAM bytes per output element; None when a size is unknown
    fused: int | None
    minimum: int | None
    work_original: float  # ALU + SFU operations per output element
    work_fused: float
    unknown: str | None = None  # why the byte figures are missing

    @property
    def redundant_work(self) -> float:
        return self.work_fused / self.work_original if self.work_original else 1.0

    def as_dict(self) -> dict[str, object]:
        return {"per": "element of the last kernel's iteration space",
                "dram_bytes": None if self.original is None else {
                    "original": self.original, "fused": self.fused,
                    "minimum": self.minimum},
                "operations": {"original": self.work_original, "fused": self.work_fused},
                "redundant_work": self.redundant_work,
                "unknown": self.unknown}


class _Unknown(Exception):
    pass


def _size(sizes: Sizes, i: int, key: str) -> int:
    s = sizes.get(i, {}).get(key)
    if s is None:
        raise _Unknown(f"element size of '{key.split(':', 1)[-1].split('@')[0]}' unknown")
    return s


def _needed_outside(model: PipelineModel, group: frozenset[int], node: int, buf: str) -> bool:
    return buf in model.live_out or any(
        buf in bufs for c, bufs in model.consumers(node) if c not in group)


def _ops(model: PipelineModel, i: int) -> int:
    k = model.kernels[i]
    return k.n_alu + k.n_sfu


def kernel_bytes(model: PipelineModel, i: int, sizes: Sizes) -> int:
    k = model.kernels[i]
    return sum(_size(sizes, i, b) for b in k.reads) + sum(_size(sizes, i, b) for b in k.writes)


def _external(model: PipelineModel, members: frozenset[int], sizes: Sizes) -> int:
    """Bytes of the buffers the members read that no earlier member wrote, each once."""
    produced: set[str] = set()
    seen: dict[str, int] = {}
    for i in sorted(members):
        k = model.kernels[i]
        for b in sorted(k.reads):
            if b not in produced and b not in seen:
                seen[b] = _size(sizes, i, b)
        produced |= set(k.writes)
    return sum(seen.values())


def evaluations(model: PipelineModel, shape: GroupShape) -> dict[int, float]:
    """Times each member is evaluated per output element of the fused kernel."""
    group = shape.members
    sink = max(group)
    bx, by = shape.block or (1, 1)
    foot: dict[int, dict[float, set[Offset]]] = {}
    for node in sorted(group, reverse=True):  # consumers come later in launch order
        k = model.kernels[node]
        halos = [shape.tiles[b] for b in k.writes if b in shape.tiles]
        if node != sink and halos and shape.block is not None:
            rx, ry = max(h[0] for h in halos), max(h[1] for h in halos)
            foot[node] = {(bx + 2 * rx) * (by + 2 * ry) / (bx * by): {(0, 0)}}
            continue
        acc: dict[float, set[Offset]] = {}
        consumers = [(c, bufs) for c, bufs in model.consumers(node) if c in group]
        if node == sink or not consumers or any(
                _needed_outside(model, group, node, b) for b in k.writes):
            acc.setdefault(1.0, set()).add((0, 0))
        for c, bufs in consumers:
            for b in bufs:
                for mult, pts in foot[c].items():
                    acc.setdefault(mult, set()).update(
                        (f[0] + o[0], f[1] + o[1]) for f in pts
                        for o in model.kernels[c].window(b))
        foot[node] = acc
    return {node: sum(m * len(p) for m, p in f.items()) for node, f in foot.items()}


def group_traffic(model: PipelineModel, shape: GroupShape, sizes: Sizes) -> Traffic:
    group = shape.members
    sink = max(group)
    evals = evaluations(model, shape)
    work_orig = float(sum(_ops(model, i) for i in group))
    work_fused = sum(evals[i] * _ops(model, i) for i in group)
    try:
        original = sum(kernel_bytes(model, i, sizes) for i in group)
        ext = _external(model, group, sizes)
        stores = {b: _size(sizes, i, b) for i in sorted(group) for b in model.kernels[i].writes
                  if i == sink or b in shape.stored}
        needed = {b: _size(sizes, i, b) for i in sorted(group) for b in model.kernels[i].writes
                  if _needed_outside(model, group, i, b)}
    except _Unknown as exc:
        return Traffic(None, None, None, work_orig, work_fused, str(exc))
    return Traffic(original, ext + sum(stores.values()), ext + sum(needed.values()),
                   work_orig, work_fused)


def pipeline_traffic(model: PipelineModel, groups: list[GroupShape], sizes: Sizes
                     ) -> tuple[Traffic, list[Traffic]]:
    """The sequence's figures and each group's, in the order given."""
    per_group = [group_traffic(model, g, sizes) for g in groups]
    fused_members = {i for g in groups for i in g.members}
    alone = [i for i in range(len(model.kernels)) if i not in fused_members]
    work_orig = float(sum(_ops(model, i) for i in range(len(model.kernels))))
    work_fused = sum(t.work_fused for t in per_group) + sum(_ops(model, i) for i in alone)
    unknown = next((t.unknown for t in per_group if t.unknown), None)
    try:
        original = sum(kernel_bytes(model, i, sizes) for i in range(len(model.kernels)))
        fused = sum(kernel_bytes(model, i, sizes) for i in alone)
        if unknown is None:
            fused += sum(t.fused or 0 for t in per_group)
        written: dict[str, int] = {}
        for i, k in enumerate(model.kernels):
            written.update({b: _size(sizes, i, b) for b in k.writes if b in model.live_out})
        minimum = _external(model, frozenset(range(len(model.kernels))), sizes) + \
            sum(written.values())
    except _Unknown as exc:
        unknown = str(exc)
    if unknown is not None:
        return Traffic(None, None, None, work_orig, work_fused, unknown), per_group
    return Traffic(original, fused, minimum, work_orig, work_fused), per_group
