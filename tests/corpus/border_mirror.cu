// Mirror border (edge pixel repeated: -1 -> 0, w -> w-1) in a helper function.
// EXPECT-KERNEL: sobel_mirror 4
// EXPECT-LAUNCH: edges -> sobel_mirror 4
#include <cuda_runtime.h>
#include <cmath>

__device__ __forceinline__ int mirror(int i, int n) {
  if (i < 0) return -i - 1;
  if (i >= n) return 2 * n - i - 1;
  return i;
}

__global__ void sobel_mirror(const float *in, float *mag, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int xm = mirror(x - 1, w), xp = mirror(x + 1, w);
  int ym = mirror(y - 1, h), yp = mirror(y + 1, h);
  float gx = -in[ym * w + xm] + in[ym * w + xp] - 2.0f * in[y * w + xm] + 2.0f * in[y * w + xp] -
             in[yp * w + xm] + in[yp * w + xp];
  float gy = -in[ym * w + xm] - 2.0f * in[ym * w + x] - in[ym * w + xp] + in[yp * w + xm] +
             2.0f * in[yp * w + x] + in[yp * w + xp];
  mag[y * w + x] = sqrtf(gx * gx + gy * gy);
}

extern "C" void edges(const float *in, float *mag, int w, int h) {
  dim3 block(32, 4);
  dim3 grid((w + 31) / 32, (h + 3) / 4);
  sobel_mirror<<<grid, block>>>(in, mag, w, h);
}
