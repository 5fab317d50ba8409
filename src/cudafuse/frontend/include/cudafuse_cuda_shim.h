// cudafuse_cuda_shim.h: just enough of CUDA for libclang to parse .cu files without a toolkit.
// Force-included by the front end (-include). Declarations only: nothing here is ever compiled
// into a program. The attributes are clang's own CUDA attributes, so cursors keep their kinds.
#pragma once
#define __CUDAFUSE_SHIM__ 1
#define __CUDACC__ 1
#define __NVCC__ 1
#define __CUDA_ARCH_LIST__ 900

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
// __noinline__ is not a macro: clang (15+) takes it as a CUDA keyword attribute, and a macro
// would break libstdc++'s own __attribute__((__noinline__)) (<memory>, since GCC 12).
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __maxnreg__(n)
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__

typedef __SIZE_TYPE__ size_t;
typedef unsigned long long cudaStream_t_base;
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef int cudaError_t;
enum { cudaSuccess = 0 };
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4
};

#define __CUDAFUSE_VEC2(T, N) struct N##2 { T x, y; };
#define __CUDAFUSE_VEC3(T, N) struct N##3 { T x, y, z; };
#define __CUDAFUSE_VEC4(T, N) struct __align__(16) N##4 { T x, y, z, w; };
#define __CUDAFUSE_VEC(T, N) __CUDAFUSE_VEC2(T, N) __CUDAFUSE_VEC3(T, N) __CUDAFUSE_VEC4(T, N)
__CUDAFUSE_VEC(float, float)
__CUDAFUSE_VEC(double, double)
__CUDAFUSE_VEC(int, int)
__CUDAFUSE_VEC(unsigned int, uint)
__CUDAFUSE_VEC(unsigned char, uchar)
__CUDAFUSE_VEC(char, char)
__CUDAFUSE_VEC(short, short)
__CUDAFUSE_VEC(unsigned short, ushort)
__CUDAFUSE_VEC(long long, longlong)
__CUDAFUSE_VEC(unsigned long long, ulonglong)
#undef __CUDAFUSE_VEC
struct __cudafuse_builtin_index { unsigned int x, y, z; };
struct __cudafuse_builtin_dim { unsigned int x, y, z; };
struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(struct uint3 v) : x(v.x), y(v.y), z(v.z) {}
};
extern const __device__ __cudafuse_builtin_index threadIdx;
extern const __device__ __cudafuse_builtin_index blockIdx;
extern const __device__ __cudafuse_builtin_dim blockDim;
extern const __device__ __cudafuse_builtin_dim gridDim;
extern const __device__ int warpSize;

__host__ __device__ float2 make_float2(float, float);
__host__ __device__ float3 make_float3(float, float, float);
__host__ __device__ float4 make_float4(float, float, float, float);
__host__ __device__ int2 make_int2(int, int);
__host__ __device__ int4 make_int4(int, int, int, int);
__host__ __device__ uchar4 make_uchar4(unsigned char, unsigned char, unsigned char, unsigned char);

// Kernel launches: clang lowers k<<<g, b, s, st>>>(...) into a call of this.
int __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared = 0, cudaStream_t stream = 0);

// Runtime API (host).
cudaError_t cudaMalloc(void **p, size_t n);
template <class T> cudaError_t cudaMalloc(T **p, size_t n);
cudaError_t cudaMallocManaged(void **p, size_t n, unsigned flags = 1);
template <class T> cudaError_t cudaMallocManaged(T **p, size_t n, unsigned flags = 1);
cudaError_t cudaMallocHost(void **p, size_t n);
cudaError_t cudaFree(void *p);
cudaError_t cudaFreeHost(void *p);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, cudaMemcpyKind kind,
                            cudaStream_t s = 0);
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t w,
                         size_t h, cudaMemcpyKind kind);
cudaError_t cudaMemset(void *p, int v, size_t n);
cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s = 0);
template <class T>
cudaError_t cudaMemcpyToSymbol(const T &sym, const void *src, size_t n, size_t off = 0,
                               cudaMemcpyKind kind = cudaMemcpyHostToDevice);
template <class T>
cudaError_t cudaMemcpyFromSymbol(void *dst, const T &sym, size_t n, size_t off = 0,
                                 cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t e);
cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b);
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags = 0);

// Less common runtime calls found in real host code (samples, benchmarks): declared so that
// such files parse; the analyses treat them as opaque calls.
enum { cudaStreamDefault = 0, cudaStreamNonBlocking = 1, cudaEventDefault = 0,
       cudaEventDisableTiming = 2, cudaHostAllocDefault = 0, cudaDeviceScheduleAuto = 0 };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
                         cudaFuncAttributePreferredSharedMemoryCarveout = 9 };
enum cudaFuncCache { cudaFuncCachePreferNone = 0, cudaFuncCachePreferShared = 1,
                     cudaFuncCachePreferL1 = 2, cudaFuncCachePreferEqual = 3 };
enum cudaDeviceAttr { cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMultiProcessorCount = 16,
                      cudaDevAttrMaxSharedMemoryPerBlockOptin = 97 };
struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem, sharedMemPerBlock, sharedMemPerBlockOptin, totalConstMem, l2CacheSize;
  int regsPerBlock, warpSize, maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3];
  int major, minor, multiProcessorCount, maxThreadsPerMultiProcessor, clockRate;
  int memoryClockRate, memoryBusWidth;
};
cudaError_t cudaGetDeviceCount(int *n);
cudaError_t cudaGetDevice(int *d);
cudaError_t cudaSetDevice(int d);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int d);
cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int d);
cudaError_t cudaMemGetInfo(size_t *free_, size_t *total);
cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t w, size_t h);
template <class T> cudaError_t cudaMallocPitch(T **p, size_t *pitch, size_t w, size_t h);
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned flags);
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t w,
                              size_t h, cudaMemcpyKind kind, cudaStream_t s = 0);
template <class T>
cudaError_t cudaMemcpyToSymbolAsync(const T &sym, const void *src, size_t n, size_t off = 0,
                                    cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                                    cudaStream_t s = 0);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags);
cudaError_t cudaStreamQuery(cudaStream_t s);
cudaError_t cudaEventQuery(cudaEvent_t e);
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache c);
template <class T> cudaError_t cudaFuncSetAttribute(T *f, cudaFuncAttribute a, int v);
template <class T> cudaError_t cudaFuncSetCacheConfig(T *f, cudaFuncCache c);
template <class T>
cudaError_t cudaOccupancyMaxPotentialBlockSize(int *grid, int *block, T f, size_t smem = 0,
                                               int limit = 0);
template <class T>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, T f, int block, size_t smem);
const char *cudaGetErrorName(cudaError_t e);

// Device-side builtins and intrinsics the analyses recognise by name.
__device__ void __syncthreads(void);
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __syncwarp(unsigned mask = 0xffffffffu);
__device__ void __threadfence(void);
__device__ void __threadfence_block(void);
template <class T> __device__ T __shfl_sync(unsigned m, T v, int l, int w = 32);
template <class T> __device__ T __shfl_up_sync(unsigned m, T v, unsigned d, int w = 32);
template <class T> __device__ T __shfl_down_sync(unsigned m, T v, unsigned d, int w = 32);
template <class T> __device__ T __shfl_xor_sync(unsigned m, T v, int l, int w = 32);
__device__ unsigned __ballot_sync(unsigned m, int p);
__device__ int __any_sync(unsigned m, int p);
__device__ int __all_sync(unsigned m, int p);
__device__ unsigned __activemask(void);
// Atomics: CUDA 13's overload set for sm_90 (device_atomic_functions.h, sm_20/32/60_atomic_functions.h,
// crt/sm_70_rt.h, crt/sm_90_rt.h; __half's in cuda_fp16.h), one non-template declaration per
// type, so arguments convert as with nvcc (atomicAdd(float *, double), atomicMax(int *, 0u))
// and what nvcc rejects (atomicAdd(long long *, ...), atomicMax(float *, ...)) fails here too.
// Every name has the same types in its _block and _system variants, except atomicCAS on
// unsigned short (unscoped only).
#define __CUDAFUSE_AT(T, N) \
  __device__ T N(T *a, T v); __device__ T N##_block(T *a, T v); __device__ T N##_system(T *a, T v);
#define __CUDAFUSE_AT_CAS(T) __device__ T atomicCAS(T *a, T c, T v); \
  __device__ T atomicCAS_block(T *a, T c, T v); __device__ T atomicCAS_system(T *a, T c, T v);
#define __CUDAFUSE_AT_INT32(N) __CUDAFUSE_AT(int, N) __CUDAFUSE_AT(unsigned int, N)
#define __CUDAFUSE_AT_INT(N) __CUDAFUSE_AT_INT32(N) __CUDAFUSE_AT(long long, N) \
  __CUDAFUSE_AT(unsigned long long, N)
__CUDAFUSE_AT_INT32(atomicAdd) __CUDAFUSE_AT(unsigned long long, atomicAdd)
__CUDAFUSE_AT(float, atomicAdd) __CUDAFUSE_AT(double, atomicAdd)
__CUDAFUSE_AT(float2, atomicAdd) __CUDAFUSE_AT(float4, atomicAdd)
__CUDAFUSE_AT_INT32(atomicSub)
__CUDAFUSE_AT_INT32(atomicExch) __CUDAFUSE_AT(unsigned long long, atomicExch)
__CUDAFUSE_AT(float, atomicExch)
__CUDAFUSE_AT_INT(atomicMin) __CUDAFUSE_AT_INT(atomicMax)
__CUDAFUSE_AT_INT(atomicAnd) __CUDAFUSE_AT_INT(atomicOr) __CUDAFUSE_AT_INT(atomicXor)
__CUDAFUSE_AT(unsigned int, atomicInc) __CUDAFUSE_AT(unsigned int, atomicDec)
__CUDAFUSE_AT_CAS(int) __CUDAFUSE_AT_CAS(unsigned int) __CUDAFUSE_AT_CAS(unsigned long long)
__device__ unsigned short atomicCAS(unsigned short *a, unsigned short c, unsigned short v);
#undef __CUDAFUSE_AT
#undef __CUDAFUSE_AT_CAS
#undef __CUDAFUSE_AT_INT32
#undef __CUDAFUSE_AT_INT
// 128-bit atomicExch/atomicCAS (sm_90) on any 16-byte, 16-aligned, trivially copyable type;
// as in crt/sm_90_rt.h before C++20, other types drop out by SFINAE on the return type.
template <bool B, class T> struct __cudafuse_atomic_if {};
template <class T> struct __cudafuse_atomic_if<true, T> { typedef T type; };
#define __CUDAFUSE_AT128(T) typename __cudafuse_atomic_if<sizeof(T) == 16 && \
  __alignof__(T) >= 16 && __is_trivially_copyable(T), T>::type
template <class T> __device__ __CUDAFUSE_AT128(T) atomicExch(T *a, T v);
template <class T> __device__ __CUDAFUSE_AT128(T) atomicExch_block(T *a, T v);
template <class T> __device__ __CUDAFUSE_AT128(T) atomicExch_system(T *a, T v);
template <class T> __device__ __CUDAFUSE_AT128(T) atomicCAS(T *a, T c, T v);
template <class T> __device__ __CUDAFUSE_AT128(T) atomicCAS_block(T *a, T c, T v);
template <class T> __device__ __CUDAFUSE_AT128(T) atomicCAS_system(T *a, T c, T v);
#undef __CUDAFUSE_AT128
// The bit casts that atomicCAS loops on floating point use (the emulator has them too).
__device__ int __float_as_int(float);
__device__ unsigned __float_as_uint(float);
__device__ float __int_as_float(int);
__device__ float __uint_as_float(unsigned);
__device__ long long __double_as_longlong(double);
__device__ double __longlong_as_double(long long);
template <class T> __device__ T __ldg(const T *p);

// Math. The C library's declarations (when there is one) are the host versions; the shim adds
// __device__ overloads, which CUDA lets coexist with __host__ ones, as clang's own wrapper does.
#if __has_include(<math.h>) && __has_include(<stdlib.h>)
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#else
extern "C" {
int printf(const char *, ...);
void *malloc(size_t);
void free(void *);
void *memcpy(void *, const void *, size_t);
void *memset(void *, int, size_t);
void exit(int);
}
#endif
#define __CUDAFUSE_F1(n) __device__ float n##f(float); __device__ double n(double);
#define __CUDAFUSE_F2(n) __device__ float n##f(float, float); __device__ double n(double, double);
__CUDAFUSE_F1(sqrt) __CUDAFUSE_F1(rsqrt) __CUDAFUSE_F1(cbrt) __CUDAFUSE_F1(exp) __CUDAFUSE_F1(exp2)
__CUDAFUSE_F1(exp10) __CUDAFUSE_F1(expm1) __CUDAFUSE_F1(log) __CUDAFUSE_F1(log2)
__CUDAFUSE_F1(log10) __CUDAFUSE_F1(log1p) __CUDAFUSE_F1(sin) __CUDAFUSE_F1(cos) __CUDAFUSE_F1(tan)
__CUDAFUSE_F1(asin) __CUDAFUSE_F1(acos) __CUDAFUSE_F1(atan) __CUDAFUSE_F1(sinh) __CUDAFUSE_F1(cosh)
__CUDAFUSE_F1(tanh) __CUDAFUSE_F1(fabs) __CUDAFUSE_F1(floor) __CUDAFUSE_F1(ceil)
__CUDAFUSE_F1(round) __CUDAFUSE_F1(trunc) __CUDAFUSE_F1(rint) __CUDAFUSE_F1(erf) __CUDAFUSE_F1(erfc)
__CUDAFUSE_F1(normcdf) __CUDAFUSE_F1(lgamma) __CUDAFUSE_F1(tgamma)
__CUDAFUSE_F2(pow) __CUDAFUSE_F2(atan2) __CUDAFUSE_F2(fmin) __CUDAFUSE_F2(fmax) __CUDAFUSE_F2(fmod)
__CUDAFUSE_F2(hypot) __CUDAFUSE_F2(copysign) __CUDAFUSE_F2(fdim) __CUDAFUSE_F2(remainder)
#undef __CUDAFUSE_F1
#undef __CUDAFUSE_F2
__device__ float fmaf(float, float, float);
__device__ double fma(double, double, double);
__device__ void sincosf(float, float *, float *);
__device__ void sincos(double, double *, double *);
__device__ int abs(int);
__device__ long long llabs(long long);
__device__ int printf(const char *, ...);
__device__ void *memcpy(void *, const void *, size_t);
__device__ void *memset(void *, int, size_t);
__device__ void *malloc(size_t);
__device__ void free(void *);
__device__ float __expf(float);
__device__ float __logf(float);
__device__ float __log2f(float);
__device__ float __log10f(float);
__device__ float __powf(float, float);
__device__ float __sinf(float);
__device__ float __cosf(float);
__device__ float __tanf(float);
__device__ void __sincosf(float, float *, float *);
__device__ float __exp10f(float);
__device__ float __fdividef(float, float);
__device__ float __saturatef(float);
__device__ float __fsqrt_rn(float);
__device__ float __frcp_rn(float);
__device__ float __fmul_rn(float, float);
__device__ float __fadd_rn(float, float);
__device__ float __fmaf_rn(float, float, float);
__device__ int __float2int_rn(float);
__device__ int __float2int_rz(float);
__device__ float __int2float_rn(int);
__device__ int __popc(unsigned);
__device__ int __popcll(unsigned long long);
__device__ int __clz(int);
__device__ int __clzll(long long);
__device__ int __ffs(int);
__device__ int __ffsll(long long);
__device__ unsigned __brev(unsigned);
__device__ unsigned __byte_perm(unsigned, unsigned, unsigned);
__device__ unsigned __funnelshift_l(unsigned, unsigned, unsigned);
__device__ unsigned __funnelshift_r(unsigned, unsigned, unsigned);
__device__ unsigned __umulhi(unsigned, unsigned);
__device__ int __mulhi(int, int);
__device__ unsigned long long __umul64hi(unsigned long long, unsigned long long);
__device__ unsigned __usad(unsigned, unsigned, unsigned);
__host__ __device__ int min(int, int);
__host__ __device__ unsigned min(unsigned, unsigned);
__host__ __device__ long long min(long long, long long);
__host__ __device__ unsigned long long min(unsigned long long, unsigned long long);
__host__ __device__ float min(float, float);
__host__ __device__ double min(double, double);
__host__ __device__ int max(int, int);
__host__ __device__ unsigned max(unsigned, unsigned);
__host__ __device__ long long max(long long, long long);
__host__ __device__ unsigned long long max(unsigned long long, unsigned long long);
__host__ __device__ float max(float, float);
__host__ __device__ double max(double, double);
__device__ long long clock64(void);
__device__ int clock(void);

