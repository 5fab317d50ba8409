"""benchmarks/bench_plans.py on a generated chain: the plan keeps groups larger than pairs,
the search proves it optimal, and `plan --partition exact` takes a chain of any length."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_plans.py"


def test_bench_plans_on_a_40_kernel_chain(tmp_path: Path) -> None:
    res = subprocess.run([sys.executable, str(SCRIPT), "--no-ptxas", "--sizes", "40",
                          "--model", "0", "--samples", str(tmp_path)],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    row = next(ln for ln in res.stdout.splitlines() if ln.startswith("| chain40 |"))
    before, after = map(int, re.search(r"\| (\d+) -> (\d+) \|", row).groups())
    # the bar, 64 -> at most 22, scaled: a blur and its two point kernels per
    # group (the calibrated model does not recompute a stencil inside a stencil) leave
    # ceil(40 / 3) = 14
    assert before == 40 and after <= -(-40 * 22 // 64)
    # proven optimal: the exact search's, or the min-cut's when it ties the proven optimum
    assert "| exact (optimal) |" in row or "(= optimum) |" in row
    groups = [ln for ln in res.stdout.splitlines() if ln.startswith("|  | | cf_chain_")]
    assert len(groups) >= 2 and all("(estimate)" in ln for ln in groups)


def _bench():
    spec = importlib.util.spec_from_file_location("bench_plans", SCRIPT)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_plan_exact_takes_a_chain_longer_than_the_old_limit(tmp_path: Path) -> None:
    bench = _bench()
    src = tmp_path / "chain24.cu"
    src.write_text(bench.chain_source(24))  # the exact search used to stop at 16 (exit 3)
    res = subprocess.run([sys.executable, "-m", "cudafuse", "plan", str(src), "--partition",
                          "exact"], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    assert "    search: exact: dynamic programming over " in res.stdout
    assert "; optimal" in res.stdout


SPEC = """entry = "chain"
seed = 1
[sizes]
w = 131
h = 77
[[args]]
name = "in"
dtype = "float32"
count = "w * h"
shape = ["h", "w"]
init = "uniform(0.1, 0.9)"
role = "in"
[[args]]
name = "out"
dtype = "float32"
count = "w * h"
shape = ["h", "w"]
role = "out"
[[args]]
name = "w"
value = "w"
[[args]]
name = "h"
value = "h"
"""


@pytest.mark.slow
def test_the_chains_long_groups_compute_what_the_chain_does(tmp_path: Path) -> None:
    """The groups the search keeps on a long chain (a blur and its two point kernels, or
    more) fuse and match the original at every element under the emulator."""
    bench = _bench()
    src, out, spec = tmp_path / "chain24.cu", tmp_path / "chain24.fused.cu", tmp_path / "s.toml"
    src.write_text(bench.chain_source(24))
    spec.write_text(SPEC)
    fused = subprocess.run([sys.executable, "-m", "cudafuse", "fuse", str(src), "-o", str(out),
                            "--report", str(tmp_path / "r.json")], capture_output=True,
                           text=True, timeout=600)
    assert fused.returncode == 0, fused.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert max(len(g["kernels"]) for g in report["sequences"][0]["fused"]) >= 3
    res = subprocess.run([sys.executable, "-m", "cudafuse", "verify", str(src), str(out),
                          "--spec", str(spec)], capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "all outputs match" in res.stdout + res.stderr


def test_survey_programs_come_with_their_flags(tmp_path: Path) -> None:
    """--survey reads the survey's manifest: a program found in the cache comes with its
    -I/-D flags as api.fuse's options; one that is not there is left out."""
    import tomllib

    doc = tomllib.loads((ROOT / "benchmarks" / "survey" / "manifest.toml").read_text())
    prog = next(p for p in doc["program"] if p.get("defines") and p.get("includes"))
    (tmp_path / prog["path"]).parent.mkdir(parents=True)
    (tmp_path / prog["path"]).write_text("// a stand-in: only the path is read here\n")
    found = _bench().survey_programs(tmp_path)
    assert [(name, path) for name, path, _ in found] == [(prog["name"], tmp_path / prog["path"])]
    opts = found[0][2]
    assert opts["defines"] == prog["defines"]
    assert opts["include_dirs"] == [str((tmp_path / prog["path"]).parent),
                                    *(str(tmp_path / inc) for inc in prog["includes"])]


def test_the_done_criteria_name_what_fails_them() -> None:
    """bench_plans checks the issue's criteria on every fused kernel it measures: a default
    plan's spill, an occupancy loss its note does not give the figure of, a --fuse-all kernel
    above twice its members' largest register count without a note, and the 64-chain."""
    from cudafuse.analysis.occupancy import DeviceLimits, occupancy
    from cudafuse.passes.vertical.plan.resources import GroupResources, KernelFigures

    bench = _bench()
    limits = DeviceLimits.for_arch("sm_90")

    def fig(name: str, regs: int, spills: int = 0) -> KernelFigures:
        return KernelFigures(name, regs, spills, 0, 256, occupancy(limits, 256, regs).fraction,
                             "ptxas")

    members = (fig("a", 20), fig("b", 28))
    fine = GroupResources(fig("f", 32), members, 1.0, (24, 16), 1e9, 0.0, "")
    bench.check_group("ok", "default", fine)
    bench.check_group("ok", "fuse-all", fine)
    assert all(v == "holds" for v in [ln.split(": ", 1)[1].split(" (")[0]
                                     for ln in bench.criteria_lines()[2:5]])
    bench.check_group("p", "default", GroupResources(fig("s", 32, 8), members, 1.0, (24, 16),
                                                     1e9, 0.0, ""))
    big = fig("g", 96)
    bench.check_group("q", "fuse-all", GroupResources(big, members, 1.0, (24, 16), 1e9, 0.0,
                                                      "lowers occupancy to 0.25"))
    lines = bench.criteria_lines()
    assert lines[2] == "- no default plan spills: FAILED: p default s: 8 bytes"
    assert lines[3].endswith("holds (4 checked)")  # the note gives q's figure
    assert lines[4].endswith("FAILED: q fuse-all g: 96 vs 28")
    assert lines[5] == "- a 64-kernel chain keeps at most 22 launches: not measured"
