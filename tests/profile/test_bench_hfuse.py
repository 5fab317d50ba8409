"""benchmarks/bench_hfuse.py: the table it writes from profiling reports, and (slow) the whole
script under the CPU emulator on one pair."""

from __future__ import annotations

import importlib.util
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
            "timing": {"median_ms": ms} if ms is not None else None}


def test_a_row_names_the_best_of_each_mode_and_the_choice() -> None:
    bench = _module()
    report = {"candidates": [
        _cand("streams", "streams", 2.0), _cand("sequential", "sequential", 3.0),
        _cand("thread:256+256:rnone", "thread", 1.8, [256, 256]),
        _cand("thread:384+128:r64", "thread", 1.6, [384, 128], 64),
        _cand("thread:128+128:r32", "thread", None, [128, 128], 32),
        _cand("block:256+256:rnone", "block", 2.2, [256, 256])],
        "choice": {"id": "thread:384+128:r64"}}
    pair = {"name": "a+b", "paper_speedup_nregcap": "1 / 2", "paper_speedup_regcap": "3 / 4"}
    row = bench.row(pair, report, 42.4, (0.5, 0.6))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells == ["a+b", "0.5 / 0.6", "2", "3", "1.6 (384+128:r64)", "2.2", "1.6",
                     "+25.0%", "thread 384+128, regcap 64", "42 s", "1 / 2", "3 / 4"]
    report["choice"] = {"id": "streams"}
    assert "| native (two streams) |" in bench.row(pair, report, 1.0, None)


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
