"""Named barriers, early exits, and the failures the emulator reports instead of hanging."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.diagnostics import CudafuseError
from cudafuse.runtime import KernelError, load


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAMS / "barriers.cu", opt="-O1", timeout=60) as lib:
        yield lib


def test_named_barriers_per_part(lib):
    a = np.arange(64, dtype=np.int32)
    b = np.arange(100, 164, dtype=np.int32)
    ra, rb = np.zeros(64, np.int32), np.zeros(64, np.int32)
    lib.launch("two_parts", 1, 128, 0, (a, b, ra, rb))
    np.testing.assert_array_equal(ra, a[::-1])
    np.testing.assert_array_equal(rb, b[::-1])


def test_counted_barrier_leaving_out_exited_warps(lib):
    out = np.full(128, -1, np.int32)
    lib.launch("early_exit_ok", 1, 128, 0, (out,))
    np.testing.assert_array_equal(out[:64], 3 * np.arange(64)[::-1])
    np.testing.assert_array_equal(out[64:], -1)


def test_partially_exited_warp_counts_as_arrived(lib):
    out = np.full(64, -1, np.int32)
    lib.launch("partial_warp_ok", 1, 64, 0, (out,))
    ref = np.full(64, 2, np.int32)
    ref[32:48] = -1
    np.testing.assert_array_equal(out, ref)


def test_syncthreads_releases_exited_threads(lib):
    x = np.arange(128, dtype=np.int32) * 7
    out = np.full(128, -1, np.int32)
    lib.launch("syncthreads_after_exit", 1, 128, 0, (x, out, 50))
    np.testing.assert_array_equal(out[:50], x[:50][::-1])
    np.testing.assert_array_equal(out[50:], -1)


def test_deadlock_on_exited_warps_is_reported(lib):
    out = np.zeros(128, np.int32)
    with pytest.raises(KernelError) as exc:
        lib.launch("early_exit_deadlock", 1, 128, 0, (out,))
    msg = str(exc.value)
    assert "deadlock" in msg
    assert "threads 0-63 wait at bar.sync 1, 128 (" in msg and "barriers.cu:" in msg
    assert "threads 64-127 have exited" in msg
    # The library is usable again after a reported failure (a fresh worker).
    out2 = np.full(128, -1, np.int32)
    lib.launch("early_exit_ok", 1, 128, 0, (out2,))
    assert out2[0] == 189


def test_barrier_divergence_is_reported(lib):
    with pytest.raises(KernelError, match=r"barrier divergence: .*__syncthreads \(.*barriers"
                       r"\.cu:\d+\).*__syncthreads \(.*barriers\.cu:\d+\)"):
        lib.launch("divergent", 1, 64, 0, (np.zeros(64, np.int32),))


@pytest.mark.parametrize("count,needle", [(48, "positive multiple of 32"),
                                          (0, "positive multiple of 32"),
                                          (256, "exceeds the block size")])
def test_bad_thread_count(lib, count, needle):
    with pytest.raises(KernelError, match=needle):
        lib.launch("bad_count", 1, 128, 0, (np.zeros(128, np.int32), count))


def test_bad_barrier_id(lib):
    with pytest.raises(KernelError, match="barrier id 16 is out of range 0-15"):
        lib.launch("bad_id", 1, 32, 0, (np.zeros(32, np.int32), 16))


def test_warp_collective_deadlock(lib):
    with pytest.raises(KernelError) as exc:
        lib.launch("warp_deadlock", 1, 64, 0, (np.zeros(64, np.int32),))
    msg = str(exc.value)
    assert "threads 0-15 wait at __shfl_sync(mask 0xffffffff)" in msg
    assert "threads 16-63 wait at __syncthreads" in msg


def test_segfault_becomes_an_exception(lib):
    with pytest.raises(KernelError, match="SIGSEGV"):
        lib.launch("out_of_bounds", 1, 32, 0, (np.zeros(32, np.float32),))


def test_random_order_exposes_a_race():
    results = set()
    for seed in range(1, 7):
        with load(PROGRAMS / "barriers.cu", opt="-O1", seed=seed) as lib:
            out = np.zeros(64, np.int32)
            lib.launch("racy", 1, 64, 0, (out,))
            results.add(out.tobytes())
    assert len(results) > 1  # the result depends on the thread order: a race


def test_launch_config_errors(lib):
    with pytest.raises(KernelError, match="exceeds CUDA's limits"):
        lib.launch("early_exit_ok", 1, 2048, 0, (np.zeros(2048, np.int32),))


UNSUPPORTED = {
    "asm": ('__global__ void k(float *a) {\n  asm volatile("trap;");\n}\n',
            2, "inline assembly is not supported"),
    # Dynamic parallelism runs (test_emu_dynamic_parallelism.py).
    "texture_reference": ("texture<float, 1, cudaReadModeElementType> tr;\n"
                          "__global__ void k(float *a) {\n  a[0] = 1.0f;\n}\n", 1,
                          "texture references"),
    # Grid-wide sync runs (test_emu_grid_sync.py); multi-device groups do not.
    "multi_grid": ("#include <cooperative_groups.h>\n__global__ void k(float *a) {\n"
                   "  cooperative_groups::this_multi_grid().sync();\n}\n", 3,
                   "multi-device cooperative launches"),
}


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_unsupported_constructs_fail_at_build_time(tmp_path, name):
    text, line, needle = UNSUPPORTED[name]
    src = tmp_path / f"{name}.cu"
    src.write_text("#include <cuda_runtime.h>\n" + text)
    with pytest.raises(CudafuseError) as exc:
        load(src)
    d = exc.value.diagnostics[0]
    assert needle in d.message
    assert (d.file, d.line) == (str(src), line + 1) and d.col > 0


def test_compile_errors_point_at_the_source(tmp_path):
    src = tmp_path / "broken.cu"
    src.write_text("__global__ void k(float *a) {\n  a[0] = 1.0f;\n}\n"
                   "void h(float *a) {\n  k<<<1, 1>>>(a);\n  undefined_call(a);\n}\n")
    with pytest.raises(CudafuseError) as exc:
        load(src)
    d = exc.value.diagnostics[0]
    assert (d.file, d.line) == (str(src.resolve()), 6)


def test_endless_loop_times_out(tmp_path):
    src = tmp_path / "spin.cu"
    src.write_text("__global__ void spin(volatile int *flag) { while (*flag == 0) {} }\n"
                   "__global__ void one(int *a) { a[0] = 1; }\n")
    # (5 s, not 1: the timeout covers starting the fresh worker too, slow on a busy machine)
    with load(src, opt="-O0", timeout=5.0) as lib:
        with pytest.raises(KernelError, match="no answer after 5 s"):
            lib.launch("spin", 1, 1, 0, (np.zeros(1, np.int32),))
        a = np.zeros(1, np.int32)
        lib.launch("one", 1, 1, 0, (a,))  # a fresh worker after the stopped one
        assert a[0] == 1


def test_address_sanitizer_reports_out_of_bounds(tmp_path):
    src = tmp_path / "oob.cu"
    src.write_text("__global__ void k(float *a, int n) {\n  __syncthreads();\n"
                   "  a[threadIdx.x + n] = 1.0f;\n}\n")
    with load(src, opt="-O0", sanitize=True) as lib:
        a = np.zeros(32, np.float32)
        lib.launch("k", 1, 32, 0, (a, 0))  # in bounds, through fibers: no false report
        assert a.sum() == 32
        with pytest.raises(KernelError, match="AddressSanitizer.*heap-buffer-overflow"):
            lib.launch("k", 1, 32, 0, (a, 1))


@pytest.mark.parametrize("block", [(32, 8, 1), (16, 16, 1), (8, 8, 4), (256, 1, 1)])
def test_thread_ids_after_a_barrier_follow_each_launch_block_shape(lib, block):
    # The same 256 threads in four shapes, launched one after another by the module's library.
    bx, by, bz = block
    out = np.full(2 * 2 * 256, -1, np.int32)
    lib.launch("ids_across_barrier", 2, block, 0, (out,))
    z, y, x = np.meshgrid(np.arange(bz), np.arange(by), np.arange(bx), indexing="ij")
    ids = (x | y << 10 | z << 20).reshape(-1)
    want = np.tile(np.repeat(ids, 2), 2)
    np.testing.assert_array_equal(out, want)
