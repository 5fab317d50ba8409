// A chain of stored intermediates (p1 -> p2 -> k, a and b both live): the machine code of
// the fused kernel evaluates p1 (its sqrtf) once per thread (tests/fusion/test_fuse_own_value.py).
#include <cuda_runtime.h>
__global__ void p1(const float *in, float *a, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  a[y * w + x] = sqrtf(fabsf(in[y * w + x])) + 1.0f;
}
__global__ void p2(const float *a, float *b, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  b[y * w + x] = a[y * w + x] * a[y * w + x] - 0.5f;
}
__global__ void k(const float *a, const float *b, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = b[y * w + x] + a[y * w + x];
}
extern "C" void pipe(const float *in, float *a, float *b, float *out, int w, int h) {
  dim3 bl(16, 16), g((w + 15) / 16, (h + 15) / 16);
  p1<<<g, bl>>>(in, a, w, h);
  p2<<<g, bl>>>(a, b, w, h);
  k<<<g, bl>>>(a, b, out, w, h);
}
