"""Warp collectives reached only through helpers of an included header (ggml's common.cuh
style: `static __device__ __forceinline__ warp_reduce_sum`, templates, a macro expanding to a
call, a call left unresolved in a kernel template): the emulator runs these kernels with
fibers (emu/fibers.py) and every output element matches the warp's reduction."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.emu.fibers import fiber_functions
from cudafuse.frontend.parse import parse_file
from cudafuse.runtime import load

SOURCE = PROGRAMS / "warp_header.cu"
KERNELS = ("row_sum", "segment_sums", "row_max", "row_sum_int")


def test_kernels_reaching_header_collectives_need_fibers():
    unit = parse_file(str(SOURCE)).unit
    assert set(KERNELS) <= fiber_functions(unit)


@pytest.mark.slow  # ~6 s, the build
def test_header_reductions_run_and_match():
    rng = np.random.default_rng(3)
    xf = rng.integers(-50, 50, 128).astype(np.float32)
    xi = rng.integers(-1000, 1000, 128).astype(np.int32)
    warps_f = xf.reshape(-1, 32)
    with load(SOURCE, opt="-O0", timeout=120) as lib:
        out = np.zeros(128, np.float32)
        lib.launch("row_sum", 2, 64, 0, (xf, out))
        np.testing.assert_array_equal(out, np.repeat(warps_f.sum(axis=1), 32))
        seg = np.zeros(8, np.int32)
        lib.launch("segment_sums", 2, 64, 0, (xi, seg))
        np.testing.assert_array_equal(seg, xi.reshape(-1, 16).sum(axis=1))
        out = np.zeros(128, np.float32)
        lib.launch("row_max", 2, 64, 0, (xf, out))
        np.testing.assert_array_equal(out, np.repeat(warps_f.max(axis=1), 32))
        outi = np.zeros(128, np.int32)
        lib.launch("row_sum_int", 2, 64, 0, (xi, outi))
        np.testing.assert_array_equal(outi, np.repeat(xi.reshape(-1, 32).sum(axis=1), 32))


def test_without_the_header_helpers_bodies_the_kernel_still_gets_fibers(tmp_path):
    """A helper the front end cannot see (declared only: defined in another file) counts as
    one that waits, and so does a callable template parameter; math, including a call left
    unresolved in a template (`exp(-x)` on a T), does not."""
    (tmp_path / "p.cu").write_text(
        "__device__ float warp_reduce_sum(float x);\n"  # defined in another file
        "__global__ void row_sum(const float *x, float *out) {\n"
        "    out[threadIdx.x] = warp_reduce_sum(x[threadIdx.x]);\n}\n"
        "__global__ void plain(const float *x, float *out) {\n"
        "    out[threadIdx.x] = sqrtf(x[threadIdx.x]) + fmaxf(x[0], 1.0f);\n}\n"
        "template <typename T> __device__ T sig(T x) { return 1 / (1 + exp(-x)); }\n"
        "__global__ void plain_t(const float *x, float *out) {\n"
        "    out[threadIdx.x] = sig(x[threadIdx.x]);\n}\n"
        "template <typename Op> __global__ void apply(float *x, Op op) {\n"
        "    x[threadIdx.x] = op(x[threadIdx.x]);\n}\n")
    needs = fiber_functions(parse_file(str(tmp_path / "p.cu")).unit)
    assert "row_sum" in needs and "apply" in needs
    assert "plain" not in needs and "plain_t" not in needs
