// Two-kernel pipelines for tests/fusion/test_fuse_traffic.py: a point chain and a stencil
// consumer, both fed by `scale` (unsigned char in, float intermediate `t`, float out).
#include <cuda_runtime.h>

__global__ void scale(const unsigned char *in, float *t, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  t[y * w + x] = 0.5f * in[y * w + x];
}

__global__ void offset(const float *t, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = t[y * w + x] + 1.0f;
}

__global__ void hblur(const float *t, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = t[y * w + max(x - 1, 0)] + t[y * w + x] + t[y * w + min(x + 1, w - 1)];
}

extern "C" void point_chain(const unsigned char *in, float *t, float *out, int w, int h) {
  dim3 block(32, 8);
  dim3 grid((w + 31) / 32, (h + 7) / 8);
  scale<<<grid, block>>>(in, t, w, h);
  offset<<<grid, block>>>(t, out, w, h);
}

extern "C" void stencil_chain(const unsigned char *in, float *t, float *out, int w, int h) {
  dim3 block(32, 8);
  dim3 grid((w + 31) / 32, (h + 7) / 8);
  scale<<<grid, block>>>(in, t, w, h);
  hblur<<<grid, block>>>(t, out, w, h);
}
