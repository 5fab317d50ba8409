// cudafuse_device_api.h: CUDA's device intrinsics (device_functions.h, sm_20/32/61/70/80
// intrinsics, math_functions.h's CUDA-only functions) as the one place cudafuse declares
// them: atomics, bit casts, fast math, integer and SIMD arithmetic, explicit rounding modes,
// cache-hinted loads and stores. The front end's shim includes it (clang reads __device__ as
// its CUDA attribute); the emulator (emu/include/cudafuse_emu.h) includes it, then defines
// each one, or the declaration says CUDAFUSE_NOT_EMULATED("why").
// Not here, and declared by each side: what has a host namesake in the C library (sqrtf,
// sinf, abs, printf, memcpy, clock...: the front end adds __device__ overloads beside the host
// ones, which g++ cannot tell apart), min/max, barriers, warp collectives and votes (the
// emulator takes the caller's file and line for its reports). Textures and surfaces:
// cudafuse_texture_api.h.
//
// Before including: __device__ is a macro; size_t and the vector types are defined;
// cudafuse_cuda_api.h is included (CUDAFUSE_NOT_EMULATED).
#pragma once
// Atomics: CUDA 13's overload set for sm_90 (device_atomic_functions.h,
// sm_20/32/60_atomic_functions.h, crt/sm_70_rt.h, crt/sm_90_rt.h; __half's in cuda_fp16.h), one non-template declaration per
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
// CUDAFUSE_ATOMIC128(T) stays defined: the emulator's definitions spell the return type the
// same way (a template's redeclaration must). The emulator sets CUDAFUSE_TRIVIALLY_COPYABLE
// to the library trait (g++ mangles no built-in trait in a signature); the front end, which
// may have no <type_traits>, takes clang's built-in.
#ifndef CUDAFUSE_TRIVIALLY_COPYABLE
#define CUDAFUSE_TRIVIALLY_COPYABLE(T) __is_trivially_copyable(T)
#endif
template <bool B, class T> struct __cudafuse_atomic_if {};
template <class T> struct __cudafuse_atomic_if<true, T> { typedef T type; };
#define CUDAFUSE_ATOMIC128(T) typename __cudafuse_atomic_if<sizeof(T) == 16 && \
  __alignof__(T) >= 16 && CUDAFUSE_TRIVIALLY_COPYABLE(T), T>::type
template <class T> __device__ CUDAFUSE_ATOMIC128(T) atomicExch(T *a, T v);
template <class T> __device__ CUDAFUSE_ATOMIC128(T) atomicExch_block(T *a, T v);
template <class T> __device__ CUDAFUSE_ATOMIC128(T) atomicExch_system(T *a, T v);
template <class T> __device__ CUDAFUSE_ATOMIC128(T) atomicCAS(T *a, T c, T v);
template <class T> __device__ CUDAFUSE_ATOMIC128(T) atomicCAS_block(T *a, T c, T v);
template <class T> __device__ CUDAFUSE_ATOMIC128(T) atomicCAS_system(T *a, T c, T v);
// Bit casts (atomicCAS loops on floating point use them).
__device__ int __float_as_int(float);
__device__ unsigned __float_as_uint(float);
__device__ float __int_as_float(int);
__device__ float __uint_as_float(unsigned);
__device__ long long __double_as_longlong(double);
__device__ double __longlong_as_double(long long);
template <class T> __device__ T __ldg(const T *p);

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

// ---- DPX (sm_90; host and device functions in CUDA 12's device_functions.h) ---------------
__host__ __device__ int __vimax_s32_relu(int, int);
__host__ __device__ int __vimin_s32_relu(int, int);
__host__ __device__ unsigned __vimax_s16x2_relu(unsigned, unsigned);
__host__ __device__ unsigned __vimin_s16x2_relu(unsigned, unsigned);
__host__ __device__ int __vimax3_s32(int, int, int);
__host__ __device__ int __vimin3_s32(int, int, int);
__host__ __device__ int __vimax3_s32_relu(int, int, int);
__host__ __device__ int __vimin3_s32_relu(int, int, int);
__host__ __device__ unsigned __vimax3_u32(unsigned, unsigned, unsigned);
__host__ __device__ unsigned __vimin3_u32(unsigned, unsigned, unsigned);
__host__ __device__ unsigned __vimax3_s16x2(unsigned, unsigned, unsigned);
__host__ __device__ unsigned __vimin3_s16x2(unsigned, unsigned, unsigned);
__host__ __device__ unsigned __vimax3_u16x2(unsigned, unsigned, unsigned);
__host__ __device__ unsigned __vimin3_u16x2(unsigned, unsigned, unsigned);
__host__ __device__ unsigned __vimax3_s16x2_relu(unsigned, unsigned, unsigned);
__host__ __device__ unsigned __vimin3_s16x2_relu(unsigned, unsigned, unsigned);
__host__ __device__ int __viaddmax_s32(int, int, int);
__host__ __device__ int __viaddmin_s32(int, int, int);
__host__ __device__ int __viaddmax_s32_relu(int, int, int);
__host__ __device__ int __viaddmin_s32_relu(int, int, int);
__host__ __device__ unsigned __viaddmax_u32(unsigned, unsigned, unsigned);
__host__ __device__ unsigned __viaddmin_u32(unsigned, unsigned, unsigned);
__host__ __device__ unsigned __viaddmax_s16x2(unsigned, unsigned, unsigned);
__host__ __device__ unsigned __viaddmin_s16x2(unsigned, unsigned, unsigned);
__host__ __device__ unsigned __viaddmax_u16x2(unsigned, unsigned, unsigned);
__host__ __device__ unsigned __viaddmin_u16x2(unsigned, unsigned, unsigned);
__host__ __device__ unsigned __viaddmax_s16x2_relu(unsigned, unsigned, unsigned);
__host__ __device__ unsigned __viaddmin_s16x2_relu(unsigned, unsigned, unsigned);
__host__ __device__ int __vibmax_s32(int, int, bool *);
__host__ __device__ int __vibmin_s32(int, int, bool *);
__host__ __device__ unsigned __vibmax_u32(unsigned, unsigned, bool *);
__host__ __device__ unsigned __vibmin_u32(unsigned, unsigned, bool *);
__host__ __device__ unsigned __vibmax_s16x2(unsigned, unsigned, bool *, bool *);
__host__ __device__ unsigned __vibmax_u16x2(unsigned, unsigned, bool *, bool *);
__host__ __device__ unsigned __vibmin_s16x2(unsigned, unsigned, bool *, bool *);
__host__ __device__ unsigned __vibmin_u16x2(unsigned, unsigned, bool *, bool *);

// ---- More device intrinsics (device_functions.h, sm_20/32/61/70/80_intrinsics.h) ----------
// Integer arithmetic.
__device__ int __mul24(int, int);
__device__ unsigned __umul24(unsigned, unsigned);
__device__ long long __mul64hi(long long, long long);
__device__ unsigned __sad(int, int, unsigned);
__device__ unsigned long long __brevll(unsigned long long);
__device__ int __hadd(int, int);
__device__ int __rhadd(int, int);
__device__ unsigned __uhadd(unsigned, unsigned);
__device__ unsigned __urhadd(unsigned, unsigned);
__device__ unsigned __funnelshift_lc(unsigned, unsigned, unsigned);
__device__ unsigned __funnelshift_rc(unsigned, unsigned, unsigned);
__device__ unsigned __fns(unsigned mask, unsigned base, int offset);
__device__ int __dp4a(int, int, int);
__device__ unsigned __dp4a(unsigned, unsigned, unsigned);
__device__ int __dp4a(char4, char4, int);
__device__ unsigned __dp4a(uchar4, uchar4, unsigned);
__device__ int __dp2a_lo(int, int, int);
__device__ unsigned __dp2a_lo(unsigned, unsigned, unsigned);
__device__ int __dp2a_lo(short2, char4, int);
__device__ unsigned __dp2a_lo(ushort2, uchar4, unsigned);
__device__ int __dp2a_hi(int, int, int);
__device__ unsigned __dp2a_hi(unsigned, unsigned, unsigned);
__device__ int __dp2a_hi(short2, char4, int);
__device__ unsigned __dp2a_hi(ushort2, uchar4, unsigned);
// SIMD video instructions on 2 x 16-bit and 4 x 8-bit lanes.
#define __CUDAFUSE_V1(n) __device__ unsigned n##2(unsigned); __device__ unsigned n##4(unsigned);
#define __CUDAFUSE_V2(n) __device__ unsigned n##2(unsigned, unsigned); \
  __device__ unsigned n##4(unsigned, unsigned);
__CUDAFUSE_V1(__vabs) __CUDAFUSE_V1(__vabsss) __CUDAFUSE_V1(__vneg) __CUDAFUSE_V1(__vnegss)
__CUDAFUSE_V2(__vabsdiffs) __CUDAFUSE_V2(__vabsdiffu) __CUDAFUSE_V2(__vadd)
__CUDAFUSE_V2(__vaddss) __CUDAFUSE_V2(__vaddus) __CUDAFUSE_V2(__vavgs) __CUDAFUSE_V2(__vavgu)
__CUDAFUSE_V2(__vhaddu) __CUDAFUSE_V2(__vcmpeq) __CUDAFUSE_V2(__vcmpges)
__CUDAFUSE_V2(__vcmpgeu) __CUDAFUSE_V2(__vcmpgts) __CUDAFUSE_V2(__vcmpgtu)
__CUDAFUSE_V2(__vcmples) __CUDAFUSE_V2(__vcmpleu) __CUDAFUSE_V2(__vcmplts)
__CUDAFUSE_V2(__vcmpltu) __CUDAFUSE_V2(__vcmpne) __CUDAFUSE_V2(__vmaxs) __CUDAFUSE_V2(__vmaxu)
__CUDAFUSE_V2(__vmins) __CUDAFUSE_V2(__vminu) __CUDAFUSE_V2(__vsads) __CUDAFUSE_V2(__vsadu)
__CUDAFUSE_V2(__vseteq) __CUDAFUSE_V2(__vsetges) __CUDAFUSE_V2(__vsetgeu)
__CUDAFUSE_V2(__vsetgts) __CUDAFUSE_V2(__vsetgtu) __CUDAFUSE_V2(__vsetles)
__CUDAFUSE_V2(__vsetleu) __CUDAFUSE_V2(__vsetlts) __CUDAFUSE_V2(__vsetltu)
__CUDAFUSE_V2(__vsetne) __CUDAFUSE_V2(__vsub) __CUDAFUSE_V2(__vsubss) __CUDAFUSE_V2(__vsubus)
#undef __CUDAFUSE_V1
#undef __CUDAFUSE_V2
// Arithmetic with an explicit rounding mode (_rn nearest even, _rz toward zero, _ru up, _rd down).
#define __CUDAFUSE_R(decl) decl(rn) decl(rz) decl(ru) decl(rd)
#define __CUDAFUSE_RF(m) \
  __device__ float __fadd_##m(float, float); __device__ float __fsub_##m(float, float); \
  __device__ float __fmul_##m(float, float); __device__ float __fdiv_##m(float, float); \
  __device__ float __fmaf_##m(float, float, float); __device__ float __frcp_##m(float); \
  __device__ float __fsqrt_##m(float); \
  __device__ double __dadd_##m(double, double); __device__ double __dsub_##m(double, double); \
  __device__ double __dmul_##m(double, double); __device__ double __ddiv_##m(double, double); \
  __device__ double __fma_##m(double, double, double); __device__ double __drcp_##m(double); \
  __device__ double __dsqrt_##m(double); \
  __device__ int __float2int_##m(float); __device__ unsigned __float2uint_##m(float); \
  __device__ long long __float2ll_##m(float); \
  __device__ unsigned long long __float2ull_##m(float); \
  __device__ int __double2int_##m(double); __device__ unsigned __double2uint_##m(double); \
  __device__ long long __double2ll_##m(double); \
  __device__ unsigned long long __double2ull_##m(double); \
  __device__ float __double2float_##m(double); __device__ float __int2float_##m(int); \
  __device__ float __uint2float_##m(unsigned); __device__ float __ll2float_##m(long long); \
  __device__ float __ull2float_##m(unsigned long long); \
  __device__ double __ll2double_##m(long long); \
  __device__ double __ull2double_##m(unsigned long long);
__CUDAFUSE_R(__CUDAFUSE_RF)
#undef __CUDAFUSE_RF
#undef __CUDAFUSE_R
__device__ float __frsqrt_rn(float);
__device__ float __fsub_rn(float, float);
__device__ double __int2double_rn(int);
__device__ double __uint2double_rn(unsigned);
__device__ int __double2hiint(double);
__device__ int __double2loint(double);
__device__ double __hiloint2double(int hi, int lo);

__device__ void sincospif(float, float *, float *);
__device__ void sincospi(double, double *, double *);
__device__ float norm3df(float, float, float);
__device__ float rnorm3df(float, float, float);
__device__ float rhypotf(float, float);
__device__ float fdividef(float, float);
__device__ float saturate(float);
__device__ unsigned umin(unsigned, unsigned);
__device__ unsigned umax(unsigned, unsigned);
__device__ long long llmin(long long, long long);
__device__ long long llmax(long long, long long);
__device__ unsigned long long ullmin(unsigned long long, unsigned long long);
__device__ unsigned long long ullmax(unsigned long long, unsigned long long);
__device__ float __tanf(float);
// Cache-hinted loads and stores (sm_32_intrinsics.h).
template <class T> __device__ T __ldcg(const T *p);
template <class T> __device__ T __ldca(const T *p);
template <class T> __device__ T __ldcs(const T *p);
template <class T> __device__ T __ldlu(const T *p);
template <class T> __device__ T __ldcv(const T *p);
template <class T> __device__ void __stcg(T *p, T v);
template <class T> __device__ void __stcs(T *p, T v);
template <class T> __device__ void __stwb(T *p, T v);
template <class T> __device__ void __stwt(T *p, T v);

// Miscellaneous.
__device__ void __threadfence_system(void);
__device__ void __nanosleep(unsigned ns);
__device__ void __trap(void) __attribute__((noreturn));
__device__ void __brkpt(void);
__device__ void __prof_trigger(int);
// Address spaces: the emulator has one (every pointer is a host pointer).
#define __CUDAFUSE_SPACE \
  CUDAFUSE_NOT_EMULATED("address-space queries and conversions are not supported by the " \
                        "emulator (one address space for all memory)")
__device__ unsigned __isGlobal(const void *) __CUDAFUSE_SPACE;
__device__ unsigned __isShared(const void *) __CUDAFUSE_SPACE;
__device__ unsigned __isConstant(const void *) __CUDAFUSE_SPACE;
__device__ unsigned __isLocal(const void *) __CUDAFUSE_SPACE;
__device__ unsigned __isGridConstant(const void *) __CUDAFUSE_SPACE;
__device__ size_t __cvta_generic_to_global(const void *) __CUDAFUSE_SPACE;
__device__ size_t __cvta_generic_to_shared(const void *) __CUDAFUSE_SPACE;
__device__ void *__cvta_global_to_generic(size_t) __CUDAFUSE_SPACE;
__device__ void *__cvta_shared_to_generic(size_t) __CUDAFUSE_SPACE;
#undef __CUDAFUSE_SPACE
