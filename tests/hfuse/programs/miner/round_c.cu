// A G called through a macro that another macro's body invokes (written for cudafuse's
// tests): the references cannot be counted at an invocation, so G is not renamed apart.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ static void G(uint32_t &a, uint32_t &b, const int r) { a += b + r; }

#define STEP(r) G(v[0], v[1], r)
#define TWO_STEPS STEP(0); STEP(1)

__global__ void round_c(const uint32_t threads, const uint32_t start, uint32_t *out) {
  const uint32_t t = blockDim.x * blockIdx.x + threadIdx.x;
  if (t < threads) {
    uint32_t v[2] = {start, t};
    TWO_STEPS;
    out[t] = v[0];
  }
}
