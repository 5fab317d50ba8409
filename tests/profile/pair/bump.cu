// A block-size-dependent kernel (a shared-memory block sum over a fixed 128 threads) that
// accumulates into its output, so that running it twice gives another result.
#include <cuda_runtime.h>

__global__ void __launch_bounds__(128) bump(const float *in, float *acc, int n) {
  __shared__ float part[128];
  int i = blockIdx.x * 128 + threadIdx.x;
  part[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = 64; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) acc[blockIdx.x] += part[0];
}
