"""Launches of kernels an included header defines (issue 31: the survey's mimnagh_unsharp did
not build): a kernel template launched with deduced arguments and an overloaded kernel are
names of functions, called at the launch as written; only a variable holding a kernel (a
function pointer) is looked up by address (launch_via). Our own program, which nvcc compiles."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS, assert_nvcc_compiles

from cudafuse.frontend import parse_file
from cudafuse.runtime import load

PROGRAM = PROGRAMS / "s11" / "header_launch.cu"


def _clamp_trunc(v: np.ndarray) -> np.ndarray:
    return np.where(v < 0, 0, np.where(v > 255, 255, np.trunc(v))).astype(np.uint8)


def test_the_front_end_tells_a_variable_callee_from_a_function_name():
    unit = parse_file(str(PROGRAM)).unit
    got = [(la.kernel, la.via_variable) for la in unit.launches["run"]]
    assert got == [("shift", False), ("weighted", False), ("weighted", False), ("add", True)]


def test_header_kernels_templates_and_overloads_launch_with_exact_results():
    n = 333  # not a multiple of the block: the guards matter
    rng = np.random.default_rng(11)
    inp = rng.integers(0, 256, n).astype(np.uint8)
    counts = rng.integers(-1000, 1000, n).astype(np.int32)
    out = np.zeros(n, np.uint8)
    expect_counts = counts + 7
    with load(PROGRAM, timeout=120) as lib:
        lib.call("run", out, inp, counts, n)
    t = (inp.astype(np.int32) + 3).astype(np.uint8)  # wraps as the kernel's cast does
    first = _clamp_trunc(inp.astype(np.float32) * np.float32(1.5)
                         + t.astype(np.float32) * np.float32(-0.5))
    second = _clamp_trunc(first.astype(np.float64) * 0.25 + inp.astype(np.float64) * 0.75)
    np.testing.assert_array_equal(out, second)
    np.testing.assert_array_equal(counts, expect_counts)


@pytest.mark.nvcc
def test_program_compiles_with_nvcc(tmp_path):
    assert_nvcc_compiles(PROGRAM, tmp_path)
