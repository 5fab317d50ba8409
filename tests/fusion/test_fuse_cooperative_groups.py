"""Kernels using cooperative groups are never recomputed as producers: a group's sync,
shuffle or reduce depends on the other threads of the original launch (the front end parses
them since the cooperative_groups stand-in; before it, such kernels were dropped). One may
end a group: its own reads of an intermediate are the thread's own, whoever it syncs with,
and a view computes the same values there."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from equivalence import call_both

from cudafuse.analysis.report import build_report
from cudafuse.frontend import parse_file
from cudafuse.passes.vertical.driver import FuseOptions, fuse_unit

PROGRAM = Path(__file__).parent / "programs" / "cooperative_groups_pipe.cu"


def test_analyze_counts_group_calls_as_barriers_and_collectives() -> None:
    report = build_report(parse_file(str(PROGRAM)).unit)
    kernels = {k["name"]: k for k in report["kernels"]}
    assert [b["name"] for b in kernels["neighbour"]["barriers"]] == ["cooperative_groups::sync"]
    assert kernels["scale"]["barriers"] == [] and kernels["scale"]["warp_ops"] == []


def test_no_edge_out_of_a_cooperative_kernel_is_fused(tmp_path: Path) -> None:
    unit = parse_file(str(PROGRAM)).unit
    result = fuse_unit(unit, FuseOptions(fuse_all=True))
    why = {(e.src, e.dst): e for e in result.edges}
    assert len(why) == 2
    refused = why[("viahelper", "scale")]
    assert refused.refused and "'viahelper' cannot be recomputed: it calls a barrier " \
        "('cooperative_groups::sync', through a helper)" in refused.why
    assert why[("scale", "neighbour")].fused  # into the kernel that syncs: its reads
    fused = tmp_path / "fused.cu"
    fused.write_bytes(result.output)
    for n in (1, 300, 777):
        rng = np.random.default_rng(n)
        args = [rng.random(n, dtype=np.float32), *(np.full(n, -7.0, np.float32)
                                                   for _ in range(3)), n]
        before, after = call_both(PROGRAM, fused, "pipe", args)
        for a, b in zip(before[:4], after[:4], strict=True):
            assert np.array_equal(a, b)


