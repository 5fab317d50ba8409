// cudafuse emulator's <cuda_bf16.h>: __nv_bfloat16 and __nv_bfloat162 with CUDA's API.
// Conversions and arithmetic are exact, rounded once (see cudafuse_f16.h); math functions
// round a float result (docs/emulation.md, "Half precision").
#pragma once
#define __CUDA_BF16_H__
#define __CUDA_BF16_HPP__
#define __CUDA_BF16_TYPES_EXIST__
#include "cuda_fp16.h"

#define CF_H __nv_bfloat16
#define CF_H2 __nv_bfloat162
#define CF_RAW __nv_bfloat16_raw
#define CF_RAW2 __nv_bfloat162_raw
#define CF_F ::cudafuse_emu::f16::BF16
#define CF_N(a, b) CF_PASTE3_(a, bfloat16, b)
#define CF_N2(a, b) CF_PASTE3_(a, bfloat162, b)
#define CF_N_2_N2 __bfloat162bfloat162
#include "cudafuse_f16_ops.inc"
#undef CF_H
#undef CF_H2
#undef CF_RAW
#undef CF_RAW2
#undef CF_F
#undef CF_N
#undef CF_N2
#undef CF_N_2_N2

typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

// Between the two 16-bit formats: exact through float, rounded once to nearest even.
inline __nv_bfloat16 __half2bfloat16(const __half h) { return __nv_bfloat16(float(h)); }
inline __half __bfloat162half(const __nv_bfloat16 h) { return __half(float(h)); }

#define CUDART_INF_BF16 __ushort_as_bfloat16((unsigned short)0x7F80U)
#define CUDART_NAN_BF16 __ushort_as_bfloat16((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_BF16 __ushort_as_bfloat16((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_BF16 __ushort_as_bfloat16((unsigned short)0x7F7FU)
#define CUDART_NEG_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x8000U)
#define CUDART_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x0000U)
#define CUDART_ONE_BF16 __ushort_as_bfloat16((unsigned short)0x3F80U)
