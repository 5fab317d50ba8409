/* cudafuse stand-in for cuda_bf16.h: __nv_bfloat16/__nv_bfloat162 with CUDA 13's operators,
   conversions, arithmetic, comparisons and math, for kernels to parse. Never compiled. */
#pragma once
#define __CUDA_BF16_H__
#define __CUDA_BF16_TYPES_EXIST__
#include "cuda_fp16.h"
__CUDAFUSE_HALF_TYPES(__nv_bfloat16, __nv_bfloat162, __nv_bfloat16_raw, __nv_bfloat162_raw,
                      bfloat16, bfloat162)
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;
#define CUDART_INF_BF16 __ushort_as_bfloat16((unsigned short)0x7F80U)
#define CUDART_NAN_BF16 __ushort_as_bfloat16((unsigned short)0x7FFFU)
#define CUDART_ONE_BF16 __ushort_as_bfloat16((unsigned short)0x3F80U)
#define CUDART_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x0000U)
#define __CUDAFUSE_CVT(m) \
  __host__ __device__ __nv_bfloat16 __float2bfloat16_##m(float); \
  __host__ __device__ int __bfloat162int_##m(__nv_bfloat16); \
  __host__ __device__ unsigned __bfloat162uint_##m(__nv_bfloat16); \
  __host__ __device__ short __bfloat162short_##m(__nv_bfloat16); \
  __host__ __device__ unsigned short __bfloat162ushort_##m(__nv_bfloat16); \
  __host__ __device__ long long __bfloat162ll_##m(__nv_bfloat16); \
  __host__ __device__ unsigned long long __bfloat162ull_##m(__nv_bfloat16); \
  __host__ __device__ __nv_bfloat16 __int2bfloat16_##m(int); \
  __host__ __device__ __nv_bfloat16 __uint2bfloat16_##m(unsigned); \
  __host__ __device__ __nv_bfloat16 __short2bfloat16_##m(short); \
  __host__ __device__ __nv_bfloat16 __ushort2bfloat16_##m(unsigned short); \
  __host__ __device__ __nv_bfloat16 __ll2bfloat16_##m(long long); \
  __host__ __device__ __nv_bfloat16 __ull2bfloat16_##m(unsigned long long);
__CUDAFUSE_CVT(rn) __CUDAFUSE_CVT(rz) __CUDAFUSE_CVT(ru) __CUDAFUSE_CVT(rd)
#undef __CUDAFUSE_CVT
__host__ __device__ __nv_bfloat16 __float2bfloat16(float);
__host__ __device__ __nv_bfloat16 __double2bfloat16(double);
__host__ __device__ float __bfloat162float(__nv_bfloat16);
__host__ __device__ __nv_bfloat162 __float2bfloat162_rn(float);
__host__ __device__ __nv_bfloat162 __floats2bfloat162_rn(float, float);
__host__ __device__ __nv_bfloat162 __float22bfloat162_rn(float2);
__host__ __device__ float2 __bfloat1622float2(__nv_bfloat162);
__host__ __device__ __nv_bfloat162 make_bfloat162(__nv_bfloat16, __nv_bfloat16);
__host__ __device__ short __bfloat16_as_short(__nv_bfloat16);
__host__ __device__ unsigned short __bfloat16_as_ushort(__nv_bfloat16);
__host__ __device__ __nv_bfloat16 __short_as_bfloat16(short);
__host__ __device__ __nv_bfloat16 __ushort_as_bfloat16(unsigned short);
__host__ __device__ __nv_bfloat16 __half2bfloat16(__half);
__host__ __device__ __half __bfloat162half(__nv_bfloat16);
