/* cudafuse stand-in for cuda_bf16.h: __nv_bfloat16/__nv_bfloat162 with CUDA 13's operators,
   conversions, arithmetic, comparisons and math, declared once for the front end and the
   emulator (cuda_api/cudafuse_bf16_api.h). */
#pragma once
#include "cuda_fp16.h"
#include "../../../cuda_api/cudafuse_bf16_api.h"
