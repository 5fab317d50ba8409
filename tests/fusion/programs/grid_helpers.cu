// Grids sized by a helper template from a user header (host/resolver.py inlines it), and a
// grid the caller passes in against a kernel bound held in a once-set local
// (host/runtime_check.py builds the coverage check from the local's initialiser).
#include <cuda_runtime.h>
#include "grid_helpers_util.cuh"

__global__ void gh_scale(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  t[i] = in[i] * 3.0f;
}

__global__ void gh_add(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = t[i] + 1.0f;
}

__global__ void gh_head(const float *in, float *t, int n, int tail) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int last = n - tail;
  if (i >= last) return;
  t[i] = in[i] - 0.5f;
}

__global__ void gh_twice(const float *t, float *out, int n, int tail) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int last = n - tail;
  if (i >= last) return;
  out[i] = t[i] * 2.0f;
}

void gh_template_grid(const float *in, float *t, float *out, int n) {
  const int threads = 128;
  gh_scale<<<ceil_div(n, threads), threads>>>(in, t, n);
  gh_add<<<ceil_div(n, threads), threads>>>(t, out, n);
}

void gh_caller_grid(const float *in, float *out, int n, dim3 grid, dim3 block) {
  float *t;
  cudaMalloc(&t, n * sizeof(float));
  gh_head<<<grid, block>>>(in, t, n, 3);
  gh_twice<<<grid, block>>>(t, out, n, 3);
  cudaFree(t);
}
