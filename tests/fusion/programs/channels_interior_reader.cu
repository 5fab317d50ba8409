// A reader with an interior-only guard whose stores are all channels (none at its plain
// element): it has no row stride to compare with its partial producer's, so the pair is
// refused with a note (legality once crashed here; tests/fusion/test_fuse_channels.py).
#include <cuda_runtime.h>

__global__ void k0(const float *__restrict__ s0, float *__restrict__ out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = s0[y * w + x] * 0.75f + 0.125f;
}

__global__ void k1(const float *__restrict__ s0, float *__restrict__ out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 1 && x < w - 1 && y >= 1 && y < h - 1) {
    const float v = s0[y * w + x];
    out[(y * w + x) * 2] = v;
    out[(y * w + x) * 2 + 1] = v * 0.5f + 0.25f;
  }
}

extern "C" void h(const float *in0, float *b1, float *b2, int w, int h) {
  dim3 block(8, 4);
  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  k0<<<grid, block>>>(in0, b1, w, h);
  k1<<<grid, block>>>(b1, b2, w, h);
}
