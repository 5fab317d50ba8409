"""<cuda/std/optional> and <cuda/std/atomic> under the emulator (they were refused at the
include): the host's <optional> and <atomic> as cuda::std, as the other cuda/std stand-ins.
"""

from __future__ import annotations

import numpy as np
import pytest

from cudafuse.runtime import load

PROGRAM = r"""
#include <cuda/std/optional>
#include <cuda/std/atomic>

__device__ cuda::std::optional<int> odd_half(int v) {
  if (v % 2) return v / 2;
  return cuda::std::nullopt;
}

__global__ void tally(const int *in, int *out, cuda::std::atomic<int> *odd, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cuda::std::optional<int> h = odd_half(in[i]);
  out[i] = h.value_or(-1);
  if (h.has_value()) odd->fetch_add(1, cuda::std::memory_order_relaxed);
}

void run(const int *in, int *out, int *count, int n) {
  int *din, *dout;
  cuda::std::atomic<int> *dodd;
  cudaMalloc(&din, n * sizeof(int));
  cudaMalloc(&dout, n * sizeof(int));
  cudaMalloc(&dodd, sizeof(*dodd));
  cudaMemset(dodd, 0, sizeof(*dodd));
  cudaMemcpy(din, in, n * sizeof(int), cudaMemcpyHostToDevice);
  tally<<<(n + 127) / 128, 128>>>(din, dout, dodd, n);
  cudaMemcpy(out, dout, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(count, dodd, sizeof(int), cudaMemcpyDeviceToHost);
}
"""


@pytest.mark.slow  # a g++ build
def test_optional_and_atomic(tmp_path):
    src = tmp_path / "libcudacxx.cu"
    src.write_text(PROGRAM)
    rng = np.random.default_rng(7)
    x = rng.integers(0, 1000, 1000).astype(np.int32)
    out = np.zeros_like(x)
    count = np.zeros(1, np.int32)
    with load(src, opt="-O0") as lib:
        lib.call("run", x, out, count, len(x))
    np.testing.assert_array_equal(out, np.where(x % 2 == 1, x // 2, -1))
    assert count[0] == int(np.sum(x % 2 == 1))
