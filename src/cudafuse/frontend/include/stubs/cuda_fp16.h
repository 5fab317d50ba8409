/* cudafuse stand-in for cuda_fp16.h: enough of __half/__half2 for kernels to parse. Never
   compiled: arithmetic goes through the float conversions. */
#pragma once
struct __half {
  unsigned short __x;
  __host__ __device__ __half();
  __host__ __device__ __half(float f);
  __host__ __device__ operator float() const;
};
struct __half2 { __half x, y; };
typedef __half half;
typedef __half2 half2;
__host__ __device__ __half __float2half(float);
__host__ __device__ __half __float2half_rn(float);
__host__ __device__ float __half2float(__half);
__host__ __device__ __half2 __floats2half2_rn(float, float);
__host__ __device__ __half2 __float2half2_rn(float);
__host__ __device__ float2 __half22float2(__half2);
__host__ __device__ float __low2float(__half2);
__host__ __device__ float __high2float(__half2);
__device__ __half __hadd(__half, __half);
__device__ __half __hsub(__half, __half);
__device__ __half __hmul(__half, __half);
__device__ __half __hfma(__half, __half, __half);
__device__ __half2 __hadd2(__half2, __half2);
__device__ __half2 __hmul2(__half2, __half2);
__device__ __half2 __hfma2(__half2, __half2, __half2);
// cuda_fp16.h's atomics (unscoped only).
__device__ __half2 atomicAdd(__half2 *const address, const __half2 val);
__device__ __half atomicAdd(__half *const address, const __half val);
