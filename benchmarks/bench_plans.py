"""What the plans cost and what the compiler makes of them, without a GPU.

    python benchmarks/bench_plans.py [--arch sm_90] [--sizes 16,32,64,200] [--model 1000]
                                     [--samples DIR] [--no-ptxas] [--survey CACHE]

For every sample (samples/*.cu, default plan and --fuse-all) and for generated chains of
kernels (a clamped 3x3 blur followed by two point kernels, repeated: `chain_source`), one
line per launch sequence: launches before and after, DRAM bytes per element before and
after (traffic.py), the partition search that was used and whether it is proven optimal,
the time of the search itself and of the whole `fuse` (parse, plan, emit; nvcc's checks
off), and, per fused kernel, registers / spill bytes / occupancy from ptxas (cached by
content: analysis/ptxas.py) against the kernels it replaces, with the redundant work and
the model's verdict. `--model N` also times the search alone on an N-kernel model chain
(no source: what planning costs at sizes the front end is not meant for). `--survey CACHE`
adds the programs of the third-party survey (benchmarks/survey/manifest.toml, their files
in CACHE as benchmarks/survey.py reads them), with their flags: the sequences that fuse.

Figures are counts and ptxas's numbers, not timings on a GPU (the cost model that chooses
the plans is calibrated for sm_90 on an H200: docs/cost-model.md).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

STENCIL = """__global__ void blur3(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float sum = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      sum += in[min(max(y + dy, 0), h - 1) * w + min(max(x + dx, 0), w - 1)];
  out[y * w + x] = sum * (1.0f / 9.0f);
}
"""
SCALE = """__global__ void scale(const float *in, float *out, float a, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = a * in[y * w + x] + 0.5f;
}
"""
CURVE = """__global__ void curve(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float v = in[y * w + x];
  out[y * w + x] = v / (1.0f + fabsf(v));
}
"""


def chain_source(n: int) -> str:
    """n launches: blur3, scale, curve, blur3, ... through scratch buffers; `out` live."""
    lines = ["#include <cuda_runtime.h>", "", STENCIL, SCALE, CURVE,
             'extern "C" void chain(const float *in, float *out, int w, int h) {',
             "  dim3 block(32, 8);",
             "  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);"]
    for i in range(n - 1):
        lines.append(f"  float *t{i};")
        lines.append(f"  cudaMalloc(&t{i}, sizeof(float) * w * h);")
    for i in range(n):
        src = "in" if i == 0 else f"t{i - 1}"
        dst = "out" if i == n - 1 else f"t{i}"
        call = ("blur3", "scale", "curve")[i % 3]
        extra = ", 0.9f" if call == "scale" else ""
        lines.append(f"  {call}<<<grid, block>>>({src}, {dst}{extra}, w, h);")
    for i in range(n - 1):
        lines.append(f"  cudaFree(t{i});")
    lines.append("}")
    return "\n".join(lines) + "\n"


class SearchClock:
    """Time spent in the partition search (driver.choose_partition), summed."""

    def __init__(self) -> None:
        from cudafuse.passes.vertical import driver

        self.driver, self.seconds = driver, 0.0
        self.inner = driver.choose_partition

    def __enter__(self) -> SearchClock:
        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return self.inner(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start

        self.driver.choose_partition = timed
        return self

    def __exit__(self, *exc: object) -> None:
        self.driver.choose_partition = self.inner


# The done criteria, checked on every row (issue 28): (criterion, what failed it).
# A criterion with no entry held on every program measured.
CRITERIA = (
    "no default plan spills",
    "no fused kernel loses occupancy without saying so with its figure",
    "no --fuse-all kernel above twice its members' largest register count without a note",
    "a 64-kernel chain keeps at most 22 launches",
)
FAILED: list[tuple[str, str]] = []
CHECKED: dict[str, int] = dict.fromkeys(CRITERIA, 0)


def check_group(name: str, mode: str, res: Any) -> None:
    """Record which done criteria one fused kernel's figures (resources.GroupResources)
    meet."""
    spill, occ, twice = CRITERIA[:3]
    where = f"{name} {mode} {res.fused.name}"
    if mode == "default":
        CHECKED[spill] += 1
        if res.fused.spill_bytes:
            FAILED.append((spill, f"{where}: {res.fused.spill_bytes} bytes"))
    CHECKED[occ] += 1
    if res.loses_occupancy and f"lowers occupancy to {res.fused.occupancy:.2f}" \
            not in res.note:
        FAILED.append((occ, where))
    if mode == "fuse-all":
        CHECKED[twice] += 1
        biggest = max(m.registers for m in res.members)
        if res.fused.registers > 2 * biggest and "more than twice" not in res.note:
            FAILED.append((twice, f"{where}: {res.fused.registers} vs {biggest}"))


def criteria_lines() -> list[str]:
    out = ["", "Done criteria (issue 28):"]
    for c in CRITERIA:
        bad = [w for k, w in FAILED if k == c]
        out.append(f"- {c}: " + (f"FAILED: {'; '.join(bad)}" if bad else
                                 f"holds ({CHECKED[c]} checked)" if CHECKED[c] else
                                 "not measured"))
    return out


def plan_rows(name: str, path: Path, arch: str, fuse_all: bool, ptxas: bool,
              only_fused: bool = False, **opts: list[str]) -> list[str]:
    """The table's rows for one program and mode; `opts`: api.fuse's parse options
    (include_dirs, defines, forced_includes); `only_fused`: sequences with a group only."""
    from cudafuse import api
    from cudafuse.passes.vertical.plan.charge import estimate_registers, fused_estimate

    mode = "fuse-all" if fuse_all else "default"
    os.environ["CUDAFUSE_NO_PTXAS"] = "1"
    os.environ["CUDAFUSE_NO_NVCC_CHECK"] = "1"
    start = time.perf_counter()
    try:
        with SearchClock() as clock:  # parse, plan, emit: no nvcc
            fused = api.fuse(str(path), fuse_all=fuse_all, arch=arch, **opts)
        total = time.perf_counter() - start
        if ptxas:  # as a user's run: ptxas figures, and planning again where they say so
            del os.environ["CUDAFUSE_NO_PTXAS"]
            fused = api.fuse(str(path), fuse_all=fuse_all, arch=arch, **opts)
    except Exception as exc:  # a refusal of the whole file (exit 1), or a bug (exit 3)
        first = str(exc).splitlines()[0] if str(exc) else ""
        return [f"| {name} | {mode} | {type(exc).__name__}: {first[:160]} | | | | | |"]
    result = fused.result
    rows = [f"|  | | note: {n} | | | | | |" for n in result.notes if "planned again" in n]
    for plan in result.plans:
        if only_fused and not plan.groups:
            continue
        n = len(plan.kernels)
        after = n - sum(len(g.kernels) - 1 for g in plan.groups)
        t = plan.traffic
        dram = "?" if t is None or t.original is None else f"{t.original} -> {t.fused}"
        search = plan.chosen.strategy + (" (optimal)" if plan.chosen.proven else
                                         "" if plan.chosen.gap is None else " (= optimum)")
        if name == "chain64":
            CHECKED[CRITERIA[3]] += 1
            if after > 22:
                FAILED.append((CRITERIA[3], f"{after} launches"))
        rows.append(f"| {name} | {mode} | {plan.host} | {n} -> {after} | {dram} | {search} | "
                    f"{clock.seconds:.2f} s | {total:.2f} s |")
        for g in plan.groups:
            r = g.resources
            if r is None:
                continue
            members = ", ".join(f"{m.name} {m.registers}/{m.spill_bytes}/{m.occupancy:.2f}"
                                for m in r.members)
            src = "" if r.fused.source == "ptxas" else " (estimate)"
            if r.fused.source == "ptxas":  # how far the search's estimate is from ptxas
                assert plan.model is not None
                where = {li: i for i, li in enumerate(plan.launch_indices)}
                guess = estimate_registers(plan.model, sorted(where[li] for li in g.launches))
                # the same rule from the members' ptxas figures instead of their loads
                own = fused_estimate([m.registers for m in r.members])
                src = f" (estimated {guess}; from members' ptxas {own})"
                check_group(name, mode, r)
            rows.append(f"|  | | {g.name}{src} | {r.fused.registers}/{r.fused.spill_bytes}/"
                        f"{r.fused.occupancy:.2f} vs {members} | x{r.redundant_work or 1:.2f} "
                        f"| {r.note} | | |")
    return rows


def survey_programs(cache: Path) -> list[tuple[str, Path, dict[str, list[str]]]]:
    """(name, file, api.fuse's parse options) of each survey program found in `cache`."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from survey import load

    progs, _ = load(ROOT / "benchmarks" / "survey" / "manifest.toml", cache)
    out = []
    for p in progs:
        if not p.path.exists():
            print(f"{p.name}: not in the cache: {p.path}", file=sys.stderr)
            continue
        opts: dict[str, list[str]] = {"include_dirs": [], "defines": [], "forced_includes": []}
        key = {"-I": "include_dirs", "-D": "defines", "-include": "forced_includes"}
        for flag, value in zip(p.flags[::2], p.flags[1::2], strict=True):
            opts[key[flag]].append(value)
        out.append((p.name, p.path, opts))
    return out


def model_chain_time(n: int, arch: str) -> str:
    from cudafuse.passes.vertical.plan.arch import arch_params
    from cudafuse.passes.vertical.plan.model import KernelCost, PipelineModel
    from cudafuse.passes.vertical.plan.partition import choose_partition, cost_scorer, make_legality

    point = frozenset({(0, 0)})
    w3 = frozenset((dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1))
    ks = [KernelCost(f"k{i}", {"in" if i == 0 else f"t{i - 1}": w3 if i % 3 == 0 else point},
                     (f"t{i}",), n_alu=9 if i % 3 == 0 else 4, size=1 << 20, block=(32, 8))
          for i in range(n)]
    model = PipelineModel.from_kernels(ks, frozenset({f"t{n - 1}"}))
    start = time.perf_counter()
    chosen, _ = choose_partition(model, cost_scorer(model, arch_params(arch)),
                                 make_legality(model, lambda g: None), "auto")
    took = time.perf_counter() - start
    return (f"model chain of {n} kernels: {len(chosen.groups)} launches, largest group "
            f"{max(len(g) for g in chosen.groups)}, search {took:.2f} s: {chosen.search}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--sizes", default="16,32,64,200")
    ap.add_argument("--model", type=int, default=1000, help="model-only chain (0: none)")
    ap.add_argument("--samples", default=str(ROOT / "samples"))
    ap.add_argument("--no-ptxas", action="store_true", help="estimates instead of ptxas")
    ap.add_argument("--survey", metavar="CACHE", default="",
                    help="also the survey's programs, their files in CACHE")
    args = ap.parse_args()
    sys.setrecursionlimit(10000)
    print("| program | mode | sequence / fused kernel | launches / regs/spill B/occupancy "
          "vs members | DRAM B/elem / redundant work | search / verdict | search time | "
          "fuse time |")
    print("|---|---|---|---|---|---|---|---|")
    for path in sorted(Path(args.samples).glob("*.cu")):
        for fuse_all in (False, True):
            for row in plan_rows(path.stem, path, args.arch, fuse_all, not args.no_ptxas):
                print(row, flush=True)
    with tempfile.TemporaryDirectory(prefix="cudafuse-chains-") as tmp:
        for n in (int(s) for s in args.sizes.split(",") if s):
            path = Path(tmp) / f"chain{n}.cu"
            path.write_text(chain_source(n))
            for row in plan_rows(f"chain{n}", path, args.arch, False, not args.no_ptxas):
                print(row, flush=True)
    if args.survey:
        for name, path, opts in survey_programs(Path(args.survey)):
            for fuse_all in (False, True):
                for row in plan_rows(name, path, args.arch, fuse_all, not args.no_ptxas,
                                     only_fused=True, **opts):
                    print(row, flush=True)
    if args.model:
        print()
        print(model_chain_time(args.model, args.arch))
    if not args.no_ptxas:
        print("\n".join(criteria_lines()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
