// Kernels, and prototypes of launchers own_memory.cu defines (issue 25, session 12).
#pragma once
#include <cstdio>
#include <cuda_runtime.h>

__global__ void os_scale(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * 2.0f + 1.0f;
}

__global__ void os_offset(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] - 3.0f;
}

__global__ void os_square(const float *t, float *u, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) u[i] = t[i] * t[i];
}

// Launchers the program defines (own_memory.cu): their first declarations are these.
void om_scale_timed(const float *in, float *t, int n);
void om_stage_square(const float *t, float *u, int n);
