"""The emulator's cuBLAS stand-in (emu/include/cublas_api.h) against numpy: gemm with either
transpose and beta != 0, scalars in device memory on a stream, gemv, level-1 calls, a bad
argument's status and the status texts."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.runtime import load


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAMS / "cublas_calls.cu", opt="-O1") as lib:
        yield lib


def colmajor(a: np.ndarray) -> np.ndarray:
    return np.asfortranarray(a).ravel(order="F")


@pytest.mark.parametrize("ta,tb", [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_dgemm_both_transposes_and_beta(lib, ta: int, tb: int) -> None:
    rng = np.random.default_rng(ta * 2 + tb)
    m, n, k = 5, 3, 4
    opa = rng.random((m, k))
    opb = rng.random((k, n))
    a = opa.T if ta else opa  # stored as cuBLAS reads it
    b = opb.T if tb else opb
    c = rng.random((m, n))
    out = colmajor(c).copy()
    assert lib.call("gemm_d", ta, tb, m, n, k, 1.5, colmajor(a), a.shape[0], colmajor(b),
                    b.shape[0], -0.5, out, m) == 0
    np.testing.assert_allclose(out.reshape((m, n), order="F"), 1.5 * opa @ opb - 0.5 * c,
                               rtol=1e-12)


def test_sgemm_with_scalars_in_device_memory(lib) -> None:
    rng = np.random.default_rng(7)
    m, n, k = 4, 6, 3
    a, b, c = rng.random((m, k)), rng.random((k, n)), rng.random((m, n))
    out = colmajor(c).astype(np.float32)
    ab = np.array([2.0, 3.0], np.float32)
    assert lib.call("gemm_s_device_scalars", m, n, k, ab, colmajor(a).astype(np.float32),
                    colmajor(b).astype(np.float32), out) == 0
    np.testing.assert_allclose(out.reshape((m, n), order="F"), 2 * a @ b + 3 * c, rtol=1e-5)


@pytest.mark.parametrize("trans", [0, 1])
def test_sgemv(lib, trans: int) -> None:
    rng = np.random.default_rng(11 + trans)
    m, n, lda = 5, 3, 7
    stored = np.zeros((lda, n), np.float32)
    stored[:m] = rng.random((m, n))
    a = stored[:m].astype(np.float64)
    nx, ny = (m, n) if trans else (n, m)
    x = rng.random(nx * 2).astype(np.float32)  # incx 2
    y = rng.random(ny).astype(np.float32)
    ref = 0.5 * (a.T if trans else a) @ x[::2] + 2 * y
    assert lib.call("gemv_s", trans, m, n, 0.5, colmajor(stored), lda, x, 2, 2.0, y, 1) == 0
    np.testing.assert_allclose(y, ref, rtol=1e-5)


def test_level1_double(lib) -> None:
    rng = np.random.default_rng(5)
    n = 37
    x, y = rng.standard_normal(n), rng.standard_normal(n)
    x0, y0 = x.copy(), y.copy()
    z, out = np.zeros(n), np.zeros(4)
    assert lib.call("level1_d", n, -0.25, x, y, z, out) == 0
    assert out[0] == pytest.approx(x0 @ y0, rel=1e-12)
    assert out[1] == pytest.approx(np.linalg.norm(x0), rel=1e-12)
    assert out[2] == pytest.approx(np.abs(x0).sum(), rel=1e-12)
    assert out[3] == np.argmax(np.abs(x0)) + 1  # 1-based, as cuBLAS
    np.testing.assert_allclose(y, y0 - 0.25 * x0, rtol=1e-12)
    np.testing.assert_allclose(x, 2 * x0, rtol=1e-12)
    np.testing.assert_array_equal(z, x)


def test_strided_sdot_into_device_memory(lib) -> None:
    x = np.arange(10, dtype=np.float32)
    y = np.ones(10, np.float32)
    out = np.zeros(1, np.float32)
    assert lib.call("dot_s_strided", 5, x, y, out) == 0
    assert out[0] == 0 + 2 + 4 + 6 + 8


def test_bad_argument_status_and_texts(lib) -> None:
    assert lib.call("bad_gemm") == 7  # CUBLAS_STATUS_INVALID_VALUE
    assert lib.call("status_texts_ok") == 1
