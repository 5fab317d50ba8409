"""What a group fused under a run-time condition says that condition stands for: each check
carries the words of the module that made it (a producer's grid coverage,
host/runtime_check.py; overlapping tiles' loads reaching every element,
kernel/tile_stores.py; each thread's accesses staying in its own row,
kernel/thread_private.py; rows no wider than their stride, plan/legality.py), in
--explain's `assumed:` lines, the sibling notes and the report, not one sentence for all."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

from cudafuse.passes.vertical.driver import report_dict

PROGRAMS = Path(__file__).parent / "programs"
COVERAGE_WORDS = "grids cover their domains"


def _assumed(result, host: str) -> str:
    found = [a for a in result.assumed if a.startswith(f"{host}: ") and "runs when" in a]
    assert len(found) == 1, result.assumed
    return found[0]


def test_grid_coverage_checks_say_whose_grid(tmp_path: Path) -> None:
    result = fuse_file(PROGRAMS / "runtime_checks.cu", tmp_path / "fused.cu")
    said = _assumed(result, "p_define_grid")
    assert "the grid of 'brighten' covers its domain (grid * block >= bound" in said
    # the last kernel's grid is checked too: it stores the group's intermediates
    assert "the grid of 'blur3' covers the domain where it stores the group's " \
        "intermediates" in said


def test_tile_store_checks_say_the_tiles_reach_every_element(tmp_path: Path) -> None:
    result = fuse_file(PROGRAMS / "tile_stores.cu", tmp_path / "fused.cu", fuse_all=True)
    said = _assumed(result, "window_pipe")
    assert "the overlapping tiles the threads of 'smooth' load reach every element of its " \
        "producers' domain" in said
    assert COVERAGE_WORDS not in said and "grid of" not in said
    fused = [g for p in report_dict(result)["sequences"] for g in p["fused"]
             if g["name"].startswith("cf_window_pipe")]
    means = [c["means"] for c in fused[0]["run_time_checks"]]
    assert len(means) == 1 and means[0].startswith("the overlapping tiles")
    assert f"({means[0]}); the original launches run otherwise" in said  # the report says it too


def test_thread_private_checks_say_each_thread_keeps_to_its_row(tmp_path: Path) -> None:
    result = fuse_file(PROGRAMS / "thread_private.cu", tmp_path / "fused.cu")
    why = {p.host: s.why for p in result.plans for s in p.siblings if s.fused}
    assert "when (w) >= 1 (the bounds that keep each thread's accesses of a inside its own " \
        "row of elements, which no other thread touches: not shown from the text), the " \
        "original launches otherwise" in why["row_sweep"]
    assert not any(COVERAGE_WORDS in a for a in result.assumed)


def test_pitched_rows_check_says_rows_fit_their_stride(tmp_path: Path) -> None:
    result = fuse_file(PROGRAMS / "pitched_rows.cu", tmp_path / "fused.cu")
    said = _assumed(result, "run")
    assert "runs when (long long)(width) <= (long long)(pitch) (the rows 'to_gray' stores " \
        "are no wider than the stride it stores them with)" in said
    checks = report_dict(result)["sequences"][0]["fused"][0]["run_time_checks"]
    assert checks == [{"condition": "(long long)(width) <= (long long)(pitch)",
                       "means": "the rows 'to_gray' stores are no wider than the stride it "
                                "stores them with"}]


@pytest.mark.slow
@pytest.mark.parametrize("width,pitch", [(37, 40), (40, 37)])  # the check holds, fails
def test_pitched_rows_equal_the_original(tmp_path: Path, width: int, pitch: int) -> None:
    fuse_file(PROGRAMS / "pitched_rows.cu", tmp_path / "fused.cu")
    compare_entry(PROGRAMS / "pitched_rows.cu", tmp_path / "fused.cu", "run",
                  {"w": max(width, pitch), "h": 23, "width": width, "height": 23,
                   "pitch": pitch})
