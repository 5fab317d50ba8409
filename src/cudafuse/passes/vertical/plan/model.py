"""The pipeline model the cost model and partitioners work on.

It abstracts a host function's launch sequence: kernels (nodes, in launch order) with their
cost figures, and the buffers between them. It is built from the analyses (see
`cudafuse.passes.vertical.build`), and small enough to construct by hand in tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Offset = tuple[int, int]


# The cost model's stand-in for a gather's reads (a loop with run-time bounds over clamped
# neighbours, analysis/access.py): a 5x5 window, a typical run-time filter's size.
GATHER_WINDOW = frozenset((dx, dy) for dx in range(-2, 3) for dy in range(-2, 3))

@dataclass(frozen=True)
class KernelCost:
    """One launch. `reads` maps each buffer it reads to the offsets it reads it at
    ({(0, 0)} for a point read); `writes` lists the buffers it stores at its own element."""

    name: str
    reads: dict[str, frozenset[Offset]]
    writes: tuple[str, ...]
    n_alu: int = 1
    n_sfu: int = 0
    shared_bytes: int = 0
    size: int = 1  # iteration space (elements), the paper's IS
    block: tuple[int, int] | None = None  # the launch's 2D block shape, when constant
    # Buffers read at run-time offsets (gathers): `reads` holds a nominal window for them,
    # and no shared-memory tile can stage their producer (its extent is unknown).
    gathers: frozenset[str] = frozenset()

    @property
    def pattern(self) -> str:
        return "local" if any(o != {(0, 0)} for o in self.reads.values()) else "point"

    @property
    def n_loads(self) -> int:
        return sum(len(o) for o in self.reads.values())

    def window(self, buffer: str) -> frozenset[Offset]:
        return self.reads.get(buffer, frozenset())


@dataclass
class PipelineModel:
    kernels: list[KernelCost]
    live_out: frozenset[str] = frozenset()  # buffers used after the sequence
    # Edges A -> B carry the buffers A writes and B reads (true dependences). Ordering-only
    # dependences (B overwrites what A reads, or both write) are in `order_edges`.
    edges: dict[tuple[int, int], tuple[str, ...]] = field(default_factory=dict)
    order_edges: set[tuple[int, int]] = field(default_factory=set)
    # (consumer, buffer) -> why no shared-memory tile of the buffer's producer can serve that
    # consumer's reads (emit/codegen.tile_problem, asked by the driver): the cost model then
    # prices recomputation, as the emitter would emit it.
    no_tile: dict[tuple[int, str], str] = field(default_factory=dict)
    # Per-node views of `edges` for the searches, which cost thousands of groups: built on
    # first use and rebuilt whenever the edges change size (they are only ever added to).
    _adjacency: tuple[int, dict[int, list[tuple[int, tuple[str, ...]]]],
                      dict[int, list[tuple[int, tuple[str, ...]]]]] | None = field(
        default=None, init=False, repr=False, compare=False)
    # node -> (its KernelCost, the ArchParams, its figures launched alone): costmodel's
    # memo of what the searches would otherwise recompute for every group a node is in;
    # an entry counts only while both are the very objects it was made from.
    _alone: dict[int, tuple[KernelCost, object, object]] = field(
        default_factory=dict, init=False, repr=False, compare=False)
    # node -> what costmodel.group_cost reads of it and its edges in every group it is in
    # (costmodel._member); key -1 holds what the entries were made from.
    _members: dict[int, Any] = field(
        default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def from_kernels(cls, kernels: list[KernelCost], live_out: frozenset[str]) -> PipelineModel:
        """Derive the dependence edges from program order: the last writer of a buffer feeds
        every later reader until the next writer."""
        model = cls(kernels, frozenset(live_out))
        last_writer: dict[str, int] = {}
        readers: dict[str, list[int]] = {}
        for i, k in enumerate(kernels):
            for buf in sorted(k.reads):
                if buf in last_writer:
                    key = (last_writer[buf], i)
                    model.edges[key] = tuple(sorted({*model.edges.get(key, ()), buf}))
                readers.setdefault(buf, []).append(i)
            for buf in k.writes:
                for r in readers.get(buf, []):
                    if r != i:
                        model.order_edges.add((r, i))
                if buf in last_writer and last_writer[buf] != i:
                    model.order_edges.add((last_writer[buf], i))
                last_writer[buf] = i
                readers[buf] = []
        return model

    def _adj(self) -> tuple[dict[int, list[tuple[int, tuple[str, ...]]]],
                            dict[int, list[tuple[int, tuple[str, ...]]]]]:
        if self._adjacency is None or self._adjacency[0] != len(self.edges):
            out: dict[int, list[tuple[int, tuple[str, ...]]]] = {}
            inn: dict[int, list[tuple[int, tuple[str, ...]]]] = {}
            for (a, c), bufs in sorted(self.edges.items()):
                out.setdefault(a, []).append((c, bufs))
                inn.setdefault(c, []).append((a, bufs))
            self._adjacency = (len(self.edges), out, inn)
        return self._adjacency[1], self._adjacency[2]

    def consumers(self, node: int) -> list[tuple[int, tuple[str, ...]]]:
        """(consumer, buffers) of every true dependence leaving `node`, consumers ascending."""
        return self._adj()[0].get(node, [])

    def producers(self, node: int) -> list[tuple[int, tuple[str, ...]]]:
        """(producer, buffers) of every true dependence entering `node`."""
        return self._adj()[1].get(node, [])

    def all_edges(self) -> set[tuple[int, int]]:
        return set(self.edges) | self.order_edges

    def external_inputs(self) -> set[str]:
        written: set[str] = set()
        ext: set[str] = set()
        for k in self.kernels:
            ext |= {b for b in k.reads if b not in written}
            written |= set(k.writes)
        return ext
