// Sibling launches: independent launches of one sequence become one launch. Same shapes:
// one thread runs both bodies (an input both read passed once); different shapes with small
// constant grids: the block split of hfuse --mode block, called with both grids. A write/write
// conflict and a read of the other's output are refused (no fused launch).
// RUN: fuse %s -o -
// CODE: __device__ __forceinline__ void cf_same_sib0_0_sib_a(const float *in, float *o, int n)
// CODE: __device__ __forceinline__ void cf_same_sib0_1_sib_b(const float *in, float *o, int n)
// CODE: __global__ void cf_same_sib0(const float *__restrict__ cf_p0, float *__restrict__ cf_p1, int cf_p2, float *__restrict__ cf_p3) {
// CODE-NEXT:   cf_same_sib0_0_sib_a(cf_p0, cf_p1, cf_p2);
// CODE-NEXT:   cf_same_sib0_1_sib_b(cf_p0, cf_p3, cf_p2);
// CODE-NEXT: }
// CODE: extern "C" void same(const float *in, float *x, float *y, int n) {
// CODE-NEXT:   /* cudafuse: sib_a fused into cf_same_sib0 (siblings) */;
// CODE-NEXT:   cf_same_sib0<<<(n + 255) / 256, 256>>>(in, x, n, y);
// CODE-NEXT: }
// CODE: void cf_small_sib1_launch(
// CODE: extern "C" void small(const float *in, float *x, float *y, int n) {
// CODE-NEXT:   /* cudafuse: sib_a fused into cf_small_sib1_launch (siblings) */;
// CODE-NEXT:   cf_small_sib1_launch(in, x, n, in, y, n, 4, 2, 0, 0, 0);
// CODE-NEXT: }
// CODE: extern "C" void conflict(const float *in, float *x, int n) {
// CODE-NEXT:   sib_a<<<(n + 255) / 256, 256>>>(in, x, n);
// CODE-NEXT:   sib_b<<<(n + 255) / 256, 256>>>(in, x, n);
// CODE: extern "C" void chained(const float *in, float *x, float *y, int n) {
// CODE-NOT: cf_chained
// CODE: }
#include <cuda_runtime.h>
__global__ void sib_a(const float *in, float *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = in[i] * 2.0f;
}
__global__ void sib_b(const float *in, float *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  o[i] = in[i] + 1.0f;
}
__global__ void sib_sum(const float *in, float *o, int n) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    float s = 0.0f;
    for (int k = 0; k < n; ++k) s += in[k];
    o[0] = s;
  }
}
extern "C" void same(const float *in, float *x, float *y, int n) {
  sib_a<<<(n + 255) / 256, 256>>>(in, x, n);
  sib_b<<<(n + 255) / 256, 256>>>(in, y, n);
}
extern "C" void small(const float *in, float *x, float *y, int n) {
  sib_a<<<4, 256>>>(in, x, n);
  sib_b<<<2, 128>>>(in, y, n);
}
extern "C" void conflict(const float *in, float *x, int n) {
  sib_a<<<(n + 255) / 256, 256>>>(in, x, n);
  sib_b<<<(n + 255) / 256, 256>>>(in, x, n);
}
extern "C" void chained(const float *in, float *x, float *y, int n) {
  sib_a<<<(n + 255) / 256, 256>>>(in, x, n);
  sib_sum<<<1, 32>>>(x, y, n);
}
