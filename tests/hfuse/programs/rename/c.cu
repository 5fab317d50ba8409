// A second input whose clashing name is used inside its own macro: renamed with the macro.
#include <cuda_runtime.h>

__device__ float clamp01(float v) { return v; }
#define SAT(v) clamp01(v)

__global__ void sat(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = SAT(in[i]);
}
