"""The configurations `cudafuse hfuse --profile` measures: thread splits and register caps
of the fused kernel, block-mode fusion, and the two native baselines.

HFuse (Fig. 6) moves the split between the kernels in steps of 128 threads ("an irregular
block dimension often breaks memory access patterns") and times each split with and without
its register bound. Here a part whose kernel accepts any block size (`tunable`) takes its
native size or a multiple of the step; a part that does not keeps its native size. Around
the bound we also try a few nearby caps, because the bound is a heuristic: one cap step
(8 registers per thread, the allocation granule) lower may buy a block per SM, and a step
or two higher may remove spills that the bound causes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cudafuse.analysis.ptxas import Resources
from cudafuse.passes.horizontal.regbound import SM, register_bound
from cudafuse.profile.occupancy import DeviceLimits, occupancy

MODES = ("thread", "block")
BASELINES = ("streams", "sequential")
REGCAP_MIN, REGCAP_MAX = 16, 255  # what __maxnreg__ / --regcap accept

# (mode, threads1, threads2) -> HFuse's register bound for that split, or None when the
# bound would not restrict anything.
RegcapBound = Callable[[str, int, int], int | None]


@dataclass(frozen=True)
class CandidateOptions:
    """What decides the candidate set (and so belongs in the results cache key)."""

    threads1: int  # the kernels' native block thread counts
    threads2: int
    tunable1: bool = False  # may part 1's block size change?
    tunable2: bool = False
    step: int = 128
    regcap_offsets: tuple[int, ...] = (-8, 8, 16)
    modes: tuple[str, ...] = MODES
    # May a tunable part run with fewer threads than its native block? The pair spec's grid
    # is sized for the native block, so only a part whose work is shared out by grid-stride
    # loops covers it all with fewer (passes/horizontal/carried.grid_strided); one element
    # per thread (`if (i < n)`) leaves the rest unwritten.
    shrinks1: bool = True
    shrinks2: bool = True

    def __post_init__(self) -> None:
        if self.threads1 < 1 or self.threads2 < 1:
            raise ValueError("native block sizes must be positive")
        if self.step < 32 or self.step % 32:
            raise ValueError(f"the split step must be a positive multiple of 32, not "
                             f"{self.step}")
        unknown = [m for m in self.modes if m not in MODES]
        if unknown or not self.modes:
            raise ValueError(f"modes are {' and '.join(MODES)}, not {unknown or 'none'}")

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "threads": [self.threads1, self.threads2],
            "tunable": [self.tunable1, self.tunable2], "step": self.step,
            "regcap_offsets": list(self.regcap_offsets), "modes": list(self.modes)}
        if not (self.shrinks1 and self.shrinks2):  # (absent: both may, as before it existed)
            out["shrinks"] = [self.shrinks1, self.shrinks2]
        return out


@dataclass(frozen=True)
class Candidate:
    mode: str  # thread | block
    threads1: int
    threads2: int
    regcap: int | None

    @property
    def id(self) -> str:
        return f"{split_id(self.mode, self.threads1, self.threads2)}:r{self.regcap or 'none'}"

    @property
    def threads(self) -> int:
        """Threads per block of the fused kernel."""
        if self.mode == "thread":
            return self.threads1 + self.threads2
        return max(self.threads1, self.threads2)


@dataclass(frozen=True)
class Baseline:
    name: str  # streams: the two native kernels on two streams; sequential: one stream

    @property
    def id(self) -> str:
        return self.name


@dataclass(frozen=True)
class Skipped:
    """A split left out as a whole (regcap None, id "thread:512+768") or one register cap
    of a split (id "thread:512+512:r80")."""

    mode: str
    threads1: int
    threads2: int
    regcap: int | None
    reason: str

    @property
    def id(self) -> str:
        split = split_id(self.mode, self.threads1, self.threads2)
        return split if self.regcap is None else f"{split}:r{self.regcap}"


@dataclass(frozen=True)
class CandidateSet:
    candidates: tuple[Candidate, ...]
    baselines: tuple[Baseline, ...]
    skipped: tuple[Skipped, ...]


def split_id(mode: str, threads1: int, threads2: int) -> str:
    return f"{mode}:{threads1}+{threads2}"


def regcaps_around(bound: int | None, offsets: tuple[int, ...] = (-8, 8, 16)
                   ) -> tuple[int | None, ...]:
    """No cap first (HFuse always times it), then the bound and its neighbours, clamped to
    what __maxnreg__ accepts, without repeats, ascending."""
    if bound is None:
        return (None,)
    caps = {min(max(bound + off, REGCAP_MIN), REGCAP_MAX) for off in (0, *offsets)}
    return (None, *sorted(caps))


def thread_counts(native: int, tunable: bool, step: int, most: int,
                  shrinks: bool = True) -> tuple[int, ...]:
    """A part's block sizes: its native size, and for a tunable part every multiple of
    `step` up to `most` (from the native size up, when it may not shrink)."""
    if not tunable:
        return (native,)
    least = native if not shrinks else step
    return tuple(sorted({native, *(t for t in range(step, most + 1, step) if t >= least)}))


def generate(options: CandidateOptions, bound: RegcapBound | None = None,
             limits: DeviceLimits | None = None) -> CandidateSet:
    """Every candidate in a fixed order: thread mode by (threads1, threads2, regcap), then
    block mode by regcap; splits and caps that cannot launch are listed with the reason."""
    limits = limits or DeviceLimits.for_arch("sm_90")
    warp = limits.warp_size
    out: list[Candidate] = []
    skipped: list[Skipped] = []

    def add(mode: str, t1: int, t2: int) -> None:
        caps = regcaps_around(bound(mode, t1, t2) if bound else None, options.regcap_offsets)
        for cap in caps:
            cand = Candidate(mode, t1, t2, cap)
            if cap is None:
                out.append(cand)
                continue
            # The cap is the most the kernel may use; if a block cannot launch even at the
            # cap, hfuse refuses it (and a kernel under the cap might fit, but then it is the
            # no-cap candidate, which is timed anyway).
            occ = occupancy(limits, cand.threads, cap)
            if occ.blocks_per_sm == 0:
                skipped.append(Skipped(mode, t1, t2, cap, f"regcap {cap} with "
                                       f"{cand.threads} threads per block: {occ.reason}"))
            else:
                out.append(cand)

    if "thread" in options.modes:
        # The other part needs at least one warp of the fused block.
        most = limits.max_threads_per_block - warp
        sizes1 = thread_counts(options.threads1, options.tunable1, options.step, most,
                               options.shrinks1)
        sizes2 = thread_counts(options.threads2, options.tunable2, options.step, most,
                               options.shrinks2)
        for t1 in sizes1:
            for t2 in sizes2:
                reason = _thread_split_problem(t1, t2, limits)
                if reason:
                    skipped.append(Skipped("thread", t1, t2, None, reason))
                else:
                    add("thread", t1, t2)
    if "block" in options.modes:
        t1, t2 = options.threads1, options.threads2
        if max(t1, t2) > limits.max_threads_per_block:
            skipped.append(Skipped("block", t1, t2, None, f"a block of {max(t1, t2)} "
                                   f"threads; a block has at most "
                                   f"{limits.max_threads_per_block}"))
        else:
            add("block", t1, t2)
    return CandidateSet(tuple(out), tuple(Baseline(b) for b in BASELINES), tuple(skipped))


def _thread_split_problem(t1: int, t2: int, limits: DeviceLimits) -> str:
    warp = limits.warp_size
    for index, count in ((1, t1), (2, t2)):
        # Named barriers (bar.sync id, count) count arriving threads a warp at a time.
        if count % warp:
            return (f"part {index}'s {count} threads are not a multiple of {warp} (its "
                    "barrier counts whole warps)")
    if t1 + t2 > limits.max_threads_per_block:
        return (f"the fused block would have {t1 + t2} threads; a block has at most "
                f"{limits.max_threads_per_block}")
    return ""


def hfuse_bound(r1: Resources, r2: Resources, sm: SM) -> RegcapBound:
    """HFuse's bound (cudafuse.passes.horizontal.regbound) for each split, from the native kernels'
    ptxas figures. In block mode a fused block has max(threads1, threads2) threads; the
    bound keeps as many of them per SM as the natives would have, as in thread mode."""

    def bound(mode: str, t1: int, t2: int) -> int | None:
        fused = t1 + t2 if mode == "thread" else max(t1, t2)
        return register_bound(r1, t1, r2, t2, fused, sm)

    return bound
