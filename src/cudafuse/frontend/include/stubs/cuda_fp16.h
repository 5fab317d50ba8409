/* cudafuse stand-in for cuda_fp16.h: __half/__half2 with CUDA 13's operators, conversions,
   arithmetic, comparisons and math, for kernels to parse. Never compiled. */
#pragma once
#define __CUDA_FP16_H__
#define __CUDA_FP16_TYPES_EXIST__
#include "cudafuse_half_common.h"
__CUDAFUSE_HALF_TYPES(__half, __half2, __half_raw, __half2_raw, half, half2)
typedef __half half;
typedef __half2 half2;
typedef __half __nv_half;
typedef __half2 __nv_half2;
#define CUDART_INF_FP16 __ushort_as_half((unsigned short)0x7C00U)
#define CUDART_NAN_FP16 __ushort_as_half((unsigned short)0x7FFFU)
#define CUDART_MAX_NORMAL_FP16 __ushort_as_half((unsigned short)0x7BFFU)
#define CUDART_ONE_FP16 __ushort_as_half((unsigned short)0x3C00U)
#define CUDART_ZERO_FP16 __ushort_as_half((unsigned short)0x0000U)
#define __CUDAFUSE_CVT(m) \
  __host__ __device__ __half __float2half_##m(float); \
  __host__ __device__ __half __double2half_##m(double); \
  __host__ __device__ int __half2int_##m(__half); \
  __host__ __device__ unsigned __half2uint_##m(__half); \
  __host__ __device__ short __half2short_##m(__half); \
  __host__ __device__ unsigned short __half2ushort_##m(__half); \
  __host__ __device__ long long __half2ll_##m(__half); \
  __host__ __device__ unsigned long long __half2ull_##m(__half); \
  __host__ __device__ __half __int2half_##m(int); \
  __host__ __device__ __half __uint2half_##m(unsigned); \
  __host__ __device__ __half __short2half_##m(short); \
  __host__ __device__ __half __ushort2half_##m(unsigned short); \
  __host__ __device__ __half __ll2half_##m(long long); \
  __host__ __device__ __half __ull2half_##m(unsigned long long);
__CUDAFUSE_CVT(rn) __CUDAFUSE_CVT(rz) __CUDAFUSE_CVT(ru) __CUDAFUSE_CVT(rd)
#undef __CUDAFUSE_CVT
__host__ __device__ __half __float2half(float);
__host__ __device__ __half __double2half(double);
__host__ __device__ float __half2float(__half);
__host__ __device__ __half2 __float2half2_rn(float);
__host__ __device__ __half2 __floats2half2_rn(float, float);
__host__ __device__ __half2 __float22half2_rn(float2);
__host__ __device__ float2 __half22float2(__half2);
__host__ __device__ __half2 make_half2(__half, __half);
__host__ __device__ short __half_as_short(__half);
__host__ __device__ unsigned short __half_as_ushort(__half);
__host__ __device__ __half __short_as_half(short);
__host__ __device__ __half __ushort_as_half(unsigned short);
__host__ __device__ signed char __half2char_rz(__half);
__host__ __device__ unsigned char __half2uchar_rz(__half);
