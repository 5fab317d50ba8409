"""The emulator's cuFFT stand-in (emu/include/cufft.h) against numpy.fft: C2C 1-D batched and
2-D forward and inverse (unnormalised, so the round trip is n times the input), Z2Z in place,
R2C/C2R's n/2+1 half spectrum, D2Z in 2-D, a strided PlanMany and a bad size's result."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.runtime import load


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAMS / "cufft_calls.cu", opt="-O1") as lib:
        yield lib


def interleave(z: np.ndarray, dtype=np.float32) -> np.ndarray:
    out = np.empty(z.size * 2, dtype)
    out[0::2], out[1::2] = z.real.ravel(), z.imag.ravel()
    return out


def complex_of(a: np.ndarray) -> np.ndarray:
    return a[0::2].astype(np.float64) + 1j * a[1::2]


@pytest.mark.parametrize("nx,ny,batch", [(16, 0, 3), (12, 0, 2), (1, 0, 1), (8, 6, 1),
                                         (5, 7, 1)])
def test_c2c_forward_and_round_trip(lib, nx: int, ny: int, batch: int) -> None:
    rng = np.random.default_rng(nx * 10 + ny)
    shape = (nx, ny) if ny else (batch, nx)
    z = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    src = interleave(z)
    out, back = np.zeros_like(src), np.zeros_like(src)
    assert lib.call("c2c", nx, ny, batch, src, out, back) == 0
    ref = np.fft.fft2(z) if ny else np.fft.fft(z, axis=1)
    np.testing.assert_allclose(complex_of(out).reshape(shape), ref, atol=1e-4)
    count = nx * ny if ny else nx
    np.testing.assert_allclose(complex_of(back).reshape(shape), count * z, atol=1e-4)


@pytest.mark.parametrize("direction", [-1, 1])
def test_z2z_in_place(lib, direction: int) -> None:
    z = np.exp(1j * np.arange(10.0)) + np.arange(10.0)
    data = interleave(z, np.float64)
    assert lib.call("z2z_inplace", 10, data, direction) == 0
    ref = np.fft.fft(z) if direction == -1 else np.fft.ifft(z) * 10
    np.testing.assert_allclose(complex_of(data), ref, atol=1e-10)


@pytest.mark.parametrize("n", [8, 9])
def test_r2c_half_spectrum_and_c2r(lib, n: int) -> None:
    batch, half = 3, n // 2 + 1
    x = np.random.default_rng(n).standard_normal((batch, n)).astype(np.float32)
    spec = np.zeros(batch * half * 2, np.float32)
    back = np.zeros_like(x)
    assert lib.call("r2c_c2r", n, batch, x, spec, back) == 0
    np.testing.assert_allclose(complex_of(spec).reshape(batch, half), np.fft.rfft(x, axis=1),
                               atol=1e-4)
    np.testing.assert_allclose(back, n * x, atol=1e-4)
    np.testing.assert_allclose(back / n, np.fft.irfft(np.fft.rfft(x), n), atol=1e-5)


def test_d2z_2d(lib) -> None:
    x = np.random.default_rng(3).standard_normal((6, 10))
    spec = np.zeros(6 * 6 * 2)
    assert lib.call("d2z_2d", 6, 10, x, spec) == 0
    np.testing.assert_allclose(complex_of(spec).reshape(6, 6), np.fft.rfft2(x), atol=1e-10)


def test_plan_many_strided_columns(lib) -> None:
    n, batch = 8, 3
    z = np.random.default_rng(9).standard_normal((n, batch)) + 0j  # column b is transform b
    out = np.zeros(n * batch * 2, np.float32)
    assert lib.call("many_strided", n, batch, interleave(z), out) == 0  # work size 0
    np.testing.assert_allclose(complex_of(out).reshape(n, batch), np.fft.fft(z, axis=0),
                               atol=1e-4)


def test_bad_size_is_invalid_size(lib) -> None:
    assert lib.call("bad_plan") == 8  # CUFFT_INVALID_SIZE
