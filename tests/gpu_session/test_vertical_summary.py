"""The vertical table's verdict on the cost model, from the recorded H200 sessions: each
row's variant times (recorded with the row, or read from the session's log, whose second
run prints a row's line after the NEXT row's `fuse --profile` report), the model's gap to
the fastest variant, and the summary line (fastest, within 1%, further behind, named)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"
FIRST = ROOT / "benchmarks" / "results" / "2026-11-28-h200"
SECOND = ROOT / "benchmarks" / "results" / "2026-11-28-h200-2"


def _module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    finally:
        del sys.modules[name]
    return mod


@pytest.fixture(scope="module")
def bv() -> ModuleType:
    return _module("bench_vertical")


def test_reports_are_matched_to_their_rows_in_either_order(bv: ModuleType) -> None:
    second = bv.log_reports((SECOND / "log.txt").read_text())
    assert len(second) == 16
    # shitomasi 4096's report is followed by blur 4096's, then shitomasi's own line
    shi = second[("shitomasi", 4096)]
    assert shi["model"] == shi["exact"] == pytest.approx(0.2826)
    assert shi["block-32x8"] == pytest.approx(0.2685)
    assert shi["mincut"] == pytest.approx(1.083)
    blur = second[("blur", 4096)]
    assert blur["unfused"] == blur["model"] == pytest.approx(0.1298)
    assert blur["fuse-all"] == pytest.approx(0.2137)
    assert second[("canny", 8192)]["unfused"] == pytest.approx(1.137)
    # the first session: each row's line right after its report; shitomasi's failed
    first = bv.log_reports((FIRST / "log.txt").read_text())
    assert first[("harris", 4096)]["tiles-never"] == pytest.approx(0.2528)
    assert ("shitomasi", 4096) not in first
    assert first[("night", 4096)]["fuse-all"] == pytest.approx(1.511)


def test_a_report_whose_row_failed_after_profiling_is_passed_over(bv: ModuleType) -> None:
    log = "\n".join([
        "cudafuse: profile: chose block-32x8: median 1 ms",
        "cudafuse: profile:   model (= exact): 2 ms (spread 0.1%)",
        "cudafuse: profile: kept the program unfused (3 ms): no",
        "cudafuse: profile:   unfused (= model): 3 ms (spread 0.1%)",
        "sobel 64 (fuse --profile): failed: the harness did not build",
        "blur 64: fuse --profile chose unfused, 3.1 ms"])
    assert bv.log_reports(log) == {("blur", 64): {"unfused": 3.0, "model": 3.0}}


def test_the_models_gap_counts_unfused_as_a_choice(bv: ModuleType) -> None:
    prof = {"variants": [
        {"id": "unfused", "aliases": ["model"], "timing": {"median_ms": 0.13}},
        {"id": "fuse-all", "aliases": ["fuse-all-recompute"], "timing": {"median_ms": 0.21}},
        {"id": "mincut", "aliases": [], "timing": None}]}
    times = bv.variant_times(prof)
    assert times == {"unfused": 0.13, "model": 0.13, "fuse-all": 0.21,
                     "fuse-all-recompute": 0.21}
    gap = bv.model_gap({"profile_times": times, "profile_choice": "unfused"})
    assert gap is not None and gap[0] == 0 and gap[1] == "unfused"
    assert bv.model_gap({"model_fastest": False}) is None


def test_the_second_sessions_summary(bv: ModuleType) -> None:
    text = bv.render(SECOND)
    line = text.splitlines()[-1]
    assert "fastest variant `fuse --profile` timed in 6 of 16 runs" in line
    assert "within 1% of it in 8 more" in line and "another block shape in 8" in line
    assert "more than 1% behind in 2: shitomasi 4096^2 (0.2826 ms against block-32x8's " \
        "0.2685 ms, +5.3%); shitomasi 8192^2 (1.069 ms against block-32x8's 1.014 ms, " \
        "+5.4%)." in line
    assert "| blur | 4096^2 | 0.132 | 0.133 | 0.99 | 0.132 | unfused | yes |" in text
    assert "| shitomasi | 8192^2 |" in text and "| no (+5.4%) |" in text
    # rows without variant times keep the profile's own verdict
    old = {("a", 1): {"sample": "a", "size": 1, "speedup": 1.0, "model_fastest": True}}
    assert bv.table(old).endswith("measured fastest in 1 of 1 runs.")


def test_calibration_reads_the_second_sessions_variants() -> None:
    calibrate = _module("calibrate")
    data = calibrate.measurements(SECOND)
    shi = {m.variant.name: m.ms for m in data if (m.sample, m.size) == ("shitomasi", 4096)}
    assert shi["mincut"] == pytest.approx(1.083)  # not blur 4096's fuse-all, 0.2137
    assert shi["model"] == pytest.approx(0.281184)  # the harness's time of the model row
