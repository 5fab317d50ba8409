#include <cuda_runtime.h>
#include <cstdio>
#include <cmath>
#include <vector>
#include <algorithm>
#define IDX(x, y, w) ((y) * (w) + (x))
__device__ inline float clampf(float v) { return fminf(fmaxf(v, 0.f), 1.f); }
__global__ void blur(float *__restrict__ out, const float *__restrict__ in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      s += in[IDX(min(max(x + dx, 0), w - 1), min(max(y + dy, 0), h - 1), w)];
  out[IDX(x, y, w)] = clampf(s / 9.0f);
}
extern "C" void pipe(float *o, const float *i, int w, int h) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  blur<<<g, b>>>(o, i, w, h);
  std::vector<int> v; std::sort(v.begin(), v.end()); printf("%f\n", sqrtf(2.f));
}
