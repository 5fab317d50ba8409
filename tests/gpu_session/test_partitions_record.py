"""Which partition each timed vertical variant was (profile.vertical.partition_of), recorded
beside the GPU session's rows in partitions.json, in the form benchmarks/calibrate.py fits the
cost model from: the variants' names alone do not say (the first H200 run's record had to be
rebuilt by hand from the model of the measuring checkout)."""

from __future__ import annotations

import importlib.util
import json
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType

from cudafuse.frontend import ParseOptions
from cudafuse.passes.vertical.driver import fuse_unit
from cudafuse.passes.vertical.kernel.respell import parse_for_fusion
from cudafuse.passes.vertical.result import FuseOptions
from cudafuse.profile.vertical import partition_of

ROOT = Path(__file__).resolve().parents[2]


def _module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_partition_of_gives_groups_by_position_and_the_tiles_as_emitted() -> None:
    unit = parse_for_fusion(str(ROOT / "samples" / "canny.cu"), ParseOptions())[0].unit
    base = FuseOptions(scratch=frozenset({"smooth", "mag", "dir"}), fuse_all=True)
    staged = fuse_unit(unit, replace(base, tiles="always"))
    # gaussian5x5 -> sobel_grad -> non_max_suppression as one kernel; sobel_grad's magnitude
    # (launch 1) read by the 3x3 suppression through a shared-memory tile
    # (main, which calls canny_pipeline, fuses through the call too: d_mag; not what is timed)
    assert [g.tiles for p in staged.plans for g in p.groups] == [{"mag": (1, 1)},
                                                                  {"d_mag": (1, 1)}]
    assert partition_of(staged, "canny_pipeline") == {"groups": [[0, 1, 2]], "staged": [[1]]}
    assert partition_of(staged)["groups"] == [[0, 1, 2], [0, 1, 2]]  # every host's
    never = fuse_unit(unit, replace(base, tiles="never"))
    assert partition_of(never, "canny_pipeline") == {"groups": [[0, 1, 2]], "staged": [[]]}
    alone = fuse_unit(unit, FuseOptions(scratch=base.scratch))  # the calibrated model's plan
    assert all(len(g) >= 2 for g in partition_of(alone)["groups"])  # fused groups only


def test_profile_reports_and_the_model_column_are_merged_per_sample(tmp_path: Path) -> None:
    bv = _module("bench_vertical")
    path = tmp_path / "partitions.json"
    one = {"groups": [[0, 1]], "staged": [[]]}
    two = {"groups": [[0, 1, 2]], "staged": [[1]]}
    bv.record_partitions(path, "canny", {"model": one})
    report = {"variants": [
        {"id": "unfused", "aliases": [], "partition": None},
        {"id": "model", "aliases": ["exact", "mincut"], "partition": one},
        {"id": "fuse-all", "aliases": [], "partition": two},
        {"id": "block-64x4", "aliases": [], "skip": "no 2D group"}]}
    bv.record_partitions(path, "canny", bv.profile_partitions(report))
    bv.record_partitions(path, "blur", {"model": {"groups": [], "staged": []}})
    bv.record_partitions(None, "blur", {"model": two})  # no results folder: nothing written
    doc = json.loads(path.read_text())
    assert doc == {"canny": {"model": one, "exact": one, "mincut": one, "fuse-all": two},
                   "blur": {"model": {"groups": [], "staged": []}}}
    assert not list(tmp_path.glob("*.tmp"))


def test_calibrate_reads_what_the_session_records(tmp_path: Path) -> None:
    bv, cal = _module("bench_vertical"), _module("calibrate")
    bv.record_partitions(tmp_path / "partitions.json", "sobel",
                         {"model": {"groups": [[0, 1, 2]], "staged": [[]]}})
    row = {"kind": "model", "backend": "nvcc", "sample": "sobel", "size": 4096,
           "unfused_ms": 0.2, "fused_ms": 0.08}
    (tmp_path / "vertical.jsonl").write_text(json.dumps(row) + "\n")
    (tmp_path / "log.txt").write_text("")
    got = {(m.variant.name, m.variant.groups, m.variant.staged, m.ms)
           for m in cal.measurements(tmp_path)}
    assert got == {("unfused", (), (), 0.2), ("model", ((0, 1, 2),), ((),), 0.08)}
