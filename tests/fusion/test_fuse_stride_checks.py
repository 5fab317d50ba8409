"""A row stride that is a #define against a parameter bound (PolyBench's `A[i * N + j]` under
`if (j < nx)`): the group fuses under a run-time check `nx <= N` (host/runtime_check.py,
plan/legality.py), and both paths, the fused one where the check holds and the original
launches where it fails, match the original under emulation, every element, garbage-filled."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

PROGRAM = Path(__file__).parent / "programs" / "stride_checks.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("sc") / "fused.cu"
    return out, fuse_file(PROGRAM, out, fuse_all=True)


def test_fuses_under_a_stride_check(fused) -> None:
    out, result = fused
    assert [(g.host, tuple(g.kernels)) for g in result.groups] == [
        ("sc_pipeline", ("sc_scale", "sc_blend"))]
    text = out.read_text()
    assert "(long long)(nx) <= (long long)(64)" in text
    assert "} else { /* cudafuse: the original launches */" in text


@pytest.mark.parametrize("nx,ny", [(37, 5), (64, 3), (70, 4)])  # the last: check fails
def test_both_paths_match(fused, nx: int, ny: int) -> None:
    out, _ = fused
    rows = 64 * ny + nx  # (nx > 64: the last row reaches past ny * 64)
    compare_entry(PROGRAM, out, "sc_pipeline", {"nx": nx, "ny": ny},
                  extra={"a": rows, "t": rows, "out": rows})
