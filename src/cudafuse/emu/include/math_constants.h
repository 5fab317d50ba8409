// Stand-in for <math_constants.h> in cudafuse emulation builds: CUDA's constants, defined once
// for the front end and the emulator (cuda_api/cudafuse_math_constants.h).
#pragma once
#include "cudafuse_emu.h"
#include "../../cuda_api/cudafuse_math_constants.h"
