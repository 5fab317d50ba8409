// Several host functions (not only extern "C"), a host helper that launches a template,
// and a main() that drives everything.
// EXPECT-KERNEL: fill_value 3
// EXPECT-KERNEL: accumulate 3
// EXPECT-LAUNCH: init -> fill_value 3
// EXPECT-LAUNCH: accumulate_n -> accumulate 3
// EXPECT-LAUNCH: main -> fill_value 3
#include <cstdio>
#include <cuda_runtime.h>

template <typename T>
__global__ void fill_value(T *p, T v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}

__global__ void accumulate(float *acc, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) acc[i] += x[i];
}

static void init(float *p, int n) { fill_value<float><<<(n + 255) / 256, 256>>>(p, 0.0f, n); }

void accumulate_n(float *acc, const float *x, int n, int times) {
  for (int t = 0; t < times; ++t) accumulate<<<(n + 255) / 256, 256>>>(acc, x, n);
}

int main() {
  const int n = 1 << 16;
  float *acc, *x;
  cudaMalloc(&acc, n * sizeof(float));
  cudaMalloc(&x, n * sizeof(float));
  init(acc, n);
  fill_value<<<(n + 255) / 256, 256>>>(x, 1.0f, n);
  accumulate_n(acc, x, n, 3);
  float h = 0;
  cudaMemcpy(&h, acc, sizeof(float), cudaMemcpyDeviceToHost);
  printf("%f\n", h);
  cudaFree(acc);
  cudaFree(x);
  return 0;
}
