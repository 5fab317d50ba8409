"""Warp matrix multiply-accumulate (emu/include/mma.h) against numpy: the emulator sums
each output element over k in order, in the accumulator's type, so the reference below
computes the same sums and every element must be equal."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.runtime import load


@pytest.fixture(scope="module", params=[None, True], ids=["loop", "fibers"])
def lib(request):
    with load(PROGRAMS / "wmma.cu", opt="-O1", fibers=request.param) as lib:
        yield lib


def ordered_gemm(a: np.ndarray, b_t: np.ndarray, dtype) -> np.ndarray:
    """sum_k a[i, k] * b_t[j, k] accumulated in `dtype`, k in order (products exact or
    rounded once in `dtype`)."""
    acc = np.zeros((a.shape[0], b_t.shape[0]), dtype)
    for k in range(a.shape[1]):
        acc = (acc + np.outer(a[:, k], b_t[:, k]).astype(dtype)).astype(dtype)
    return acc


def launch_gemm(lib, kernel, a, b_t, c, alpha, beta, tile, in_place):
    m, k = a.shape
    n = b_t.shape[0]
    warps = (m // tile[0]) * (n // tile[1])
    d = c if in_place else np.zeros_like(c)
    lib.launch(kernel, (warps + 1) // 2, 64, 0, (a, b_t, c, d, m, n, k, alpha, beta))
    return d


@pytest.mark.parametrize("kernel,dtype", [("gemm_half", np.float16), ("gemm_bf16", None)])
@pytest.mark.parametrize("in_place", [False, True], ids=["out", "in-place"])
def test_half_and_bf16_inputs_accumulate_in_float(lib, kernel, dtype, in_place):
    rng = np.random.default_rng(5)
    m, n, k = 32, 48, 64
    if dtype is None:  # bfloat16: float32 values with 8 significant bits, as uint16
        raw = rng.standard_normal((m + n, k)).astype(np.float32)
        bits = (raw.view(np.uint32) + 0x8000) >> 16  # round half up: exact enough for data
        a_in, b_in = bits[:m].astype(np.uint16), bits[m:].astype(np.uint16)
        a = (a_in.astype(np.uint32) << 16).view(np.float32)
        b_t = (b_in.astype(np.uint32) << 16).view(np.float32)
    else:
        a_in = rng.standard_normal((m, k)).astype(np.float16)
        b_in = rng.standard_normal((n, k)).astype(np.float16)
        a, b_t = a_in.astype(np.float32), b_in.astype(np.float32)
    c = rng.standard_normal((m, n)).astype(np.float32)
    alpha, beta = np.float32(1.5), np.float32(-0.75)
    ref = alpha * ordered_gemm(a, b_t, np.float32) + beta * c
    d = launch_gemm(lib, kernel, a_in, b_in, c.copy(), alpha, beta, (16, 16), in_place)
    np.testing.assert_array_equal(d, ref)


def test_double_8x8x4(lib):
    rng = np.random.default_rng(6)
    m, n, k = 16, 24, 12
    a, b_t = rng.standard_normal((m, k)), rng.standard_normal((n, k))
    c = rng.standard_normal((m, n))
    ref = 2.0 * ordered_gemm(a, b_t, np.float64) + 0.5 * c
    d = launch_gemm(lib, "gemm_double", a, b_t, c, 2.0, 0.5, (8, 8), False)
    np.testing.assert_array_equal(d, ref)


def test_int8_sums_in_int32(lib):
    rng = np.random.default_rng(7)
    m, n, k = 32, 32, 48
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b_t = rng.integers(-128, 128, (n, k)).astype(np.int8)
    c = rng.integers(-1000, 1000, (m, n)).astype(np.int32)
    ref = 3 * (a.astype(np.int64) @ b_t.T.astype(np.int64)) - 2 * c
    d = launch_gemm(lib, "gemm_int8", a, b_t, c, 3, -2, (16, 16), True)
    np.testing.assert_array_equal(d, ref.astype(np.int32))


def tf32(x: np.ndarray) -> np.ndarray:
    """Round to tf32 (10 mantissa bits), to nearest with ties away from zero."""
    bits = x.astype(np.float32).view(np.uint32)
    return ((bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).view(np.float32)


def test_tf32_rounding_and_column_major_store(lib):
    rng = np.random.default_rng(8)
    m, n, k = 32, 16, 24
    a = rng.standard_normal((m, k)).astype(np.float32)
    b_t = rng.standard_normal((n, k)).astype(np.float32)
    d = np.zeros(m * n, np.float32)
    lib.launch("gemm_tf32", (m // 16) * (n // 16) // 2 or 1, 64, 0, (a, b_t, d, m, n, k))
    ref = ordered_gemm(tf32(a), tf32(b_t), np.float32)
    np.testing.assert_array_equal(d.reshape(n, m).T, ref)
    # the rounding itself: ties go away from zero, the 13 low bits are cleared
    assert tf32(np.array([1 + 2**-11], np.float32))[0] == 1 + 2**-10
    assert tf32(np.array([-(1 + 2**-11)], np.float32))[0] == -(1 + 2**-10)
