"""Calibrate the vertical cost model against times measured on a GPU.

    python benchmarks/calibrate.py [RESULTS...] [--arch sm_90] [--fit] [--json OUT]

RESULTS is a folder `benchmarks/gpu_session.py` wrote (default: the newest under
benchmarks/results): `vertical.jsonl` (every sample, unfused and the cost model's fused
program, at each size), `log.txt` (the `fuse --profile` reports: every variant's median
time: tiles-always, tiles-never, mincut, exact, fuse-all...), `session.json` (the device:
SMs, clock) and `partitions.json`, which says which partition each measured variant was
(its groups, by launch position, and the producers its fused kernels staged in shared-memory
tiles). The partitions come from the checkout that measured (`partitions.json` is recorded
with it, as the emitted files were): the variants' names alone do not say, and the cost
model that chose them is the one being recalibrated.

For every sample and size it prints each measured variant: its partition, the measured
time, the time the cost model predicts (costmodel.group_cost / kernel_time with the arch's
constants, converted to ms with the device's SMs, lanes and clock) and the two orderings;
then, per sample, the partition the model picks now (the pass's planner, no GPU), the
measured time of that partition where one was measured, and its speed-up over unfused.

--fit fits the constants (least squares on log time over every measured variant, Nelder-Mead
from the arch table's values) and prints them, the table with the fitted constants and the
choices they make. The fitted constants go into plan/arch.py by hand, with the table in
docs/cost-model.md: a fit is a proposal, the recorded one is what the code uses.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
os.environ.setdefault("CUDAFUSE_NO_PTXAS", "1")  # the plan alone: no compile needed

from cudafuse.passes.vertical.plan.arch import ARCHS, ArchParams  # noqa: E402
from cudafuse.passes.vertical.plan.costmodel import group_cost, kernel_time  # noqa: E402
from cudafuse.passes.vertical.plan.model import PipelineModel  # noqa: E402

LANES = 128  # thread-cycles an SM issues per clock (sm_80, sm_90: 4 schedulers x 32)
FITTED = ("c_alu", "t_global", "t_cached", "c_sfu", "t_access", "t_barrier", "overlap", "launch")
# Variants the profile names but that are the model's partition at another block shape:
# not a partition of their own (the model prices the block through its tiles only).
BLOCK_VARIANT = re.compile(r"block-\d+x\d+")


@dataclass(frozen=True)
class Variant:
    name: str
    groups: tuple[tuple[int, ...], ...]  # fused groups (launch positions); others alone
    staged: tuple[tuple[int, ...], ...]  # per group, the producers staged in tiles


@dataclass(frozen=True)
class Measured:
    sample: str
    size: int  # image side: size x size elements
    variant: Variant
    ms: float


# -- reading a results folder ------------------------------------------------------------

def newest_results() -> Path:
    folders = sorted(p for p in (ROOT / "benchmarks" / "results").iterdir() if p.is_dir())
    return folders[-1]


def device(folder: Path) -> tuple[str, int, float]:
    """(name, SMs, clock in Hz) from session.json."""
    gpu = json.loads((folder / "session.json").read_text())["device"]["probe"]["gpu"]
    return gpu["name"], int(gpu["multiprocessors"]), gpu["clocks"]["max_sm_khz"] * 1e3


def profile_times(log: str) -> dict[tuple[str, int], dict[str, float]]:
    """Each `fuse --profile` report of the log: (sample, size) -> variant -> median ms
    (a variant's aliases, `model (= tiles-always, exact)`, get its time too), each report
    matched to its row as bench_vertical.log_reports matches them (the second session's
    log has each row's line after the next row's report)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_vertical import log_reports

    return log_reports(log)


def measurements(folder: Path, tag: str = "") -> list[Measured]:
    """Every measured variant of a results folder whose partition is known; with `tag`
    (fitting several sessions at once), each variant's name says which session it is."""
    parts = json.loads((folder / "partitions.json").read_text())
    rows: dict[tuple[str, int], dict] = {}
    for ln in (folder / "vertical.jsonl").read_text().splitlines():
        rec = json.loads(ln) if ln.strip() else {}
        if rec.get("backend") == "nvcc":  # a row's model and profile records, merged
            rows.setdefault((rec["sample"], int(rec["size"])), {}).update(rec)
    profiles = profile_times((folder / "log.txt").read_text())
    out = []
    for (sample, size), row in rows.items():
        if "fused_ms" not in row:
            continue
        known = parts.get(sample, {})
        times = {"unfused": row["unfused_ms"], "model": row["fused_ms"]}
        # The variant times the row recorded (sessions after the second), else its log's.
        recorded = row.get("profile_times") or profiles.get((sample, size), {})
        for name, ms in recorded.items():
            times.setdefault(name, ms)
        seen: set[Variant] = set()
        for name, ms in times.items():
            if name == "unfused":
                variant = Variant("unfused", (), ())
            elif name in known:
                p = known[name]
                variant = Variant(name, tuple(tuple(g) for g in p["groups"]),
                                  tuple(tuple(s) for s in p["staged"]))
            else:
                continue  # a block shape, or a variant whose partition was not recorded
            key = dataclasses.replace(variant, name="")
            if key in seen:
                continue  # an alias of a partition already listed (the first name wins)
            seen.add(key)
            if tag:
                variant = dataclasses.replace(variant, name=f"{variant.name} [{tag}]")
            out.append(Measured(sample, size, variant, ms))
    return out


# -- the cost model's view of the samples ------------------------------------------------

def scratch_lists() -> dict[str, list[str]]:
    """samples/Makefile's SCRATCH_<sample> lists (the intermediates callers do not read)."""
    out = {}
    for line in (ROOT / "samples" / "Makefile").read_text().splitlines():
        m = re.match(r"SCRATCH_(\w+)\s*:=\s*(.*)", line)
        if m:
            out[m.group(1)] = m.group(2).split()
    return out


def plan_sample(sample: str, arch: str = "sm_90"):
    """The pass's plan of the sample's pipeline (the sequence of more than one launch),
    with the arch table as it is in ARCHS now."""
    from cudafuse.api import parse_options
    from cudafuse.passes.vertical.driver import FuseOptions, fuse_unit
    from cudafuse.passes.vertical.kernel.respell import parse_for_fusion

    options = dataclasses.replace(parse_options(), included_kernels=True)
    parsed, _ = parse_for_fusion(str(ROOT / "samples" / f"{sample}.cu"), options)
    result = fuse_unit(parsed.unit, FuseOptions(
        arch=arch, scratch=frozenset(scratch_lists().get(sample, []))))
    return next(p for p in result.plans if p.model is not None and len(p.kernels) > 1)


def at_size(model: PipelineModel, elements: int) -> PipelineModel:
    kernels = [dataclasses.replace(k, size=elements) for k in model.kernels]
    return PipelineModel(kernels, model.live_out, dict(model.edges), set(model.order_edges))


def predicted_cycles(model: PipelineModel, variant: Variant, arch: ArchParams) -> float:
    """Thread-cycles of the pipeline as `variant` partitions it (launch terms included)."""
    fused = {i for g in variant.groups for i in g}
    total = sum(kernel_time(model, i, arch) for i in range(len(model.kernels))
                if i not in fused)
    for group, staged in zip(variant.groups, variant.staged, strict=True):
        cost = group_cost(model, frozenset(group), arch, staged=frozenset(staged))
        total += cost.time
    launches = len(model.kernels) - sum(len(g) - 1 for g in variant.groups)
    return total + launches * arch.launch


def chosen_variant(plan, arch: ArchParams) -> Variant:
    """The plan's partition as a Variant: its groups and the producers the model stages."""
    groups, staged = [], []
    for g in plan.chosen.groups:
        if len(g) < 2:
            continue
        cost = group_cost(plan.model, g, arch)
        groups.append(tuple(sorted(g)))
        staged.append(tuple(sorted(i for i, s in cost.strategies.items() if s == "tile")))
    return Variant("model now", tuple(groups), tuple(staged))


def same_partition(a: Variant, b: Variant) -> bool:
    return sorted(zip(a.groups, a.staged, strict=True)) == \
        sorted(zip(b.groups, b.staged, strict=True))


# -- fitting -----------------------------------------------------------------------------

def with_values(arch: ArchParams, values: dict[str, float]) -> ArchParams:
    return dataclasses.replace(arch, **values)


def log_error(data: list[Measured], models: dict[tuple[str, int], PipelineModel], arch: ArchParams,
              to_ms: float) -> float:
    err = 0.0
    for m in data:
        pred = predicted_cycles(models[(m.sample, m.size)], m.variant, arch) * to_ms
        err += (math.log(max(pred, 1e-12)) - math.log(m.ms)) ** 2
    return err


def _encode(arch: ArchParams) -> list[float]:
    out = []
    for name in FITTED:
        v = getattr(arch, name)
        if name == "overlap":
            v = min(max(v, 1e-3), 1 - 1e-3)
            out.append(math.log(v / (1 - v)))
        else:
            out.append(math.log(max(v, 1e-6)))
    return out


def _decode(x: list[float]) -> dict[str, float]:
    out = {}
    for name, v in zip(FITTED, x, strict=True):
        out[name] = 1 / (1 + math.exp(-v)) if name == "overlap" else math.exp(v)
    return out


def nelder_mead(f: Callable[[list[float]], float], x0: list[float], step: float = 0.5,
                iterations: int = 3000) -> list[float]:
    """A plain Nelder-Mead minimiser (the project has no scipy)."""
    n = len(x0)
    simplex = [list(x0)] + [[x + (step if i == j else 0.0) for j, x in enumerate(x0)]
                            for i in range(n)]
    values = [f(x) for x in simplex]
    for _ in range(iterations):
        order = sorted(range(n + 1), key=values.__getitem__)
        simplex = [simplex[i] for i in order]
        values = [values[i] for i in order]
        if values[-1] - values[0] < 1e-10:
            break
        centre = [sum(x[j] for x in simplex[:-1]) / n for j in range(n)]

        def toward(t: float, centre: list[float] = centre,
                   worst: list[float] = simplex[-1]) -> list[float]:
            return [c + t * (w - c) for c, w in zip(centre, worst, strict=True)]

        refl = toward(-1.0)
        fr = f(refl)
        if fr < values[0]:
            exp = toward(-2.0)
            fe = f(exp)
            simplex[-1], values[-1] = (exp, fe) if fe < fr else (refl, fr)
        elif fr < values[-2]:
            simplex[-1], values[-1] = refl, fr
        else:
            con = toward(0.5)
            fc = f(con)
            if fc < values[-1]:
                simplex[-1], values[-1] = con, fc
            else:
                best = simplex[0]
                simplex = [best] + [[b + 0.5 * (x - b) for b, x in zip(best, p, strict=True)]
                                    for p in simplex[1:]]
                values = [values[0]] + [f(x) for x in simplex[1:]]
    return simplex[min(range(n + 1), key=values.__getitem__)]


def fit(data: list[Measured], models: dict[tuple[str, int], PipelineModel],
        arch: ArchParams, to_ms: float) -> ArchParams:
    def objective(x: list[float]) -> float:
        return log_error(data, models, with_values(arch, _decode(x)), to_ms)

    x = _encode(arch)
    for _ in range(4):  # restarts: Nelder-Mead stalls on flat directions
        x = nelder_mead(objective, x)
    return with_values(arch, _decode(x))


# -- the report --------------------------------------------------------------------------

def table(data: list[Measured], models: dict[tuple[str, int], PipelineModel],
          arch: ArchParams, to_ms: float, names: dict[str, list[str]]) -> Iterator[str]:
    yield ("| sample | size | variant | partition | measured ms | predicted ms | "
           "measured rank | predicted rank |")
    yield "|---|---|---|---|---|---|---|---|"
    keys = sorted({(m.sample, m.size) for m in data})
    for key in keys:
        rows = [m for m in data if (m.sample, m.size) == key]
        preds = {m.variant.name: predicted_cycles(models[key], m.variant, arch) * to_ms
                 for m in rows}
        by_ms = sorted(rows, key=lambda m: m.ms)
        by_pred = sorted(rows, key=lambda m: preds[m.variant.name])
        for m in rows:
            yield (f"| {m.sample} | {m.size}^2 | {m.variant.name} | "
                   f"{describe(m.variant, names[m.sample])} | {m.ms:.3f} | "
                   f"{preds[m.variant.name]:.3f} | {by_ms.index(m) + 1} | "
                   f"{by_pred.index(m) + 1} |")


def describe(v: Variant, kernels: list[str]) -> str:
    if not v.groups:
        return "unfused"
    parts = []
    for g, s in zip(v.groups, v.staged, strict=True):
        names = [kernels[i] + ("*" if i in s else "") for i in g]
        parts.append("{" + ", ".join(names) + "}")
    return " ".join(parts)


def choices(data: list[Measured], arch: ArchParams, to_ms: float) -> Iterator[str]:
    """What the pass picks per sample with `arch` as sm_90's table, what that partition
    measured, and what the model predicts for it (the only figure where unmeasured)."""
    saved = ARCHS[arch.name]
    ARCHS[arch.name] = arch
    try:
        yield ("| sample | size | model's partition now | measured ms | predicted ms | "
               "unfused ms | speed-up | fastest measured ms |")
        yield "|---|---|---|---|---|---|---|---|"
        for sample in sorted({m.sample for m in data}):
            plan = plan_sample(sample, arch.name)
            mine = chosen_variant(plan, arch)
            for size in sorted({m.size for m in data if m.sample == sample}):
                rows = [m for m in data if (m.sample, m.size) == (sample, size)]
                unfused = next(m.ms for m in rows if not m.variant.groups)
                hit = next((m for m in rows if same_partition(m.variant, mine)), None)
                fastest = min(m.ms for m in rows)
                got = f"{hit.ms:.3f} ({hit.variant.name})" if hit else "not measured"
                speed = f"{unfused / hit.ms:.2f}" if hit else "-"
                pred = predicted_cycles(at_size(plan.model, size * size), mine, arch) * to_ms
                yield (f"| {sample} | {size}^2 | {describe(mine, plan.kernels)} | {got} | "
                       f"{pred:.3f} | {unfused:.3f} | {speed} | {fastest:.3f} |")
    finally:
        ARCHS[arch.name] = saved


def load(folder: Path | list[Path]) -> tuple[list[Measured], dict[tuple[str, int],
                                                                   PipelineModel],
                                              dict[str, list[str]]]:
    folders = folder if isinstance(folder, list) else [folder]
    data = [m for f in folders
            for m in measurements(f, f.name if len(folders) > 1 else "")]
    models, names = {}, {}
    for sample in sorted({m.sample for m in data}):
        plan = plan_sample(sample)
        names[sample] = plan.kernels
        for size in sorted({m.size for m in data if m.sample == sample}):
            models[(sample, size)] = at_size(plan.model, size * size)
    return data, models, names


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="*", type=Path, help="results folders (several: one "
                    "fit over all their variants, each named with its folder; same device)")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--fit", action="store_true", help="fit the constants and show their effect")
    ap.add_argument("--json", type=Path, help="write the constants and the table as JSON")
    args = ap.parse_args(argv)
    folders = args.results or [newest_results()]
    devices = {device(f) for f in folders}
    if len(devices) > 1:
        print(f"the folders were measured on different devices: {sorted(devices)}",
              file=sys.stderr)
        return 1
    (name, sms, clock), = devices
    to_ms = 1e3 / (LANES * sms * clock)
    data, models, names = load(folders)
    arch = ARCHS[args.arch]
    where = ", ".join(str(f.relative_to(ROOT) if f.is_relative_to(ROOT) else f)
                      for f in folders)
    print(f"Device: {name}, {sms} SMs at {clock / 1e9:.2f} GHz, {LANES} lanes each; "
          f"results: {where}")
    print(f"{len(data)} measured variants of {len({m.sample for m in data})} samples\n")
    print(f"{args.arch} as in plan/arch.py: " + ", ".join(
        f"{k}={getattr(arch, k):.4g}" for k in ("t_shared", *FITTED)))
    print(f"log-squared error: {log_error(data, models, arch, to_ms):.3f}\n")
    lines = list(table(data, models, arch, to_ms, names))
    print("\n".join(lines) + "\n")
    picks = list(choices(data, arch, to_ms))
    print("\n".join(picks) + "\n")
    out: dict[str, object] = {"device": name, "constants": {
        k: getattr(arch, k) for k in ("t_shared", *FITTED)},
        "table": lines, "choices": picks}
    if args.fit:
        fitted = fit(data, models, arch, to_ms)
        print("fitted: " + ", ".join(f"{k}={getattr(fitted, k):.4g}" for k in FITTED))
        print(f"log-squared error: {log_error(data, models, fitted, to_ms):.3f}\n")
        print("\n".join(table(data, models, fitted, to_ms, names)) + "\n")
        print("\n".join(choices(data, fitted, to_ms)))
        out["fitted"] = {k: getattr(fitted, k) for k in FITTED}
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
