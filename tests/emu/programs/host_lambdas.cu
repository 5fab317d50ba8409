// Lambdas as third-party host code passes them: an extended __host__ __device__ lambda
// captured by value and given to a template kernel, from a host template whose arguments are
// deduced at its call; an rvalue-reference parameter; a generic lambda on the host.
#include <utility>
#include <cuda_runtime.h>

template <class F>
__global__ void map(float *out, const float *in, int n, F f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = f(in[i]);
}

template <class T> void run_map(T *out, const T *in, int n, T k) {
  auto scale = [=] __host__ __device__(T x) { return x * k + T(1); };
  map<<<(n + 31) / 32, 32>>>(out, in, n, scale);
}

void scale_by(float *out, const float *in, int n, float k) { run_map(out, in, n, k); }

float plus_one(float &&x) { return x + 1.0f; }

int count_above(const int *v, int n, int t) {
  auto above = [t](auto x) { return x > t; };
  int c = 0;
  for (int i = 0; i < n; ++i) c += above(v[i]);
  return c;
}
