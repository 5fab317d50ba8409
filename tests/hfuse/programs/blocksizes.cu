// Kernels written for a block size: a given --block1/--block2 that contradicts it is an error.
#include <cuda_runtime.h>

__global__ void __launch_bounds__(256) tile256(const float *in, float *out, int n) {
  __shared__ float s[256];
  int i = threadIdx.x + 256 * blockIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.f;
  __syncthreads();
  if (i < n) out[i] = s[255 - threadIdx.x];
}

__global__ void __launch_bounds__(256) shared256(const float *in, float *out, int n) {
  __shared__ float s[256];
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.f;
  __syncthreads();
  if (i < n) out[i] = s[blockDim.x - 1 - threadIdx.x];
}

__global__ void __launch_bounds__(256) loop256(float *out, int n) {
  for (int k = threadIdx.x; k < 256; k += 128)
    if (blockIdx.x * 256 + k < n) out[blockIdx.x * 256 + k] = k;
}

__global__ void index128(const float *in, float *out, int n) {
  int i = blockIdx.x * 128 + threadIdx.x;
  if (i < n) out[i] = 2.f * in[i];
}

__global__ void __launch_bounds__(256) tunable(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.f;
}
