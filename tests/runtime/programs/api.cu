// Host functions and kernels with every kind of parameter `call` converts.
#include <cuda_runtime.h>

typedef float real;
enum Mode { ADD = 0, MUL = 1 };

__global__ void fill(real *out, real v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = v + i;
}

__global__ void geometry(unsigned *out) {
  int t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  int b = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  int i = b * blockDim.x * blockDim.y * blockDim.z + t;
  out[4 * i + 0] = threadIdx.x + 10 * threadIdx.y + 100 * threadIdx.z;
  out[4 * i + 1] = blockIdx.x + 10 * blockIdx.y + 100 * blockIdx.z;
  out[4 * i + 2] = blockDim.x + 10 * blockDim.y + 100 * blockDim.z;
  out[4 * i + 3] = gridDim.x + 10 * gridDim.y + 100 * gridDim.z;
}

double scalars(signed char c, unsigned char uc, short s, unsigned short us, int i, unsigned u,
               long long ll, unsigned long long ull, float f, double d, bool b, size_t z,
               Mode m) {
  return c + uc + s + us + i + u + (double)ll + (double)ull + f + d + (b ? 1000 : 0) + z +
         (m == MUL ? 0.5 : 0.0);
}

static void launch_dims(unsigned *out, dim3 grid, dim3 block, cudaStream_t stream) {
  geometry<<<grid, block, 0, stream>>>(out);
}

extern "C" int apply(float *x, const float *y, int n, Mode m) {
  for (int i = 0; i < n; ++i) x[i] = m == ADD ? x[i] + y[i] : x[i] * y[i];
  return n;
}

namespace outer {
namespace inner {
float4 *first_of(float4 *v, int n) { v[n - 1] = v[0]; return v; }
}  // namespace inner
}  // namespace outer

int overloaded(int a) { return a; }
float overloaded(float a) { return a; }

// In place when dst and src are one buffer: every element becomes src[0].
void shift_right(float *dst, const float *src, int n) {
  for (int i = 1; i < n; ++i) dst[i] = src[i - 1];
}
