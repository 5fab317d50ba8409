// NVTX's CUDA runtime naming calls (<nvtx3/nvToolsExtCudaRt.h>) for the cudafuse front end
// (the emulator has the same file): names a profiler would show, ignored.
#pragma once
#include "nvToolsExt.h"
#include <cuda_runtime.h>

inline void nvtxNameCudaDeviceA(int, const char *) {}
inline void nvtxNameCudaDeviceW(int, const wchar_t *) {}
inline void nvtxNameCudaStreamA(cudaStream_t, const char *) {}
inline void nvtxNameCudaStreamW(cudaStream_t, const wchar_t *) {}
inline void nvtxNameCudaEventA(cudaEvent_t, const char *) {}
inline void nvtxNameCudaEventW(cudaEvent_t, const wchar_t *) {}
#ifndef UNICODE
#define nvtxNameCudaDevice nvtxNameCudaDeviceA
#define nvtxNameCudaStream nvtxNameCudaStreamA
#define nvtxNameCudaEvent nvtxNameCudaEventA
#endif
