// Inline PTX that reads the thread index (written for cudafuse's tests): in a fused kernel
// %tid.x is the fused block's index, not the part's, so this kernel is refused.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void tid_hash(const uint32_t threads, const uint32_t start, uint32_t *out) {
  uint32_t tx;
  asm("mov.u32 %0, %%tid.x;" : "=r"(tx));
  const uint32_t t = blockDim.x * blockIdx.x + tx;
  if (t < threads) out[t] = start + t;
}

__global__ void bar_hash(const uint32_t threads, const uint32_t start, uint32_t *out) {
  const uint32_t t = blockDim.x * blockIdx.x + threadIdx.x;
  asm volatile("bar.sync 0;");
  if (t < threads) out[t] = start ^ t;
}
