// A type of the same name in both inputs (here and in e.cu), with other members.
#include <cuda_runtime.h>

struct Acc {
  float sum;
  int n;
};
typedef Acc AccT;

__device__ AccT add(AccT a, float v) { return AccT{a.sum + v, a.n + 1}; }

__global__ void mean3(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Acc a{0.0f, 0};
  for (int k = 0; k < 3; ++k) a = add(a, in[(i + k) % n]);
  out[i] = a.sum / a.n;
}
