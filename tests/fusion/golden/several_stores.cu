// A producer storing one buffer at several offsets of its element (planar or interleaved
// channels) is not fused yet: the note names the layout and channels found, and the file is
// left as it was.
// RUN: fuse %s -o - --fuse-all
// CODE-NOT: cudafuse
// DIAG: note: to_planar -> luma: not fused: 'to_planar' cannot be recomputed: it stores 'p' at several offsets of its element (planar (c * plane + i) channels, c = 0, 1, 2); several stores per element are not fused yet
// DIAG: note: gain3 -> pick: not fused: 'gain3' cannot be recomputed: it stores 'q' at several offsets of its element (interleaved (i * 3 + c) channels, c = 0, 1, 2); several stores per element are not fused yet
#include <cuda_runtime.h>
__global__ void to_planar(const float *rgb, float *p, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int i = y * w + x;
  p[i] = rgb[i * 3 + 0] * 0.5f;
  p[w * h + i] = rgb[i * 3 + 1] * 0.25f;
  p[2 * w * h + i] = rgb[i * 3 + 2] * 2.0f;
}
__global__ void luma(const float *p, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int i = y * w + x;
  out[i] = 0.299f * p[i] + 0.587f * p[w * h + i] + 0.114f * p[2 * w * h + i];
}
__global__ void gain3(const float *rgb, float *q, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  q[(y * w + x) * 3 + 0] = rgb[(y * w + x) * 3 + 0] * 1.5f;
  q[3 * (y * w + x) + 1] = rgb[(y * w + x) * 3 + 1] * 0.5f;
  q[2 + (x + w * y) * 3] = rgb[(y * w + x) * 3 + 2];
}
__global__ void pick(const float *q, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = q[(y * w + x) * 3 + 1];
}
extern "C" void planar(const float *rgb, float *p, float *out, int w, int h) {
  dim3 b(16, 8), g((w + 15) / 16, (h + 7) / 8);
  to_planar<<<g, b>>>(rgb, p, w, h);
  luma<<<g, b>>>(p, out, w, h);
}
extern "C" void interleaved(const float *rgb, float *q, float *out, int w, int h) {
  dim3 b(16, 8), g((w + 15) / 16, (h + 7) / 8);
  gain3<<<g, b>>>(rgb, q, w, h);
  pick<<<g, b>>>(q, out, w, h);
}
