// A 3x3 stencil that stages its input's tile and halo in shared memory (Hipacc's local
// operator) is recomputed by the point kernel after it: its value function reads the input
// where the tile's load did, over the coordinates (kernel/staged_tile.py); no tile, barrier
// or thread index is left in it, and t, a scratch buffer, is no longer written.
// RUN: fuse %s -o - --scratch t
// CODE: __device__ __forceinline__ float cf_pipe_fused0_0_blur_out_xy(long long cf_x, long long cf_y,
// CODE: const int x = (int)(cf_x); const int y = (int)(cf_y);
// CODE-NOT: tile[
// CODE-NOT: __syncthreads
// CODE: acc += 0.125f * (i + 2 * j + 4) * in[((min(max((y + j), 0), (h - 1)) * w) + min(max((x + i), 0), (w - 1)))];
// CODE: __global__ void cf_pipe_fused0(float *out, int w, int h, const float *cf_p3)
// CODE: out[y * w + x] = 2.0f * t.at2(0 + (x), (y), (w)) + 1.0f;
// CODE: /* cudafuse: blur fused into cf_pipe_fused0 */
// CODE-NEXT: cf_pipe_fused0<<<grid, block>>>(out, w, h, img);
#include <cuda_runtime.h>
#define TW 8
#define TH 4
__global__ void blur(const float *in, float *out, int w, int h) {
  __shared__ float tile[TH + 2][TW + 2];
  const int x = blockIdx.x * TW + threadIdx.x;
  const int y = blockIdx.y * TH + threadIdx.y;
  for (int ty = threadIdx.y; ty < TH + 2; ty += TH)
    for (int tx = threadIdx.x; tx < TW + 2; tx += TW)
      tile[ty][tx] = in[min(max((int)(blockIdx.y * TH) + ty - 1, 0), h - 1) * w +
                        min(max((int)(blockIdx.x * TW) + tx - 1, 0), w - 1)];
  __syncthreads();
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int j = -1; j <= 1; ++j)
      for (int i = -1; i <= 1; ++i)
        acc += 0.125f * (i + 2 * j + 4) * tile[threadIdx.y + 1 + j][threadIdx.x + 1 + i];
    out[y * w + x] = acc;
  }
}
__global__ void scale(const float *t, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = 2.0f * t[y * w + x] + 1.0f;
}
extern "C" void pipe(const float *img, float *t, float *out, int w, int h) {
  dim3 block(TW, TH);
  dim3 grid((w + TW - 1) / TW, (h + TH - 1) / TH);
  blur<<<grid, block>>>(img, t, w, h);
  scale<<<grid, block>>>(t, out, w, h);
}
