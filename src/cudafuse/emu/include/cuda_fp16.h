// cudafuse emulator's <cuda_fp16.h>: __half and __half2 (IEEE binary16) with CUDA's API,
// declared in cuda_api/cudafuse_fp16_api.h (shared with the front end) and defined in
// cudafuse_f16_ops.inc. Conversions and arithmetic are exact, rounded once (see
// cudafuse_f16.h); math functions round a float result (docs/emulation.md, "Half precision").
#pragma once
#include "cudafuse_f16.h"

#define CF_F ::__cf_emu::f16::__cf_Half  // the format the definitions round into
#define __CUDAFUSE_F16_DEFINITIONS "cudafuse_f16_ops.inc"
#include "../../cuda_api/cudafuse_fp16_api.h"
#undef __CUDAFUSE_F16_DEFINITIONS
#undef CF_F
