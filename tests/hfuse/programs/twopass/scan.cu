// A nonce scan in ccminer's style (written for cudafuse's tests): the kernel reads a
// __device__ header and takes its target as a uint2 by value; the host code calls swab32
// (a __device__ function where __CUDA_ARCH__ is defined) and functions of other.cpp.
#include <helper.h>  // found through -I, as ccminer includes its cuda_helper.h

#define A 64  // ccminer's "host mem align", a one-letter macro

__device__ uint32_t d_data[4];

__global__ void scan(const uint32_t threads, const uint32_t startNonce, uint32_t *resNonce,
                     const uint2 target) {
  const uint32_t nonce = blockDim.x * blockIdx.x + threadIdx.x + startNonce;
  __shared__ uint32_t s_mix[128];
  uint32_t h = swab32(nonce * 0x9E3779B9u) ^ d_data[nonce & 3];
  s_mix[threadIdx.x] = h;
  __syncthreads();
  h ^= s_mix[(threadIdx.x + 1) % blockDim.x] * 0x85EBCA6Bu;
  if (nonce - startNonce < threads && h <= target.x && (h >> 16) <= target.y)
    resNonce[0] = nonce;
}

int scan_host(int thr_id, uint32_t *resNonce, uint32_t threads, uint32_t startNonce) {
  uint2 target = make_uint2(0xFFFFu, 0u);
  scan<<<threads / 128, 128>>>(threads, startNonce, resNonce, target);
  cudaDeviceSynchronize();
  if (opt_debug) log_found(thr_id, swab32(resNonce[0]));
  return resNonce[0] != UINT32_MAX;
}
