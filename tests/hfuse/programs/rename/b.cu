// Second input: the same names, other meanings.
#include <cuda_runtime.h>

__constant__ float weights[4] = {-1.0f, 0.5f, 0.25f, 2.0f};

__device__ float clamp01(float v) { return v < 0.5f ? 0.0f : 1.0f; }  // a threshold here

__device__ float twice(float v);  // a prototype, defined below

__global__ void mark(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = twice(clamp01(in[i] + weights[i & 3]));
}

__device__ float twice(float v) { return 2.0f * v; }

int main() {
  float *p = nullptr;
  cudaMalloc(&p, 64);
  mark<<<1, 64>>>(p, p, 16);
  return cudaFree(p);
}
