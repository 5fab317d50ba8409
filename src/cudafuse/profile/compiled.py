"""The candidates of a horizontal fusion, emitted and compiled: registers, shared memory and
spills from ptxas (nvcc needs no GPU for that), and the theoretical occupancy they allow.

This is the part of `--profile` that runs before anything is timed, and what
`cudafuse hfuse-plan` prints: a candidate that cannot launch is skipped here with the reason.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from cudafuse.diagnostics import CudafuseError, error
from cudafuse.hfuse.regbound import SMS, Resources, lookup, parse_ptxas, ptxas_resources
from cudafuse.profile.candidates import Candidate, CandidateOptions, generate, hfuse_bound
from cudafuse.profile.occupancy import DeviceLimits, occupancy
from cudafuse.profile.records import Record


def parse_figures(text: str, kernel: str) -> Resources | None:
    """ptxas's figures for the entry function named `kernel` (unmangled)."""
    return parse_ptxas(text).get(kernel)


# Emits one candidate's program: (candidate) -> (source bytes, fused kernel name), or raises
# CudafuseError when hfuse refuses that configuration.
Emit = Callable[[Candidate], tuple[bytes, str]]


def _compile(source: bytes, kernel: str, arch: str, flags: list[str], tmp: Path,
             index: int) -> Resources | str:
    src = tmp / f"c{index}.cu"
    src.write_bytes(source)
    # Device code only (-cubin): ptxas's figures without compiling the host side, which
    # takes more than half of a full -c.
    cmd = ["nvcc", f"-arch={arch}", "-cubin", "--resource-usage", str(src), "-o",
           str(tmp / f"c{index}.cubin"), *flags]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if res.returncode != 0:
        return "nvcc failed: " + " ".join(res.stderr.split())[:300]
    figures = parse_figures(res.stdout + res.stderr, kernel)
    return figures if figures is not None else f"ptxas reported no figures for {kernel}"


def compiled_records(options: CandidateOptions, emit: Emit, originals: tuple[str, ...],
                     kernels: tuple[str, str], arch: str, include_dirs: tuple[str, ...] = (),
                     defines: tuple[str, ...] = (),
                     jobs: int | None = None,
                     limits: DeviceLimits | None = None) -> list[Record]:
    """Every candidate of `options` (register caps around HFuse's bound for the originals'
    ptxas figures), compiled in parallel, as records without timings; skipped splits and
    caps, and candidates hfuse or nvcc refuse, as records with the reason. `limits`: the
    device's (default: the figures for `arch`)."""
    if shutil.which("nvcc") is None:
        raise error("compiling the candidates needs nvcc on PATH", status=2)
    if arch not in SMS:
        raise error(f"profiling knows {', '.join(SMS)}, not '{arch}'", status=2)
    found: dict[str, object] = {}
    for path in dict.fromkeys(originals):
        found.update(ptxas_resources(path, arch, include_dirs, defines))
    flags = [*(f"-I{d}" for d in include_dirs), *(f"-D{d}" for d in defines)]
    r1, r2 = lookup(found, kernels[0]), lookup(found, kernels[1])
    bound = hfuse_bound(r1, r2, SMS[arch]) if r1 is not None and r2 is not None else None
    limits = limits or DeviceLimits.for_arch(arch)
    cset = generate(options, bound, limits)
    records = [Record.of(s) for s in cset.skipped]
    emitted: list[tuple[Candidate, bytes, str]] = []
    for cand in cset.candidates:
        try:
            source, name = emit(cand)
        except CudafuseError as exc:
            first = exc.diagnostics[0].message if exc.diagnostics else str(exc)
            records.append(Record(cand.id, cand.mode, (cand.threads1, cand.threads2),
                                  cand.regcap, skip=f"hfuse refuses it: {first}"))
            continue
        emitted.append((cand, source, name))
    with tempfile.TemporaryDirectory(prefix="cudafuse-candidates-") as tmp, \
            ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        results = list(pool.map(
            lambda item: _compile(item[1][1], item[1][2], arch, flags, Path(tmp), item[0]),
            enumerate(emitted)))
    for (cand, _, _), got in zip(emitted, results, strict=True):
        split = (cand.threads1, cand.threads2)
        if isinstance(got, str):
            records.append(Record(cand.id, cand.mode, split, cand.regcap, skip=got))
            continue
        occ = occupancy(limits, cand.threads, got.registers, got.static_shared)
        records.append(Record(cand.id, cand.mode, split, cand.regcap, got.registers,
                              got.static_shared, got.spill_stores, got.spill_loads, occ,
                              skip=f"cannot launch: {occ.reason}" if occ.blocks_per_sm == 0
                              else None))
    order = {c.id: i for i, c in enumerate(cset.candidates)}
    return sorted(records, key=lambda r: (order.get(r.id, len(order)), r.id))
