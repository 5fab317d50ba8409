"""CUDA 13 intrinsics on the emulator against numpy: SIMD video instructions and dot products
lane by lane, directed-rounding arithmetic and conversions (the emulator computes them under
fesetround), warp match/reduce (built on shuffles)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.runtime import load

N = 64


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAMS / "intrinsics13.cu", backend="emu") as built:
        yield built


def lanes(x: np.ndarray, w: int, signed: bool) -> np.ndarray:
    k = 32 // w
    v = (x[:, None].astype(np.int64) >> (np.arange(k) * w)) & ((1 << w) - 1)
    return np.where(v >= 1 << (w - 1), v - (1 << w), v) if signed else v


def pack(v: np.ndarray, w: int) -> np.ndarray:
    v = v.astype(np.int64) & ((1 << w) - 1)
    return (v << (np.arange(v.shape[1]) * w)).sum(axis=1).astype(np.uint32)


def test_simd_and_dot_products(lib):
    rng = np.random.default_rng(5)
    a = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    out = np.zeros(12 * N, np.uint32)
    lib.launch("simd", 1, N, 0, (a, b, out, N))
    o = out.reshape(N, 12)
    u2, s2 = lanes(a, 16, False), lanes(a, 16, True)
    u4, s4 = lanes(a, 8, False), lanes(a, 8, True)
    v2, t2 = lanes(b, 16, False), lanes(b, 16, True)
    v4, t4 = lanes(b, 8, False), lanes(b, 8, True)
    np.testing.assert_array_equal(o[:, 0], pack(u2 + v2, 16))
    np.testing.assert_array_equal(o[:, 1], pack(u4 - v4, 8))
    np.testing.assert_array_equal(o[:, 2], pack(np.abs(u4 - v4), 8))
    np.testing.assert_array_equal(o[:, 3], pack(np.maximum(s2, t2), 16))
    np.testing.assert_array_equal(o[:, 4], pack(np.minimum(u4, v4), 8))
    np.testing.assert_array_equal(o[:, 5], pack(np.clip(s4 + t4, -128, 127), 8))
    np.testing.assert_array_equal(o[:, 6], pack(np.clip(u2 - v2, 0, 65535), 16))
    np.testing.assert_array_equal(o[:, 7], pack(np.where(s4 > t4, 0xFF, 0), 8))
    np.testing.assert_array_equal(o[:, 8], pack((u4 + v4 + 1) >> 1, 8))
    dp4 = (s4 * t4).sum(axis=1) + 7
    np.testing.assert_array_equal(o[:, 9], (dp4 & 0xFFFFFFFF).astype(np.uint32))
    dp2 = (u2 * v4[:, 2:4]).sum(axis=1) + 1
    np.testing.assert_array_equal(o[:, 10], (dp2 & 0xFFFFFFFF).astype(np.uint32))
    np.testing.assert_array_equal(o[:, 11], np.abs(u4 - v4).sum(axis=1).astype(np.uint32))


def down(exact: np.ndarray) -> np.ndarray:
    f = exact.astype(np.float32)
    return np.where(f.astype(np.float64) > exact, np.nextafter(f, np.float32(-np.inf)), f)


def up(exact: np.ndarray) -> np.ndarray:
    f = exact.astype(np.float32)
    return np.where(f.astype(np.float64) < exact, np.nextafter(f, np.float32(np.inf)), f)


def test_directed_rounding(lib):
    rng = np.random.default_rng(9)
    a = (rng.standard_normal(N) * 10).astype(np.float32)
    b = (rng.standard_normal(N) * 3 + 0.1).astype(np.float32)
    out = np.zeros(8 * N, np.float32)
    ll = np.zeros(N, np.int64)
    lib.launch("rounding", 1, N, 0, (a, b, out, ll, N))
    o = out.reshape(N, 8)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    np.testing.assert_array_equal(o[:, 0], down(a64 + b64))
    np.testing.assert_array_equal(o[:, 1], up(a64 + b64))
    prod = a64 * b64
    toward0 = np.where(prod >= 0, down(prod), up(prod))
    np.testing.assert_array_equal(o[:, 2], toward0)
    q = o[:, 3].astype(np.float64)
    assert np.all(q >= a64 / b64) and np.all(np.nextafter(o[:, 3], np.float32(-np.inf)) < a64 / b64)
    np.testing.assert_array_equal(o[:, 7], up(16777217.0 + np.arange(N)))
    np.testing.assert_array_equal(ll, np.floor(a * np.float32(1000)).astype(np.int64))
    assert np.all(o[:, 0] <= o[:, 1])


def test_warp_match_and_reduce(lib):
    v = np.random.default_rng(2).integers(0, 5, 2 * 32).astype(np.uint32)
    out = np.zeros(5 * 64, np.uint32)
    lib.launch("warp", 2, 32, 0, (v, out))
    o = out.reshape(64, 5)
    for w in range(2):
        vals = v[32 * w:32 * w + 32]
        for lane in range(32):
            row = o[32 * w + lane]
            same = sum(1 << m for m in range(32) if vals[m] == vals[lane])
            assert row[0] == same
            assert row[1] == vals.sum()
            assert row[2] == vals.min() and row[3] == vals.max()
            assert row[4] == np.bitwise_xor.reduce(vals)
