// Stand-in for <cuda_awbarrier_helpers.h> in cudafuse emulation builds: the toolkit splits <cuda_awbarrier.h>
// into this and other files that programs may name directly; the emulator has it all in one.
#pragma once
#include "cuda_awbarrier.h"
