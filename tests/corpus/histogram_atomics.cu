// Histogram: shared-memory privatisation with atomics, then a merge into global memory.
// EXPECT-KERNEL: histogram256 3
// EXPECT-LAUNCH: histogram -> histogram256 3
#include <cuda_runtime.h>

#define BINS 256

__global__ void histogram256(const unsigned char *data, unsigned int *hist, int n) {
  __shared__ unsigned int local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    if (local[b]) atomicAdd(&hist[b], local[b]);
}

extern "C" void histogram(const unsigned char *d, unsigned int *h, int n) {
  cudaMemset(h, 0, BINS * sizeof(unsigned int));
  histogram256<<<64, 256>>>(d, h, n);
}
