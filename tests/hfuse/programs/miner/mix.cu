// A hash-style kernel (written for cudafuse's tests, in ccminer's manner): per-GPU result
// buffers in a file-scope array that the host code passes through a checking macro.
#include "check.h"

#define MAX_GPUS 4
static uint32_t *d_found[MAX_GPUS];

__device__ __forceinline__ uint32_t rotr_c(uint32_t x, uint32_t n) {
  return (x >> n) | (x << (32 - n));
}

__global__ void mix_hash(const uint32_t threads, const uint32_t start, uint32_t *out) {
  const uint32_t t = blockDim.x * blockIdx.x + threadIdx.x;
  if (t < threads) {
    uint32_t h = start + t;
    for (int r = 0; r < 8; r++) h = rotr_c(h ^ 0x9e3779b9u, 7) + h;
    out[t] = h;
  }
}

void mix_init(int thr_id) { SAFE_CALL(cudaMalloc(&d_found[thr_id], 2 * sizeof(uint32_t))); }
void mix_free(int thr_id) { cudaFree(d_found[thr_id]); }
