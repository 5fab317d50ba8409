// float4/uchar4 vector types: vectorised copy and RGBA to grayscale.
// EXPECT-KERNEL: copy4 3
// EXPECT-KERNEL: rgba_to_gray 3
// EXPECT-LAUNCH: gray -> rgba_to_gray 3
// EXPECT-LAUNCH: gray -> copy4 3
#include <cuda_runtime.h>

__global__ void copy4(const float4 *__restrict__ in, float4 *__restrict__ out, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 v = in[i];
    out[i] = make_float4(v.x, v.y, v.z, v.w);
  }
}

__global__ void rgba_to_gray(const uchar4 *rgba, float *gray, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uchar4 p = rgba[i];
  gray[i] = (0.299f * p.x + 0.587f * p.y + 0.114f * p.z) / 255.0f;
}

extern "C" void gray(const uchar4 *rgba, float *g, float *copy, int n) {
  rgba_to_gray<<<(n + 255) / 256, 256>>>(rgba, g, n);
  copy4<<<(n / 4 + 255) / 256, 256>>>(reinterpret_cast<const float4 *>(g),
                                       reinterpret_cast<float4 *>(copy), n / 4);
}
