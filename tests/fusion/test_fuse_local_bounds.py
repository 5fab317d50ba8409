"""A grid-stride loop bounded by a local (`const int n = w * h;`) has the iteration space of
its initialiser: such kernels fuse with each other (whatever the factors' order), and the
fused kernel spells the bound from parameters, not the producer's local. A local assigned
again, or computed from the thread's position, is not a bound to compare: not fused."""

from __future__ import annotations

from pathlib import Path

from equivalence import fuse_file, run_both

SOURCE = """
#include <cuda_runtime.h>

__global__ void scale(const float *__restrict__ in, float *__restrict__ out, int w, int h) {
  const int n = w * h;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = in[i] * 3.0f - 1.0f;
}

__global__ void square(const float *__restrict__ in, float *__restrict__ out, int w, int h) {
  int total = h * w;
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  while (i < total) {
    out[i] = in[i] * in[i];
    i += gridDim.x * blockDim.x;
  }
}

__global__ void shrunk(const float *__restrict__ in, float *__restrict__ out, int w, int h) {
  int n = w * h;
  n = n - 1;  // assigned again: its initialiser is not the bound
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = in[i] + 1.0f;
}

extern "C" void chain(const float *in, float *a, float *b, int w, int h) {
  scale<<<3, 64>>>(in, a, w, h);
  square<<<3, 64>>>(a, b, w, h);
}

extern "C" void not_same(const float *in, float *a, float *b, int w, int h) {
  scale<<<3, 64>>>(in, a, w, h);
  shrunk<<<3, 64>>>(a, b, w, h);
}
"""


def test_bounds_through_locals(tmp_path: Path) -> None:
    src = tmp_path / "locals.cu"
    src.write_text(SOURCE)
    out = tmp_path / "locals.fused.cu"
    result = fuse_file(src, out, fuse_all=True)
    assert [(g.host, g.kernels) for g in result.groups] == [("chain", ["scale", "square"])]
    refused = [e.why for e in result.edges if e.host == "not_same"]
    assert refused and "same iteration space" in refused[0]
    for w, h in ((37, 19), (1, 5), (200, 3)):
        run_both(src, out, "chain", w, h)
        run_both(src, out, "not_same", w, h)
