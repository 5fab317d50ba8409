// Kernels and helpers inside (nested and anonymous) namespaces, launched qualified.
// EXPECT-KERNEL: gain 3
// EXPECT-KERNEL: bias 3
// EXPECT-LAUNCH: apply -> gain 3
// EXPECT-LAUNCH: apply -> bias 3
#include <cuda_runtime.h>

namespace img {
namespace detail {
__device__ inline int gid() { return blockIdx.x * blockDim.x + threadIdx.x; }
}  // namespace detail

__global__ void gain(float *p, float g, int n) {
  int i = detail::gid();
  if (i < n) p[i] *= g;
}
}  // namespace img

namespace {
__global__ void bias(float *p, float b, int n) {
  int i = img::detail::gid();
  if (i < n) p[i] += b;
}
}  // namespace

extern "C" void apply(float *p, int n) {
  img::gain<<<(n + 255) / 256, 256>>>(p, 2.0f, n);
  bias<<<(n + 255) / 256, 256>>>(p, -1.0f, n);
}
