"""Kernels compute in the GPU's floating-point environment (round to nearest, subnormals kept)
whatever the host code set before the launch (fesetround, FTZ/DAZ in MXCSR), on fibers and in
the plain loop alike: a launch sets the default environment and gives the host's back after it.
Before, a plain-loop kernel on the launching thread computed in the host's rounding mode."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.runtime import load

W, H = 21, 13  # not multiples of the 8x8 tile: partial blocks too


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAMS / "fp_env.cu", timeout=60) as lib:  # the suite's level (-O0)
        yield lib


def _inputs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(31)
    a = rng.uniform(0.5, 2.0, W * H).astype(np.float32)
    b = rng.uniform(0.5, 2.0, W * H).astype(np.float32)
    a[0], b[0] = np.float32(1.0), np.float32(3.0)  # 1/3: inexact, differs upward
    return a, b


@pytest.mark.parametrize("mode", [0, 1, 2, 3], ids=["default", "upward", "ftz", "both"])
def test_kernels_round_to_nearest_whatever_the_host_set(lib, mode):
    a, b = _inputs()
    # numpy's float32 arithmetic: IEEE round to nearest, subnormal results kept
    ref = a / b * np.float32(2e-38)
    assert np.count_nonzero((ref > 0) & (ref < np.finfo(np.float32).tiny)) > 20  # subnormal
    assert np.count_nonzero(ref >= np.finfo(np.float32).tiny) > 20
    q1 = np.zeros(W * H, np.float32)
    q2 = np.zeros(W * H, np.float32)
    lib.call("run", a, b, q1, q2, W, H, mode)
    np.testing.assert_array_equal(q1, ref)
    np.testing.assert_array_equal(q2, ref)
