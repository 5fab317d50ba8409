// What OpenMM's CUDA platform puts before each kernel source it compiles at run time
// (platforms/cuda/src/CudaContext.cpp: the constructor's compilationDefines and
// createModule), for single precision on a CUDA 9+ driver: the defines, the real/mixed
// typedefs, its kernels/common.cu (the common compute dialect's KERNEL, GLOBAL_ID,
// SYNC_THREADS... for CUDA) and, as compileProgram prepends it, kernels/vectorOps.cu.
// benchmarks/hfuse_library_pairs.py stages each kernel file with an #include of this header
// as its first line (OpenMM concatenates the same texts); the two OpenMM files are included
// as they are written. Periodic-box macros as for a rectangular box.
#ifndef CUDAFUSE_OPENMM_H
#define CUDAFUSE_OPENMM_H
#define SYNC_WARPS __syncwarp();
#define SHFL(var, srcLane) __shfl_sync(0xffffffff, var, srcLane);
#define BALLOT(var) __ballot_sync(0xffffffff, var);
#define make_real2 make_float2
#define make_real3 make_float3
#define make_real4 make_float4
#define make_mixed2 make_float2
#define make_mixed3 make_float3
#define make_mixed4 make_float4
#define SQRT sqrtf
#define RSQRT rsqrtf
#define RECIP 1.0f/
#define EXP expf
#define LOG logf
#define POW powf
#define COS cosf
#define SIN sinf
#define TAN tanf
#define ACOS acosf
#define ASIN asinf
#define ATAN atanf
#define ERF erff
#define ERFC erfcf
#define FMA fmaf
#define FABS fabsf
#define APPLY_PERIODIC_TO_DELTA(delta) {                                      \
    delta.x -= floor(delta.x*invPeriodicBoxSize.x+0.5f)*periodicBoxSize.x; \
    delta.y -= floor(delta.y*invPeriodicBoxSize.y+0.5f)*periodicBoxSize.y; \
    delta.z -= floor(delta.z*invPeriodicBoxSize.z+0.5f)*periodicBoxSize.z;}
#define APPLY_PERIODIC_TO_POS(pos) {                                  \
    pos.x -= floor(pos.x*invPeriodicBoxSize.x)*periodicBoxSize.x; \
    pos.y -= floor(pos.y*invPeriodicBoxSize.y)*periodicBoxSize.y; \
    pos.z -= floor(pos.z*invPeriodicBoxSize.z)*periodicBoxSize.z;}
#define APPLY_PERIODIC_TO_POS_WITH_CENTER(pos, center) {                              \
    pos.x -= floor((pos.x-center.x)*invPeriodicBoxSize.x+0.5f)*periodicBoxSize.x; \
    pos.y -= floor((pos.y-center.y)*invPeriodicBoxSize.y+0.5f)*periodicBoxSize.y; \
    pos.z -= floor((pos.z-center.z)*invPeriodicBoxSize.z+0.5f)*periodicBoxSize.z;}
typedef float real;
typedef float2 real2;
typedef float3 real3;
typedef float4 real4;
typedef float mixed;
typedef float2 mixed2;
typedef float3 mixed3;
typedef float4 mixed4;
typedef unsigned int tileflags;
#include "kernels/common.cu"
#include "kernels/vectorOps.cu"
#endif
