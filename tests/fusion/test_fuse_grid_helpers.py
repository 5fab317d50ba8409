"""Grid sizes computed elsewhere (issue 25: llm.c's `ceil_div<T>` in common.h, a canny whose
grid is the caller's): a helper template from a user header inlined when its call is over
integers (host/resolver.py), and a run-time coverage check built from a kernel bound held in
a once-set local (host/runtime_check.py). The fused pipeline matches the original under
emulation, every buffer pre-filled with garbage."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

PROGRAMS = Path(__file__).parent / "programs"
PROGRAM = PROGRAMS / "grid_helpers.cu"
HEADER = PROGRAMS / "grid_helpers_util.cuh"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    out_dir = tmp_path_factory.mktemp("gh")
    shutil.copy(HEADER, out_dir / HEADER.name)
    out = out_dir / "fused.cu"
    return out, fuse_file(PROGRAM, out, fuse_all=True)


def test_template_helper_grid_fuses(fused) -> None:
    _, result = fused
    assert [(g.host, tuple(g.kernels)) for g in result.groups] == [
        ("gh_template_grid", ("gh_scale", "gh_add"))]


def test_caller_grid_gets_a_coverage_check(fused) -> None:
    # The producer's coverage is no longer the obstacle (a check `grid.x * block.x >=
    # n - 3` is built through the local `last`); what remains is the kernels' domains,
    # compared by the kernel rules.
    _, result = fused
    why = {(e.host, e.dst): e.why for e in result.edges if e.refused}
    assert "not a dim3 built in the host function" not in why[("gh_caller_grid", "gh_twice")]
    assert "grid" not in why[("gh_caller_grid", "gh_twice")]


@pytest.mark.parametrize("n", [1, 127, 128, 300])
def test_fused_matches_original(fused, n: int) -> None:
    out, _ = fused
    compare_entry(PROGRAM, out, "gh_template_grid", {"n": n})
