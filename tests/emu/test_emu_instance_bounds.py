"""Each instance of a template kernel with __launch_bounds__ is known by its bound before its
first launch (emu/launch_bounds.py, CUDAFUSE_INSTANCE_BOUNDS): a program that sizes its blocks
from the occupancy API gets a block its kernel accepts, as on a GPU, and the kernel runs.
Before, an instance had no bound until launched: the API answered 1024, the launch over the
bound was refused and the outputs stayed unwritten."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cudafuse.runtime import load

# A block-tiled weighted sum in a library's style: the element type and the tile are template
# parameters, the bound is the tile, the host asks the runtime for its block and grid.
PROGRAM = r"""
#include <cuda_runtime.h>

namespace lib {
template <typename T, int TILE, int MIN_BLOCKS>
__global__ void __launch_bounds__(TILE, MIN_BLOCKS)
weighted(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ out, T w, int n) {
  __shared__ T tile[TILE];
  for (int base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
    int i = base + threadIdx.x;
    tile[threadIdx.x] = i < n ? a[i] : T(0);
    __syncthreads();
    if (i < n) out[i] = w * tile[threadIdx.x] + b[i];
    __syncthreads();
  }
}
}  // namespace lib

// An overloaded name: each definition's instances by their own bound (a cast picks one).
template <int B> __global__ void __launch_bounds__(B) clear(float *x) { x[threadIdx.x] = 0; }
template <int B> __global__ void __launch_bounds__(2 * B) clear(double *x) { x[threadIdx.x] = 0; }
__global__ void __launch_bounds__(160) clear(int *x) { x[threadIdx.x] = 0; }

template <int TILE>
static int launch_sized(const float *a, const float *b, float *out, float w, int n) {
  int min_grid = 0, block = 0;
  cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, lib::weighted<float, TILE, 1>, 0, 0);
  int grid = (n + block - 1) / block;
  if (grid > min_grid) grid = min_grid;
  lib::weighted<float, TILE, 1><<<grid, block>>>(a, b, out, w, n);
  return cudaGetLastError() == cudaSuccess ? block : -1;
}

extern "C" void run(const float *a, const float *b, float *o1, float *o2, int n, int *info) {
  info[0] = launch_sized<96>(a, b, o1, 2.0f, n);
  info[1] = launch_sized<512>(a, b, o2, -0.5f, n);
  cudaFuncAttributes attr;
  cudaFuncGetAttributes(&attr, (const void *)lib::weighted<double, 64, 2>);
  info[2] = attr.maxThreadsPerBlock;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&info[3], lib::weighted<float, 96, 1>, 128, 0);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&info[4], lib::weighted<float, 96, 1>, 96, 0);
  cudaFuncGetAttributes(&attr, (void (*)(float *))clear<32>);
  info[5] = attr.maxThreadsPerBlock;
  cudaFuncGetAttributes(&attr, (void (*)(double *))clear<32>);
  info[6] = attr.maxThreadsPerBlock;
  cudaFuncGetAttributes(&attr, (void (*)(int *))clear);
  info[7] = attr.maxThreadsPerBlock;
}
"""

N = 5000


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory):
    path: Path = tmp_path_factory.mktemp("instance_bounds") / "weighted.cu"
    path.write_text(PROGRAM)
    with load(path, opt="-O0") as built:
        yield built


def test_occupancy_sized_launches_of_bounded_instances_run(lib) -> None:
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal(N).astype(np.float32), rng.standard_normal(N).astype(np.float32)
    o1, o2 = np.zeros(N, np.float32), np.zeros(N, np.float32)
    info = np.zeros(8, np.int32)
    lib.call("run", a, b, o1, o2, N, info)
    # Each instance's block is within its own bound, before its first launch.
    assert 0 < info[0] <= 96 and 0 < info[1] <= 512, info
    np.testing.assert_array_equal(o1, np.float32(2.0) * a + b)
    np.testing.assert_array_equal(o2, np.float32(-0.5) * a + b)
    # An instance never launched: its bound by its address; a block over it is not resident.
    assert info[2] == 64 and info[3] == 0 and info[4] > 0, info
    # Overloads of one name: two templates and a kernel, each with its own bound.
    assert info[5:].tolist() == [32, 64, 160]
