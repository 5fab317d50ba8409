"""load/call/launch: argument conversion by prototype, errors naming the parameter, caching."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest_runtime import PROGRAMS

from cudafuse.diagnostics import CudafuseError
from cudafuse.runtime import ArgumentError, load
from cudafuse.runtime.build import cache_dir


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAMS / "api.cu", opt="-O1") as lib:
        yield lib


def test_callable_entries(lib):
    sigs = lib.signatures
    assert sigs["fill"].kind == "kernel" and sigs["fill"].codes == ("pf4", "f4", "i4")
    assert sigs["scalars"].codes == ("i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f4",
                                     "f8", "b1", "u8", "u4")
    assert sigs["launch_dims"].codes == ("pu4", "D", "D", "px0")
    assert sigs["first_of"].codes == ("ps16", "i4")  # found inside its namespaces
    assert "overloaded" not in sigs  # ambiguous by name: not callable
    assert sigs["apply"].params == ("x", "y", "n", "m")


def test_scalar_conversion(lib):
    r = lib.call("scalars", -3, 250, -300, 60000, -70000, 4000000000, -(2**40), 2**50, 0.25,
                 1e-3, True, 7, 1)
    ref = (-3 + 250 - 300 + 60000 - 70000 + 4000000000 - 2**40 + 2**50 + 0.25 + 1e-3 + 1000
           + 7 + 0.5)
    assert r == pytest.approx(ref, rel=1e-12)


def test_arrays_copied_in_and_back(lib):
    x = np.arange(5, dtype=np.float32)
    y = np.full(5, 2.0, np.float32)
    assert lib.call("apply", x, y, 5, 1) == 5
    np.testing.assert_array_equal(x, np.arange(5) * 2.0)
    np.testing.assert_array_equal(y, 2.0)


def test_struct_pointer_and_namespaces(lib):
    v = np.arange(16, dtype=np.float32)  # four float4
    lib.call("first_of", v, 4)
    np.testing.assert_array_equal(v[12:], [0, 1, 2, 3])


@pytest.mark.parametrize("grid,block", [((2, 3, 1), (4, 2, 2)), (3, 5), ((1, 2), (2, 1, 3))])
def test_dim3_from_tuples_and_null_stream(lib, grid, block):
    g = (grid,) if isinstance(grid, int) else grid
    b = (block,) if isinstance(block, int) else block
    g, b = (*g, 1, 1)[:3], (*b, 1, 1)[:3]
    n = int(np.prod(g) * np.prod(b))
    out = np.zeros(4 * n, np.uint32)
    lib.call("launch_dims", out, grid, block, None)
    rows = out.reshape(n, 4)
    k = 0
    for bz in range(g[2]):
        for by in range(g[1]):
            for bx in range(g[0]):
                for tz in range(b[2]):
                    for ty in range(b[1]):
                        for tx in range(b[0]):
                            assert list(rows[k]) == [tx + 10 * ty + 100 * tz,
                                                     bx + 10 * by + 100 * bz,
                                                     b[0] + 10 * b[1] + 100 * b[2],
                                                     g[0] + 10 * g[1] + 100 * g[2]]
                            k += 1


def test_launch_kernel_directly(lib):
    out = np.zeros(100, np.float32)
    lib.launch("fill", grid=4, block=32, shared=0, args=(out, 1.5, 100))
    np.testing.assert_array_equal(out, 1.5 + np.arange(100))


@pytest.mark.parametrize("args,needle", [
    ((np.zeros(3, np.float64), np.zeros(3, np.float32), 3, 0),
     r"parameter 1 'x' \(float \*\): cannot pass a float64 array"),
    ((np.zeros(3, np.float32), [1.0, 2.0], 3, 0),
     r"parameter 2 'y' \(float \*\): expected a numpy array or None, got list"),
    ((np.zeros(3, np.float32), None, 2.5, 0),
     r"parameter 3 'n' \(int\): expected an integer for int, got float"),
    ((np.zeros(3, np.float32), None, 2**31, 0),
     r"parameter 3 'n' \(int\): 2147483648 does not fit"),
    ((np.zeros(3, np.float32), None, 3), r"apply\(\) takes 4 arguments \(x, y, n, m\), 3 given"),
])
def test_argument_errors_name_the_parameter(lib, args, needle):
    with pytest.raises(ArgumentError, match=needle):
        lib.call("apply", *args)


def test_dim3_and_stream_errors(lib):
    out = np.zeros(4, np.uint32)
    with pytest.raises(ArgumentError, match="parameter 2 'grid' \\(dim3\\)"):
        lib.call("launch_dims", out, (1, 2, 3, 4), 1, None)
    with pytest.raises(ArgumentError, match="parameter 4 'stream'"):
        lib.call("launch_dims", out, 1, 1, np.zeros(1, np.uint8))


def test_unknown_function_and_wrong_kind(lib):
    with pytest.raises(KeyError, match="no callable host function 'nope'"):
        lib.call("nope")
    with pytest.raises(KeyError, match="it is a kernel: use launch"):
        lib.call("fill", np.zeros(1, np.float32), 1.0, 1)


def _linked_shared_parts(into: Path) -> None:
    """Hard links in `into` to what the run's cache holds that every emu build shares (the
    emulator's runtime and guard objects, its precompiled headers; each named by a key of
    what made it, a header's folder renamed into place whole): a cache of one's own would
    otherwise compile them again, some 5-8 s of g++ (issue 27). Parts the run has not made
    yet are made as usual."""
    shared = cache_dir()
    into.mkdir()
    for part in (*shared.glob("emu-runtime-*.o"), *shared.glob("guard-*.o")):
        os.link(part, into / part.name)
    for pch in shared.glob("emu-pch-*/"):
        (into / pch.name).mkdir()
        for part in pch.iterdir():
            os.link(part, into / pch.name / part.name)


def test_builds_are_cached_by_content(tmp_path, monkeypatch):
    # A cache of its own: the run's is shared with the other xdist worker, which may add
    # libraries between the two listings.
    _linked_shared_parts(tmp_path / "cache")
    monkeypatch.setenv("CUDAFUSE_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(int *a) { a[threadIdx.x] = threadIdx.x; }\n")
    before = set(cache_dir().glob("emu-*.so"))
    with load(src, opt="-O0") as a:
        first = a.built.library
    with load(src, opt="-O0") as b:
        assert b.built.library == first
    assert set(cache_dir().glob("emu-*.so")) - before == {first}
    src.write_text("__global__ void k(int *a) { a[threadIdx.x] = 2 * threadIdx.x; }\n")
    with load(src, opt="-O0") as c:
        assert c.built.library != first
        out = np.zeros(8, np.int32)
        c.launch("k", 1, 8, 0, (out,))
        np.testing.assert_array_equal(out, 2 * np.arange(8))


def test_defines_and_include_dirs(tmp_path):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "scale.h").write_text("#define SCALE 3\n")
    src = tmp_path / "d.cu"
    src.write_text('#include "scale.h"\n__global__ void k(int *a) { a[threadIdx.x] = SCALE * '
                   "OFFSET + threadIdx.x; }\n")
    with load(src, include_dirs=[str(inc)], defines={"OFFSET": 5}, opt="-O0") as lib:
        out = np.zeros(4, np.int32)
        lib.launch("k", 1, 4, 0, (out,))
        np.testing.assert_array_equal(out, 15 + np.arange(4))


def test_unknown_backend():
    with pytest.raises(ValueError, match="unknown backend"):
        load(PROGRAMS / "api.cu", backend="cuda")


def test_one_array_passed_twice_is_one_buffer(lib):
    x = np.arange(1, 6, dtype=np.float32)
    lib.call("shift_right", x, x, 5)
    np.testing.assert_array_equal(x, 1.0)
    y, z = np.arange(1, 6, dtype=np.float32), np.arange(1, 6, dtype=np.float32)
    lib.call("shift_right", y, z, 5)  # equal contents, distinct arrays: two buffers
    np.testing.assert_array_equal(y, [1, 1, 2, 3, 4])


def test_undefined_function_fails_the_build(tmp_path):
    src = tmp_path / "u.cu"
    src.write_text("__device__ float helper(float x);\n"
                   "__global__ void k(float *a) { a[0] = helper(a[0]); }\n")
    with pytest.raises(CudafuseError, match="undefined reference to helper"):
        load(src, opt="-O0")


def test_unclosed_library_leaves_no_files(tmp_path):
    """A library still open when the interpreter exits (a test helper caching it, a user
    forgetting close()) still stops its worker and removes its report files."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    # __del__ is not to be relied on at interpreter exit (module globals it needs may be
    # gone already, as under pytest): here it does nothing, so the cleanup at exit is seen.
    code = ("from cudafuse.runtime import load, library\n"
            "library.Library.__del__ = lambda self: None\n"
            f"KEEP = load({str(PROGRAMS / 'api.cu')!r}, opt='-O1')\n")
    proc = subprocess.run([sys.executable, "-c", code], env={**os.environ, "TMPDIR": str(tmp)},
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert [p.name for p in tmp.iterdir()] == []
