"""Thrust on the emulator (the toolkit's Thrust with its host backend, emu/cccl.py): kernels
launched on raw_pointer_cast pointers of device_vectors, and the common algorithms, against
numpy; a launch the front end drops (its argument names Thrust, which the front end lacks) is
rewritten on the text."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.diagnostics import CudafuseError
from cudafuse.emu import cccl
from cudafuse.runtime import load
from cudafuse.runtime.build import BuildOptions, build, prepare

PROGRAM = PROGRAMS / "thrust_ops.cu"
pytestmark = pytest.mark.skipif(cccl.cccl_dir() is None,
                                reason="the CUDA toolkit's CCCL headers are not installed")


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAM) as lib:
        yield lib


@pytest.mark.parametrize("n", [1, 300, 1024])
def test_transform_sort_kernels_scan(lib, n):
    rng = np.random.default_rng(n)
    x = rng.integers(-100, 100, n).astype(np.float32)
    blocks = (n + 127) // 128
    out, scan = np.zeros(n, np.float32), np.zeros(n, np.float32)
    excl = np.zeros(n, np.int32)
    total, sums = np.zeros(1, np.float32), np.zeros(blocks, np.float32)
    assert lib.call("transform_sort_scan", x, out, scan, excl, total, sums, n) == 0
    want = np.sort(x * np.float32(0.5) - np.float32(3)) ** 2  # exact in float32 here
    np.testing.assert_array_equal(out, want)
    np.testing.assert_allclose(scan, np.cumsum(want, dtype=np.float64), rtol=1e-6)
    np.testing.assert_allclose(total[0], want.sum(dtype=np.float64), rtol=1e-6)
    padded = np.zeros(blocks * 128, np.float32)
    padded[:n] = want
    np.testing.assert_allclose(sums, padded.reshape(blocks, 128).sum(axis=1), rtol=1e-6)
    seq = np.arange(n - 1, -1, -1, dtype=np.int32)
    np.testing.assert_array_equal(excl, np.concatenate(([0], np.cumsum(seq)[:-1])))


def test_sort_by_key_zip_counting(lib):
    n = 500
    rng = np.random.default_rng(7)
    keys = rng.permutation(n).astype(np.int32)
    values = (keys * 2 + 1).astype(np.float32)
    dot = np.zeros(n, np.float32)
    lib.call("sort_pairs", keys, values, dot, n)
    np.testing.assert_array_equal(keys, np.arange(n))
    np.testing.assert_array_equal(values, np.arange(n) * 2 + 1)
    np.testing.assert_array_equal(dot, np.arange(n, dtype=np.float32) ** 2)


def test_launches_rewritten_on_the_text():
    prep = prepare(str(PROGRAM), "emu", BuildOptions())
    assert prep.thrust[:2] == ["thrust/copy.h", "thrust/device_vector.h"]
    assert "<<<" not in prep.text.partition("<cudafuse trampolines>")[0]
    # the kernel without barriers keeps its plain-loop mode, the one with them gets fibers
    assert '::__cf_emu::__cf_launch("square", __FILE__, __LINE__, false)' in prep.text
    assert '::__cf_emu::__cf_launch("block_sums", __FILE__, __LINE__, true)' in prep.text


def test_cuda_arch_defined_after_thrust(tmp_path):
    """A build's __CUDA_ARCH__ reaches the program's code but not Thrust's headers."""
    stand_ins = tmp_path / "inc"
    flags = ["-std=c++17", "-x", "c++", "-include", "emu.h", "-iquote", "prog", "-I",
             str(stand_ins), "-D__CUDA_ARCH__=900", "-DX=1"]
    out = cccl.with_cccl(flags, stand_ins, ["thrust/sort.h", "thrust/copy.h", "thrust/sort.h"])
    assert not any(f.startswith("-D__CUDA_ARCH__") for f in out)
    includes = [out[i + 1] for i, f in enumerate(out) if f == "-include"]
    assert includes == [str(stand_ins / cccl.PRELUDE), "thrust/sort.h", "thrust/copy.h",
                        str(stand_ins / cccl.PRELUDE_END), "emu.h"]
    assert "-DCUDAFUSE_EMU_CUDA_ARCH=900" in out
    at = out.index(str(stand_ins))
    assert out[at - 3:at - 1] == ["-I", str(cccl.cccl_dir())]


def test_cub_still_refused(tmp_path):
    src = tmp_path / "cub_use.cu"
    src.write_text("#include <thrust/device_vector.h>\n#include <cub/cub.cuh>\n"
                   "int main() { return 0; }\n")
    with pytest.raises(CudafuseError, match=r"cub_use\.cu:2:1: error: CUB is not supported"):
        build(str(src), "emu", BuildOptions(opt="-O0"))


def test_missing_toolkit_is_located(tmp_path, monkeypatch):
    monkeypatch.setattr(cccl, "cccl_dir", lambda: None)
    src = tmp_path / "t.cu"
    src.write_text("// uses thrust\n#include <thrust/sort.h>\nint main() { return 0; }\n")
    with pytest.raises(CudafuseError, match=r"t\.cu:2:1: error: Thrust needs the CUDA "
                       r"toolkit's CCCL headers"):
        build(str(src), "emu", BuildOptions(opt="-O0"))
