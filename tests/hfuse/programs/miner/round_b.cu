// Another hash in the same manner (written for cudafuse's tests): its own G, the same ROUND
// text, and ROUND_F (only here) for the last round, whose argument names G's round too.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ static void G(uint32_t &a, uint32_t &b, const int r) {
  a = a ^ (b + 0x9e3779b9u * (uint32_t)(r + 1));
  b = (b >> 3 | b << 29) + a;
}

#define ROUND(r)      \
  G(v[0], v[1], r);   \
  G(v[2], v[3], r);

#define ROUND_F(x) G(v[0], v[3], x)

__global__ void round_b(const uint32_t threads, const uint32_t start, uint32_t *out) {
  const uint32_t t = blockDim.x * blockIdx.x + threadIdx.x;
  if (t < threads) {
    uint32_t v[4] = {start ^ t, 0x3c6ef372u, 0xa54ff53au, t * 3u};
    ROUND(0);
    ROUND(1);
    ROUND_F(2);
    out[t] = v[0] + v[1] + v[2] + v[3];
  }
}
