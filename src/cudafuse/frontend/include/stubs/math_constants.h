/* cudafuse stand-in for math_constants.h: CUDA's single and double precision constants,
   defined once for the front end and the emulator (cuda_api/cudafuse_math_constants.h). */
#pragma once
#include "../../../cuda_api/cudafuse_math_constants.h"
