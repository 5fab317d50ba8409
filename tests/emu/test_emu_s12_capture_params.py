"""Kernel nodes captured from `<<<>>>` launches (issue 31: wbing520's ch12/cuda_graphs.cu
stopped at cudaGraphExecKernelNodeSetParams: a captured node had no function pointer). Such a
node now has its kernel's address, grid, block and argument values, which
cudaGraphKernelNodeGetParams returns and a program sets back, changed. Our own program."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS, assert_nvcc_compiles

from cudafuse.runtime import load
from cudafuse.runtime.errors import KernelError

PROGRAM = PROGRAMS / "s12" / "capture_params.cu"


def test_captured_launches_replayed_then_their_parameters_set_back():
    n, launches, n2 = 1000, 3, 300  # n2 < n and not a multiple of the block: guards matter
    x = np.random.default_rng(12).random(n, dtype=np.float32)
    acc = np.zeros(n, np.float32)
    with load(PROGRAM, timeout=120) as lib:
        r = lib.call("captured", x, acc, n, launches, n2)
    assert r == 3  # scale, add_into, the copy back
    # The three replays, each scale(0.5) then add_into, in float32 as the kernels compute.
    dx = x.copy()
    ref_acc = np.zeros(n, np.float32)
    for _ in range(launches):
        dx = dx * np.float32(0.5) + np.float32(1)
        ref_acc += dx
    # acc_out holds the copy of the last replay; the fourth launch rescales only the first n2
    # elements (by 3) and adds all of them again, but its copy back goes to acc_out too.
    dx[:n2] = dx[:n2] * np.float32(3) + np.float32(1)
    ref_acc += dx
    np.testing.assert_array_equal(acc, ref_acc)


@pytest.mark.slow  # a second worker (the first stops at the refusal): about 8 CPU-s
def test_a_launch_whose_argument_converts_has_no_function_pointer_and_stops_at_the_set():
    n = 100
    x = np.arange(n, dtype=np.float32)
    with load(PROGRAM, timeout=120) as lib, pytest.raises(KernelError) as err:
        lib.call("converted", x, n)
    text = str(err.value)
    assert "cudaGraphExecKernelNodeSetParams" in text
    assert "capture_params.cu:88:" in text
    assert "function pointer is null" in text


@pytest.mark.nvcc
@pytest.mark.slow
def test_program_compiles_with_nvcc(tmp_path):
    assert_nvcc_compiles(PROGRAM, tmp_path)
