"""cuBLASLt and cuBLAS's *Ex routines under the emulator (emu/include/cublasLt.h,
cublas_api.h): a linear layer with bias and GELU epilogues and a half-precision strided
batched product against numpy, every element; what the stand-in does not compute returns
CUBLAS_STATUS_NOT_SUPPORTED."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.runtime import load


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAMS / "cublaslt_calls.cu", opt="-O1") as lib:
        yield lib


def _gelu(v):
    return 0.5 * v * (1 + np.tanh(0.7978845608028654 * (v + 0.044715 * v ** 3)))


@pytest.mark.parametrize("gelu", [0, 1])
def test_linear_layer_with_bias_epilogue(lib, gelu):
    rng = np.random.default_rng(gelu)
    B, C, OC = 7, 13, 5
    inp = rng.standard_normal((B, C)).astype(np.float32)
    weight = rng.standard_normal((OC, C)).astype(np.float32)
    bias = rng.standard_normal(OC).astype(np.float32)
    out = np.zeros((B, OC), np.float32)
    assert lib.call("linear", out, inp, weight, bias, B, C, OC, gelu) == 0
    ref = inp.astype(np.float64) @ weight.T.astype(np.float64) + bias
    ref = _gelu(ref) if gelu else ref
    np.testing.assert_allclose(out, ref.astype(np.float32), rtol=1e-6, atol=1e-6)


def test_half_strided_batched_gemm_ex(lib):
    rng = np.random.default_rng(5)
    m, n, k, batch = 6, 4, 9, 3
    a = rng.standard_normal((batch, k, m)).astype(np.float16)  # column-major m x k
    b = rng.standard_normal((batch, n, k)).astype(np.float16)
    c = rng.standard_normal((batch, n, m)).astype(np.float32)
    want = c.astype(np.float64).copy()
    for i in range(batch):
        prod = a[i].T.astype(np.float64) @ b[i].T.astype(np.float64)  # m x n
        want[i] = 2.0 * prod.T + c[i]
    assert lib.call("gemm_ex_half", a, b, c, m, n, k, batch) == 0
    np.testing.assert_allclose(c, want.astype(np.float32), rtol=1e-6, atol=1e-5)


def test_unsupported_layouts_say_so(lib):
    assert lib.call("row_major_is_not_supported", np.zeros(4, np.float32)) == 0
