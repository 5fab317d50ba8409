// Stencils that stage their input's tile and halo in shared memory (Hipacc's local
// operators), as producers: recomputed reading the input itself (kernel/staged_tile.py).
#include <cuda_runtime.h>
#define TW 8
#define TH 4
#define RX 2
#define RY 1
// A 5x3 stencil (asymmetric weights) whose block stages its input's tile and halo, clamped
// into the image, in loops every thread runs (steps of the block's size, a constant and
// blockDim.x), then reads the tile under the bounds guard.
__global__ void blur(const float *in, float *out, int w, int h) {
  __shared__ float tile[TH + 2 * RY][TW + 2 * RX];
  const int x = blockIdx.x * TW + threadIdx.x;
  const int y = blockIdx.y * TH + threadIdx.y;
  for (int ty = threadIdx.y; ty < TH + 2 * RY; ty += TH)
    for (int tx = threadIdx.x; tx < TW + 2 * RX; tx += blockDim.x) {
      const int gx = min(max((int)(blockIdx.x * TW) + tx - RX, 0), w - 1);
      const int gy = min(max((int)(blockIdx.y * TH) + ty - RY, 0), h - 1);
      tile[ty][tx] = in[gy * w + gx];
    }
  __syncthreads();
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int j = -RY; j <= RY; ++j)
      for (int i = -RX; i <= RX; ++i)
        acc += (0.05f * (i + 3) + 0.1f * j) * tile[threadIdx.y + RY + j][threadIdx.x + RX + i];
    out[y * w + x] = acc;
  }
}
__global__ void scale(const float *t, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = 2.0f * t[y * w + x] + 1.0f;
}
__global__ void vdiff(const float *t, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = t[min(y + 1, h - 1) * w + x] - t[max(y - 1, 0) * w + x];
}
// A tiled producer read by a point kernel.
extern "C" void point(const float *img, float *t, float *out, int w, int h) {
  dim3 block(TW, TH);
  dim3 grid((w + TW - 1) / TW, (h + TH - 1) / TH);
  blur<<<grid, block>>>(img, t, w, h);
  scale<<<grid, block>>>(t, out, w, h);
}
// Two tiled stages, then a stencil across rows.
extern "C" void stencil(const float *img, float *t, float *u, float *out, int w, int h) {
  dim3 block(TW, TH);
  dim3 grid((w + TW - 1) / TW, (h + TH - 1) / TH);
  blur<<<grid, block>>>(img, t, w, h);
  blur<<<grid, block>>>(t, u, w, h);
  vdiff<<<grid, block>>>(u, out, w, h);
}
// A tiled stage read by a tiled stage (the last kernel keeps its tile).
extern "C" void twice(const float *img, float *t, float *out, int w, int h) {
  dim3 block(TW, TH);
  dim3 grid((w + TW - 1) / TW, (h + TH - 1) / TH);
  blur<<<grid, block>>>(img, t, w, h);
  blur<<<grid, block>>>(t, out, w, h);
}
