// A SHA-256-like compression kernel in the style of ccminer's sha256d kernels (written for
// cudafuse's tests; not a real hash): its own copy of the helper header's guarded block.
#ifndef CUDA_HELPER_H
#define CUDA_HELPER_H
#include <stdint.h>
#define ROTR32(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
#define ROTL32(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
__device__ __forceinline__ uint32_t cuda_swab32(uint32_t x) {
  return ((x << 24) & 0xff000000u) | ((x << 8) & 0x00ff0000u) | ((x >> 8) & 0x0000ff00u) |
         ((x >> 24) & 0x000000ffu);
}
#endif

#define xor3b(a, b, c) ((a) ^ (b) ^ (c))
#define bsg2_0(x) xor3b(ROTR32(x, 2), ROTR32(x, 13), ROTR32(x, 22))
#define bsg2_1(x) xor3b(ROTR32(x, 6), ROTR32(x, 11), ROTR32(x, 25))

__constant__ uint32_t c_K[8] = {0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u,
                                0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u};

__global__ __launch_bounds__(128, 4)
void sha256d_hash(uint32_t threads, uint32_t startNonce, const uint32_t* data,
                  uint32_t* resNonce) {
  const uint32_t thread = blockDim.x * blockIdx.x + threadIdx.x;
  if (thread >= threads) return;
  uint32_t a = data[0], b = data[1], c = data[2], d = data[3];
  uint32_t e = data[4], f = data[5], g = data[6], h = cuda_swab32(startNonce + thread);
  for (int i = 0; i < 8; i++) {
    uint32_t t1 = h + bsg2_1(e) + ((e & f) ^ (~e & g)) + c_K[i];
    uint32_t t2 = bsg2_0(a) + ((a & b) ^ (a & c) ^ (b & c));
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  resNonce[thread] = a ^ e;
}

void sha256d_run(uint32_t threads, uint32_t startNonce, const uint32_t* data, uint32_t* res) {
  sha256d_hash<<<(threads + 127) / 128, 128>>>(threads, startNonce, data, res);
}
