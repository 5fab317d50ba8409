"""`constexpr` values computed with std::ceil, which nvcc folds and clang 18 did not: the front
end's view folds the ceiling builtins as nvcc does (frontend/include/cudafuse_constexpr_math.h),
and the program runs under the emulator (issue 31)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.diagnostics import CudafuseError, Severity
from cudafuse.frontend.parse import parse_file
from cudafuse.runtime import load


def test_the_ceiling_folds_to_the_values_nvcc_gives():
    # The program's static_asserts check each value (signs, NaN, past 2^52): a wrong fold,
    # or none, is an error of the parse.
    result = parse_file(str(PROGRAMS / "constexpr_ceil.cu"))
    assert not [d for d in result.diagnostics if d.severity == Severity.ERROR]
    assert [k.name for k in result.unit.kernels] == ["halve_pairs"]


def test_the_c_librarys_ceil_in_a_constexpr_is_accepted(tmp_path):
    src = tmp_path / "ceil.cu"
    src.write_text("#include <cmath>\nconstexpr int n = 1000;\n"
                   "constexpr int blocks = std::ceil(n / 256.0) + ceilf(0.5f);\n"
                   "__global__ void g(int *p) { p[threadIdx.x] = blocks; }\n"
                   "void go(int *p) { g<<<blocks, 32>>>(p); }\n")
    result = parse_file(str(src))
    assert not [d for d in result.diagnostics if d.severity == Severity.ERROR]
    assert [k.name for k in result.unit.kernels] == ["g"]


def test_what_nvcc_does_not_fold_stays_refused(tmp_path):
    # nvcc refuses std::floor in a constant expression ("cannot call non-constexpr function
    # __builtin_floor"): so does the front end, located at the variable.
    src = tmp_path / "floor.cu"
    src.write_text("#include <cmath>\nconstexpr int k = std::floor(7) + std::ceil(0.5);\n"
                   "__global__ void g(int *p) { p[0] = k; }\n")
    with pytest.raises(CudafuseError) as err:
        parse_file(str(src))
    first = err.value.diagnostics[0]
    assert (first.line, first.col) == (2, 15)
    assert "constant expression" in first.message


@pytest.mark.slow  # a build of its own: about 10 s of g++ CPU
def test_the_folded_grid_runs_under_the_emulator():
    data = np.arange(1000, dtype=np.int32)
    out = np.zeros(500, np.int32)
    with load(PROGRAMS / "constexpr_ceil.cu", opt="-O0") as lib:
        lib.call("pair_sums", data, out)
    np.testing.assert_array_equal(out, data[0::2] + data[1::2])
