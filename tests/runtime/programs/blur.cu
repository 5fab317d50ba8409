// A two-kernel pipeline and variants for `cudafuse run` / `verify` tests.
#include <cuda_runtime.h>

__global__ void blur(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float a = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      a += in[min(max(y + dy, 0), h - 1) * w + min(max(x + dx, 0), w - 1)];
  out[y * w + x] = a / 9.0f;
}

__global__ void gain(const float *in, float *out, int w, int h, float g) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = BUG(in[y * w + x] * g);
}

void pipeline(const float *img, float *tmp, float *out, int w, int h, float g) {
  dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
  blur<<<grid, block>>>(img, tmp, w, h);
  gain<<<grid, block>>>(tmp, out, w, h, g);
}
