// Constant border: out-of-range reads are guarded and replaced by a fixed value.
// EXPECT-KERNEL: dilate_const 5
// EXPECT-LAUNCH: dilate -> dilate_const 5
#include <cuda_runtime.h>

__global__ void dilate_const(const float *in, float *out, int w, int h, float border) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float m = -1e30f;
  for (int dy = -1; dy <= 1; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      int xx = x + dx, yy = y + dy;
      float v = border;
      if (xx >= 0 && xx < w && yy >= 0 && yy < h) v = in[yy * w + xx];
      m = fmaxf(m, v);
    }
  }
  out[y * w + x] = m;
}

extern "C" void dilate(const float *in, float *out, int w, int h) {
  dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
  dilate_const<<<g, b>>>(in, out, w, h, 0.0f);
}
