// A producer storing each pixel's channels in a loop over a run-time count, and a consumer
// reading the same pixel's channels in a loop: no value-at-element function can take the
// producer, but each thread keeps to its own pixel's channels, so one thread runs the first
// body, then the second (kernel/thread_private.py). A causal row decoded from a 1-D index
// runs so under run-time conditions on the launch's arguments (issue 25).
// RUN: fuse %s -o -
// CODE: __device__ __forceinline__ void cf_colour_sib0_0_to_linear(const float *rgb, float *lin, int w, int h, int nc)
// CODE: __device__ __forceinline__ void cf_colour_sib0_1_luma(const float *lin, float *y, int w, int h, int nc)
// CODE: __global__ void cf_colour_sib0(const float *__restrict__ cf_p0, float *cf_p1, int cf_p2, int cf_p3, int cf_p4, float *__restrict__ cf_p5) {
// CODE-NEXT: cf_colour_sib0_0_to_linear(cf_p0, cf_p1, cf_p2, cf_p3, cf_p4);
// CODE-NEXT: cf_colour_sib0_1_luma(cf_p1, cf_p5, cf_p2, cf_p3, cf_p4);
// CODE: /* cudafuse: to_linear fused into cf_colour_sib0 (one thread runs both) */;
// CODE-NEXT: cf_colour_sib0<<<grid, block>>>(rgb, lin, w, h, nc, y);
// CODE: if (((T) >= 1)) { cf_causal_sib1<<<(B * T + 63) / 64, 64>>>(p, pre, B, T, o); } else { /* cudafuse: the original launches */ row_softmax<<<(B * T + 63) / 64, 64>>>(p, pre, B, T); row_use<<<(B * T + 63) / 64, 64>>>(o, p, B, T); }
// DIAG-NOT: note:
#include <cuda_runtime.h>
__global__ void to_linear(const float *rgb, float *lin, int w, int h, int nc) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    for (int c = 0; c < nc; c++) {
      float v = rgb[(y * w + x) * nc + c];
      lin[(y * w + x) * nc + c] = v <= 0.04f ? v / 12.92f : v * v;
    }
  }
}
__global__ void luma(const float *lin, float *y, int w, int h, int nc) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col >= w || row >= h) return;
  float s = 0.0f;
  for (int c = 0; c < nc; c++) s += lin[(row * w + col) * nc + c] * (c + 1);
  y[row * w + col] = s;
}
void colour(const float *rgb, float *lin, float *y, int w, int h, int nc) {
  dim3 block(32, 4);
  dim3 grid((w + 31) / 32, (h + 3) / 4);
  to_linear<<<grid, block>>>(rgb, lin, w, h, nc);
  luma<<<grid, block>>>(lin, y, w, h, nc);
}
__global__ void row_softmax(float *p, const float *pre, int B, int T) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= B * T) return;
  int t = i % T, b = i / T;
  float s = 0.0f;
  for (int k = 0; k <= t; k++) {
    p[(b * T + t) * T + k] = expf(pre[(b * T + t) * T + k]);
    s += p[(b * T + t) * T + k];
  }
  for (int k = 0; k <= t; k++) p[(b * T + t) * T + k] /= s;
}
__global__ void row_use(float *o, const float *p, int B, int T) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= B * T) return;
  int t = i % T, b = i / T;
  float m = 0.0f;
  for (int k = t; k >= 0; k--) m = fmaxf(m, p[(b * T + t) * T + k]);
  o[i] = m;
}
void causal(float *p, const float *pre, float *o, int B, int T) {
  row_softmax<<<(B * T + 63) / 64, 64>>>(p, pre, B, T);
  row_use<<<(B * T + 63) / 64, 64>>>(o, p, B, T);
}
