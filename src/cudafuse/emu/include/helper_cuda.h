// Stand-in for the CUDA samples' helper_cuda.h in cudafuse emulation builds.
#pragma once
#include "cudafuse_emu.h"
#define checkCudaErrors(x) (void)(x)
#define getLastCudaError(msg) (void)cudaGetLastError()
