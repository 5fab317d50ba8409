"""The candidates of a horizontal fusion, emitted and compiled: registers, shared memory and
spills from ptxas (nvcc needs no GPU for that), and the theoretical occupancy they allow.

This is the part of `--profile` that runs before anything is timed, and what
`cudafuse hfuse-plan` prints: a candidate that cannot launch is skipped here with the reason.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
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
    # (hfuse-plan, then hfuse --profile) is not compiled again.
    got = compile_figures(source, arch, tuple(flags), f"c{index}.cu")
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
                     left_out: str = "") -> list[Record]:
    """Every candidate of `options` (register caps around HFuse's bound for the originals'
    ptxas figures), compiled in parallel, as records without timings; skipped splits and
    caps, and candidates hfuse or nvcc refuse, as records with the reason; a cap that buys
    nothing over another candidate of its split, as a record with `same_as` (merge_same).
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
    results: list[Resources | str | Record | None] = [None] * len(emitted)
    # The uncapped candidates first: a cap can only buy a block per SM (no cap spills least),
    # so the caps of a split whose uncapped kernel is not limited by its registers are
    # dominated and never compiled (prune_caps).
    uncapped = [i for i, (c, _, _) in enumerate(emitted) if c.regcap is None]
    _compile_all(emitted, uncapped, results, arch, flags, jobs, progress)
    first: dict[tuple[str, tuple[int, int]], Record] = {}
    for i in uncapped:
        got = results[i]
        if isinstance(got, Resources):
            cand = emitted[i][0]
            first[(cand.mode, (cand.threads1, cand.threads2))] = _record(cand, got, limits)
    capped = []
    for i, (cand, _, _) in enumerate(emitted):
        if cand.regcap is None:
            continue
        pruned = prune_cap(cand, first.get((cand.mode, (cand.threads1, cand.threads2))))
        if pruned is not None:
            results[i] = pruned
            phase_step(progress, cand.id)
        else:
            capped.append(i)
    _compile_all(emitted, capped, results, arch, flags, jobs, progress)
    for (cand, _, _), got in zip(emitted, results, strict=True):
        split = (cand.threads1, cand.threads2)
        if isinstance(got, Record):
            records.append(got)
        elif isinstance(got, Resources):
            records.append(_record(cand, got, limits))
        else:
            records.append(Record(cand.id, cand.mode, split, cand.regcap,
                                  skip=got or "not compiled"))
    order = {c.id: i for i, c in enumerate(cset.candidates)}
    return merge_same(sorted(records, key=lambda r: (order.get(r.id, len(order)), r.id)))


def _compile_all(emitted: list[tuple[Candidate, bytes, str]], which: list[int],
                 results: list[Resources | str | Record | None], arch: str, flags: list[str],
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


def prune_cap(cand: Candidate, uncapped: Record | None) -> Record | None:
    """A register-capped candidate dominated by its split's uncapped one, as a record that
    stands for it (`same_as`, a skip reason), or None when it must be compiled.

    A cap is there to buy a block per SM or to remove spills (profile.candidates). It leaves
    the fused kernel's threads and shared memory as they are, so it cannot give more blocks
    per SM than those allow; when the uncapped kernel already has that many (its registers
    are not what limits it) and spills nothing, a cap can at best match it (merge_same's
    "buys nothing") or lose blocks (ptxas may use up to a cap above what it takes without
    one: 40 registers under __maxnreg__(40) where the uncapped kernel took 32): dominated on
    both figures either way, so it is not compiled."""
    if uncapped is None or uncapped.skip is not None or uncapped.occupancy is None or \
            _spills(uncapped):
        return None
    occ = uncapped.occupancy
    others = [n for r, n in occ.by_resource.items() if r != "registers"]
    if not others or occ.blocks_per_sm < min(others):
        return None  # registers limit it: a cap may buy a block
    return Record(cand.id, cand.mode, (cand.threads1, cand.threads2), cand.regcap,
                  same_as=uncapped.id,
                  skip=f"register cap {cand.regcap}: cannot buy a block over {uncapped.id} "
                       f"({occ.blocks_per_sm} blocks/SM, limited by "
                       f"{', '.join(r for r in occ.limits if r != 'registers')}, not its "
                       f"{uncapped.registers} registers) nor remove spills (it has none); "
                       "not compiled")


def _spills(r: Record) -> int:
    return (r.spill_stores or 0) + (r.spill_loads or 0)


def merge_same(records: list[Record]) -> list[Record]:
    """Drop the register caps that buy nothing. A cap is there to buy a block per SM or to
    remove spills (module docstring of profile.candidates); a capped candidate whose split
    already has a kept candidate (no cap, or a lower cap) with the same blocks per SM and no
    more spill bytes does neither, whatever its register count. It gets `same_as` (that
    candidate) and a skip reason, so it is neither built nor timed and the report still
    says what became of it. Records in generation order (no cap first, caps ascending)."""
    kept: dict[tuple[str, tuple[int, int] | None], list[Record]] = {}
    out = []
    for r in records:
        if r.skip is not None or r.occupancy is None:
            out.append(r)
            continue
        split = kept.setdefault((r.kind, r.threads), [])
        better = next((k for k in split if r.regcap is not None
                       and k.occupancy is not None
                       and k.occupancy.blocks_per_sm == r.occupancy.blocks_per_sm
                       and _spills(k) <= _spills(r)), None)
        if better is None:
            split.append(r)
            out.append(r)
            continue
        same = (r.registers, r.shared_bytes, r.spill_stores, r.spill_loads) == \
            (better.registers, better.shared_bytes, better.spill_stores, better.spill_loads)
        why = (f"the same kernel as {better.id} (ptxas: {r.registers} registers, "
               f"{_spills(r)} spill bytes either way)" if same else
               f"buys nothing over {better.id}: {r.occupancy.blocks_per_sm} blocks/SM "
               f"either way, {_spills(r)} spill bytes against {_spills(better)}")
        out.append(replace(r, same_as=better.id, skip=f"register cap {r.regcap}: {why}"))
    return out
