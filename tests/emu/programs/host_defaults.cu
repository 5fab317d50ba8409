// Default arguments as third-party host code writes them: on a prototype and not on the
// definition, in a namespace, after a pointer and a size, beside a libm name (round) whose
// one-argument call would be ambiguous, and on an overload.
#include <cmath>
#include <cuda_runtime.h>

namespace img {
int clamp_to(int v, int hi = 255);  // the default is on this declaration only
int clamp_to(int v, int hi) { return v > hi ? hi : v; }
}  // namespace img

__global__ void fill_kernel(float *out, float value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

void fill(float *out, int n, float value = 2.5f, int block = 64) {
  fill_kernel<<<(n + block - 1) / block, block>>>(out, value, n);
}

double round(double x, int digits = 0) { return std::floor(x * std::pow(10.0, digits)); }

int scale(int a, int k = 10) { return a * k; }
float scale(float a) { return a * 0.5f; }
