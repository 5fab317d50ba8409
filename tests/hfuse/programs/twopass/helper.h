// A helper header in ccminer's style (written for cudafuse's tests): nvcc's two passes
// see two definitions of swab32, a __device__ function in the device pass and a host
// macro in the host pass; __syncthreads is redeclared as a function.
#pragma once
#include <stdint.h>
#include <cuda_runtime.h>

extern __device__ __device_builtin__ void __syncthreads(void);

#ifdef __CUDA_ARCH__
__device__ __forceinline__ uint32_t swab32(uint32_t x) {
  uint32_t r;
  asm("{ .reg .b32 t;\n\tprmt.b32 t, %1, 0, 0x0123;\n\tmov.b32 %0, t;\n\t}" : "=r"(r) : "r"(x));
  return r;
}
#else
#define swab32(x) __builtin_bswap32(x)
#endif

// defined in another file of the program (other.cpp), as ccminer's cuda.cpp defines its
// logging helpers; only host code calls it
void log_found(int thr_id, uint32_t nonce);
extern int opt_debug;
