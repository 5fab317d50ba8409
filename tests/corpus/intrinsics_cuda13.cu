// Device intrinsics of CUDA 13 beyond the basics: 24-bit multiplies, SAD, bit reversal,
// averages, dot products, SIMD video ops, rounding-mode arithmetic and conversions, cache-hinted
// loads and stores, warp match/reduce, every make_<vector>.
// EXPECT-KERNEL: int_ops 3
// EXPECT-KERNEL: float_ops 4
// EXPECT-KERNEL: warp_ops 3
// EXPECT-KERNEL: vectors 2
#include <cuda_runtime.h>

__global__ void int_ops(const int *a, const unsigned *b, unsigned *out) {
  int i = threadIdx.x;
  unsigned r = __umul24(b[i], b[i + 1]) + (unsigned)__mul24(a[i], a[i + 1]);
  r += __sad(a[i], a[i + 1], 3u) + __usad(b[i], b[i + 1], 1u) + __brev(b[i]);
  r += (unsigned)__brevll(b[i]) + __hadd(a[i], a[i + 1]) + __rhadd(a[i], 7);
  r += __uhadd(b[i], 9u) + __urhadd(b[i], 9u) + __dp4a(a[i], a[i + 1], 0);
  r += __dp2a_lo(b[i], b[i + 1], 0u) + __dp2a_hi(a[i], a[i + 1], 5);
  r += __vadd2(b[i], b[i + 1]) + __vsub4(b[i], 3u) + __vabsdiffu4(b[i], b[i + 1]);
  r += __vmaxs2(b[i], b[i + 1]) + __vminu4(b[i], b[i + 1]) + __vavgu2(b[i], 1u);
  r += __fns(0xffu, 0u, 2) + __byte_perm(b[i], b[i + 1], 0x3210u);
  __stcg(out + i, r);
}

__global__ void float_ops(const float *x, const double *d, float *out, long long *ll) {
  int i = threadIdx.x;
  float f = __ldg(x + i) + __ldcg(x + i + 1) + __ldcs(x + i) + __ldca(x) + __ldlu(x) + __ldcv(x);
  f = __fadd_rd(f, 1.0f) + __fadd_ru(f, 1.0f) + __fmul_rz(f, 3.0f) + __fdiv_rn(f, 7.0f);
  f += __fmaf_rd(f, f, 1.0f) + __frcp_ru(f) + __fsqrt_rd(fabsf(f)) + __saturatef(f);
  double g = __dadd_ru(d[i], 1.0) + __dmul_rd(d[i], 3.0) + __fma_rz(d[i], 2.0, 1.0);
  f += __double2float_rd(g) + __int2float_rz(i) + __uint2float_ru(7u) + __ll2float_rn(ll[i]);
  ll[i] = __float2ll_rd(f) + (long long)__float2uint_ru(fabsf(f)) + __double2ll_rz(g);
  __stwt(out + i, f);
}

__global__ void warp_ops(const unsigned *v, unsigned *out, int *flags) {
  int i = threadIdx.x;
  unsigned same = __match_any_sync(0xffffffffu, v[i]);
  int pred;
  unsigned all = __match_all_sync(0xffffffffu, v[i], &pred);
  out[i] = same + all + __reduce_add_sync(0xffffffffu, v[i]) +
           __reduce_max_sync(0xffffffffu, v[i]) + __reduce_or_sync(0xffffffffu, v[i]);
  flags[i] = __reduce_min_sync(0xffffffffu, (int)v[i]) + pred;
}

__global__ void vectors(float4 *f, int *o) {
  int i = threadIdx.x;
  char4 c = make_char4(1, 2, 3, 4);
  uchar2 uc = make_uchar2(5, 6);
  short3 s = make_short3(1, 2, 3);
  ushort1 us = make_ushort1(9);
  uint2 u = make_uint2(1u, 2u);
  int3 n = make_int3(1, 2, 3);
  long2 l = make_long2(1, 2);
  ulonglong2 q = make_ulonglong2(1, 2);
  double2 d = make_double2(1.0, 2.0);
  float1 f1 = make_float1(0.5f);
  uint3 t = threadIdx;
  dim3 b = blockDim;
  f[i] = make_float4(c.x + uc.y, s.z + us.x, u.y + n.z + l.x, q.y + d.x + f1.x + t.x + b.x);
  o[i] = sizeof(char4) + alignof(double2);
}
