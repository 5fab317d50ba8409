"""Atomics, histograms, stencils with every border mode, __constant__, intrinsics and a host
pipeline on the emulator, against numpy references."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.runtime import load


@pytest.fixture(scope="module")
def atomics():
    with load(PROGRAMS / "atomics.cu", opt="-O1") as lib:
        yield lib


@pytest.fixture(scope="module")
def images():
    with load(PROGRAMS / "images.cu", opt="-O1") as lib:
        yield lib


@pytest.mark.parametrize("bins", [16, 256])
def test_histogram_dynamic_shared_atomics(atomics, bins):
    n = 5000
    data = np.random.default_rng(bins).integers(0, 256, n).astype(np.uint8)
    hist = np.zeros(bins, np.uint32)
    atomics.launch("histogram", 7, 128, bins * 4, (data, hist, n, bins))
    np.testing.assert_array_equal(hist, np.bincount(data.astype(np.int64) % bins, minlength=bins))


def test_integer_atomics(atomics):
    n = 300
    v = np.random.default_rng(1).integers(-5000, 5000, n).astype(np.int32)
    r = np.array([10, 10, 1 << 30, -(1 << 30), -1, 0, 0, 0, 0], np.int32)
    atomics.launch("atomics_int", 3, 128, 0, (v, r, n))
    xor = np.bitwise_xor.reduce(v)
    ref = [10 + v.sum(), 10 - v.sum(), v.min(), v.max(),
           np.bitwise_and.reduce(v | 0x0FF0) & -1, np.bitwise_or.reduce(v & 0x0F0F), xor,
           n, 7]
    np.testing.assert_array_equal(r, np.array(ref, np.int64).astype(np.int32))


def test_other_atomics(atomics):
    n = 200
    u = np.random.default_rng(2).integers(0, 1 << 20, n).astype(np.uint32)
    ru = np.array([0, 0, 0xFFFFFFFF, 0, 0], np.uint32)
    rl = np.zeros(3, np.uint64)
    rf = np.array([0.0, 0.0, 0.0], np.float32)
    atomics.launch("atomics_other", 2, 128, 0, (u, ru, rl, rf, n))
    inc = dec = 0
    for _ in range(n):
        inc = 0 if inc >= 9 else inc + 1
        dec = 9 if dec == 0 or dec > 9 else dec - 1
    np.testing.assert_array_equal(ru, [u.sum(dtype=np.uint64) & 0xFFFFFFFF, u.max(), u.min(),
                                       inc, dec])
    np.testing.assert_array_equal(rl, [u.astype(np.uint64).sum() * 1000000,
                                       u.max().astype(np.uint64) << 20, 1])
    np.testing.assert_array_equal(rf, [0.5 * n, 2.5, float(u.max())])


WEIGHTS = np.array([1, 2, 1, 0, -1, 3, 0.5, 0.25, -2], np.float32)
PAD = {0: "edge", 1: "symmetric", 2: "reflect", 3: "wrap", 4: "constant"}


def stencil_ref(img: np.ndarray, mode: int, cval: float) -> np.ndarray:
    kw = {"constant_values": cval} if mode == 4 else {}
    p = np.pad(img.astype(np.float64), 1, mode=PAD[mode], **kw)
    h, w = img.shape
    out = np.zeros((h, w))
    for dy in range(3):
        for dx in range(3):
            out += WEIGHTS[dy * 3 + dx] * p[dy:dy + h, dx:dx + w]
    return out


@pytest.mark.parametrize("mode", [0, 1, 2, 3, 4], ids=list(PAD.values()))
def test_stencil_border_modes(images, mode):
    w, h = 37, 21  # not multiples of the block: the early return guards the edges
    img = np.random.default_rng(mode).random((h, w), dtype=np.float32)
    out = np.full(w * h, np.nan, np.float32)
    images.call("set_weights", WEIGHTS)
    images.launch("stencil3x3", ((w + 15) // 16, (h + 7) // 8), (16, 8), 0,
                  (img.ravel(), out, w, h, mode, 0.5))
    np.testing.assert_allclose(out.reshape(h, w), stencil_ref(img, mode, 0.5), rtol=1e-5,
                               atol=1e-5)


def test_host_pipeline_with_runtime_api(images):
    w, h = 45, 30
    img = np.random.default_rng(9).random((h, w), dtype=np.float32)
    out = np.zeros(w * h, np.float32)
    images.call("set_weights", WEIGHTS)
    rc = images.call("smooth_twice", img.ravel(), out, w, h, 4)
    assert rc == 0
    first = stencil_ref(img, 4, 0.5)
    p = np.pad(first, 1, mode="edge")
    ref = sum(p[dy:dy + h, dx:dx + w] for dy in range(3) for dx in range(3)) / 9.0
    np.testing.assert_allclose(out.reshape(h, w), ref, rtol=1e-4, atol=1e-5)


def test_intrinsics(images):
    n = 256
    rng = np.random.default_rng(10)
    a = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    a[:4] = [0, 1, 0x80000000, 0xFFFFFFFF]
    r = np.zeros(8 * n, np.uint32)
    f = np.zeros(4 * n, np.float32)
    images.launch("intrinsics", 2, 128, 0, (a, b, r, f, n))
    r = r.reshape(n, 8)
    for i in range(n):
        x, y, s = int(a[i]), int(b[i]), i & 31
        both = (y << 32) | x
        bytes_ = both.to_bytes(8, "little")
        perm = int.from_bytes(bytes(bytes_[(0x5140 >> (4 * k)) & 7] for k in range(4)), "little")
        brev = int(f"{x:032b}"[::-1], 2)
        sx = x - (1 << 32) if x & 0x80000000 else x
        mn = min(x & 0xFF, -3)
        ref = [bin(x).count("1"), 32 - x.bit_length(), (x & -x).bit_length(), perm,
               ((both << s) >> 32) & 0xFFFFFFFF, (both >> s) & 0xFFFFFFFF, (x * y) >> 32,
               (brev ^ (mn & 0xFFFFFFFF) ^ max(x, 5)) & 0xFFFFFFFF]
        assert list(r[i]) == ref, (i, x, y, sx)
    v = (a & 0xFFFF).astype(np.float32) / 65536.0 + 0.25
    g = f.reshape(n, 4)
    np.testing.assert_allclose(g[:, 0], np.exp(v), rtol=1e-6)
    np.testing.assert_allclose(g[:, 1], 1 / np.sqrt(v), rtol=1e-6)
    np.testing.assert_allclose(g[:, 2], 1 / v, rtol=1e-6)
    np.testing.assert_allclose(g[:, 3], v * np.clip(v, 0, 1), rtol=1e-6)


def test_templates_launched_from_host(images):
    n = 100
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, np.float32)
    xd = np.arange(n, dtype=np.float64)
    yd = np.full(n, 2.0)
    images.call("axpy_both", 2.0, x, y, 0.5, xd, yd, n)
    np.testing.assert_array_equal(y, 2 * np.arange(n) + 1)
    np.testing.assert_array_equal(yd, 0.5 * np.arange(n) + 2)
