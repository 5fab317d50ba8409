"""Texture and surface objects in the emulator (programs/textures.cu), against a numpy
reference written from the CUDA programming guide's texture-fetching appendix: point sampling
reads T[floor(x)] (x un-normalized: x * N); linear filtering blends T[i] and T[i+1] at
i = floor(x - 0.5) with weight frac(x - 0.5) rounded to 1.8 fixed point (a multiple of
1/256); wrap and mirror apply to normalized coordinates (unnormalized ones clamp); border
reads the border color; normalizedFloat maps n-bit integers to [0, 1] or [-1, 1]; cubemap
faces per the guide's table. Surfaces: byte x coordinates, Zero/Clamp/Trap boundaries."""

from __future__ import annotations

import itertools
import shutil
import subprocess

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.diagnostics import CudafuseError
from cudafuse.runtime import KernelError, load

PROGRAM = PROGRAMS / "textures.cu"
F32 = np.float32
WRAP, CLAMP, MIRROR, BORDER = 0, 1, 2, 3
MODES = {"wrap": WRAP, "clamp": CLAMP, "mirror": MIRROR, "border": BORDER}
BORDER_COLOR = 7.5


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAM, opt="-O1") as lib:
        yield lib


# ---- the reference ---------------------------------------------------------------------
def _coord(x, n, mode, normalized):
    x = F32(x)
    if not normalized:
        return x
    if mode == WRAP:
        x = F32(x - np.floor(x))
    elif mode == MIRROR:
        f = np.floor(x)
        x = F32(x - f) if f % 2 == 0 else F32(F32(1) - F32(x - f))
    return F32(x * F32(n))


def _address(i, n, mode, normalized):
    if not normalized and mode in (WRAP, MIRROR):
        mode = CLAMP
    if mode == WRAP:
        return i % n
    if mode == MIRROR:
        m = i % (2 * n)
        return m if m < n else 2 * n - 1 - m
    if mode == BORDER:
        return None if i < 0 or i >= n else i
    return min(max(i, 0), n - 1)


def _weight(ub):
    """frac(ub) in 1.8 fixed point: rounded to a multiple of 1/256 (ties to even)."""
    return F32(np.rint(F32(ub - np.floor(ub)) * F32(256)) / F32(256))


def sample(data, coords, modes, linear, normalized):
    """data: (d, h, w)-shaped, (h, w) or (w,); coords (x, y, z) as many as data's dims."""
    dims = data.ndim
    shape = data.shape[::-1]  # w, h, d
    idx, wts = [], []
    for k in range(dims):
        u = _coord(coords[k], shape[k], modes[k], normalized)
        if not linear:
            idx.append([_address(int(np.floor(u)), shape[k], modes[k], normalized)])
            continue
        ub = F32(u - F32(0.5))
        i = int(np.floor(ub))
        a = _weight(ub)
        idx.append([_address(i, shape[k], modes[k], normalized),
                    _address(i + 1, shape[k], modes[k], normalized)])
        wts.append(a)

    def texel(at):
        if any(i is None for i in at):
            return F32(BORDER_COLOR)
        return F32(data[tuple(reversed(at))])

    if not linear:
        return texel([ix[0] for ix in idx])
    acc = F32(0)
    for corner in range(1 << dims):
        wgt = F32(1)
        at = []
        for k in range(dims):
            hi = (corner >> k) & 1
            wgt = F32(wgt * (wts[k] if hi else F32(1) - wts[k]))
            at.append(idx[k][hi])
        acc = F32(acc + F32(wgt * texel(at)))
    return acc


def _coords(rng, n, dims, normalized, sizes):
    if normalized:
        c = rng.uniform(-1.6, 2.6, size=(n, dims))
    else:
        c = np.stack([rng.uniform(-2.5, s + 2.5, size=n) for s in sizes[:dims]], axis=1)
    return c.astype(F32)


# ---- fetches ---------------------------------------------------------------------------
@pytest.mark.parametrize("mode,linear,normalized",
                         list(itertools.product(MODES, [0, 1], [0, 1])))
def test_tex2d_address_and_filter_modes(lib, mode, linear, normalized):
    rng = np.random.default_rng(MODES[mode] * 4 + linear * 2 + normalized)
    w, h, n = 5, 4, 200
    data = rng.uniform(-4, 4, size=(h, w)).astype(F32)
    c = _coords(rng, n, 2, normalized, (w, h))
    out = np.zeros(n, F32)
    info = np.zeros(9, np.int64)
    lib.call("fetch2d", data, w, h, c.ravel(), n, MODES[mode], MODES[mode], linear, normalized,
             0, out, info)
    ref = [sample(data, c[i], (MODES[mode],) * 2, linear, normalized) for i in range(n)]
    np.testing.assert_allclose(out, ref, rtol=2e-6, atol=2e-6)
    # cudaArrayGetInfo: the extent as allocated, the flags, the format; the resource back
    assert info.tolist() == [0, w, h, 0, 8, 32, 2, 0, 1]


@pytest.mark.parametrize("mode,linear,normalized",
                         list(itertools.product(MODES, [0, 1], [0, 1])))
def test_tex1d(lib, mode, linear, normalized):
    rng = np.random.default_rng(100 + MODES[mode] * 4 + linear * 2 + normalized)
    w, n = 7, 300
    data = rng.uniform(-4, 4, size=w).astype(F32)
    c = _coords(rng, n, 1, normalized, (w,))
    out = np.zeros(n, F32)
    lib.call("fetch1d", data, w, c.ravel(), n, MODES[mode], linear, normalized, out)
    ref = [sample(data, c[i], (MODES[mode],), linear, normalized) for i in range(n)]
    np.testing.assert_allclose(out, ref, rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("mode,linear,normalized",
                         [("clamp", 1, 0), ("border", 1, 0), ("wrap", 1, 1), ("mirror", 0, 1),
                          ("clamp", 0, 0)])
def test_tex3d(lib, mode, linear, normalized):
    rng = np.random.default_rng(200 + MODES[mode])
    w, h, d, n = 4, 3, 5, 200
    data = rng.uniform(-4, 4, size=(d, h, w)).astype(F32)
    c = _coords(rng, n, 3, normalized, (w, h, d))
    out = np.zeros(n, F32)
    lib.call("fetch3d", data, w, h, d, c.ravel(), n, MODES[mode], linear, normalized, out)
    ref = [sample(data, c[i], (MODES[mode],) * 3, linear, normalized) for i in range(n)]
    np.testing.assert_allclose(out, ref, rtol=2e-6, atol=2e-6)


def test_linear_filtering_uses_9_bit_weights(lib):
    """x = 0.8 texels from T[0]'s centre: the hardware's weight is 77/256, not 0.3."""
    data = np.array([0.0, 256.0], F32)
    c = np.array([0.5 + 0.3, 0.5 + 0.5, 0.5 + 1 / 1024, 0.5 + 255.7 / 256], F32)
    out = np.zeros(4, F32)
    lib.call("fetch1d", data, 2, c, 4, CLAMP, 1, 0, out)
    assert out.tolist() == [77.0, 128.0, 0.0, 256.0]


def test_tex2dlod_reads_level_0(lib):
    rng = np.random.default_rng(7)
    data = rng.uniform(size=(4, 4)).astype(F32)
    c = _coords(rng, 50, 2, 1, (4, 4))
    a, b = np.zeros(50, F32), np.zeros(50, F32)
    info = np.zeros(9, np.int64)
    lib.call("fetch2d", data, 4, 4, c.ravel(), 50, WRAP, WRAP, 1, 1, 0, a, info)
    lib.call("fetch2d", data, 4, 4, c.ravel(), 50, WRAP, WRAP, 1, 1, 1, b, info)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("linear", [0, 1])
def test_pitch2d_memory_and_copies_from_arrays(lib, linear):
    rng = np.random.default_rng(11)
    w, h, n = 6, 5, 150
    data = rng.uniform(-2, 2, size=(h, w)).astype(F32)
    c = _coords(rng, n, 2, 0, (w, h))
    out, back = np.zeros(n, F32), np.zeros((h, w), F32)
    lib.call("fetch_pitch2d", data, w, h, c.ravel(), n, linear, out, back)
    ref = [sample(data, c[i], (CLAMP, CLAMP), linear, 0) for i in range(n)]
    np.testing.assert_allclose(out, ref, rtol=2e-6, atol=2e-6)
    np.testing.assert_array_equal(back, data)


def test_tex1dfetch_on_linear_memory(lib):
    data = np.arange(10, dtype=F32) * 1.5
    idx = np.array([0, 3, 9, -1, 10, 1000, 5], np.int32)
    out = np.full(len(idx), -1, F32)
    lib.call("fetch_linear_memory", data, 10, idx, len(idx), out)
    assert out.tolist() == [0.0, 4.5, 13.5, 0.0, 0.0, 0.0, 7.5]


@pytest.mark.parametrize("linear", [0, 1])
def test_layered(lib, linear):
    rng = np.random.default_rng(21)
    w, h, layers, n = 4, 3, 3, 200
    data = rng.uniform(-3, 3, size=(layers, h, w)).astype(F32)
    c = _coords(rng, n, 2, 1, (w, h))
    lay = rng.integers(0, layers, size=n).astype(F32)
    c3 = np.concatenate([c, lay[:, None]], axis=1).astype(F32)
    c1 = np.stack([c[:, 0], lay], axis=1).astype(F32)
    out, out1 = np.zeros(n, F32), np.zeros(n, F32)
    lib.call("fetch_layered", data, w, h, layers, c3.ravel(), n, linear, out, c1.ravel(), out1)
    ref = [sample(data[int(lay[i])], c[i], (WRAP, CLAMP), linear, 1) for i in range(n)]
    ref1 = [sample(data[int(lay[i]), 0], c[i, :1], (WRAP,), linear, 1) for i in range(n)]
    np.testing.assert_allclose(out, ref, rtol=2e-6, atol=2e-6)
    np.testing.assert_allclose(out1, ref1, rtol=2e-6, atol=2e-6)


def _cube_face(x, y, z):
    """The programming guide's cubemap table: face, then (s, t) over the major axis m."""
    ax, ay, az = abs(x), abs(y), abs(z)
    if ax > ay and ax > az:
        return (0, -z, -y, ax) if x >= 0 else (1, z, -y, ax)
    if ay > ax and ay > az:
        return (2, x, z, ay) if y >= 0 else (3, x, -z, ay)
    return (4, x, -y, az) if z >= 0 else (5, -x, -y, az)


@pytest.mark.parametrize("linear", [0, 1])
def test_cubemap(lib, linear):
    rng = np.random.default_rng(31)
    w, n = 4, 300
    faces = rng.uniform(-3, 3, size=(6, w, w)).astype(F32)
    dirs = rng.uniform(-1, 1, size=(n, 3)).astype(F32)
    out = np.zeros(n, F32)
    lib.call("fetch_cubemap", faces, w, dirs.ravel(), n, linear, out)
    ref = []
    for x, y, z in dirs:
        face, s, t, m = _cube_face(x, y, z)
        u = F32(F32(F32(s) / F32(m) + F32(1)) * F32(0.5))
        v = F32(F32(F32(t) / F32(m) + F32(1)) * F32(0.5))
        ref.append(sample(faces[face], (u, v), (CLAMP, CLAMP), linear, 1))
    np.testing.assert_allclose(out, ref, rtol=2e-6, atol=2e-6)
    # each face is reached, and the centre of each face reads its centre texels
    assert {_cube_face(*d)[0] for d in dirs} == set(range(6))


def test_gather(lib):
    rng = np.random.default_rng(41)
    w, h, n = 5, 4, 100
    data = rng.uniform(-3, 3, size=(h, w)).astype(F32)
    c = _coords(rng, n, 2, 0, (w, h))
    out = np.zeros((n, 4), F32)
    lib.call("gather", data, w, h, c.ravel(), n, out)
    for k in range(n):
        i = int(np.floor(F32(c[k, 0] - F32(0.5))))
        j = int(np.floor(F32(c[k, 1] - F32(0.5))))
        i0, i1 = min(max(i, 0), w - 1), min(max(i + 1, 0), w - 1)
        j0, j1 = min(max(j, 0), h - 1), min(max(j + 1, 0), h - 1)
        assert out[k].tolist() == [data[j1, i0], data[j1, i1], data[j0, i1], data[j0, i0]]


def test_read_modes(lib):
    n = 8
    rgba = np.array([[0, 255, 128, 1]] * 4 + [[10, 20, 30, 40]] * 4, np.uint8)
    s16 = np.array([0, 1, -1, 32767, -32767, -32768, 100, -100], np.int16)
    out, raw, outs = np.zeros((n, 4), F32), np.zeros((n, 4), np.uint8), np.zeros(n, F32)
    lib.call("read_modes", rgba, s16, n, out, raw, outs)
    np.testing.assert_array_equal(out, (rgba.astype(np.float64) / 255).astype(F32))
    np.testing.assert_array_equal(raw, rgba)
    expect = np.maximum(s16.astype(np.float64) / 32767, -1.0).astype(F32)
    np.testing.assert_array_equal(outs, expect)


# ---- surfaces --------------------------------------------------------------------------
def test_surfaces(lib):
    w, h, layers = 5, 3, 2
    data = np.arange(w * h, dtype=F32).reshape(h, w)
    out = np.zeros((h, w), F32)
    zero, clamp = np.full(w + 2, -1, F32), np.full(w + 2, -1, F32)
    layered = np.zeros((layers, h, w), F32)
    ints = np.arange(w, dtype=np.int32) * 3
    vol = np.zeros((2, 2, w, 2), F32)
    status = np.zeros(1, np.int32)
    lib.call("surfaces", data, w, h, out, zero, clamp, layered, layers, ints, vol, status)
    scaled = data * 2 + 1
    np.testing.assert_array_equal(out, scaled)
    assert zero.tolist() == [0.0, *scaled[0], 0.0]
    assert clamp.tolist() == [scaled[0, 0], *scaled[0], scaled[0, -1]]
    lz, yz, xz = np.meshgrid(range(layers), range(h), range(w), indexing="ij")
    np.testing.assert_array_equal(layered, lz * 1000 + yz * 10 + xz)
    assert ints.tolist() == [3 * x + 5 for x in range(w)]
    np.testing.assert_array_equal(vol[1, 1], np.stack([np.arange(w), 2 * np.arange(w)], 1))
    assert status[0] == 1  # cudaErrorInvalidValue: no cudaArraySurfaceLoadStore


def test_surface_trap_is_reported(lib):
    lib.call("surface_trap", 3)  # the last element: in range
    with pytest.raises(KernelError, match=r"surf2Dwrite at byte x 16, y 0 \(4 bytes\) is out "
                       r"of the surface's range .*cudaBoundaryModeTrap"):
        lib.call("surface_trap", 4)


REFUSED = {
    "texture_reference": ("texture<float, 2, cudaReadModeElementType> tr;\n", 2,
                          "texture references (texture<T, dim, mode>, removed in CUDA 12)"),
    "surface_reference": ("surface<void, 2> sr;\n", 2, "surface references"),
    "mipmapped": ("void f(cudaMipmappedArray_t *m, cudaChannelFormatDesc *d) {\n"
                  "  cudaMallocMipmappedArray(m, d, make_cudaExtent(4, 4, 0), 3);\n}\n", 3,
                  "mipmapped arrays are not supported"),
    "layered_lod": ("__global__ void k(cudaTextureObject_t t, float *o) {\n"
                    "  o[0] = tex2DLayeredLod<float>(t, 0.5f, 0.5f, 0, 1.0f);\n}\n", 3,
                    "this texture or surface function is not supported"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_with_a_precise_message(tmp_path, name):
    text, line, needle = REFUSED[name]
    src = tmp_path / f"{name}.cu"
    src.write_text("#include <cuda_runtime.h>\n" + text)
    with pytest.raises(CudafuseError) as exc:
        load(src)
    d = exc.value.diagnostics[0]
    assert needle in d.message
    assert (d.file, d.line) == (str(src), line)


# nvcc checks this test's own program, no cudafuse code: its verdict changes only with the
# program or the toolkit, so `make test-slow` runs it (about 2-11 CPU-s; issue 27).
@pytest.mark.nvcc
@pytest.mark.slow
def test_compiles_with_nvcc(tmp_path):
    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    res = subprocess.run([nvcc, "-arch=sm_90", "-c", str(PROGRAM), "-o", str(tmp_path / "t.o")],
                         capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr
