// Null pointer constants passed straight to kernels, as C-style host code does: NULL and a
// literal 0 for pointer parameters, beside nullptr, a cast 0 and a template kernel.
#include <cstddef>
#include <cuda_runtime.h>

__global__ void maybe_scale(const float *in, const int *mask, float *out, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in ? in[i] : 1.0f;
  if (mask == NULL || mask[i]) out[i] = v * s;
}

template <typename T>
__global__ void fill(T *out, const T *src, T value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = src ? src[i] : value;
}

extern "C" void run_nulls(const float *in, const int *mask, float *a, float *b, float *c,
                          float *d, float *e, int n) {
  maybe_scale<<<(n + 31) / 32, 32>>>(NULL, NULL, a, 2.0f, n);
  maybe_scale<<<(n + 31) / 32, 32>>>(in, 0, b, 3.0f, n);
  maybe_scale<<<(n + 31) / 32, 32>>>(in, mask, c, 4.0f, n);
  maybe_scale<<<(n + 31) / 32, 32>>>(nullptr, (const int *)0, d, 5.0f, n);
  fill<float><<<(n + 31) / 32, 32>>>(e, NULL, 7.0f, n);
}

// A kernel that gives up the way CUDA code does when an invariant fails.
__global__ void check_positive(const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] < 0.0f) __trap();
}
