/* cudafuse stand-in for cuda_fp16.h: __half/__half2 with CUDA 13's operators, conversions,
   arithmetic, comparisons and math, declared once for the front end and the emulator
   (cuda_api/cudafuse_fp16_api.h). */
#pragma once
#include "../../../cuda_api/cudafuse_fp16_api.h"
