"""`cudafuse hfuse --profile`: the whole run, from two kernels and a pair spec to a choice.

1. The device (nvcc backend: PyCUDA's device attributes; emu backend: the CPU emulator,
   with the limits of --arch), and the candidate options (which parts may change size).
2. The results cache: a hit re-selects from the stored records and measures nothing.
3. The candidates, emitted and compiled with nvcc in parallel for their ptxas figures and
   occupancy (profile.compiled); without nvcc (emu only) the uncapped candidates alone.
4. Programs for the baselines and every launchable candidate, built, verified against the
   native kernels and timed (profile.measure).
5. Selection (never slower than the native kernels on two streams), the report, the cache.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from cudafuse.diagnostics import CudafuseError, error
from cudafuse.profile.cache import ResultsCache, cache_key, key_inputs
from cudafuse.profile.candidates import Candidate, CandidateOptions, generate
from cudafuse.profile.device import DeviceInfo
from cudafuse.profile.exactness import build_plan
from cudafuse.profile.measure import DeviceFault, Program, Target, measure_programs
from cudafuse.profile.occupancy import DeviceLimits
from cudafuse.profile.pairspec import PairSpec
from cudafuse.profile.records import PRUNING, Record
from cudafuse.profile.report import build_report, records_from_report
from cudafuse.profile.select import Selection, SelectionError, select
from cudafuse.profile.structs import wrapped_program
from cudafuse.profile.timing import TimingPlan
from cudafuse.progress import Progress

EMULATOR = "CPU emulator (cudafuse emu backend)"
SEARCH_TOP = 3  # splits whose register caps are timed (unless exhaustive)
# Under the emulator a run takes the CPU tens of milliseconds or more: a handful of
# iterations shows the loop works; the figures mean nothing for a GPU anyway.
EMU_PLAN = TimingPlan(warmup_iterations=1, warmup_ms=0.0, min_iterations=3, min_total_ms=0.0,
                      max_iterations=3, precision=None)

# (mode, candidate or None for a baseline) -> (program source, fused kernel name; the
# launcher is that name + "_launch"); raises CudafuseError when hfuse refuses it.
Emit = Callable[[str, Candidate | None], tuple[bytes, str]]


@dataclass(frozen=True)
class Outcome:
    records: list[Record]
    selection: Selection
    report: dict[str, object]
    device: DeviceInfo
    cached: bool
    cache_path: Path | None
    notes: tuple[str, ...]


class ProfileFailed(Exception):
    """Selection refused (a wrong candidate), or a program faulted on the device
    (measure.DeviceFault): the report is still there, to be filed."""

    def __init__(self, message: str, report: dict[str, object]):
        super().__init__(message)
        self.report = report


def have_nvcc() -> bool:
    return shutil.which("nvcc") is not None


def nvcc_build() -> str:
    """nvcc's build, the last line of `nvcc --version` (`Build cuda_13.0.r13.0/compiler...`),
    as reports and plans record it; '' without nvcc. (analysis/ptxas.nvcc_version is the
    release line.)"""
    if not have_nvcc():
        return ""
    out = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout
    return out.strip().splitlines()[-1] if out.strip() else ""


def device_for(target: Target) -> tuple[DeviceInfo, DeviceLimits, Target]:
    """The device to measure on, its limits, and the target built for its architecture."""
    if target.backend == "nvcc":
        from cudafuse.profile.device import GpuUnavailable, query_device

        try:
            info, attributes = query_device()
        except GpuUnavailable as exc:
            raise error(f"{exc}; --backend emu runs the same steps under the CPU emulator",
                        status=1) from None
        return info, DeviceLimits.from_attributes(attributes), replace(target, arch=info.arch)
    digits = target.arch.removeprefix("sm_")
    cc = (int(digits[:-1]), int(digits[-1])) if digits.isdigit() and len(digits) >= 2 \
        else (0, 0)
    return DeviceInfo(EMULATOR, cc, 0), DeviceLimits.for_arch(target.arch), target


def _failed_report(records: list[Record], device: DeviceInfo, kernels: list[str],
                   options: dict[str, object], message: str) -> dict[str, object]:
    from datetime import datetime, timezone

    from cudafuse import __version__
    from cudafuse.profile.report import REPORT_FORMAT

    return {"format": REPORT_FORMAT, "tool": {"name": "cudafuse", "version": __version__},
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds").replace(
                "+00:00", "Z"),
            "device": device.to_json(), "kernels": kernels, "options": options,
            "candidates": [r.to_json() for r in records],
            "choice": {"id": None, "error": message}}


def profile_pair(*, progress: Progress | None = None, **kwargs: Any) -> Outcome:
    """The whole run (arguments as for `_profile_pair`). An error ends the progress line
    first, so that on a terminal the message starts a line of its own."""
    try:
        return _profile_pair(progress=progress, **kwargs)
    finally:
        if progress is not None:
            progress.end()


def _profile_pair(*, emit: Emit, options: CandidateOptions, pair: PairSpec, target: Target,
                  files: tuple[str, ...], displays: list[str],
                  qualified: list[str] | None = None,
                  margin: float, plan: TimingPlan | None = None,
                  cache: ResultsCache | None = None, progress: Progress | None = None,
                  exhaustive: bool = False) -> Outcome:
    for side in pair.sides:
        if side.spec.symbols:
            # A profiled program's launcher is timed alone: the copies that set them would
            # be timed with it, and leaving them unset would time other inputs than the
            # spec's. verify --hfuse sets them.
            raise error(f"the run spec of {side.kernel or 'a kernel'} sets [[symbols]] "
                        f"({', '.join(sym.name for sym in side.spec.symbols)}), which "
                        "hfuse --profile does not set before its runs; `cudafuse verify "
                        "--hfuse` does", side.spec.path or pair.path, status=2)
    device, limits, target = device_for(target)
    emu = target.backend == "emu"
    plan = plan or (EMU_PLAN if emu else TimingPlan())
    notes: list[str] = []
    if emu:
        notes.append("timed under the CPU emulator: the figures check that profiling works, "
                     "they say nothing about speed on a GPU")
    run_options: dict[str, object] = {
        "candidates": options.to_json(), "timing": plan.to_json(), "backend": target.backend,
        "arch": target.arch, "include_dirs": list(target.include_dirs),
        "defines": list(target.defines), "nvcc": nvcc_build(), "pair": pair.name,
        "exhaustive": exhaustive,
        # the timed builds' flags, and the exactness check's (profile.exactness)
        "nvcc_flags": list(target.nvcc_flags),
        "exactness_flags": list(build_plan(target.nvcc_flags, target.backend).verify),
        # which register caps are folded into another candidate (profile.compiled)
        "pruning": PRUNING}
    sources = [Path(f).read_bytes() for f in files]
    key = cache_key(sources=sources, spec=pair.text, device=device, options=run_options)
    if cache is not None:
        stored = cache.load(key)
        if stored is not None:
            records = records_from_report(stored)
            try:
                selection = select(records, margin)
            except SelectionError as exc:
                raise ProfileFailed(str(exc), stored) from None
            report = build_report(records, selection, device, kernels=displays,
                                  options=run_options)
            if progress is not None:
                progress.close(f"results from the cache, nothing measured "
                               f"({cache.path(key)})")
            return Outcome(records, selection, report, device, True, cache.path(key),
                           (*notes, f"measured before: results from the cache "
                                    f"({cache.path(key)})"))

    def emit_candidate(c: Candidate) -> tuple[bytes, str]:
        return emit(c.mode, c)

    not_top = (f"not timed: its split was not among the {SEARCH_TOP} fastest without a "
               "register cap (--exhaustive times every cap)")
    if have_nvcc():
        from cudafuse.profile.compiled import compiled_records

        def compiled(only: Callable[[Candidate], bool] | None) -> list[Record]:
            # Qualified names: the native kernels are instantiated by code including their file.
            return compiled_records(options, emit_candidate, files,
                                    tuple(qualified or displays), target.arch,
                                    target.include_dirs, target.defines, target.jobs, limits,
                                    progress, only, not_top, rank_spills=not exhaustive)

        # The caps are compiled (for ptxas' figures) only for the splits that turn out
        # fastest without one, after those are timed; --exhaustive compiles them all.
        planned = compiled(None if exhaustive else lambda c: c.regcap is None)
    else:
        notes.append("nvcc is not on PATH: no ptxas figures, so no register caps and no "
                     "occupancy; only the uncapped candidates")
        cset = generate(options, None, limits)
        planned = [*(Record.of(c) for c in cset.candidates),
                   *(Record.of(s) for s in cset.skipped)]
    kernels = tuple(qualified or displays)
    specs = [side.spec for side in pair.sides]

    def made(record: Record, source: bytes, name: str) -> Program:
        # A kernel taking a struct by value the spec gives as an array is run through a
        # host function that builds it (profile.structs); the others call the launcher.
        return Program(record, *wrapped_program(source, f"{name}_launch", specs, kernels))

    programs: list[Program] = []
    for mode in ("streams", "sequential"):
        source, name = emit(mode, None)
        programs.append(made(Record(mode, mode), source, name))
    skipped: list[Record] = []

    def program(record: Record) -> Program | None:
        assert record.threads is not None
        cand = Candidate(record.kind, record.threads[0], record.threads[1], record.regcap)
        try:
            source, name = emit(cand.mode, cand)
        except CudafuseError as exc:
            first = exc.diagnostics[0].message if exc.diagnostics else str(exc)
            skipped.append(replace(record, skip=f"hfuse refuses it: {first}"))
            return None
        return made(record, source, name)

    runnable = [r for r in planned if r.skip is None and r.threads is not None]
    skipped += [r for r in planned if r not in runnable]
    # Stage 1: the baselines and every split without a cap; stage 2: the caps of the
    # fastest splits (all of them with `exhaustive`, as HFuse times every split both ways).
    first = [r for r in runnable if r.regcap is None or exhaustive]
    later = [r for r in runnable if r not in first]
    programs += [p for p in map(program, first) if p is not None]
    timer = _timer(emu, plan, device)
    from cudafuse.profile import clocks

    before = None if emu else clocks.sample()

    def faulted(exc: DeviceFault, before: list[Record]) -> ProfileFailed:
        # The context is lost: no later run can tell anything. The records so far and
        # the faulting one go into the report, the message names the candidate.
        if progress is not None:
            progress.close("stopped: a program faulted on the device (see the error)")
        records = [*before, *exc.records, exc.record]
        return ProfileFailed(str(exc), _failed_report(records, device, displays,
                                                      run_options, str(exc)))

    try:
        measured, reference = measure_programs(programs, target, pair, timer, progress)
    except DeviceFault as exc:
        raise faulted(exc, []) from None
    fastest = sorted((r for r in measured[2:] if r.timing is not None),
                     key=lambda r: r.timing.median if r.timing else 0.0)
    top = {(r.kind, r.threads) for r in fastest[:SEARCH_TOP]}
    if have_nvcc() and not exhaustive and top:
        # Now the caps of the fastest splits, compiled beside their split's uncapped
        # candidate (ptxas' figures cached: not compiled again) so that a cap compiled to
        # its code is merged (same_as), in place of their placeholders.
        capped = {r.id: r for r in compiled(lambda c: (c.mode, (c.threads1, c.threads2))
                                            in top)
                  if r.regcap is not None and (r.kind, r.threads) in top}
        planned = [capped.get(r.id, r) for r in planned]
        later = [r for r in capped.values() if r.skip is None and r.threads is not None]
        skipped = [r for r in skipped if r.id not in capped] + \
            [r for r in capped.values() if r not in later]
    if later:
        chosen = [r for r in later if (r.kind, r.threads) in top]
        skipped += [replace(r, skip=not_top) for r in later if r not in chosen]
        more = [p for p in map(program, chosen) if p is not None]
        if more:
            try:
                extra, _ = measure_programs(more, target, pair, timer, progress, reference,
                                            " register caps")
            except DeviceFault as exc:
                raise faulted(exc, measured) from None
            measured += extra
            programs += more
    noted = None if emu else {"before": before, "after": clocks.sample()}
    measured = _sizes_misjudged(measured, (options.threads1, options.threads2), displays,
                                notes)
    order = {r.id: i for i, r in enumerate(planned)}
    records = measured[:2] + sorted([*measured[2:], *skipped],
                                    key=lambda r: (order.get(r.id, len(order)), r.id))
    try:
        selection = select(records, margin)
    except SelectionError as exc:
        if progress is not None:
            progress.close("stopped: no choice (see the error)")
        raise ProfileFailed(str(exc), _failed_report(records, device, displays, run_options,
                                                     str(exc))) from None
    try:
        records, selection = _confirmed(records, selection, programs, target, pair, emu,
                                        device, margin, progress)
    except DeviceFault as exc:
        raise faulted(exc, [r for r in records if r.id != exc.record.id]) from None
    report = build_report(records, selection, device, kernels=displays, options=run_options,
                          clocks=noted)
    path = None
    if cache is not None:
        path = cache.store(key, report, key_inputs(sources=sources, spec=pair.text,
                                                   device=device, options=run_options))
    if progress is not None:
        timed = sum(1 for r in records if r.timing is not None)
        progress.close(f"{timed} of {len(records)} configurations timed "
                       f"(the others skipped, with the reason, in the report)")
    return Outcome(records, selection, report, device, False, path, tuple(notes))


def _sizes_misjudged(records: list[Record], native: tuple[int, int], displays: list[str],
                     notes: list[str]) -> list[Record]:
    """A candidate that gives a part another block size than the spec's and computes other
    results than the natives shows a block-size dependence the analysis missed (the part
    was judged tunable): its judgement was wrong, not the fusion. Such a candidate is
    skipped with that reason, and a note says so; one at the spec's own sizes that differs
    is still a wrong fused kernel (select() refuses to choose)."""
    out = []
    for r in records:
        if r.verified is False and r.threads is not None and r.threads != native:
            parts = [f"'{displays[i]}' at {r.threads[i]} threads (spec: {native[i]})"
                     for i in (0, 1) if r.threads[i] != native[i]]
            why = (f"computes other results than the native kernels with {' and '.join(parts)}"
                   ": its results depend on its block size, which cudafuse's analysis did not "
                   "see (profiling should have kept the spec's size)")
            notes.append(f"{r.id} {why}; skipped, and please report the kernel")
            r = replace(r, verified=None, timing=None, skip=why)
        out.append(r)
    return out


CONFIRM_ROUNDS = 5
# Fixed-size rounds (no early stop, no extension): rounds alternate, so each must be alike.
CONFIRM_PLAN = TimingPlan(warmup_iterations=1, warmup_ms=0.0, min_iterations=10,
                          min_total_ms=50.0, precision=None)


def _confirmed(records: list[Record], selection: Selection, programs: list[Program],
               target: Target, pair: PairSpec, emu: bool, device: DeviceInfo, margin: float,
               progress: Progress | None = None) -> tuple[list[Record], Selection]:
    """Against the winner's curse: when a fused candidate won, time it and the streams
    baseline again, alternately (CONFIRM_ROUNDS rounds), and choose on those timings. If
    another fused candidate then leads, confirm it in turn (at most three times)."""
    from cudafuse.profile.measure import confirm
    from cudafuse.profile.stats import summarize

    by_id = {p.record.id: p for p in programs}
    confirmed: set[str] = set()
    for _ in range(3):
        best = selection.choice if not selection.native else None
        if best is None or best.id in confirmed:
            break
        ids = [i for i in ("streams", best.id) if i not in confirmed]
        timer = _timer(emu, EMU_PLAN if emu else CONFIRM_PLAN, device)
        samples = confirm([by_id[i] for i in ids], target, pair, timer,
                          1 if emu else CONFIRM_ROUNDS, progress)
        confirmed.update(ids)
        records = [replace(r, timing=summarize(samples[r.id])) if r.id in samples else r
                   for r in records]
        selection = select(records, margin)
    if confirmed:
        rounds = 1 if emu else CONFIRM_ROUNDS
        selection = replace(selection, lines=(
            *selection.lines, f"timings of {', '.join(sorted(confirmed))} are from "
            f"{rounds} alternating confirmation round(s), not the first pass"))
    return records, selection


def _timer(emu: bool, plan: TimingPlan, device: DeviceInfo) -> Any:
    from cudafuse.profile.measure import gpu_timer, host_timer

    return host_timer(plan) if emu else gpu_timer(plan, device.l2_bytes)
