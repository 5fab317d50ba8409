// Half precision and bfloat16 on the emulator (tests/emu/test_emu_half.py checks every result
// against numpy). Valid CUDA too: the test compiles it with nvcc -arch=sm_90 -c.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// Every 16-bit pattern as a half and as a bfloat16: to float, and to integers in each mode.
__global__ void from_bits(const unsigned short *bits, float *hf, float *bf, int *hi, int *bi,
                          short *hs, long long *hll, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half h = __ushort_as_half(bits[i]);
  __nv_bfloat16 b = __ushort_as_bfloat16(bits[i]);
  hf[i] = __half2float(h);
  bf[i] = __bfloat162float(b);
  hi[4 * i + 0] = __half2int_rn(h);
  hi[4 * i + 1] = __half2int_rz(h);
  hi[4 * i + 2] = __half2int_ru(h);
  hi[4 * i + 3] = __half2int_rd(h);
  bi[4 * i + 0] = __bfloat162int_rn(b);
  bi[4 * i + 1] = __bfloat162int_rz(b);
  bi[4 * i + 2] = __bfloat162int_ru(b);
  bi[4 * i + 3] = __bfloat162int_rd(b);
  hs[2 * i + 0] = __half2short_rn(h);
  hs[2 * i + 1] = (short)h;  // explicit conversion: rz
  hll[i] = __half2ll_rz(h);
}

// float -> half and bfloat16 in each rounding mode, and through the constructor.
__global__ void to_bits(const float *x, unsigned short *h, unsigned short *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  h[5 * i + 0] = __half_as_ushort(__float2half_rn(v));
  h[5 * i + 1] = __half_as_ushort(__float2half_rz(v));
  h[5 * i + 2] = __half_as_ushort(__float2half_ru(v));
  h[5 * i + 3] = __half_as_ushort(__float2half_rd(v));
  __half c = v;
  h[5 * i + 4] = __half_as_ushort(c);
  b[5 * i + 0] = __bfloat16_as_ushort(__float2bfloat16_rn(v));
  b[5 * i + 1] = __bfloat16_as_ushort(__float2bfloat16_rz(v));
  b[5 * i + 2] = __bfloat16_as_ushort(__float2bfloat16_ru(v));
  b[5 * i + 3] = __bfloat16_as_ushort(__float2bfloat16_rd(v));
  b[5 * i + 4] = __bfloat16_as_ushort(__float2bfloat16(v));
}

// double -> 16 bits rounds once (not through float); integers in each mode.
__global__ void wide_to_bits(const double *x, const int *v, const long long *w,
                             unsigned short *h, unsigned short *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  h[9 * i + 0] = __half_as_ushort(__double2half(x[i]));
  b[9 * i + 0] = __bfloat16_as_ushort(__double2bfloat16(x[i]));
  h[9 * i + 1] = __half_as_ushort(__int2half_rn(v[i]));
  h[9 * i + 2] = __half_as_ushort(__int2half_rz(v[i]));
  h[9 * i + 3] = __half_as_ushort(__int2half_ru(v[i]));
  h[9 * i + 4] = __half_as_ushort(__int2half_rd(v[i]));
  h[9 * i + 5] = __half_as_ushort(__ll2half_rn(w[i]));
  h[9 * i + 6] = __half_as_ushort(__ll2half_rz(w[i]));
  h[9 * i + 7] = __half_as_ushort(__ll2half_ru(w[i]));
  h[9 * i + 8] = __half_as_ushort(__ll2half_rd(w[i]));
  b[9 * i + 1] = __bfloat16_as_ushort(__int2bfloat16_rn(v[i]));
  b[9 * i + 2] = __bfloat16_as_ushort(__int2bfloat16_rz(v[i]));
  b[9 * i + 3] = __bfloat16_as_ushort(__int2bfloat16_ru(v[i]));
  b[9 * i + 4] = __bfloat16_as_ushort(__int2bfloat16_rd(v[i]));
  b[9 * i + 5] = __bfloat16_as_ushort(__ll2bfloat16_rn(w[i]));
  b[9 * i + 6] = __bfloat16_as_ushort(__ll2bfloat16_rz(w[i]));
  b[9 * i + 7] = __bfloat16_as_ushort(__ll2bfloat16_ru(w[i]));
  b[9 * i + 8] = __bfloat16_as_ushort(__ll2bfloat16_rd(w[i]));
}

// Arithmetic on scalars and on pairs; out[ARITH * i + k].
#define ARITH 12
template <class H, class H2>
__device__ void arith(H a, H b, H c, unsigned short *o) {
  H r[ARITH];
  r[0] = __hadd(a, b);
  r[1] = __hsub(a, b);
  r[2] = __hmul(a, b);
  r[3] = __hdiv(a, b);
  r[4] = __hfma(a, b, c);
  r[5] = hsqrt(__habs(a));
  r[6] = a * b + c;  // two roundings
  r[7] = __hmax(a, b);
  r[8] = __hmin_nan(a, c);
  H2 p = H2(a, b), q = H2(c, a);
  H2 s = __hfma2(p, q, p);  // (a*c + a, b*a + b)
  r[9] = s.x;
  r[10] = s.y;
  H2 d = __h2div(p, q) - __hadd2_sat(p, q);
  r[11] = (a < b) ? d.x : d.y;
  for (int k = 0; k < ARITH; k++) o[k] = *reinterpret_cast<unsigned short *>(&r[k]);
}
__global__ void arith_half(const unsigned short *a, const unsigned short *b,
                           const unsigned short *c, unsigned short *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    arith<__half, __half2>(__ushort_as_half(a[i]), __ushort_as_half(b[i]),
                           __ushort_as_half(c[i]), out + ARITH * i);
}
__global__ void arith_bf16(const unsigned short *a, const unsigned short *b,
                           const unsigned short *c, unsigned short *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    arith<__nv_bfloat16, __nv_bfloat162>(__ushort_as_bfloat16(a[i]), __ushort_as_bfloat16(b[i]),
                                         __ushort_as_bfloat16(c[i]), out + ARITH * i);
}

// Comparisons (with NaN) and the pair helpers: one bit each.
__global__ void compare(const unsigned short *a, const unsigned short *b, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half x = __ushort_as_half(a[i]), y = __ushort_as_half(b[i]);
  unsigned r = 0;
  r |= unsigned(__heq(x, y)) << 0 | unsigned(__hne(x, y)) << 1 | unsigned(__hlt(x, y)) << 2;
  r |= unsigned(__hle(x, y)) << 3 | unsigned(__hgt(x, y)) << 4 | unsigned(__hge(x, y)) << 5;
  r |= unsigned(__hequ(x, y)) << 6 | unsigned(__hneu(x, y)) << 7 | unsigned(__hltu(x, y)) << 8;
  r |= unsigned(x == y) << 9 | unsigned(x != y) << 10 | unsigned(x < y) << 11;
  r |= unsigned(__hisnan(x)) << 12 | unsigned(__hisinf(x) != 0) << 13;
  __half2 p = __halves2half2(x, y);
  r |= unsigned(__hbeq2(p, __lowhigh2highlow(p))) << 14;
  r |= unsigned(__half_as_ushort(__low2half(__heq2(p, __halves2half2(y, x)))) == 0x3C00) << 15;
  out[i] = r;
}

// Warp sums with shuffles: each warp's lane 0 writes its sum.
__global__ void warp_sum_half(const __half *x, __half *out) {
  __half v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  if ((threadIdx.x & 31) == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}
__global__ void warp_sum_half2(const __half2 *x, __half2 *out) {
  __half2 v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int m = 16; m > 0; m >>= 1) v = __hadd2(v, __shfl_xor_sync(0xffffffffu, v, m));
  if ((threadIdx.x & 31) == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}
__global__ void warp_sum_bf16(const __nv_bfloat16 *x, __nv_bfloat16 *out) {
  __nv_bfloat16 v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int off = 16; off > 0; off >>= 1) v = v + __shfl_down_sync(0xffffffffu, v, off);
  if ((threadIdx.x & 31) == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}

// atomicAdd on __half, __half2 and __nv_bfloat16: integer sums, exact in any order.
__global__ void atomics(__half *h, __half2 *h2, __nv_bfloat16 *b, __nv_bfloat162 *b2,
                        float *old, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  old[i] = __half2float(atomicAdd(&h[i % 4], __float2half(1.0f)));
  atomicAdd(&h2[i % 2], __floats2half2_rn(1.0f, 0.5f));
  atomicAdd(&b[i % 4], __float2bfloat16(1.0f));
  atomicAdd(&b2[0], __floats2bfloat162_rn(0.25f, 2.0f));
}
