// Stand-in for the CUDA samples' helper_cuda.h in cudafuse emulation builds, used when the
// program's own copy is not on the include path (a -I directory holding one wins).
#pragma once
#include "cudafuse_emu.h"
#define checkCudaErrors(x) (void)(x)
#define getLastCudaError(msg) (void)cudaGetLastError()
#define printLastCudaError(msg) (void)cudaGetLastError()
inline int findCudaDevice(int, const char **) { return 0; }
inline int gpuGetMaxGflopsDeviceId() { return 0; }
inline int _ConvertSMVer2Cores(int major, int) { return major >= 9 ? 128 : 64; }
inline const char *_ConvertSMVer2ArchName(int, int) { return "Hopper"; }
