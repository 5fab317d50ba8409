// A nonce scan in the style of ccminer (written for cudafuse's tests): the block header
// and a rotation table are __device__/__constant__ arrays the host code sets with
// cudaMemcpyToSymbol; a thread whose hash meets the target reports its nonce by racing
// writes (ccminer's resNonce[1] = resNonce[0]; resNonce[0] = nonce).
#include <cstdint>

__device__ uint32_t d_data[8];
__constant__ uint32_t c_rot[4];

__global__ void scan_a(uint32_t threads, uint32_t startNonce, uint32_t *resNonce,
                       uint32_t target) {
  const uint32_t thread = blockDim.x * blockIdx.x + threadIdx.x;
  if (thread >= threads) return;
  const uint32_t nonce = startNonce + thread;
  uint32_t h = nonce * 0x9e3779b9u;
  for (int i = 0; i < 8; ++i) {
    h ^= d_data[i];
    h = (h << c_rot[i & 3]) | (h >> (32 - c_rot[i & 3]));
    h *= 0x85ebca6bu;
  }
  if (h <= target) {
    resNonce[1] = resNonce[0];
    resNonce[0] = nonce;
  }
}

void scan_a_set_block(const uint32_t *data, const uint32_t *rot) {
  cudaMemcpyToSymbol(d_data, data, 32, 0, cudaMemcpyHostToDevice);
  cudaMemcpyToSymbol(c_rot, rot, 16, 0, cudaMemcpyHostToDevice);
}
