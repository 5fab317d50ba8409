// First input: a helper, a __constant__ table and a main() whose names b.cu uses too.
#include <cuda_runtime.h>

__constant__ float weights[4] = {1.0f, 2.0f, 3.0f, 4.0f};

__device__ float clamp01(float v) { return fminf(fmaxf(v, 0.0f), 1.0f); }

__global__ void shade(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = clamp01(in[i] * weights[i & 3]);
}

int main() { return 0; }
