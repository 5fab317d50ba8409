// cuda_fp16.h and cuda_bf16.h: operators, conversions, intrinsics, math and shuffles.
// EXPECT-KERNEL: half_math 4
// EXPECT-KERNEL: bf16_math 3
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void half_math(const half2 *a, const half2 *b, __half *h, float *o) {
  int i = threadIdx.x;
  half2 s = a[i] + b[i] * b[i];
  s += __hmul2(a[i], b[i]);
  s = __hfma2(s, a[i], b[i]);
  __half x = h[i] + h[i + 1];
  x = __hmax(x, __float2half(1.0f)) * __float2half_rz(2.0f) - __hmin(x, h[i]);
  if (x > h[i] && __hlt(x, h[i + 1])) x = hsqrt(x);
  x = -x;
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  h[i] = x;
  o[i] = __low2float(s) + __high2float(s) + __half2float(x) + float(__hadd(x, x)) +
         __half2int_rn(x) + (float)__habs(x) + (a[i] == b[i] ? 1.0f : 0.0f);
}

__global__ void bf16_math(__nv_bfloat16 *v, __nv_bfloat162 *w, float *o) {
  int i = threadIdx.x;
  __nv_bfloat16 y = v[i] * v[i] + __float2bfloat16_rn(o[i]);
  v[i] = __hfma(y, y, v[i]);
  __nv_bfloat162 p = __floats2bfloat162_rn(1.0f, 2.0f);
  w[i] = __hadd2(w[i], p) * p;
  o[i] = __bfloat162float(y) + __low2float(w[i]) + __bfloat162float(__hmax(y, v[i]));
}
