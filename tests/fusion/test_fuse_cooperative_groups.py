"""Kernels using cooperative groups are never fused: a group's sync, shuffle or reduce
depends on the other threads of the original launch (the front end parses them since the
cooperative_groups stand-in; before it, such kernels were dropped)."""

from __future__ import annotations

from pathlib import Path

from cudafuse.analysis.report import build_report
from cudafuse.frontend import parse_file
from cudafuse.passes.vertical.driver import FuseOptions, fuse_unit

PROGRAM = Path(__file__).parent / "programs" / "cooperative_groups_pipe.cu"


def test_analyze_counts_group_calls_as_barriers_and_collectives() -> None:
    report = build_report(parse_file(str(PROGRAM)).unit)
    kernels = {k["name"]: k for k in report["kernels"]}
    assert [b["name"] for b in kernels["neighbour"]["barriers"]] == ["cooperative_groups::sync"]
    assert kernels["scale"]["barriers"] == [] and kernels["scale"]["warp_ops"] == []


def test_no_edge_into_or_out_of_a_cooperative_kernel_is_fused() -> None:
    unit = parse_file(str(PROGRAM)).unit
    result = fuse_unit(unit, FuseOptions(fuse_all=True))
    assert result.output == unit.source.data  # nothing fused, the file unchanged
    assert all(e.refused and not e.fused for e in result.edges) and len(result.edges) == 2
    text = "\n".join(e.why for e in result.edges)
    assert "'viahelper' cannot be recomputed: it calls a barrier " \
           "('cooperative_groups::sync', through a helper)" in text
    assert "'neighbour' reads 'tmp' in a way cudafuse cannot map: threads cooperate " \
           "through cooperative groups" in text
