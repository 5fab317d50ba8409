// Shapes of code written by others (issue 25), as fused: a filter size passed as a literal
// (k = 3: the interior bound w - r reads as w - 1), an interior-only last kernel storing the
// intermediate before its guard under the producer's bounds, a 2-D image walked by a 1-D
// grid (x = i % w, y = i / w), and a stencil staged in shared memory whose tile loads
// compute the producer through the view.
// RUN: fuse %s -o -
// CODE-LABEL: __global__ void cf_p_interior_fused0(
// CODE: int r = k / 2;
// CODE-NEXT: if ((x) < (w) && (y) < (h)) cf_p5[(long long)(y) * (w) + (x)] = t.at2(x, y, (w)); if (x < r || y < r || x >= w - r || y >= h - r) return;
// CODE: out[y * w + x] = t.at2(0 + (x) + (1), (y), (w)) - t.at2(0 + (x) - (1), (y), (w));
// CODE: cf_p_interior_fused0<<<g, b>>>(out, w, h, 3, in, t);
// CODE-LABEL: __global__ void cf_p_linear_fused1(
// CODE: int x = i % w, y = i / w;
// CODE: cf_p4[y * w + x] = cf_e0, out[y * w + x] = t.at2(0 + (max((x - 1), 0)), (y), (w)) + cf_e0;
// CODE-LABEL: __global__ void cf_p_staged_fused2(
// CODE: __shared__ float tile[18][18];
// CODE: tile[dy][dx] = t.at2(0 + (gx), (gy), (w));
// CODE-NEXT: }
// CODE-NEXT: __syncthreads();
// CODE-NOT: t[gy * w + gx]
// CODE: cf_p4[y * w + x] = cf_e0, out[y * w + x] = tile[threadIdx.y][threadIdx.x + 1]
// DIAG-NOT: error
#include <cuda_runtime.h>
__global__ void gray(const float *in, float *t, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  t[y * w + x] = in[y * w + x] * 0.5f;
}
__global__ void sobel(const float *t, float *out, int w, int h, int k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int r = k / 2;
  if (x < r || y < r || x >= w - r || y >= h - r) return;
  out[y * w + x] = t[y * w + x + 1] - t[y * w + x - 1];
}
void p_interior(const float *in, float *t, float *out, int w, int h) {
  dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
  gray<<<g, b>>>(in, t, w, h);
  sobel<<<g, b>>>(t, out, w, h, 3);
}
__global__ void box_linear(const float *t, float *out, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < w * h) {
    int x = i % w, y = i / w;
    out[y * w + x] = t[y * w + max(x - 1, 0)] + t[i];
  }
}
void p_linear(const float *in, float *t, float *out, int w, int h) {
  gray<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(in, t, w, h);
  box_linear<<<(w * h + 127) / 128, 128>>>(t, out, w, h);
}
__global__ void blur_staged(const float *t, float *out, int w, int h) {
  __shared__ float tile[18][18];
  int x = blockIdx.x * 16 + threadIdx.x;
  int y = blockIdx.y * 16 + threadIdx.y;
  for (int dy = threadIdx.y; dy < 18; dy += 16)
    for (int dx = threadIdx.x; dx < 18; dx += 16) {
      int gx = min(max((int)(blockIdx.x * 16) + dx - 1, 0), w - 1);
      int gy = min(max((int)(blockIdx.y * 16) + dy - 1, 0), h - 1);
      tile[dy][dx] = t[gy * w + gx];
    }
  __syncthreads();
  if (x < w && y < h)
    out[y * w + x] = tile[threadIdx.y][threadIdx.x + 1] + tile[threadIdx.y + 2][threadIdx.x + 1];
}
void p_staged(const float *in, float *t, float *out, int w, int h) {
  dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
  gray<<<g, b>>>(in, t, w, h);
  blur_staged<<<g, b>>>(t, out, w, h);
}
