"""The measuring part of `cudafuse hfuse --profile`: build every program, check each one's
outputs against the native kernels', then time the ones that agree.

Every configuration is a whole program (the inputs, unchanged, plus a launcher of one
signature: `launch(args1..., args2..., grid1, grid2, smem1, smem2, stream)`), so the
baselines and the candidates are run the same way:

- `streams`: the two native kernels on two streams. Its outputs are the reference.
- `sequential`: the two native kernels one after the other.
- each fused candidate (thread or block mode, a split, a register cap).

Programs are built in parallel (nvcc or g++, through the runtime's content-hashed build
cache), then run one at a time: fresh spec inputs, one run, every output compared with the
reference (the spec's rtol/atol; integers exactly), and only then timed with
`timing.measure` on buffers that stay on the device (runtime.prepared).
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from cudafuse.diagnostics import CudafuseError, error
from cudafuse.profile.inputs import fresh_inputs
from cudafuse.profile.pairspec import PairSpec
from cudafuse.profile.records import Record
from cudafuse.profile.stats import summarize
from cudafuse.profile.timing import TimingPlan, measure
from cudafuse.progress import Progress, phase_start, phase_step
from cudafuse.runtime.spec import Comparison, Spec, compare

EMU_TIMEOUT = 600.0  # seconds for one emulated run
EXTENDED_LAMBDA = "--extended-lambda"

# CUDA errors that mean "this configuration cannot launch here" (too many resources, an
# invalid block), not "this configuration is wrong".
_CANNOT_LAUNCH = {7: "too many resources requested for launch",
                  9: "invalid launch configuration"}
# CUDA errors after which the context is lost (an illegal or misaligned address, a trap, an
# illegal instruction, a launch failure): every later call in this process fails too.
_FAULTS = frozenset({700, 702, 710, 714, 715, 716, 717, 718, 719})


class DeviceFault(Exception):
    """A program faulted on the device: the CUDA context is lost, nothing more can run in
    this process. `record` is the faulting program's, marked wrong; `records` the ones
    measured before it in the same round (measure_programs fills them in)."""

    def __init__(self, record: Record, cause: str):
        if record.fused:
            message = (f"candidate {record.id} faulted on the device ({cause}) where the "
                       "native kernels ran on the same inputs and were verified: the fused "
                       "kernel is wrong, a bug in cudafuse (please report the kernels and "
                       "the pair spec). The CUDA context is lost, so profiling stops here; "
                       "nothing was chosen")
        else:
            message = (f"the native kernels ({record.id}) faulted on the device ({cause}): "
                       "the pair spec's inputs or launch do not fit the kernels (grid, "
                       "sizes, array counts); `cudafuse verify --hfuse` under the emulator "
                       "names the bad access")
        super().__init__(message)
        self.record = replace(record, verified=False, skip=f"it faulted on the device: "
                              f"{cause}")
        self.records: list[Record] = []


def _is_fault(exc: Exception, backend: str) -> bool:
    """Whether `exc`, raised by a run on `backend`, means the device faulted: a CUDA error
    that loses the context, or any error PyCUDA raises while waiting for the work (the
    H200's `cuCtxSynchronize failed: an illegal memory access was encountered`)."""
    if backend != "nvcc":
        return False
    code = getattr(exc, "code", None)
    return code in _FAULTS or type(exc).__module__.split(".")[0] == "pycuda"


@dataclass(frozen=True)
class Program:
    record: Record  # what is known before running: id, kind, split, cap, ptxas figures
    source: bytes
    launcher: str


@dataclass(frozen=True)
class Target:
    """Where and how programs are built and run."""

    backend: str  # nvcc | emu
    arch: str = "sm_90"
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    jobs: int | None = None
    nvcc_flags: tuple[str, ...] = ()  # nvcc only: after the build's own (profile.exactness)


def build_one(path: Path, target: Target) -> str | None:
    """Build `path` for the target's backend (through the runtime's build cache): None,
    or why it failed."""
    from cudafuse.runtime.build import BuildOptions, build

    try:
        build(str(path), target.backend, BuildOptions(target.include_dirs, target.defines,
                                                      arch=target.arch,
                                                      nvcc_flags=_nvcc_flags(target)))
    except CudafuseError as exc:
        first = exc.diagnostics[0].format().splitlines()[0] if exc.diagnostics else str(exc)
        return f"the build failed: {first}"
    return None


def _nvcc_flags(target: Target) -> tuple[str, ...]:
    """The target's nvcc flags, for an nvcc build only: an emulator build with them would
    be the same build under another cache key. --extended-lambda first, as PyTorch builds
    and cudafuse's compile check (codegen/compile_check.py) compiles: ATen's files hold
    `[] __device__ (...)` lambdas (SummaryOps.cu) that nvcc refuses without it."""
    return (EXTENDED_LAMBDA, *target.nvcc_flags) if target.backend == "nvcc" else ()


def program_path(source: bytes, name: str) -> Path:
    """Where a program is written to be built: a folder of the build cache named by its
    content. The build's key covers the program's folder (nvcc is given -I of it), so the
    fresh temporary folder each run used to write into made every build new: the
    confirmation round rebuilt the programs it had just timed, and `fuse --profile` at a
    second size rebuilt every variant. Here a program built before is found built."""
    from cudafuse.runtime.build import cache_dir

    folder = cache_dir() / "profile-programs" / hashlib.sha256(source).hexdigest()[:24]
    path = folder / f"{name.replace(':', '_').replace('+', '_')}.cu"
    if not path.exists() or path.read_bytes() != source:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp"
        tmp.write_bytes(source)
        os.replace(tmp, path)  # whole, for a process building the same program beside us
    return path


def build_programs(programs: Sequence[Program], target: Target,
                   progress: Progress | None = None, phase: str = "building"
                   ) -> list[tuple[Path, str | None]]:
    """Write and build every program in parallel: per program its path, and None or why
    it failed to build."""
    paths = [program_path(prog.source, prog.record.id) for prog in programs]
    phase_start(progress, phase, len(paths))
    out: list[str | None] = [None] * len(paths)
    with ThreadPoolExecutor(max_workers=target.jobs or os.cpu_count() or 1) as pool:
        futures = {pool.submit(build_one, path, target): i for i, path in enumerate(paths)}
        # Counted in the calling thread, as each build finishes.
        for future in as_completed(futures):
            i = futures[future]
            out[i] = future.result()
            phase_step(progress, programs[i].record.id)
    return list(zip(paths, out, strict=True))


def _state(record: Record) -> str:
    """A measured record in a few words, for the progress line."""
    if record.verified is False:
        return "WRONG"
    if record.skip:
        return "skipped"
    note = " (differs under the timed flags: see the notes)" if record.note else ""
    return (f"verified, {record.timing.median:.4g} ms" if record.timing else "verified") + note


def _arguments(pair: PairSpec) -> tuple[list[list[Any]], tuple[Any, ...]]:
    """Fresh inputs of both kernels and the launcher's argument list over them."""
    s1, s2 = pair.sides
    inputs = [fresh_inputs(s1.spec), fresh_inputs(s2.spec)]
    args = (*inputs[0], *inputs[1], s1.dims(s1.grid), s2.dims(s2.grid), s1.shared, s2.shared,
            None)
    return inputs, args


def spec_outputs(spec: Spec, values: list[Any]) -> list[np.ndarray]:
    """Copies of the output arguments among `values` (a run of `spec.inputs()`)."""
    return [np.array(v, copy=True) for a, v in zip(spec.args, values, strict=True)
            if a.is_output]


def spec_mismatch(spec: Spec, reference: list[np.ndarray], got: list[np.ndarray]
                  ) -> tuple[str, Comparison] | None:
    """The first output (name, comparison) that differs from the reference, by the spec's
    rtol/atol (integers exactly), or None."""
    outputs = [a for a in spec.args if a.is_output]
    for a, want, have in zip(outputs, reference, got, strict=True):
        if _identical(want, have):
            continue  # what compare() would find too, at a fraction of its cost
        c = compare(a, want.reshape(-1), have.reshape(-1), spec.rtol, spec.atol)
        if c.mismatches:
            return a.name, c
    return None


def _identical(a: np.ndarray, b: np.ndarray) -> bool:
    """The same bytes. compare() turns both sides into float64 and builds several
    temporaries of that size: seconds for the hundreds of millions of elements a grown
    benchmark writes, while every verified candidate's outputs are bit-identical to the
    reference's unless nvcc contracted differently."""
    return (a.dtype == b.dtype and a.shape == b.shape and a.flags.c_contiguous and
            b.flags.c_contiguous and np.array_equal(a.reshape(-1).view(np.uint8),
                                                    b.reshape(-1).view(np.uint8)))


def _outputs(pair: PairSpec, inputs: list[list[Any]]) -> list[np.ndarray]:
    return [o for side, values in zip(pair.sides, inputs, strict=True)
            for o in spec_outputs(side.spec, values)]


def _differences(pair: PairSpec, reference: list[np.ndarray], got: list[np.ndarray]
                 ) -> str:
    """'' when every output agrees with the reference, else the first difference."""
    start = 0
    for side in pair.sides:
        count = sum(1 for a in side.spec.args if a.is_output)
        wrong = spec_mismatch(side.spec, reference[start:start + count],
                              got[start:start + count])
        start += count
        if wrong is not None:
            name, c = wrong
            return (f"{side.kernel or 'kernel'} output '{name}' differs from the native "
                    f"kernels' in {c.mismatches} element(s), first at {c.first}")
    return ""


def _launch_failure(exc: Exception) -> str | None:
    code = getattr(exc, "code", None)
    if code in _CANNOT_LAUNCH:
        return f"cannot launch: {_CANNOT_LAUNCH[code]} (CUDA error {code})"
    return None


class Runner:
    """Loads programs and runs them; `timer(launch)` returns per-iteration milliseconds."""

    def __init__(self, target: Target, pair: PairSpec,
                 timer: Callable[[Callable[[], object]], list[float]]):
        self.target, self.pair, self.timer = target, pair, timer

    def load(self, path: Path) -> Any:
        from cudafuse.runtime import load

        # Under the emulator a candidate that never finishes must not stall the run.
        extra = {"timeout": EMU_TIMEOUT} if self.target.backend == "emu" else {}
        return load(path, backend=self.target.backend, include_dirs=self.target.include_dirs,
                    defines=list(self.target.defines), arch=self.target.arch,
                    nvcc_flags=_nvcc_flags(self.target), **extra)

    def run(self, prog: Program, path: Path, reference: list[np.ndarray] | None,
            time: bool = True, exact: bool = False) -> tuple[Record, list[np.ndarray] | None]:
        """The program's record, verified (against `reference`; None: it is the reference)
        and, when verified and `time`, timed; and its outputs. `exact`: outputs that are not
        bit-identical to the reference give a record skipped with DIFFERS, neither verified
        nor wrong (the caller checks it on a build with IEEE flags)."""
        from cudafuse.runtime.errors import KernelError

        lib = self.load(path)
        faulted = False
        try:
            inputs, args = _arguments(self.pair)
            prep = lib.prepare(prog.launcher, *args)
            try:
                try:
                    prep.run()
                    prep.fetch()
                except Exception as exc:
                    if _is_fault(exc, self.target.backend):
                        faulted = True
                        raise DeviceFault(prog.record, str(exc)) from None
                    if not isinstance(exc, KernelError):
                        raise
                    cannot = _launch_failure(exc)
                    if cannot is not None and prog.record.fused:
                        return replace(prog.record, skip=cannot), None
                    if reference is None:
                        raise
                    return replace(prog.record, verified=False,
                                   skip=f"it failed: {exc}"), None
                outputs = _outputs(self.pair, inputs)
                if exact and reference is not None and not all(
                        _identical(a, b) for a, b in zip(reference, outputs, strict=True)):
                    return replace(prog.record, skip=DIFFERS), outputs
                if reference is not None:
                    wrong = _differences(self.pair, reference, outputs)
                    if wrong:
                        return replace(prog.record, verified=False, skip=wrong), outputs
                if not time:
                    return replace(prog.record, verified=True), outputs
                try:
                    times = self.timer(prep.run)
                except Exception as exc:
                    if not _is_fault(exc, self.target.backend):
                        raise
                    faulted = True
                    raise DeviceFault(prog.record, f"while timed: {exc}") from None
            finally:
                _close(prep, faulted)
        finally:
            _close(lib, faulted)
        return replace(prog.record, verified=True, timing=summarize(times)), outputs


def _close(thing: Any, faulted: bool) -> None:
    """Free what a run held; after a fault the frees fail as well (the context is lost),
    and that must not hide the fault."""
    try:
        thing.close()
    except Exception:
        if not faulted:
            raise


# The reference outputs of the streams baseline: under the timed builds' flags, and under
# the exactness check's (the same list when they are one build: profile.exactness).
Reference = tuple[list[np.ndarray], list[np.ndarray]]


def _output_names(pair: PairSpec) -> list[str]:
    return [f"{side.kernel or 'kernel'}:{a.name}" for side in pair.sides
            for a in side.spec.args if a.is_output]


DIFFERS = "not bit-identical to the streams baseline under the timed flags"


def _checked(prog: Program, outputs: list[np.ndarray], path: Path, refs: Reference,
             runner: Runner, checker: Runner, flags: str) -> Record:
    """A program whose outputs under the timed flags are not bit-identical to the streams
    baseline's: built with IEEE flags (one build, now) and compared there within the run
    spec's tolerance. Wrong there: a wrong record. Right: timed on its timed build, with a
    note of how its timed outputs differ (nvcc's contraction choices)."""
    from cudafuse.profile.exactness import difference

    (ieee_path, failed), = build_programs([prog], checker.target)
    if failed is not None:
        if not prog.record.fused:
            raise error(f"the {prog.record.id} baseline: (IEEE build) {failed}")
        return replace(prog.record, skip=f"(IEEE build) {failed}")
    checked, _ = checker.run(prog, ieee_path, refs[1], time=False)
    if checked.verified is not True or checked.skip:
        return checked
    diff = difference(_output_names(runner.pair), refs[0], outputs)
    timed, _ = runner.run(prog, path, None)
    return replace(timed, note=None if diff.exact else diff.note(flags))


def measure_programs(programs: Sequence[Program], target: Target, pair: PairSpec,
                     timer: Callable[[Callable[[], object]], list[float]],
                     progress: Progress | None = None,
                     reference: Reference | None = None, label: str = ""
                     ) -> tuple[list[Record], Reference | None]:
    """Records of every program, and the reference outputs. Without `reference` (the
    outputs of an earlier call), the first program must be the `streams` baseline, whose
    outputs become the reference. A program whose build fails is skipped with the reason; a
    baseline's is an error. `progress` gets the phases "building" and "verifying and
    timing", each followed by `label` (" register caps" for the second round).

    On nvcc, unless the target's flags are IEEE already (profile.exactness), programs are
    built with the target's flags, and a program whose outputs are bit-identical to the
    streams baseline's is verified at once. One that differs is built again with IEEE flags
    (--fmad=false) and checked against the baseline's IEEE build (built once) within the
    run spec's tolerance: wrong there, it is wrong; right, it is timed, with a note of the
    difference under the timed flags (nvcc's contraction choices), not an error. Most
    programs are bit-identical, so the extra builds are few (docs/gpu-session.md)."""
    from cudafuse.profile.exactness import build_plan

    if reference is None and (not programs or programs[0].record.id != "streams"):
        raise ValueError("the first program must be the streams baseline")
    plan = build_plan(target.nvcc_flags, target.backend)
    checker = Runner(replace(target, nvcc_flags=plan.verify), pair, timer)
    runner = Runner(replace(target, nvcc_flags=plan.timed), pair, timer)
    flags = " ".join(plan.timed) or "nvcc's default flags (--fmad=true)"
    out: list[Record] = []
    built = build_programs(programs, runner.target, progress, f"building{label}")
    refs = reference
    phase_start(progress, f"verifying and timing{label}", len(programs))
    for prog, (path, failed) in zip(programs, built, strict=True):
        if failed is not None:
            if not prog.record.fused:
                raise error(f"the {prog.record.id} baseline: {failed}")
            record = replace(prog.record, skip=failed)
        else:
            try:
                record, outputs = runner.run(prog, path, refs[0] if refs else None,
                                             exact=plan.separate)
                if record.skip == DIFFERS and refs is not None and outputs is not None:
                    record = _checked(prog, outputs, path, refs, runner, checker, flags)
            except DeviceFault as exc:
                exc.records = out
                phase_step(progress, f"{prog.record.id}: FAULTED")
                raise
            if refs is None:
                if outputs is None:
                    raise error(f"the {prog.record.id} baseline produced no outputs")
                refs = (outputs, _baseline_ieee(prog, checker) if plan.separate else outputs)
        out.append(record)
        phase_step(progress, f"{record.id}: {_state(record)}")
    return out, refs


def _baseline_ieee(prog: Program, checker: Runner) -> list[np.ndarray]:
    """The streams baseline's outputs on its build with IEEE flags (built now, once): what
    a program whose timed outputs differ is checked against."""
    (path, failed), = build_programs([prog], checker.target)
    if failed is not None:
        raise error(f"the {prog.record.id} baseline: (IEEE build) {failed}")
    _, outputs = checker.run(prog, path, None, time=False)
    assert outputs is not None
    return outputs


def confirm(programs: Sequence[Program], target: Target, pair: PairSpec,
            timer: Callable[[Callable[[], object]], list[float]], rounds: int,
            progress: Progress | None = None) -> dict[str, list[float]]:
    """Time `programs` again in alternation, `rounds` times each (one timer call per round
    and program), so that clock and temperature drift over the run touches them alike: the
    per-iteration times of each program by record id."""
    from cudafuse.profile.exactness import build_plan

    samples: dict[str, list[float]] = {p.record.id: [] for p in programs}
    # The timed builds (profile.exactness), built before, when they were first timed:
    # found in the build cache.
    target = replace(target, nvcc_flags=build_plan(target.nvcc_flags, target.backend).timed)
    built = build_programs(programs, target, progress, "building for confirmation")
    failed = [f for _, f in built if f is not None]
    if failed:
        raise error(f"rebuilding for the confirmation round: {failed[0]}")
    runner = Runner(target, pair, timer)
    libs = [runner.load(path) for path, _ in built]
    preps = []
    faulted = False
    try:
        for lib, prog in zip(libs, programs, strict=True):
            _, args = _arguments(pair)
            preps.append((prog.record, lib.prepare(prog.launcher, *args)))
        phase_start(progress, "confirming", rounds * len(preps))
        for _ in range(rounds):
            for record, prep in preps:
                try:
                    samples[record.id] += timer(prep.run)
                except Exception as exc:
                    if not _is_fault(exc, target.backend):
                        raise
                    faulted = True
                    raise DeviceFault(record, f"while confirming: {exc}") from None
                phase_step(progress, record.id)
    finally:
        for _, prep in preps:
            _close(prep, faulted)
        for lib in libs:
            _close(lib, faulted)
    return samples


def gpu_timer(plan: TimingPlan, l2_bytes: int | None) -> Callable[[Callable[[], object]],
                                                                  list[float]]:
    def timer(launch: Callable[[], object]) -> list[float]:
        return measure(launch, plan, l2_bytes=l2_bytes)

    return timer


def host_timer(plan: TimingPlan) -> Callable[[Callable[[], object]], list[float]]:
    from cudafuse.profile.hostclock import HostClock

    def timer(launch: Callable[[], object]) -> list[float]:
        return measure(launch, plan, l2_bytes=0, driver=HostClock)

    return timer
