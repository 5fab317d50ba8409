// Stand-in for <cuda_pipeline_helpers.h> in cudafuse emulation builds: the toolkit splits <cuda_pipeline.h>
// into this and other files that programs may name directly; the emulator has it all in one.
#pragma once
#include "cuda_pipeline.h"
