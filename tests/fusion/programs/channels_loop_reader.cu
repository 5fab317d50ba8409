// A reader storing its channels in a loop under a partial guard, after a plain producer:
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
  if (x >= 1 && x < w && y < h) {
    const float v = s0[y * w + x];
    for (int c = 0; c < 3; ++c)
      out[c * w * h + y * w + x] = v * (0.5f + 0.25f * c);
  }
}

extern "C" void h(const float *in0, float *b1, float *b2, int w, int h) {
  dim3 block(8, 4);
  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  k0<<<grid, block>>>(in0, b1, w, h);
  k1<<<grid, block>>>(b1, b2, w, h);
}
