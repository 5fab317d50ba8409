"""What a vertical fusion run decides and reports: its options, and per launch sequence the
plan, the groups, the edges and the launches (driver.py fills them in; render.py, the
report and the resources pass read them). Kept apart from the driver so that what reads a
result need not import the pass that makes it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cudafuse.passes.vertical.plan.model import PipelineModel
from cudafuse.passes.vertical.plan.partition import Partition
from cudafuse.passes.vertical.plan.traffic import Sizes, Traffic

NOMINAL_SIZE = 1 << 20  # elements per launch when the cost model must assume a size


@dataclass(frozen=True)
class FuseOptions:
    partition: str = "auto"
    arch: str = "sm_90"
    scratch: frozenset[str] = frozenset()  # host pointer parameters whose contents are dead
    size: int = NOMINAL_SIZE
    fuse_all: bool = False  # ignore the cost model: fuse every legal group
    tiles: str = "auto"  # shared-memory tiles: auto (cost model), always, never
    block: tuple[int, int] | None = None  # launch fused 2D groups with this block shape
    siblings: str = "auto"  # independent launches as one: auto (cost model), always, never


@dataclass
class EdgeNote:
    host: str
    src: str
    dst: str
    src_index: int
    dst_index: int
    buffers: tuple[str, ...]
    fused: bool
    why: str
    refused: bool = False  # not legal (as opposed to legal but not chosen)
    line: int = 0  # the consumer's launch, for diagnostics
    col: int = 0
    # Left unfused: the benefit fusing the pair alone would have had, in the plan's
    # objective unit (computed for refused edges too: what legality costs). None if fused.
    benefit: float | None = None


@dataclass
class GroupNote:
    host: str
    name: str
    kernels: list[str]
    launches: list[int]
    benefit: float
    stored: list[str]  # intermediates still written (needed outside the group)
    untouched: list[str]  # intermediates no longer written or read by the pipeline
    footprints: dict[str, int]
    launch_block: tuple[int, int] | None = None  # --block: the fused launch's block
    traffic: Traffic | None = None  # DRAM bytes and operations per output element
    stored_why: dict[str, str] = field(default_factory=dict)  # stored -> who reads it
    resources: Any = None  # resources.GroupResources: ptxas figures, occupancy (annotate)
    # Shared-memory tiles as emitted (buffer -> halo rx, ry), their bytes, and the tiles the
    # plan asked for that the emitter declined (buffer -> why): figures count staged ones.
    tiles: dict[str, tuple[int, int]] = field(default_factory=dict)
    tile_bytes: int = 0
    tiles_declined: dict[str, str] = field(default_factory=dict)
    # The conditions the fused launch runs under (the original launches otherwise), each
    # with what it stands for: (condition, meaning).
    checks: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class LaunchNote:
    """One launch of a host function: the sequence it is in (an index into
    FuseResult.plans) and the group it was fused into, or why it is in no sequence."""

    host: str
    index: int
    kernel: str
    line: int
    col: int
    where: str  # the block it is a statement of ("" when none: inside an expression)
    sequence: int | None
    group: str | None = None
    why: str = ""


@dataclass
class UnfusedGroup:
    """A group the partition chose that code generation refused: its launches stay as
    written (driver.py, _left_unfused)."""

    kernels: list[str]
    launches: list[int]
    why: str


@dataclass
class SequencePlan:
    host: str
    kernels: list[str]
    partitions: list[Partition]
    chosen: Partition
    launch_indices: list[int] = field(default_factory=list)  # plan position -> launch index
    groups: list[GroupNote] = field(default_factory=list)
    # What the partitions' objectives, the groups' and the edges' benefits count.
    objective_unit: str = ""
    unit_short: str = ""
    traffic: Traffic | None = None  # DRAM bytes and operations per output element
    model: PipelineModel | None = field(default=None, repr=False)
    sizes: Sizes = field(default_factory=dict, repr=False)  # element bytes of each buffer
    where: str = ""  # the block the launches are statements of (a loop body, a branch)
    live: dict[str, str] = field(default_factory=dict, repr=False)  # live-out key -> why
    siblings: list[Any] = field(default_factory=list)  # siblings.SiblingNote, pairs considered
    # Pairs of unfused launches not tried as siblings: a launch between them depends on the
    # first and the second on a launch between (sibling_codegen.fuse_siblings), so neither
    # place can take the fused launch. Said by --explain as a count.
    siblings_blocked: int = 0
    left_unfused: list[UnfusedGroup] = field(default_factory=list)  # chosen, not emitted


@dataclass
class FuseResult:
    output: bytes
    plans: list[SequencePlan] = field(default_factory=list)
    edges: list[EdgeNote] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # What the analyses took as given, shown by --explain only (constargs.py).
    assumed: list[str] = field(default_factory=list)
    breaks: list[tuple[str, int, int, str]] = field(default_factory=list)  # host, line, col, why
    launches: list[LaunchNote] = field(default_factory=list)  # every launch, where it went

    @property
    def groups(self) -> list[GroupNote]:
        return [g for p in self.plans for g in p.groups]
