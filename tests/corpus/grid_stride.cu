// Grid-stride loops, size_t indices, and a launch sized from the device.
// EXPECT-KERNEL: axpby 5
// EXPECT-KERNEL: fill 3
// EXPECT-LAUNCH: run -> fill 3
// EXPECT-LAUNCH: run -> axpby 5
#include <cuda_runtime.h>
#include <cstddef>

__global__ void fill(float *p, float v, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)blockDim.x * gridDim.x)
    p[i] = v;
}

__global__ void axpby(float a, const float *x, float b, float *y, int n) {
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    y[i] = a * x[i] + b * y[i];
  }
}

extern "C" void run(float *x, float *y, int n) {
  int sms = 132;
  fill<<<sms * 4, 256>>>(y, 1.0f, (size_t)n);
  axpby<<<sms * 4, 256>>>(2.0f, x, 0.5f, y, n);
}
