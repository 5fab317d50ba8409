// Host pipelines whose kernels live in files this one includes (Rodinia, Parboil and
// cuda-samples keep them in `*_kernel.cu`/`*_kernel.cuh`): fused into kernels emitted here,
// the included files left as they are.
#include <cuda_runtime.h>
#include "included_kernels_image.cuh"
#include "included_kernels_step.cu"

__global__ void ik_offset(const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = b[i] + 0.125f;
}

// Three kernels of the .cuh: point, stencil, point.
void ik_image(const float *in, float *a, float *b, float *out, int w, int h) {
  dim3 block(16, 8);
  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  ik_brighten<<<grid, block>>>(in, a, w, h);
  ik_blur<<<grid, block>>>(a, b, w, h);
  ik_square<<<grid, block>>>(b, out, w, h);
}

// Two kernels of the .cu kernel file, then one of this file's.
void ik_step(const float *in, float *t, float *u, float *out, int w, int h) {
  int n = w * h;
  int blocks = (n + STEP_BLOCK - 1) / STEP_BLOCK;
  step_scale<<<blocks, STEP_BLOCK>>>(in, t, n);
  step_smooth<<<blocks, STEP_BLOCK>>>(t, u, n);
  ik_offset<<<blocks, STEP_BLOCK>>>(u, out, n);
}
