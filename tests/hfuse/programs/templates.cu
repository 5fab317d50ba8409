// Template kernels, fused by tests/hfuse/test_hfuse_templates.py with their arguments named
// on the command line (--kernels 'box1d<float, 2>,scale<int>'). Host wrappers launch the
// originals (a template kernel has no extern "C" name of its own).
#include <cuda_runtime.h>

#define BOX_BLOCK 128

// A type and a radius; a shared tile sized by the radius, a barrier, clamped borders.
template <typename T, int R>
__global__ void box1d(const T *__restrict__ in, T *__restrict__ out, int n) {
  __shared__ T tile[BOX_BLOCK + 2 * R];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = threadIdx.x; k < BOX_BLOCK + 2 * R; k += blockDim.x) {
    int g = min(max((int)(blockIdx.x * blockDim.x) + k - R, 0), n - 1);
    tile[k] = in[g];
  }
  __syncthreads();
  if (i >= n) return;
  T acc = T(0);
  for (int d = -R; d <= R; ++d)
    acc += tile[threadIdx.x + R + d];
  out[i] = acc / T(2 * R + 1);
}

// A type parameter with a default, used in the parameter list as a value.
template <typename T, typename S = T>
__global__ void scale(T *x, S a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    x[i] = x[i] * a + T(threadIdx.x % 3);
}

// A non-type parameter whose type is an earlier type parameter.
template <typename T, T Bias>
__global__ void add_bias(T *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += Bias;
}

extern "C" void run_box1d_f2(const float *in, float *out, int n) {
  box1d<float, 2><<<(n + BOX_BLOCK - 1) / BOX_BLOCK, BOX_BLOCK>>>(in, out, n);
}

extern "C" void run_box1d_i1(const int *in, int *out, int n) {
  box1d<int, 1><<<(n + BOX_BLOCK - 1) / BOX_BLOCK, BOX_BLOCK>>>(in, out, n);
}

extern "C" void run_scale_i(int *x, int a, int n) { scale<int><<<3, 64>>>(x, a, n); }

extern "C" void run_add_bias(int *x, int n) {
  add_bias<int, 7><<<(n + 63) / 64, 64>>>(x, n);
}
