// Kernel launches written inside macro arguments (tests/emu/test_emu_macro_launch.py).
#include <cstdio>
#include <cuda_runtime.h>

static int g_errors = 0;
#define CHECK(...)                                        \
  do {                                                    \
    __VA_ARGS__;                                          \
    if (cudaGetLastError() != cudaSuccess) g_errors++;    \
  } while (0)
#define checkKernelErrors(expr) \
  do {                          \
    expr;                       \
    cudaDeviceSynchronize();    \
  } while (0)
#define WRAP(x) x
#define BLOCKS(n) (((n) + 127) / 128)

__global__ void scale(float *a, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= s;
}

template <typename T>
__global__ void add_const(T *a, T c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += c;
}

__global__ void block_sum(const float *a, float *out, int n) {
  __shared__ float s[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? a[i] : 0.0f;
  __syncthreads();
  for (int k = 64; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

// a = ((a * 2 + 1) * 3 - 0.5) * 0.5, then per-block sums of a into sums.
int pipeline(float *a, float *sums, int n) {
  float *d, *ds;
  cudaMalloc(&d, n * sizeof(float));
  cudaMalloc(&ds, BLOCKS(n) * sizeof(float));
  cudaMemcpy(d, a, n * sizeof(float), cudaMemcpyHostToDevice);
  CHECK(scale<<<BLOCKS(n), 128>>>(d, 2.0f, n));                 // variadic macro
  CHECK(add_const<float><<<BLOCKS(n), 128>>>(d, 1.0f, n));      // template kernel
  checkKernelErrors((scale<<<BLOCKS(n), 128, 0>>>(d, 3.0f, n)));  // parenthesised
  CHECK(WRAP((add_const<<<dim3(BLOCKS(n)), dim3(128)>>>(d, -0.5f, n))));  // two macros
  CHECK(scale<<<BLOCKS(n), 128>>>(d, 0.5f, n);
        block_sum<<<BLOCKS(n), 128>>>(d, ds, n));  // two launches in one invocation
  cudaMemcpy(a, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(sums, ds, BLOCKS(n) * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d);
  cudaFree(ds);
  return g_errors;
}
