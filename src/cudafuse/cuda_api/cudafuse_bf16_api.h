// cudafuse_bf16_api.h: cuda_bf16.h's __nv_bfloat16 and __nv_bfloat162 as the one place
// cudafuse declares them, for the front end (frontend/include/stubs/cuda_bf16.h) and the
// emulator (emu/include/cuda_bf16.h) alike, as cudafuse_fp16_api.h does for __half (which
// the real header includes too, and so does this one).
#pragma once
#define __CUDA_BF16_H__
#define __CUDA_BF16_HPP__
#define __CUDA_BF16_TYPES_EXIST__
#include "cudafuse_fp16_api.h"

#define CF_H __nv_bfloat16
#define CF_H2 __nv_bfloat162
#define CF_RAW __nv_bfloat16_raw
#define CF_RAW2 __nv_bfloat162_raw
// pasted as written: an argument such as _rn or _as_short is no macro of the program's
#define CF_N(a, b) a##bfloat16##b
#define CF_N2(a, b) a##bfloat162##b
#define CF_N_2_N2 __bfloat162bfloat162
#include "cudafuse_f16_api.inc"  // which undefines the CF_ parameters

typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

// Between the two 16-bit formats.
__host__ __device__ __nv_bfloat16 __half2bfloat16(__half h);
__host__ __device__ __half __bfloat162half(__nv_bfloat16 h);

#define CUDART_INF_BF16 __ushort_as_bfloat16((unsigned short)0x7F80U)
#define CUDART_NAN_BF16 __ushort_as_bfloat16((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_BF16 __ushort_as_bfloat16((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_BF16 __ushort_as_bfloat16((unsigned short)0x7F7FU)
#define CUDART_NEG_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x8000U)
#define CUDART_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x0000U)
#define CUDART_ONE_BF16 __ushort_as_bfloat16((unsigned short)0x3F80U)
