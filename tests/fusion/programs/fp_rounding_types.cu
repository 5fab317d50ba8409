// The producer -> consumer pair of fp_rounding.cu in double, float2 and __half: the rounding
// barrier covers every floating type a fused producer may return (test_fp_rounding.py).
#include <cuda_runtime.h>
#include <cuda_fp16.h>

__global__ void prod_d(const double *a, const double *b, double *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  p[i] = a[i] * b[i];
}
__global__ void cons_d(const double *p, const double *c, double *r, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  r[i] = p[i] + c[i];
}
extern "C" void fp_add_d(const double *a, const double *b, const double *c, double *p,
                         double *r, int n) {
  prod_d<<<(n + 255) / 256, 256>>>(a, b, p, n);
  cons_d<<<(n + 255) / 256, 256>>>(p, c, r, n);
}

__global__ void prod_f2(const float2 *a, const float2 *b, float2 *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  p[i] = make_float2(a[i].x * b[i].x, a[i].y * b[i].y);
}
__global__ void cons_f2(const float2 *p, const float2 *c, float2 *r, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  r[i] = make_float2(p[i].x + c[i].x, p[i].y + c[i].y);
}
extern "C" void fp_add_f2(const float2 *a, const float2 *b, const float2 *c, float2 *p,
                          float2 *r, int n) {
  prod_f2<<<(n + 255) / 256, 256>>>(a, b, p, n);
  cons_f2<<<(n + 255) / 256, 256>>>(p, c, r, n);
}

__global__ void prod_h(const __half *a, const __half *b, __half *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  p[i] = a[i] * b[i];
}
__global__ void cons_h(const __half *p, const __half *c, __half *r, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  r[i] = p[i] + c[i];
}
extern "C" void fp_add_h(const __half *a, const __half *b, const __half *c, __half *p,
                         __half *r, int n) {
  prod_h<<<(n + 255) / 256, 256>>>(a, b, p, n);
  cons_h<<<(n + 255) / 256, 256>>>(p, c, r, n);
}

// A class element of the program's own: each floating member is rounded by itself, as the
// original's store of the whole element rounded it (emit/codegen.py _rounded). The consumer
// adds to two members: contracted with the producer's multiplies, they would be FFMAs.
struct sample { float v; int tag; float w[2]; };
__global__ void prod_s(const float *a, const float *b, sample *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  sample s;
  s.v = a[i] * b[i];
  s.tag = i;
  s.w[0] = a[i] * a[i];
  s.w[1] = b[i] * b[i];
  p[i] = s;
}
__global__ void cons_s(const sample *p, const float *c, float *r, float *q, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  r[i] = p[i].v + c[i];
  q[i] = p[i].w[1] - p[i].w[0];
}
// (The scratch buffer comes as floats, four per element: test helpers pass numpy arrays.)
extern "C" void fp_add_s(const float *a, const float *b, const float *c, float *pbuf,
                         float *r, float *q, int n) {
  sample *p = reinterpret_cast<sample *>(pbuf);
  prod_s<<<(n + 255) / 256, 256>>>(a, b, p, n);
  cons_s<<<(n + 255) / 256, 256>>>(p, c, r, q, n);
}
