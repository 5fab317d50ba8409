// A kernel file in Rodinia's layout (`#include "x_kernel.cu"` from the main file): 1-D
// kernels over n = w * h elements.
#ifndef _INCLUDED_KERNELS_STEP_CU_
#define _INCLUDED_KERNELS_STEP_CU_

#define STEP_BLOCK 128

__global__ void step_scale(const float *in, float *t, int n) {
  int i = blockIdx.x * STEP_BLOCK + threadIdx.x;
  if (i < n) t[i] = in[i] * 2.0f - 1.0f;
}

__global__ void step_smooth(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float l = t[i > 0 ? i - 1 : 0];
    float r = t[i + 1 < n ? i + 1 : n - 1];
    out[i] = 0.25f * l + 0.5f * t[i] + 0.25f * r;
  }
}

#endif
