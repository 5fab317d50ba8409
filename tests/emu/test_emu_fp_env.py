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


def test_rsqrt_is_one_over_the_correctly_rounded_root(lib):
    # (the emulator computes the root with sqrtss/sqrtsd, without libm's errno path)
    rng = np.random.default_rng(7)
    special = [0.0, -0.0, -1.0, np.inf, -np.inf, np.nan, 1e-40, 1e-45, 3.4e38, 1.0, 4.0, 2.0]
    xf = np.concatenate([special, rng.uniform(0, 1e6, 52)]).astype(np.float32)
    xd = np.concatenate([special, rng.uniform(0, 1e6, 52)]).astype(np.float64)
    xd[6:8] = [1e-310, 5e-324]  # double subnormals
    r, rd = np.zeros_like(xf), np.zeros_like(xd)
    lib.launch("rsqrts", 1, 64, 0, (xf, r, xd, rd, len(xf)))
    with np.errstate(all="ignore"):
        ref, refd = np.float32(1) / np.sqrt(xf), 1.0 / np.sqrt(xd)
    np.testing.assert_array_equal(r, ref)  # NaN where numpy has NaN, every other bit equal
    np.testing.assert_array_equal(rd, refd)
    assert np.signbit(r[1]) and np.isinf(r[1]) and r[0] == np.inf  # 1/sqrt(-0) = -inf
