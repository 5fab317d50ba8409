// A stencil reads `a` before a later kernel of the same group updates `a` in place; the
// last kernel reads the updated `a`. With `a` and `b` scratch the three launches fuse: the
// stencil must read `a` from memory (as it was before the group), not through the in-place
// update's value function (tests/fusion/test_fuse_read_before_update.py).
#include <cuda_runtime.h>

__global__ void smooth(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float l = i > 0 ? a[i - 1] : a[i];
    float r = i + 1 < n ? a[i + 1] : a[i];
    b[i] = 0.25f * l + 0.5f * a[i] + 0.25f * r;
  }
}

__global__ void accumulate(float *a, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += b[i];
}

__global__ void finish(const float *a, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] * a[i] - 1.0f;
}

extern "C" void run(float *a, float *b, float *out, int n) {
  int threads = 128;
  int blocks = (n + threads - 1) / threads;
  smooth<<<blocks, threads>>>(a, b, n);
  accumulate<<<blocks, threads>>>(a, b, n);
  finish<<<blocks, threads>>>(a, out, n);
}
