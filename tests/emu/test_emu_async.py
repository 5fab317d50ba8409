"""Arrive-wait barriers, pipelines and asynchronous copies on the emulator
(emu/include/cudafuse_emu_async.h, cuda/barrier, cuda/pipeline, cuda_pipeline.h,
cuda_awbarrier.h), against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.runtime import KernelError, load


@pytest.fixture(scope="module", params=[0, 7], ids=["ordered", "seeded"])
def lib(request):
    with load(PROGRAMS / "async_barriers.cu", opt="-O1", seed=request.param) as lib:
        yield lib


def test_waits_make_fiber_kernels(lib):
    assert {"barrier_block_sum", "warp_barrier_rotate", "pipeline_column_sums",
            "pipeline_scaled", "primitives_sum"} <= lib.built.fiber_kernels


def test_block_barrier_and_memcpy_async_reduction(lib):
    n = 1000
    x = np.random.default_rng(1).random(n, dtype=np.float32)
    out = np.zeros(4, np.float32)
    lib.launch("barrier_block_sum", 4, 256, 0, (x, out, n))
    ref = [x[i:i + 256].astype(np.float64).sum() for i in range(0, n, 256)]
    np.testing.assert_allclose(out, ref, rtol=1e-5)


def test_per_warp_barriers_count_fewer_threads_than_the_block(lib):
    x = np.arange(256, dtype=np.int32)
    out = np.zeros(256, np.int32)
    lib.launch("warp_barrier_rotate", 2, 128, 0, (x, out))
    ref = x.reshape(2, 4, 32).copy()
    for w in range(4):
        ref[:, w] = np.roll(ref[:, w], -(w + 1), axis=1)
    np.testing.assert_array_equal(out, ref.reshape(-1))


def test_producer_consumer_pipeline(lib):
    rows, cols = 9, 96
    x = np.random.default_rng(2).integers(-50, 50, (rows, cols)).astype(np.float32)
    out = np.zeros(cols, np.float32)
    lib.launch("pipeline_column_sums", 1, 32 + cols, 0, (x, out, rows, cols))
    np.testing.assert_array_equal(out, x.sum(axis=0))


def test_thread_and_unified_block_pipelines(lib):
    per = 5
    x = np.random.default_rng(3).integers(-9, 9, (per, 128)).astype(np.float32)
    out = np.zeros(128, np.float32)
    lib.launch("pipeline_scaled", 1, 128, 0, (x, out, per))
    np.testing.assert_array_equal(out, np.roll(2 * x.sum(axis=0), -1))


def test_c_primitives_copy_zero_fill_and_mbarrier(lib):
    x = np.arange(1, 65, dtype=np.int32)
    out = np.zeros(1, np.int32)
    lib.launch("primitives_sum", 1, 64, 0, (x, out))
    # even threads filled two elements each; those with t % 4 == 2 zeroed the second
    assert out[0] == x.sum() - x[3::4].sum()


def test_missing_arrivals_are_a_deadlock_report(lib):
    with pytest.raises(KernelError) as exc:
        lib.launch("barrier_missing_arrivals", 1, 64, 0, (np.zeros(64, np.int32),))
    msg = str(exc.value)
    assert "deadlock" in msg
    assert "threads 0-31 wait at cuda::barrier::arrive_and_wait (" in msg
    assert "threads 32-63 have exited" in msg


def test_libcudacxx_headers_without_a_stand_in_are_refused(tmp_path):
    from cudafuse.diagnostics import CudafuseError
    from cudafuse.runtime.build import BuildOptions, build

    src = tmp_path / "atomic.cu"
    src.write_text("#include <cuda/barrier>\n#include <cuda/std/cstdint>\n"
                   "#include <cuda/atomic>\n__global__ void k() {}\n")
    with pytest.raises(CudafuseError) as info:
        build(str(src), "emu", BuildOptions(opt="-O0"))
    diags = info.value.diagnostics
    assert [(d.line, d.col) for d in diags] == [(3, 1)]
    assert ("this libcu++ header (<cuda/atomic>) is not supported by the emulator"
            in diags[0].message)
