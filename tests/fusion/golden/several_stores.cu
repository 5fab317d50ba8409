// A producer storing one buffer at several offsets of its element (planar or interleaved
// channels) is fused: one value-at-element function per channel, the consumer's reads of a
// constant channel at its own element call it directly, and a live intermediate is stored
// channel by channel, each channel evaluated once (issue 15).
// RUN: fuse %s -o - --fuse-all
// CODE: float cf_planar_fused0_0_to_planar_p_c0_xy(
// CODE: return cf_round(rgb[i * 3 + 0] * 0.5f);
// CODE-NEXT: (void)0;
// CODE-NEXT: (void)0;
// CODE: float cf_planar_fused0_0_to_planar_p_c2_xy(
// CODE: (void)0;
// CODE-NEXT: (void)0;
// CODE-NEXT: return cf_round(rgb[i * 3 + 2] * 2.0f);
// CODE: const long long cf_c = i / cf_n, cf_e = i - cf_c * cf_n;
// CODE: __global__ void cf_planar_fused0(
// CODE: const float cf_e0 = p.c0_xy(x, y);
// CODE-NEXT: const float cf_e1 = p.c1_xy(x, y);
// CODE-NEXT: const float cf_e2 = p.c2_xy(x, y);
// CODE-NEXT: cf_p4[(long long)0 * (long long)((w)) * (long long)((h)) + (i)] = cf_e0, cf_p4[(long long)1 * (long long)((w)) * (long long)((h)) + (i)] = cf_e1, cf_p4[(long long)2 * (long long)((w)) * (long long)((h)) + (i)] = cf_e2, out[i] = 0.299f * cf_e0 + 0.587f * cf_e1 + 0.114f * cf_e2;
// CODE: const long long cf_c = i % 3, cf_e = i / 3;
// CODE: __global__ void cf_interleaved_fused1(
// CODE: cf_p4[(y * w + x) * 3 + 0] = cf_e0, cf_p4[(y * w + x) * 3 + 1] = cf_e1, cf_p4[(y * w + x) * 3 + 2] = cf_e2, out[y * w + x] = cf_e1;
// CODE: cf_interleaved_fused1<<<g, b>>>(out, w, h, rgb, q);
// DIAG-NOT: note:
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
