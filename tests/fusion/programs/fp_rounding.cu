// Producers whose last operation is a multiply, read by consumers that add: unfused, the
// product is rounded when it is stored; fused, nvcc must not contract the multiply and the
// add into one FMA (tests/fusion/test_fp_rounding.py).
#include <cuda_runtime.h>

__global__ void prod_f(const float *a, const float *b, float *p, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= w * h) return;
  p[i] = a[i] * b[i];
}
__global__ void cons_f(const float *p, const float *c, float *r, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= w * h) return;
  r[i] = p[i] + c[i];
}
extern "C" void fp_add(const float *a, const float *b, const float *c, float *p, float *r,
                       int w, int h) {
  prod_f<<<(w * h + 255) / 256, 256>>>(a, b, p, w, h);
  cons_f<<<(w * h + 255) / 256, 256>>>(p, c, r, w, h);
}

// The consumer multiplies and adds too (r = c * d - p): the product p may not become the
// addend of an FMA whose own product is rounded separately.
__global__ void cons_fms(const float *p, const float *c, const float *d, float *r, int w,
                         int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= w * h) return;
  float t = c[i] * d[i];
  r[i] = t - p[i];
}
extern "C" void fp_fms(const float *a, const float *b, const float *c, const float *d,
                       float *p, float *r, int w, int h) {
  prod_f<<<(w * h + 255) / 256, 256>>>(a, b, p, w, h);
  cons_fms<<<(w * h + 255) / 256, 256>>>(p, c, d, r, w, h);
}

// A 2-D stencil consumer: each tap evaluates the producer at a neighbour.
__global__ void cons_sum3(const float *p, float *r, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int xl = max(x - 1, 0), xr = min(x + 1, w - 1);
  r[y * w + x] = p[y * w + xl] + p[y * w + x] + p[y * w + xr];
}
__global__ void prod_f2d(const float *a, const float *b, float *p, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  p[y * w + x] = a[y * w + x] * b[y * w + x];
}
extern "C" void fp_sum3(const float *a, const float *b, float *p, float *r, int w, int h) {
  dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
  prod_f2d<<<grid, block>>>(a, b, p, w, h);
  cons_sum3<<<grid, block>>>(p, r, w, h);
}
