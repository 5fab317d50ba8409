// A BLAKE-like mixing kernel in the style of ccminer's hash kernels (written for cudafuse's
// tests; not a real hash): the launch bounds are commented out, as ccminer often leaves them.
#include "cuda_helper.h"

#define TPB 128

__constant__ uint32_t c_sigma[16] = {0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15};

#define G(a, b, c, d, x, y)       \
  {                               \
    a = a + b + (x);              \
    d = ROTR32(d ^ a, 16);        \
    c = c + d;                    \
    b = ROTR32(b ^ c, 12);        \
    a = a + b + (y);              \
    d = ROTR32(d ^ a, 8);         \
    c = c + d;                    \
    b = ROTR32(b ^ c, 7);         \
  }

__global__ /* __launch_bounds__(256, 3) */
void blake_hash(uint32_t threads, uint32_t startNonce, const uint32_t* __restrict__ data,
                uint32_t* __restrict__ resNonce) {
  uint32_t thread = blockDim.x * blockIdx.x + threadIdx.x;
  if (thread < threads) {
    const uint32_t nonce = startNonce + thread;
    uint32_t m[16];
#pragma unroll
    for (int i = 0; i < 15; i++) m[i] = data[i];
    m[15] = cuda_swab32(nonce);
    uint32_t v[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
                     0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};
    for (int r = 0; r < 4; r++) {
      G(v[0], v[1], v[2], v[3], m[c_sigma[(r + 0) & 15]], m[c_sigma[(r + 1) & 15]]);
      G(v[4], v[5], v[6], v[7], m[c_sigma[(r + 2) & 15]], m[c_sigma[(r + 3) & 15]]);
      G(v[0], v[5], v[2], v[7], m[c_sigma[(r + 4) & 15]], m[c_sigma[(r + 5) & 15]]);
      G(v[4], v[1], v[6], v[3], m[c_sigma[(r + 6) & 15]], m[c_sigma[(r + 7) & 15]]);
    }
    resNonce[thread] = v[0] ^ v[4];
  }
}

void blake_run(uint32_t threads, uint32_t startNonce, const uint32_t* data, uint32_t* res) {
  blake_hash<<<(threads + TPB - 1) / TPB, TPB>>>(threads, startNonce, data, res);
}
