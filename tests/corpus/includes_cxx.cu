// C++ standard library headers in host code (<memory> uses __attribute__((__noinline__))
// since GCC 12, which a __noinline__ macro would break) and a __noinline__ device helper.
// EXPECT-KERNEL: scale_noinline 3
// EXPECT-LAUNCH: run_scale -> scale_noinline 3
#include <algorithm>
#include <iostream>
#include <memory>
#include <vector>
#include <cuda_runtime.h>

__device__ __noinline__ float twice(float v) { return 2.0f * v; }

__global__ void scale_noinline(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = twice(in[i]);
}

extern "C" void run_scale(const float *in, float *out, int n) {
  std::vector<int> sizes{n, 256};
  auto block = std::make_unique<int>(*std::min_element(sizes.begin(), sizes.end()));
  if (*block <= 0) {
    std::cerr << "bad n\n";
    return;
  }
  scale_noinline<<<(n + *block - 1) / *block, *block>>>(in, out, n);
}
