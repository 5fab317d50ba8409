// Point operator, 1D, plain indexing: the simplest kernel shape.
// EXPECT-KERNEL: saxpy 4
// EXPECT-LAUNCH: run_saxpy -> saxpy 4
#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" void run_saxpy(int n, float a, const float *dx, float *dy) {
  int threads = 256;
  int blocks = (n + threads - 1) / threads;
  saxpy<<<blocks, threads>>>(n, a, dx, dy);
}
