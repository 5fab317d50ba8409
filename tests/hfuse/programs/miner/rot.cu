// Rotations in inline PTX as ccminer's helpers write them (written for cudafuse's tests):
// arithmetic only, nothing fusion changes (no %tid, no barrier), so the kernel fuses.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ uint32_t rotr_ptx(uint32_t x, uint32_t n) {
  uint32_t r;
  asm("shf.r.wrap.b32 %0, %1, %1, %2;" : "=r"(r) : "r"(x), "r"(n));
  return r;
}

__global__ void rot_hash(const uint32_t threads, const uint32_t start, uint32_t *out) {
  const uint32_t t = blockDim.x * blockIdx.x + threadIdx.x;
  if (t < threads) {
    uint32_t h = start + t;
    for (int r = 0; r < 8; r++) h = rotr_ptx(h ^ 0x9e3779b9u, 7) + h;
    out[t] = h;
  }
}
