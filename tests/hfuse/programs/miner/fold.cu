// A second hash-style kernel (written for cudafuse's tests) whose file defines the same
// d_found array, used inside SAFE_CALL's argument: renamed apart there too.
#include "check.h"

#define MAX_GPUS 4
static uint32_t *d_found[MAX_GPUS];

__global__ void fold_hash(const uint32_t threads, const uint32_t start, uint32_t *out) {
  const uint32_t t = blockDim.x * blockIdx.x + threadIdx.x;
  if (t < threads) {
    uint32_t h = (start + t) * 2654435761u;
    h ^= h >> 15;
    out[t] = h * 0x85ebca6bu;
  }
}

void fold_init(int thr_id) {
  SAFE_CALL(cudaMalloc(&d_found[thr_id], 2 * sizeof(uint32_t)));
  SAFE_CALL(cudaMemset(d_found[thr_id], 0xff, 2 * sizeof(uint32_t)));
}
void fold_free(int thr_id) { cudaFree(d_found[thr_id]); }
