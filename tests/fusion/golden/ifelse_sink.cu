// A last kernel storing only under an if/else stores the group's live intermediate before the
// statement holding the if, which every thread of its guard runs (issue 15).
// RUN: fuse %s -o -
// CODE: __global__ void cf_two_fused0(
// CODE: if (x >= w || y >= h) return;
// CODE-NEXT: cf_p4[(long long)y * (w) + x] = a[(long long)y * (w) + x]; if (a.at2(0 + (x), (y), (w)) > 0.0f)
// CODE-NEXT: out[y * w + x] = a.at2(0 + (x), (y), (w)) * 2.0f;
// CODE-NEXT: else
// CODE: cf_two_fused0<<<g, b>>>(out, w, h, in, a);
// DIAG-NOT: note:
#include <cuda_runtime.h>
__global__ void scale(const float *in, float *a, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  a[y * w + x] = in[y * w + x] * 0.75f - 0.25f;
}
__global__ void pick(const float *a, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  if (a[y * w + x] > 0.0f)
    out[y * w + x] = a[y * w + x] * 2.0f;
  else
    out[y * w + x] = -a[y * w + x];
}
extern "C" void two(const float *in, float *a, float *out, int w, int h) {
  dim3 b(16, 8), g((w + 15) / 16, (h + 7) / 8);
  scale<<<g, b>>>(in, a, w, h);
  pick<<<g, b>>>(a, out, w, h);
}
