// cudafuse_fp16_api.h: cuda_fp16.h's __half and __half2 (IEEE binary16) as the one place
// cudafuse declares them: the front end's stand-in (frontend/include/stubs/cuda_fp16.h)
// includes it, so libclang parses user code against these declarations; the emulator
// (emu/include/cuda_fp16.h) includes it with __CUDAFUSE_F16_DEFINITIONS naming the file that
// defines them. The declarations themselves are cudafuse_f16_api.inc's, shared with
// __nv_bfloat16 (cudafuse_bf16_api.h).
//
// Before including: __host__, __device__ and __align__ are macros, float2 is defined.
#pragma once
#define __CUDA_FP16_H__
#define __CUDA_FP16_HPP__
#define __CUDA_FP16_TYPES_EXIST__

#define CF_H __half
#define CF_H2 __half2
#define CF_RAW __half_raw
#define CF_RAW2 __half2_raw
// pasted as written: an argument such as _rn or _as_short is no macro of the program's
#define CF_N(a, b) a##half##b
#define CF_N2(a, b) a##half2##b
#define CF_N_2_N2 __half2half2
#include "cudafuse_f16_api.inc"  // which undefines the CF_ parameters

typedef __half half;
typedef __half2 half2;
typedef __half __nv_half;
typedef __half2 __nv_half2;
typedef __half_raw __nv_half_raw;
typedef __half2_raw __nv_half2_raw;

#define CUDART_INF_FP16 __ushort_as_half((unsigned short)0x7C00U)
#define CUDART_NAN_FP16 __ushort_as_half((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_FP16 __ushort_as_half((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_FP16 __ushort_as_half((unsigned short)0x7BFFU)
#define CUDART_NEG_ZERO_FP16 __ushort_as_half((unsigned short)0x8000U)
#define CUDART_ZERO_FP16 __ushort_as_half((unsigned short)0x0000U)
#define CUDART_ONE_FP16 __ushort_as_half((unsigned short)0x3C00U)
