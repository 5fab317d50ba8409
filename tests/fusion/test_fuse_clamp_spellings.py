"""Gathers whose clamps are spelled as course code spells them (issue 25): helpers of
conditionals (`a > b ? b : a`, read as min and max by analysis/access._minmax) and
coordinates computed into locals that are then reassigned with their clamped value
(followed in order by analysis/evaluate: `sx = x + dx; sx = sx < 0 ? 0 : sx;
if (sy >= h) sy = h - 1;`). The point producer is recomputed at every element such a
consumer reads; the original and fused programs run under emulation on the same
garbage-filled buffers and every byte is compared. A clamp that holds on one branch only
stays refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_with_api

from cudafuse.analysis.kernel_facts import analyze_kernel
from cudafuse.frontend import parse_file

PROGRAM = Path(__file__).parent / "programs" / "clamp_spellings.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    return fuse_with_api(PROGRAM, tmp_path_factory.mktemp("clamps"))


def test_both_spellings_read_as_clamped_gathers() -> None:
    unit = parse_file(str(PROGRAM)).unit
    for name in ("smooth_helpers", "smooth_reassigned"):
        load = analyze_kernel(unit, unit.function(name)).load("in")
        assert load is not None and load.kind == "gather", (name, load)
        assert load.border == ("clamp", "clamp") and load.bounds == ("cols", "rows"), name
    half = analyze_kernel(unit, unit.function("smooth_half_clamped")).load("in")
    assert half is not None and half.kind == "other"
    stepped = analyze_kernel(unit, unit.function("stepped_rows")).load("in")
    assert stepped is not None and stepped.kind == "other", stepped  # (not row l - d)


def test_the_pipelines_fuse_whole(fused) -> None:
    groups = {g.host: tuple(g.kernels) for g in fused[1].result.groups}
    assert groups["blur_helpers"] == ("split_rgb", "smooth_helpers", "smooth_helpers",
                                      "join_rgb")
    assert groups["blur_reassigned"] == ("split_rgb", "smooth_reassigned",
                                         "smooth_reassigned", "join_rgb")
    assert "blur_half_clamped" not in groups


@pytest.mark.slow  # (two emulated builds: about 35 s)
@pytest.mark.parametrize("entry", ["blur_helpers", "blur_reassigned"])
@pytest.mark.parametrize("sizes", [
    {"numCols": 37, "numRows": 19, "filterWidth": 5},
    {"numCols": 3, "numRows": 10, "filterWidth": 7},
])
def test_fused_matches(fused, entry: str, sizes: dict[str, int]) -> None:
    compare_entry(PROGRAM, fused[0], entry, sizes, extra={"d_filter": 49})


@pytest.mark.slow
def test_the_refused_one_runs_as_written(fused) -> None:
    compare_entry(PROGRAM, fused[0], "blur_half_clamped",
                  {"numCols": 21, "numRows": 5, "radius": 2, "flag": 0})
