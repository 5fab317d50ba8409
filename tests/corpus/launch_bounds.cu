// __launch_bounds__ with one and two arguments, and __restrict__ / const pointers.
// EXPECT-KERNEL: scale 3
// EXPECT-KERNEL: offset 3
// EXPECT-LAUNCH: run_both -> scale 3
// EXPECT-LAUNCH: run_both -> offset 3
#include <cuda_runtime.h>

#define BLOCK 128

__global__ void __launch_bounds__(BLOCK) scale(float *__restrict__ v, const float s, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) v[i] *= s;
}

__global__ void __launch_bounds__(256, 4)
offset(const float *const __restrict__ in, float *const __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1.0f;
}

extern "C" void run_both(float *v, float *o, int n) {
  scale<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(v, 2.0f, n);
  offset<<<(n + 255) / 256, 256>>>(v, o, n);
}
