// A block-hash round in ccminer's manner (written for cudafuse's tests): a mixing function
// G and a ROUND macro whose body calls it.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ static void G(uint32_t &a, uint32_t &b, const int r) {
  a = a + b + (uint32_t)r;
  b = (b << 7 | b >> 25) ^ a;
}

#define ROUND(r)      \
  G(v[0], v[1], r);   \
  G(v[2], v[3], r);

__global__ void round_a(const uint32_t threads, const uint32_t start, uint32_t *out) {
  const uint32_t t = blockDim.x * blockIdx.x + threadIdx.x;
  if (t < threads) {
    uint32_t v[4] = {start + t, 0x6a09e667u, 0xbb67ae85u, t};
    ROUND(0);
    ROUND(1);
    out[t] = v[0] ^ v[1] ^ v[2] ^ v[3];
  }
}

static uint32_t *d_found[4];  // per-GPU results, as ccminer keeps them
void round_a_init(int gpu) { cudaMalloc(&d_found[gpu], 8); }
