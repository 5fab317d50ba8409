"""`cudafuse fuse --profile`: the cost model proposes, measurement decides.

The variants are what the model could reasonably have chosen: its own choice (the options
given), shared-memory tiles always and never (staging against recomputation), the min-cut
and the exact partition, and every legal group fused; plus the unfused program. Variants
that come out byte-identical are one variant with several names. Each is built, run on the
spec's inputs and compared with the unfused program on every output element, and only then
timed (on device-resident buffers, runtime.prepared). The fastest verified variant is kept
if it is clearly faster than the unfused program (profile.stats.clearly_faster); otherwise
the program is handed back unfused. The report says whether the model's own choice was the
fastest: over many pipelines, how often the model is right.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from cudafuse import __version__
from cudafuse.diagnostics import error
from cudafuse.profile.cache import ResultsCache, cache_key, key_inputs
from cudafuse.profile.exactness import Verdict, build_plan, difference, judge
from cudafuse.profile.inputs import fresh_inputs
from cudafuse.profile.measure import (
    EMU_TIMEOUT,
    Target,
    build_one,
    program_path,
    spec_outputs,
)
from cudafuse.profile.stats import Summary, clearly_faster, relative_gain, summarize
from cudafuse.progress import Progress, phase_start, phase_step

REPORT_FORMAT = 1
UNFUSED = "unfused"
MODEL = "model"
# (id, what differs from the options given); the model's own choice first.
ALTERNATIVES: tuple[tuple[str, dict[str, object]], ...] = (
    (MODEL, {}),
    ("tiles-always", {"tiles": "always"}),
    ("tiles-never", {"tiles": "never"}),
    ("mincut", {"partition": "mincut"}),
    ("exact", {"partition": "exact"}),
    ("fuse-all", {"fuse_all": True}),
    ("fuse-all-recompute", {"fuse_all": True, "tiles": "never"}),
    # Sibling fusion (independent launches as one) off, and every legal pair fused.
    ("siblings-never", {"siblings": "never"}),
    ("siblings-always", {"siblings": "always"}),
    # Block shapes for the fused launches (2D groups whose kernels read blockDim).
    ("block-32x8", {"block": (32, 8)}),
    ("block-64x4", {"block": (64, 4)}),
    ("block-32x16", {"block": (32, 16)}),
    ("block-128x2", {"block": (128, 2)}),
)


@dataclass
class Variant:
    id: str
    output: bytes
    result: Any = None  # the FuseResult (None for the unfused program)
    aliases: list[str] = field(default_factory=list)
    objective: float = 0.0  # the model's estimated benefit, summed over sequences
    # Its unit (fusion.driver's objective_unit): cycles, or edges for the --fuse-all ones.
    unit: str = ""
    unit_short: str = ""  # cycles | edge(s)
    kernels: int = 0  # kernel launches in the fused pipelines
    verified: bool | None = None
    # Bit-identical to the unfused program under the exactness check's flags (IEEE on nvcc)
    exact: bool | None = None
    notes: list[str] = field(default_factory=list)  # e.g. a contraction difference when timed
    timing: Summary | None = None
    skip: str | None = None
    entry: str | None = None  # the host function timed (the spec's entry): partition_of's

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "aliases": self.aliases, "objective": self.objective,
                "objective_unit": self.unit, "kernels": self.kernels, "verified": self.verified,
                "exact": self.exact, "notes": self.notes,
                "timing": self.timing.to_json() if self.timing else None, "skip": self.skip,
                "partition": partition_of(self.result, self.entry) if self.result is not None
                else None}


def partition_of(result: Any, host: str | None = None) -> dict[str, list[list[int]]]:
    """Which partition a variant is: its fused groups by launch position in their sequence
    and, per group, the producers its fused kernel staged in shared-memory tiles (as
    emitted). benchmarks/calibrate.py fits the cost model to timed variants and needs this:
    the variant's name alone does not say, and the model that chose it is being refitted.
    Only `host`'s sequences when given: the timed function (a sample's main, which calls
    its pipeline, fuses too, but is not what is timed)."""
    from cudafuse.passes.vertical.driver import buffer_name  # GroupNote.tiles' buffer names

    groups: list[list[int]] = []
    staged: list[list[int]] = []
    for plan in result.plans:
        if plan.model is None or (host is not None and plan.host != host):
            continue
        position = {launch: p for p, launch in enumerate(plan.launch_indices)}
        for note in plan.groups:
            members = sorted(position[i] for i in note.launches if i in position)
            groups.append(members)
            staged.append([i for i in members if any(
                buffer_name(b) in note.tiles for b in plan.model.kernels[i].writes)])
    return {"groups": groups, "staged": staged}


def variants(unit: Any, base: Any) -> list[Variant]:
    """The unfused program and each distinct fused variant; `base` is the FuseOptions
    given (the model's choice)."""
    from cudafuse.passes.vertical.driver import fuse_unit

    source = unit.source.data
    original = Variant(UNFUSED, source, kernels=sum(len(v) for v in unit.launches.values()))
    out = [original]
    for name, change in ALTERNATIVES:
        try:
            res = fuse_unit(unit, replace(base, **change))
        except ValueError as exc:  # e.g. the exact search's size limit
            out.append(Variant(name, b"", skip=str(exc)))
            continue
        same = next((v for v in out if v.output == res.output and not v.skip), None)
        if same is not None:
            same.aliases.append(name)
            continue
        out.append(Variant(name, res.output, res,
                           objective=sum(p.chosen.objective for p in res.plans),
                           unit=res.plans[0].objective_unit if res.plans else "",
                           unit_short=res.plans[0].unit_short if res.plans else "",
                           kernels=sum(len(p.chosen.groups) for p in res.plans)))
    return out


def _build(variants_: list[Variant], targets: list[Target],
           progress: Progress | None = None) -> list[list[Path | str]]:
    """Each variant written (where a build of the same source is found again, see
    measure.program_path) and built for each target in parallel: per target, per variant its
    path, or why it did not build."""
    paths = {i: program_path(v.output, v.id) for i, v in enumerate(variants_) if not v.skip}
    phase_start(progress, "building", len(paths) * len(targets))
    failed: dict[tuple[int, int], str | None] = {}
    with ThreadPoolExecutor(max_workers=targets[0].jobs or os.cpu_count() or 1) as pool:
        futures = {pool.submit(build_one, path, target): (t, i)
                   for t, target in enumerate(targets) for i, path in paths.items()}
        for future in as_completed(futures):  # counted in this thread, as builds finish
            failed[futures[future]] = future.result()
            phase_step(progress, variants_[futures[future][1]].id)
    return [[(v.skip or "") if i not in paths else (failed[t, i] or paths[i])
             for i, v in enumerate(variants_)] for t in range(len(targets))]


def _run_once(path: Path, spec: Any, target: Target, timer: Callable[..., list[float]] | None,
              keep: Callable[[list[np.ndarray]], bool] = lambda _: True
              ) -> tuple[list[np.ndarray] | None, str, Summary | None]:
    """One run of the program at `path` on fresh spec inputs: its outputs (None when it
    failed), why it failed, and, when `timer` is given and `keep(outputs)`, its timing."""
    from cudafuse.runtime import load
    from cudafuse.runtime.errors import KernelError

    extra = {"timeout": EMU_TIMEOUT} if target.backend == "emu" else {}
    with load(path, backend=target.backend, include_dirs=target.include_dirs,
              defines=list(target.defines), arch=target.arch,
              nvcc_flags=target.nvcc_flags if target.backend == "nvcc" else (),
              **extra) as lib:
        values = fresh_inputs(spec)
        with lib.prepare(spec.entry, *values) as run:
            try:
                run.run()
                run.fetch()
            except KernelError as exc:
                return None, str(exc), None
            outputs = spec_outputs(spec, values)
            if timer is None or not keep(outputs):
                return outputs, "", None
            return outputs, "", summarize(timer(run.run))


def measure_variants(variants_: list[Variant], spec: Any, target: Target,
                     timer: Callable[[Callable[[], object]], list[float]],
                     progress: Progress | None = None) -> None:
    """Verify and time every variant in place; the first must be the unfused program.
    `progress` gets the phases "building" and "verifying and timing".

    On nvcc, unless the target's flags are IEEE already (profile.exactness), each program
    is built twice: with IEEE flags for the exactness check (a difference beyond the spec's
    tolerance is a bug in cudafuse), and with the target's flags for timing, which runs
    only for a variant that passed the check (a difference there is a note: nvcc's
    contraction choices; the variant stays eligible)."""
    assert variants_[0].id == UNFUSED
    plan = build_plan(target.nvcc_flags, target.backend)
    check = replace(target, nvcc_flags=plan.verify)
    timed_target = replace(target, nvcc_flags=plan.timed)
    built = _build(variants_, [check, timed_target] if plan.separate else [check], progress)
    checked, timed_paths = built[0], built[-1]
    refs: dict[str, list[np.ndarray]] = {}  # "check" / "timed": the unfused program's
    flags_text = " ".join(plan.timed) or "nvcc's default flags (--fmad=true)"
    phase_start(progress, "verifying and timing", len(variants_))
    for v, path, tpath in zip(variants_, checked, timed_paths, strict=True):
        if isinstance(path, str) or isinstance(tpath, str):
            why = path if isinstance(path, str) else f"(timed build) {tpath}"
            if v.id == UNFUSED:
                raise error(f"the unfused program: {why}")
            v.skip = why
            phase_step(progress, f"{v.id}: {_state(v)}")
            continue

        verdicts: list[Verdict] = []

        def verified(outputs: list[np.ndarray], verdicts: list[Verdict] = verdicts) -> bool:
            """Judged once, against the unfused program's outputs; timed only if right."""
            if "check" in refs:
                verdicts.append(judge(spec, refs["check"], outputs))
            return not verdicts or not verdicts[0].wrong

        outputs, failed, timing = _run_once(path, spec, check,
                                            None if plan.separate else timer, verified)
        if outputs is not None and plan.separate and verified(outputs):
            timed_outputs, failed, timing = _run_once(tpath, spec, timed_target, timer)
            failed = f"(timed build) {failed}" if failed else ""
            if verdicts and timed_outputs is not None:
                verdicts[0] = replace(verdicts[0], timed=difference(
                    [a.name for a in spec.args if a.is_output], refs["timed"], timed_outputs))
        else:
            timed_outputs = outputs
        if failed or outputs is None or timed_outputs is None:
            if v.id == UNFUSED:
                raise error(f"the unfused program failed: {failed}")
            v.verified, v.skip = False, f"it failed: {failed}"
        elif not verdicts:  # the unfused program: the reference
            refs["check"], refs["timed"] = outputs, timed_outputs
            v.verified, v.exact, v.timing = True, True, timing
        else:
            verdict = verdicts[0]
            v.exact = verdict.exact.exact
            if verdict.wrong:
                v.verified, v.skip = False, verdict.wrong
            else:
                v.verified, v.timing, v.notes = True, timing, verdict.notes(flags_text)
        phase_step(progress, f"{v.id}: {_state(v)}")


def _state(v: Variant) -> str:
    """A measured variant in a few words, for the progress line."""
    if v.verified is False:
        return "WRONG"
    if v.skip:
        return "skipped"
    note = " (differs under the timed flags: see the notes)" if v.notes else ""
    return (f"verified, {v.timing.median:.4g} ms" if v.timing else "verified") + note


@dataclass(frozen=True)
class Choice:
    variant: Variant
    model_fastest: bool | None  # None: the model's variant was not timed
    lines: tuple[str, ...]


def choose(variants_: list[Variant], margin: float) -> Choice:
    base = next(v for v in variants_ if v.id == UNFUSED)
    assert base.timing is not None
    fused = sorted((v for v in variants_ if v.id != UNFUSED and v.timing is not None),
                   key=lambda v: v.timing.median if v.timing else 0.0)
    model = next((v for v in variants_ if v.id == MODEL or MODEL in v.aliases), None)
    model_fastest = None
    if model is not None and model.timing is not None and fused:
        model_fastest = fused[0] is model
    lines = []
    best = fused[0] if fused else None
    if best is not None and best.timing is not None and \
            clearly_faster(best.timing, base.timing, margin):
        chosen = best
        lines.append(f"chose {_name(best)}: median {best.timing.median:.4g} ms, "
                     f"{relative_gain(best.timing, base.timing) * 100:.1f}% less time than "
                     f"unfused ({base.timing.median:.4g} ms)")
    else:
        chosen = base
        why = "no fused variant was timed" if best is None or best.timing is None else (
            f"the fastest fused variant, {_name(best)} ({best.timing.median:.4g} ms), is not "
            f"clearly faster (more than {margin * 100:g}% and beyond the noise)")
        lines.append(f"kept the program unfused ({base.timing.median:.4g} ms): {why}")
    if model_fastest is not None and model is not None:
        lines.append("the cost model's own choice was the fastest" if model_fastest else
                     f"the cost model's own choice ({_name(model)}) was not the fastest")
    for v in variants_:
        if v.timing is not None:
            lines.append(f"  {_name(v)}: {v.timing.median:.4g} ms (spread "
                         f"{v.timing.spread * 100:.1f}%), {v.kernels} kernel launch(es), "
                         f"model benefit {v.objective:.3g}{_unit(v)}")
            lines += [f"    note: {n}" for n in v.notes]
        elif v.skip:
            lines.append(f"  skipped {_name(v)}: {v.skip}")
    return Choice(chosen, model_fastest, tuple(lines))


def _unit(v: Variant) -> str:
    """The short name of a variant's objective unit: what its benefit counts."""
    if v.unit_short == "cycles":
        return " estimated cycles"
    return f" {v.unit_short} (--fuse-all: not the cost model)" if v.unit_short else ""


def _name(v: Variant) -> str:
    return v.id + (f" (= {', '.join(v.aliases)})" if v.aliases else "")


def report(variants_: list[Variant], choice: Choice | None, device: Any, file: str,
           options: dict[str, object]) -> dict[str, object]:
    if choice is None:
        return {"format": REPORT_FORMAT, "tool": {"name": "cudafuse", "version": __version__},
                "device": device.to_json(), "file": file, "options": options,
                "variants": [v.to_json() for v in variants_], "choice": None}
    return {"format": REPORT_FORMAT, "tool": {"name": "cudafuse", "version": __version__},
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds").replace(
                "+00:00", "Z"),
            "device": device.to_json(), "file": file, "options": options,
            "variants": [v.to_json() for v in variants_],
            "choice": {"id": choice.variant.id, "unfused": choice.variant.id == UNFUSED,
                       "model_was_fastest": choice.model_fastest, "why": list(choice.lines)}}


def _restore(variants_: list[Variant], stored: dict[str, object]) -> bool:
    """Fill timings from a cached report whose variants match these; False if not."""
    items = stored.get("variants")
    if not isinstance(items, list) or [i.get("id") for i in items if isinstance(i, dict)] != \
            [v.id for v in variants_]:
        return False
    for v, item in zip(variants_, items, strict=True):
        v.verified, v.skip = item.get("verified"), item.get("skip")
        v.exact = item.get("exact")
        v.notes = [str(n) for n in item.get("notes") or []]
        timing = item.get("timing")
        v.timing = Summary.from_json(timing) if isinstance(timing, dict) else None
    return True


def profile_fuse(*, progress: Progress | None = None, **kwargs: Any
                 ) -> tuple[Variant, Choice, dict[str, object], list[str]]:
    """The chosen variant, why, the report, and notes (arguments as for `_profile_fuse`).
    An error ends the progress line first, so that its message starts a line."""
    try:
        return _profile_fuse(progress=progress, **kwargs)
    finally:
        if progress is not None:
            progress.end()


def _profile_fuse(*, unit: Any, base: Any, spec: Any, spec_text: bytes, target: Target,
                  margin: float, plan: Any = None, cache: ResultsCache | None = None,
                  progress: Progress | None = None
                  ) -> tuple[Variant, Choice, dict[str, object], list[str]]:
    from cudafuse.profile.hfuse_profile import EMU_PLAN, ProfileFailed, device_for, nvcc_build
    from cudafuse.profile.measure import gpu_timer, host_timer
    from cudafuse.profile.timing import TimingPlan

    device, _, target = device_for(target)
    emu = target.backend == "emu"
    plan = plan or (EMU_PLAN if emu else TimingPlan())
    notes = ["timed under the CPU emulator: the figures check that profiling works, they "
             "say nothing about speed on a GPU"] if emu else []
    found = variants(unit, base)
    for v in found:
        v.entry = spec.entry
    options: dict[str, object] = {
        "fuse": {"partition": base.partition, "tiles": base.tiles, "fuse_all": base.fuse_all,
                 "scratch": sorted(base.scratch), "block": base.block},
        "timing": plan.to_json(), "backend": target.backend, "arch": target.arch,
        "defines": list(target.defines), "include_dirs": list(target.include_dirs),
        "nvcc": nvcc_build() if not emu else "",
        # the timed builds' flags, and the exactness check's (profile.exactness)
        "nvcc_flags": list(target.nvcc_flags),
        "exactness_flags": list(build_plan(target.nvcc_flags, target.backend).verify)}
    outputs = [v.output for v in found]
    key = cache_key(sources=outputs, spec=spec_text, device=device, options=options)
    stored = cache.load(key) if cache is not None else None
    cached = stored is not None and _restore(found, stored)
    if cached:
        assert cache is not None
        notes.append(f"measured before: results from the cache ({cache.path(key)})")
        if progress is not None:
            progress.close(f"results from the cache, nothing measured ({cache.path(key)})")
    else:
        timer = host_timer(plan) if emu else gpu_timer(plan, device.l2_bytes)
        measure_variants(found, spec, target, timer, progress)
    wrong = [f"{v.id} ({v.skip})" for v in found if v.verified is False]
    if wrong:
        message = (f"{len(wrong)} fused variant(s) computed different results from the "
                   f"unfused program: {'; '.join(wrong)}. That is a bug in cudafuse; nothing "
                   "is chosen (please report it with --report)")
        doc = report(found, None, device, unit.path, options)
        doc["choice"] = {"id": None, "error": message}
        if progress is not None:
            progress.close("stopped: a variant computed different results")
        raise ProfileFailed(message, doc)
    choice = choose(found, margin)
    if progress is not None and not cached:
        timed = sum(1 for v in found if v.timing is not None)
        progress.close(f"{timed} of {len(found)} variants timed")
    doc = report(found, choice, device, unit.path, options)
    if cache is not None and stored is None:
        cache.store(key, doc, key_inputs(sources=outputs, spec=spec_text, device=device,
                                         options=options))
    return choice.variant, choice, doc, notes
