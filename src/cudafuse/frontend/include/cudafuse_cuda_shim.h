// cudafuse_cuda_shim.h: just enough of CUDA for libclang to parse .cu files without a toolkit.
// Force-included by the front end (-include). Declarations only: nothing here is ever compiled
// into a program. The attributes are clang's own CUDA attributes, so cursors keep their kinds.
#pragma once
#define __CUDAFUSE_SHIM__ 1
#define __CUDACC__ 1
#define __NVCC__ 1
#define __CUDA_ARCH_LIST__ 900
// The runtime API (types, enums, functions, the version and guard macros) is declared once,
// for the front end and the emulator alike, in cuda_api/cudafuse_cuda_api.h (below).

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

// Vector types (vector_types.h): every base type with 1-4 components, CUDA's alignments.
#define __CUDAFUSE_VEC1(T, N, A) struct __align__(A) N##1 { T x; };
#define __CUDAFUSE_VEC2(T, N, A) struct __align__(A) N##2 { T x, y; };
#define __CUDAFUSE_VEC3(T, N) struct N##3 { T x, y, z; };
#define __CUDAFUSE_VEC4(T, N, A) struct __align__(A) N##4 { T x, y, z, w; };
#define __CUDAFUSE_VEC(T, N, A1, A2, A4) __CUDAFUSE_VEC1(T, N, A1) __CUDAFUSE_VEC2(T, N, A2) \
  __CUDAFUSE_VEC3(T, N) __CUDAFUSE_VEC4(T, N, A4)
__CUDAFUSE_VEC(signed char, char, 1, 2, 4)
__CUDAFUSE_VEC(unsigned char, uchar, 1, 2, 4)
__CUDAFUSE_VEC(short, short, 2, 4, 8)
__CUDAFUSE_VEC(unsigned short, ushort, 2, 4, 8)
__CUDAFUSE_VEC(int, int, 4, 8, 16)
__CUDAFUSE_VEC(unsigned int, uint, 4, 8, 16)
__CUDAFUSE_VEC(long, long, 8, 16, 16)
__CUDAFUSE_VEC(unsigned long, ulong, 8, 16, 16)
__CUDAFUSE_VEC(long long, longlong, 8, 16, 16)
__CUDAFUSE_VEC(unsigned long long, ulonglong, 8, 16, 16)
__CUDAFUSE_VEC(float, float, 4, 8, 16)
__CUDAFUSE_VEC(double, double, 8, 16, 16)
#undef __CUDAFUSE_VEC
// make_<type><n> (vector_functions.h).
#define __CUDAFUSE_MK(T, N) \
  __host__ __device__ N##1 make_##N##1(T x); \
  __host__ __device__ N##2 make_##N##2(T x, T y); \
  __host__ __device__ N##3 make_##N##3(T x, T y, T z); \
  __host__ __device__ N##4 make_##N##4(T x, T y, T z, T w);
__CUDAFUSE_MK(signed char, char) __CUDAFUSE_MK(unsigned char, uchar)
__CUDAFUSE_MK(short, short) __CUDAFUSE_MK(unsigned short, ushort)
__CUDAFUSE_MK(int, int) __CUDAFUSE_MK(unsigned int, uint)
__CUDAFUSE_MK(long, long) __CUDAFUSE_MK(unsigned long, ulong)
__CUDAFUSE_MK(long long, longlong) __CUDAFUSE_MK(unsigned long long, ulonglong)
__CUDAFUSE_MK(float, float) __CUDAFUSE_MK(double, double)
#undef __CUDAFUSE_MK
#undef __CUDAFUSE_VEC1
#undef __CUDAFUSE_VEC2
#undef __CUDAFUSE_VEC3
#undef __CUDAFUSE_VEC4
struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(struct uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};
// The types CUDA gives them, so that code redeclaring them for a host compiler
// (`extern const dim3 blockDim;`, as some projects' helper headers do) agrees.
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;



#include "../../cuda_api/cudafuse_cuda_api.h"
#undef __CUDAFUSE_ERRORS  // the error table: the emulator's runtime reads it, not the user's code

// Kernel launches: clang lowers k<<<g, b, s, st>>>(...) into a call of this.
int __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared = 0, cudaStream_t stream = 0);

// Texture fetches and surface accesses: declared once, for the emulator too.
#include "../../cuda_api/cudafuse_texture_api.h"

// Device-side graph and device runtime (dynamic parallelism, cuda_device_runtime_api.h)
// overloads: clang keeps them apart from the host functions of the same names.
__device__ void cudaGraphSetConditional(cudaGraphConditionalHandle h, unsigned value);
__device__ cudaError_t cudaMalloc(void **p, size_t n);
__device__ cudaError_t cudaFree(void *p);
__device__ cudaError_t cudaDeviceSynchronize(void);
__device__ cudaError_t cudaGetLastError(void);
__device__ cudaError_t cudaPeekAtLastError(void);
__device__ const char *cudaGetErrorString(cudaError_t e);
__device__ const char *cudaGetErrorName(cudaError_t e);
__device__ cudaError_t cudaGetDevice(int *d);
__device__ cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int d);
__device__ cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
__device__ cudaError_t cudaStreamDestroy(cudaStream_t s);
__device__ cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags);
__device__ cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0);
__device__ cudaError_t cudaEventDestroy(cudaEvent_t e);
__device__ cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags);
__device__ cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, cudaMemcpyKind k,
                                       cudaStream_t s = 0);
__device__ cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s = 0);

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

// Math. The C library's declarations (when there is one) are the host versions; the shim adds
// __device__ overloads, which CUDA lets coexist with __host__ ones, as clang's own wrapper does.
// Before <cmath> can be read: what nvcc folds in constant expressions and clang does not.
#include "cudafuse_constexpr_math.h"
#if __has_include(<math.h>) && __has_include(<stdlib.h>)
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <assert.h>
#include <time.h>
#include <limits.h>
#include <new>
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
// Each is also brought into std (as clang's __clang_cuda_cmath.h does): <cmath>'s `using
// ::sqrt;` ran before these existed, so std::sqrt(double) in device code would otherwise see
// only the constexpr (host and device) float and long double overloads: "ambiguous".
#define __CUDAFUSE_F1(n) __device__ float n##f(float); __device__ double n(double); \
  namespace std { using ::n; using ::n##f; }
#define __CUDAFUSE_F2(n) __device__ float n##f(float, float); \
  __device__ double n(double, double); namespace std { using ::n; using ::n##f; }
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
namespace std { using ::fma; using ::fmaf; }
__device__ void sincosf(float, float *, float *);
__device__ void sincos(double, double *, double *);
__device__ int abs(int);
__device__ long long llabs(long long);
__device__ int printf(const char *, ...);
__device__ void *memcpy(void *, const void *, size_t);
__device__ void *memset(void *, int, size_t);
__device__ void *malloc(size_t);
__device__ void free(void *);
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
// math_functions.hpp's mixed-type overloads.
#define __CUDAFUSE_MM(A, B, R) __host__ __device__ R min(A, B); __host__ __device__ R max(A, B);
__CUDAFUSE_MM(int, unsigned, unsigned) __CUDAFUSE_MM(unsigned, int, unsigned)
__CUDAFUSE_MM(long, long, long) __CUDAFUSE_MM(unsigned long, unsigned long, unsigned long)
__CUDAFUSE_MM(long, unsigned long, unsigned long) __CUDAFUSE_MM(unsigned long, long, unsigned long)
__CUDAFUSE_MM(long long, unsigned long long, unsigned long long)
__CUDAFUSE_MM(unsigned long long, long long, unsigned long long)
__CUDAFUSE_MM(float, double, double) __CUDAFUSE_MM(double, float, double)
#undef __CUDAFUSE_MM
__device__ long long clock64(void);
__device__ int clock(void);

// Device intrinsics (bit casts, fast math, integer and SIMD arithmetic, rounding modes,
// cache-hinted loads and stores): declared once, for the emulator too.
#include "../../cuda_api/cudafuse_device_api.h"

// More math (math_functions.h): device overloads next to the C library's host ones.
// Each is also brought into std (as clang's __clang_cuda_cmath.h does): <cmath>'s `using
// ::sqrt;` ran before these existed, so std::sqrt(double) in device code would otherwise see
// only the constexpr (host and device) float and long double overloads: "ambiguous".
#define __CUDAFUSE_F1(n) __device__ float n##f(float); __device__ double n(double); \
  namespace std { using ::n; using ::n##f; }
#define __CUDAFUSE_F2(n) __device__ float n##f(float, float); \
  __device__ double n(double, double); namespace std { using ::n; using ::n##f; }
__CUDAFUSE_F1(rcbrt) __CUDAFUSE_F1(sinpi) __CUDAFUSE_F1(cospi) __CUDAFUSE_F1(asinh)
__CUDAFUSE_F1(acosh) __CUDAFUSE_F1(atanh) __CUDAFUSE_F1(erfinv) __CUDAFUSE_F1(erfcinv)
__CUDAFUSE_F1(erfcx) __CUDAFUSE_F1(normcdfinv) __CUDAFUSE_F1(logb) __CUDAFUSE_F1(nearbyint)
__CUDAFUSE_F1(j0) __CUDAFUSE_F1(j1) __CUDAFUSE_F1(y0) __CUDAFUSE_F1(y1)
__CUDAFUSE_F2(nextafter) __CUDAFUSE_F2(fmod)
#undef __CUDAFUSE_F1
#undef __CUDAFUSE_F2
__device__ float ldexpf(float, int);
__device__ double ldexp(double, int);
__device__ float scalbnf(float, int);
__device__ double scalbn(double, int);
__device__ float frexpf(float, int *);
__device__ double frexp(double, int *);
__device__ float modff(float, float *);
__device__ double modf(double, double *);
__device__ float remquof(float, float, int *);
__device__ double remquo(double, double, int *);
__device__ int ilogbf(float);
__device__ int ilogb(double);
__device__ long lrintf(float);
__device__ long lroundf(float);
__device__ long long llrintf(float);
__device__ long long llroundf(float);
__device__ long long llrint(double);
__device__ long long llround(double);
// Warp matching and reductions (sm_70/sm_80).
#define __CUDAFUSE_MATCH(T) __device__ unsigned __match_any_sync(unsigned m, T v); \
  __device__ unsigned __match_all_sync(unsigned m, T v, int *pred);
__CUDAFUSE_MATCH(unsigned) __CUDAFUSE_MATCH(int) __CUDAFUSE_MATCH(unsigned long)
__CUDAFUSE_MATCH(long) __CUDAFUSE_MATCH(unsigned long long) __CUDAFUSE_MATCH(long long)
__CUDAFUSE_MATCH(float) __CUDAFUSE_MATCH(double)
#undef __CUDAFUSE_MATCH
__device__ unsigned __reduce_add_sync(unsigned m, unsigned v);
__device__ int __reduce_add_sync(unsigned m, int v);
__device__ unsigned __reduce_min_sync(unsigned m, unsigned v);
__device__ int __reduce_min_sync(unsigned m, int v);
__device__ unsigned __reduce_max_sync(unsigned m, unsigned v);
__device__ int __reduce_max_sync(unsigned m, int v);
__device__ unsigned __reduce_and_sync(unsigned m, unsigned v);
__device__ unsigned __reduce_or_sync(unsigned m, unsigned v);
__device__ unsigned __reduce_xor_sync(unsigned m, unsigned v);
// operator new/delete in device code (crt/common_functions.h), placement forms included.
__device__ void *operator new(size_t, void *p) throw();
__device__ void *operator new[](size_t, void *p) throw();
__device__ void *operator new(size_t);
__device__ void *operator new[](size_t);
__device__ void operator delete(void *) throw();
__device__ void operator delete[](void *) throw();
__device__ void operator delete(void *, size_t) throw();
__device__ void operator delete[](void *, size_t) throw();
// assert() in device code (the host's comes from <assert.h>, which cuda_runtime.h includes).
__device__ void __assert_fail(const char *, const char *, unsigned int, const char *) throw();
