// A producer that stores a zero border and returns, then stores the interior's value: one
// store at most runs on each path, so its value-at-element function returns each store's
// value, and the `return;` after the border's store (never reached there) returns the
// element's contents in memory, as a thread leaving without a store leaves it (issue 25).
// RUN: fuse %s -o - --scratch g
// CODE: float cf_edges_fused0_0_grad_g_xy(long long cf_x, long long cf_y,
// CODE: if (x >= w || y >= h) return g[y * (w) + x];
// CODE-NEXT: if (x == 0 || x == w - 1) {
// CODE-NEXT: return cf_round(0.0f);
// CODE-NEXT: return g[y * (w) + x];
// CODE-NEXT: }
// CODE-NEXT: return cf_round(in[y * w + x + 1] - in[y * w + x - 1]);
// CODE-NEXT: return g[y * (w) + x];
// CODE: __global__ void cf_edges_fused0(
// CODE: out[y * w + x] = fabsf(g.at2(0 + (x), (y), (w)));
// CODE: /* cudafuse: grad fused into cf_edges_fused0 */;
// CODE-NEXT: cf_edges_fused0<<<grid, block>>>(out, w, h, in, g);
// DIAG-NOT: note:
#include <cuda_runtime.h>
__global__ void grad(const float *in, float *g, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  if (x == 0 || x == w - 1) {
    g[y * w + x] = 0.0f;
    return;
  }
  g[y * w + x] = in[y * w + x + 1] - in[y * w + x - 1];
}
__global__ void mag(const float *g, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = fabsf(g[y * w + x]);
}
extern "C" void edges(const float *in, float *g, float *out, int w, int h) {
  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
  grad<<<grid, block>>>(in, g, w, h);
  mag<<<grid, block>>>(g, out, w, h);
}
