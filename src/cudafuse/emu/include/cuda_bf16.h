// cudafuse emulator's <cuda_bf16.h>: __nv_bfloat16 and __nv_bfloat162 with CUDA's API,
// declared in cuda_api/cudafuse_bf16_api.h (shared with the front end) and defined in
// cudafuse_f16_ops.inc. Conversions and arithmetic are exact, rounded once (see
// cudafuse_f16.h); math functions round a float result (docs/emulation.md, "Half precision").
#pragma once
#include "cuda_fp16.h"

#define CF_F ::__cf_emu::f16::__cf_BF16  // the format the definitions round into
#define __CUDAFUSE_F16_DEFINITIONS "cudafuse_f16_ops.inc"
#include "../../cuda_api/cudafuse_bf16_api.h"
#undef __CUDAFUSE_F16_DEFINITIONS
#undef CF_F

// Between the two 16-bit formats: exact through float, rounded once to nearest even.
inline __nv_bfloat16 __half2bfloat16(const __half h) { return __nv_bfloat16(float(h)); }
inline __half __bfloat162half(const __nv_bfloat16 h) { return __half(float(h)); }
