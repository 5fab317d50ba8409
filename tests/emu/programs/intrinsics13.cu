// CUDA 13 intrinsics the emulator computes exactly: SIMD video ops, dot products, rounding-mode
// arithmetic and conversions, warp match/reduce, 1-component and long vectors.
#include <cuda_runtime.h>

__global__ void simd(const unsigned *a, const unsigned *b, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i];
  unsigned *o = out + 12 * i;
  o[0] = __vadd2(x, y); o[1] = __vsub4(x, y); o[2] = __vabsdiffu4(x, y);
  o[3] = __vmaxs2(x, y); o[4] = __vminu4(x, y); o[5] = __vaddss4(x, y);
  o[6] = __vsubus2(x, y); o[7] = __vcmpgts4(x, y); o[8] = __vavgu4(x, y);
  o[9] = (unsigned)__dp4a((int)x, (int)y, 7); o[10] = __dp2a_hi(x, y, 1u);
  o[11] = __vsadu4(x, y);
}

__global__ void rounding(const float *a, const float *b, float *out, long long *ll, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float *o = out + 8 * i;
  o[0] = __fadd_rd(a[i], b[i]); o[1] = __fadd_ru(a[i], b[i]);
  o[2] = __fmul_rz(a[i], b[i]); o[3] = __fdiv_ru(a[i], b[i]);
  o[4] = __fsqrt_rd(fabsf(a[i])); o[5] = __fmaf_ru(a[i], b[i], 1.0f);
  o[6] = __double2float_rd((double)a[i] / 3.0); o[7] = __int2float_ru(16777217 + i);
  ll[i] = __float2ll_rd(a[i] * 1000.0f);
}

__global__ void warp(const unsigned *v, unsigned *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned *o = out + 5 * i;
  o[0] = __match_any_sync(0xffffffffu, v[i]);
  o[1] = __reduce_add_sync(0xffffffffu, v[i]);
  o[2] = (unsigned)__reduce_min_sync(0xffffffffu, (int)v[i]);
  o[3] = __reduce_max_sync(0xffffffffu, v[i]);
  o[4] = __reduce_xor_sync(0xffffffffu, v[i]);
}
