"""The candidates of a horizontal fusion, emitted and compiled: registers, shared memory and
spills from ptxas (nvcc needs no GPU for that), and the theoretical occupancy they allow.

This is the part of `--profile` that runs before anything is timed, and what
`cudafuse hfuse-plan` prints: a candidate that cannot launch is skipped here with the reason,
and a register cap that compiles to the same machine code as another candidate of its split
is that candidate (merge_same), so it is timed once.

Every cap is compiled: what ptxas makes of a cap cannot be told before. A cap is a target
for its register allocator, not only a bound: batchnorm_stats+histogram at 512+512 threads
takes 31 registers uncapped and 37 under __maxnreg__(40), one block per SM fewer, and the
H200 timed it 1.5x faster (0.44 ms against 0.67: four loads issued before the adds). An
occupancy rule ("a cap cannot buy a block here, so it is dominated") dropped that winner.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path

from cudafuse.analysis.ptxas import Resources, compile_figures, lookup, parse_ptxas
from cudafuse.diagnostics import CudafuseError, error
from cudafuse.passes.horizontal.regbound import SMS, native_resources
from cudafuse.profile.candidates import Candidate, CandidateOptions, generate, hfuse_bound
from cudafuse.profile.occupancy import DeviceLimits, occupancy
from cudafuse.profile.records import Record
from cudafuse.progress import Progress, phase_start, phase_step


def parse_figures(text: str, kernel: str) -> Resources | None:
    """ptxas's figures for the entry function named `kernel` (unmangled)."""
    return parse_ptxas(text).get(kernel)


# Emits one candidate's program: (candidate) -> (source bytes, fused kernel name), or raises
# CudafuseError when hfuse refuses that configuration.
Emit = Callable[[Candidate], tuple[bytes, str]]


def _compile(source: bytes, kernel: str, arch: str, flags: list[str], index: int
             ) -> Resources | str:
    # Device code only, cached by content (analysis.ptxas): a candidate compiled before
    # (hfuse-plan, then hfuse --profile) is not compiled again. With its code digest.
    got = compile_figures(source, arch, tuple(flags), f"c{index}.cu", code=True)
    if isinstance(got, str):
        return got
    figures = got.get(kernel)
    return figures if figures is not None else f"ptxas reported no figures for {kernel}"


def compiled_records(options: CandidateOptions, emit: Emit, originals: tuple[str, ...],
                     kernels: tuple[str, str], arch: str, include_dirs: tuple[str, ...] = (),
                     defines: tuple[str, ...] = (),
                     jobs: int | None = None,
                     limits: DeviceLimits | None = None,
                     progress: Progress | None = None,
                     only: Callable[[Candidate], bool] | None = None,
                     left_out: str = "", rank_spills: bool = True) -> list[Record]:
    """Every candidate of `options` (register caps around HFuse's bound for the originals'
    ptxas figures), compiled in parallel, as records without timings; skipped splits and
    caps, and candidates hfuse or nvcc refuse, as records with the reason; a cap compiled
    to the same code as another candidate of its split, as a record with `same_as`
    (merge_same); with `rank_spills`, a cap that only adds spills, as a record skipped with
    that reason (rank_spilling; --exhaustive times them).
    `limits`: the device's (default: the figures for `arch`). `progress` gets the phases
    "compiling the native kernels", "emitting candidates" and "compiling candidates".
    `only`: compile just the candidates it accepts; the others become records skipped with
    the reason `left_out` (--profile compiles the register caps of the splits it will time,
    not of all: with 13 splits of two crypto kernels, 70 compiles instead of 26)."""
    if shutil.which("nvcc") is None:
        raise error("compiling the candidates needs nvcc on PATH", status=2)
    if arch not in SMS:
        raise error(f"profiling knows {', '.join(SMS)}, not '{arch}'", status=2)
    pair = [originals[0], originals[-1]]  # one file holding both kernels, or one each
    phase_start(progress, "compiling the native kernels", len(set(pair)))
    found = native_resources(pair, tuple(kernels), arch, include_dirs, defines)
    for path in dict.fromkeys(pair):
        phase_step(progress, Path(path).name)
    flags = [*(f"-I{d}" for d in include_dirs), *(f"-D{d}" for d in defines)]
    r1, r2 = lookup(found, kernels[0]), lookup(found, kernels[1])
    bound = hfuse_bound(r1, r2, SMS[arch]) if r1 is not None and r2 is not None else None
    limits = limits or DeviceLimits.for_arch(arch)
    cset = generate(options, bound, limits)
    records = [Record.of(s) for s in cset.skipped]
    wanted = [c for c in cset.candidates if only is None or only(c)]
    records += [Record(c.id, c.mode, (c.threads1, c.threads2), c.regcap, skip=left_out)
                for c in cset.candidates if only is not None and not only(c)]
    emitted: list[tuple[Candidate, bytes, str]] = []
    phase_start(progress, "emitting candidates", len(wanted))
    for cand in wanted:
        try:
            source, name = emit(cand)
            emitted.append((cand, source, name))
        except CudafuseError as exc:
            first = exc.diagnostics[0].message if exc.diagnostics else str(exc)
            records.append(Record(cand.id, cand.mode, (cand.threads1, cand.threads2),
                                  cand.regcap, skip=f"hfuse refuses it: {first}"))
        phase_step(progress, cand.id)
    phase_start(progress, "compiling candidates", len(emitted))
    results: list[Resources | str | None] = [None] * len(emitted)
    _compile_all(emitted, list(range(len(emitted))), results, arch, flags, jobs, progress)
    codes: dict[str, str] = {}
    for (cand, _, _), got in zip(emitted, results, strict=True):
        split = (cand.threads1, cand.threads2)
        if isinstance(got, Resources):
            records.append(_record(cand, got, limits))
            if got.code:
                codes[cand.id] = got.code
        else:
            records.append(Record(cand.id, cand.mode, split, cand.regcap,
                                  skip=got or "not compiled"))
    order = {c.id: i for i, c in enumerate(cset.candidates)}
    merged = merge_same(sorted(records, key=lambda r: (order.get(r.id, len(order)), r.id)),
                        codes)
    return rank_spilling(merged) if rank_spills else merged


def _compile_all(emitted: list[tuple[Candidate, bytes, str]], which: list[int],
                 results: list[Resources | str | None], arch: str, flags: list[str],
                 jobs: int | None, progress: Progress | None) -> None:
    """Compile emitted[i] for every i of `which` in parallel, into results[i]."""
    if not which:
        return
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        futures = {pool.submit(_compile, emitted[i][1], emitted[i][2], arch, flags, i): i
                   for i in which}
        # Counted here, in the calling thread, as each compile finishes (in any order).
        for future in as_completed(futures):
            i = futures[future]
            results[i] = future.result()
            phase_step(progress, emitted[i][0].id)


def _record(cand: Candidate, got: Resources, limits: DeviceLimits) -> Record:
    occ = occupancy(limits, cand.threads, got.registers, got.static_shared)
    return Record(cand.id, cand.mode, (cand.threads1, cand.threads2), cand.regcap,
                  got.registers, got.static_shared, got.spill_stores, got.spill_loads, occ,
                  skip=f"cannot launch: {occ.reason}" if occ.blocks_per_sm == 0 else None)


def _spills(r: Record) -> int:
    return (r.spill_stores or 0) + (r.spill_loads or 0)


def merge_same(records: list[Record], codes: Mapping[str, str]) -> list[Record]:
    """Fold each register cap that compiled to the same program as a candidate before it in
    its split (no cap, or a lower cap) into that candidate: the same machine code (`codes`:
    record id -> analysis.cubin digest) and the same ptxas figures (registers, shared
    memory, spills), so the same occupancy and the same time. It gets `same_as` (the twin)
    and a skip reason naming it, so it is neither built nor timed and the report still says
    what became of it. A cap whose code differs is kept, whatever its figures: other
    registers or another schedule can be faster at fewer blocks per SM (module docstring),
    and equal figures do not make equal code (r40 and r48 of the pair above: 37 registers
    each, two schedules). A record without a digest is never folded. Records in generation
    order (no cap first, caps ascending)."""
    kept: dict[tuple[str, tuple[int, int] | None], list[Record]] = {}
    out = []
    for r in records:
        if r.skip is not None or r.occupancy is None or not codes.get(r.id):
            out.append(r)
            continue
        split = kept.setdefault((r.kind, r.threads), [])
        twin = next((k for k in split if r.regcap is not None and codes[k.id] == codes[r.id]
                     and _figures(k) == _figures(r)), None)
        if twin is None:
            split.append(r)
            out.append(r)
            continue
        # The twin stands for it wherever it goes (timed, or ranked by rank_spilling).
        why = (f"compiled to the same code as {twin.id} (machine code sha256 "
               f"{codes[r.id][:12]}, {r.registers} registers, {_spills(r)} spill bytes): one "
               "program, not timed twice")
        out.append(replace(r, same_as=twin.id, skip=f"register cap {r.regcap}: {why}"))
    return out


def rank_spilling(records: list[Record]) -> list[Record]:
    """Rank below the others, untimed, each register cap that spills more bytes than a
    timed candidate of its split with at least as many blocks per SM: a cap is there to buy
    a block per SM or to remove spills, and this one does neither. Unlike merge_same this is
    a judgement, not an identity (it is another program, which might still be faster), so
    the reason says so and names the candidate, the record keeps its figures, and
    `--exhaustive` times it. Records in generation order, after merge_same."""
    timed: dict[tuple[str, tuple[int, int] | None], list[Record]] = {}
    out = []
    for r in records:
        if r.skip is not None or r.occupancy is None:
            out.append(r)
            continue
        split = timed.setdefault((r.kind, r.threads), [])
        better = next((k for k in split if r.regcap is not None and k.occupancy is not None
                       and k.occupancy.blocks_per_sm >= r.occupancy.blocks_per_sm
                       and _spills(k) < _spills(r)), None)
        if better is None:
            split.append(r)
            out.append(r)
            continue
        assert better.occupancy is not None
        out.append(replace(r, skip=(
            f"register cap {r.regcap}: ranked below {better.id}, not timed: {_spills(r)} "
            f"spill bytes against {_spills(better)}, {r.occupancy.blocks_per_sm} blocks/SM "
            f"against {better.occupancy.blocks_per_sm} (judged slower, not measured; "
            "--exhaustive times it)")))
    return out


def _figures(r: Record) -> tuple[int | None, ...]:
    return (r.registers, r.shared_bytes, r.spill_stores, r.spill_loads)
