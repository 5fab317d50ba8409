"""`std::sqrt(double)`, `std::atan2`, `std::pow`... in kernels, after `#include <math.h>` or
`<cmath>`: nvcc accepts them; the front end's shim brings its device overloads into std
(frontend/include/cudafuse_cuda_shim.h), so they are no longer "ambiguous". A pipeline using
them fuses and matches the original under emulation."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_with_api, nvcc_error

from cudafuse.frontend import parse_file

PROGRAM = Path(__file__).parent / "programs" / "host_std_math.cu"


def test_std_math_parses(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text("#include <math.h>\n__global__ void k(double *p) { p[0] = std::sqrt(p[1]);"
                   " p[2] = std::atan2(p[3], p[4]); p[5] = std::abs(p[6]); }\n")
    unit = parse_file(str(src)).unit
    assert [k.name for k in unit.kernels] == ["k"]


def test_std_math_pipeline_fuses_and_matches(tmp_path: Path) -> None:
    out, result = fuse_with_api(PROGRAM, tmp_path)
    groups = [tuple(g.kernels) for g in result.result.groups]
    assert groups == [("polar", "mix")]
    for n in (1, 37, 300):
        compare_entry(PROGRAM, out, "pipe", {"n": n})


@pytest.mark.nvcc
def test_std_math_fused_compiles(tmp_path: Path) -> None:
    assert shutil.which("nvcc")
    out, _ = fuse_with_api(PROGRAM, tmp_path)
    assert nvcc_error(out, tmp_path) == ""
