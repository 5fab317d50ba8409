// Mirror-101 border (edge pixel not repeated: -1 -> 1, w -> w-2), inline with ternaries.
// EXPECT-KERNEL: laplace_mirror101 4
// EXPECT-LAUNCH: laplace -> laplace_mirror101 4
#include <cuda_runtime.h>

#define REFLECT101(i, n) ((i) < 0 ? -(i) : (i) >= (n) ? 2 * (n) - (i) - 2 : (i))

__global__ void laplace_mirror101(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    int l = REFLECT101(x - 1, w), r = REFLECT101(x + 1, w);
    int u = REFLECT101(y - 1, h), d = REFLECT101(y + 1, h);
    out[y * w + x] = in[y * w + l] + in[y * w + r] + in[u * w + x] + in[d * w + x] -
                     4.0f * in[y * w + x];
  }
}

extern "C" void laplace(const float *in, float *out, int w, int h) {
  dim3 b(16, 8);
  dim3 g((w + b.x - 1) / b.x, (h + b.y - 1) / b.y);
  laplace_mirror101<<<g, b>>>(in, out, w, h);
}
