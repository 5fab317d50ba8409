// 3x3 stencil, clamp-to-edge border written with min/max.
// EXPECT-KERNEL: blur3x3_clamp 4
// EXPECT-LAUNCH: blur_clamp -> blur3x3_clamp 4
#include <cuda_runtime.h>

__global__ void blur3x3_clamp(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  for (int dy = -1; dy <= 1; dy++) {
    for (int dx = -1; dx <= 1; dx++) {
      int xx = max(0, min(x + dx, w - 1));
      int yy = max(0, min(y + dy, h - 1));
      s += in[yy * w + xx];
    }
  }
  out[y * w + x] = s * (1.0f / 9.0f);
}

extern "C" void blur_clamp(const float *in, float *out, int w, int h) {
  dim3 b(16, 16);
  blur3x3_clamp<<<dim3((w + 15) / 16, (h + 15) / 16), b>>>(in, out, w, h);
}
