"""benchmarks/bench_hfuse.py: the table it writes from profiling reports, and (slow) the whole
script under the CPU emulator on one pair."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_hfuse.py"


def _module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_hfuse", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _cand(cid: str, kind: str, ms: float | None, threads=None, regcap=None) -> dict:
    return {"id": cid, "kind": kind, "threads": threads, "regcap": regcap,
            "verified": True if ms is not None else None,
            "timing": {"median_ms": ms} if ms is not None else None}


def test_a_row_names_the_best_of_each_mode_and_the_choice() -> None:
    bench = _module()
    report = {"candidates": [
        _cand("streams", "streams", 2.0), _cand("sequential", "sequential", 3.0),
        _cand("thread:256+256:rnone", "thread", 1.8, [256, 256]),
        _cand("thread:384+128:r64", "thread", 1.6, [384, 128], 64),
        _cand("thread:128+128:r32", "thread", None, [128, 128], 32),
        _cand("block:256+256:rnone", "block", 2.2, [256, 256])],
        "kernels": ["ka", "kb"], "options": {"candidates": {"threads": [256, 256]}},
        "choice": {"id": "thread:384+128:r64"}}
    pair = {"name": "a+b", "paper_speedup_nregcap": "1 / 2", "paper_speedup_regcap": "3 / 4"}
    row = bench.row(pair, report, 42.4, (0.5, 0.6))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells == ["a+b", "0.5 / 0.6", "2", "3", "1.6 (384+128:r64)", "2.2",
                     "1.8 (+11.1%)", "1.6", "+25.0%",
                     "thread 384+128, regcap 64; ka at 384 threads a block (native 256); kb at "
                     "128 threads a block (native 256)", "42 s", "1 / 2", "3 / 4"]
    assert len(cells) == bench.HEADER.splitlines()[0].count("|") - 1
    report["choice"] = {"id": "streams"}
    assert "| native (two streams) |" in bench.row(pair, report, 1.0, None)
    # A fused choice the report does not say was verified is never printed as a speedup.
    report["choice"] = {"id": "thread:256+256:rnone"}
    report["candidates"][2]["verified"] = None
    cells = [c.strip() for c in bench.row(pair, report, 1.0, None).strip("|").split("|")]
    assert cells[8] == "-" and "NOT VERIFIED" in cells[9]


def test_the_first_gpu_runs_batchnorm_histogram_row_says_what_differs() -> None:
    # The recorded report (H200, 2026-11-28): the chosen thread:512+512:r40 gives
    # histogram_kernel, a grid-stride loop, twice its native 256 threads a block; at the
    # natives' own block sizes the best fused candidate is block:512+256:rnone.
    bench = _module()
    path = ROOT / "benchmarks" / "results" / "2026-11-28-h200" / "hfuse.jsonl"
    rec = next(json.loads(line) for line in path.read_text().splitlines()
               if json.loads(line)["pair"] == "batchnorm_stats+histogram")
    chosen = next(c for c in rec["report"]["candidates"]
                  if c["id"] == rec["report"]["choice"]["id"])
    assert chosen["verified"] is True  # against the natives' outputs, every element
    cells = [c.strip() for c in bench.row({"name": rec["pair"]}, rec["report"], 22.0,
                                          tuple(rec["alone"])).strip("|").split("|")]
    assert cells[6] == "0.843 (+9.5%)" and cells[8] == "+108.6%"
    assert cells[9] == ("thread 512+512, regcap 40; histogram_kernel at 512 threads a block "
                        "(native 256)")


def test_calibration_grows_by_the_linear_estimate_near_the_target() -> None:
    bench = _module()
    assert bench.growth(0.001, 0.5) == 4  # launch overhead, not work: x4
    assert bench.growth(0.1, 0.5) == 8  # 5x short: the next power of two
    assert bench.growth(0.3, 0.5) == 2 and bench.growth(0.49, 0.5) == 2
    times = {1: 0.002, 4: 0.004, 16: 0.012, 64: 0.065, 512: 0.52}
    seen = []

    def fake(side, sizes, defines, backend="nvcc"):  # noqa: ANN001, ANN202
        seen.append(sizes["n"] // 4096)
        return times[sizes["n"] // 4096]

    old = bench.kernel_ms
    bench.kernel_ms = fake
    try:
        side = {"kernel": "histogram_kernel",
                "spec": str(ROOT / "samples" / "hfuse" / "histogram.toml")}
        assert bench.calibrate(side, 0.5, []) == ({"n": 4096 * 512}, 0.52)
        assert seen == [1, 4, 16, 64, 512]  # the old rule: 1, 4, 16, 64, 256, 512
        seen.clear()
        # Sized before on this device: measured once at that size.
        assert bench.calibrate(side, 0.5, [], start={"n": 4096 * 512}) == (
            {"n": 4096 * 512}, 0.52) and seen == [512]
    finally:
        bench.kernel_ms = old


def test_seeds_come_from_the_same_device_only(tmp_path: Path) -> None:
    bench = _module()
    path = tmp_path / "h.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (
        {"backend": "nvcc", "pair": "a+b", "kernel1": "a", "kernel2": "b", "device": "H200",
         "sizes": [{"n": 8}, {"m": 16}]},
        {"backend": "nvcc", "pair": "c+a", "kernel1": "c", "kernel2": "a", "device": "H100",
         "sizes": [{"n": 1}, {"n": 2}]})) + "\n")
    assert bench.seeds([path], "H200") == {"a": {"n": 8}, "b": {"m": 16}}
    assert bench.seeds([path], "H100") == {"c": {"n": 1}, "a": {"n": 2}}


def test_the_table_replaces_only_its_own_section(tmp_path: Path) -> None:
    bench = _module()
    doc = tmp_path / "b.md"
    doc.write_text("# Benchmarks\nintro\n")
    bench.write_section(doc, "first")
    bench.write_section(doc, "second")
    text = doc.read_text()
    assert text.startswith("# Benchmarks\nintro\n") and "second" in text
    assert "first" not in text and text.count(bench.MARK) == 2


@pytest.mark.slow
@pytest.mark.nvcc
def test_the_script_runs_a_pair_under_the_emulator(tmp_path: Path) -> None:
    doc = tmp_path / "b.md"
    doc.write_text("# Benchmarks\n")
    res = subprocess.run([sys.executable, str(SCRIPT), "--backend", "emu", "--no-calibrate",
                          "--pairs", "histogram+maxpool2d", "--split-step", "1024",
                          "--write", str(doc)], capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr
    assert "| histogram+maxpool2d |" in doc.read_text()
