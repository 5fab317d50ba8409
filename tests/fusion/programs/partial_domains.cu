// Producers that do not write every element: guards with lower bounds (interior only),
// early returns on the border, stores under if/else, and in-place updates at the own
// element. The fused code must leave every element a producer skips as it was in memory.
#include <cuda_runtime.h>
#define AT(x, y) ((y) * w + (x))

// 2D, an interior-only enclosing guard, indexing through a macro.
__global__ void interior(const float *in, float *t, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= 1 && i < w - 1 && j >= 1 && j < h - 1)
    t[AT(i, j)] = (in[AT(i - 1, j)] + in[AT(i, j)] + in[AT(i + 1, j)]) * 0.25f;
}
// 2D, an early return on the border columns; reads the producer with a clamped stencil.
__global__ void cols_only(const float *in, float *t, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || x >= w - 1 || y >= h) return;
  t[y * w + x] = in[y * w + x] * 3.0f - 1.0f;
}
// 2D, a lower bound in y only (`j > 0 && j < h && i < w`).
__global__ void below_first_row(const float *in, float *t, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (j > 0 && j < h && i < w) t[j * w + i] = in[(j - 1) * w + i] - in[j * w + i];
}
__global__ void blur_clamped(const float *t, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  for (int d = -1; d <= 1; ++d) {
    int xx = min(max(x + d, 0), w - 1);
    int yy = min(max(y + d, 0), h - 1);
    s += t[yy * w + xx] + t[y * w + xx];
  }
  out[y * w + x] = s;
}
__global__ void point2(const float *t, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = t[y * w + x] * 0.5f + 2.0f;
}
// The consumer's own interior guard restricts what it computes.
__global__ void interior_sink(const float *t, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || x >= w - 1 || y < 1 || y >= h - 1) return;
  out[y * w + x] = t[y * w + x - 1] - t[y * w + x + 1] + t[(y - 1) * w + x];
}

extern "C" void p_interior(const float *in, float *t, float *out, int w, int h) {
  dim3 b(16, 4), g((w + 15) / 16, (h + 3) / 4);
  interior<<<g, b>>>(in, t, w, h);
  blur_clamped<<<g, b>>>(t, out, w, h);
}
extern "C" void p_cols(const float *in, float *t, float *out, int w, int h) {
  dim3 b(16, 4), g((w + 15) / 16, (h + 3) / 4);
  cols_only<<<g, b>>>(in, t, w, h);
  interior_sink<<<g, b>>>(t, out, w, h);
}
extern "C" void p_rows(const float *in, float *t, float *out, int w, int h) {
  dim3 b(16, 4), g((w + 15) / 16, (h + 3) / 4);
  below_first_row<<<g, b>>>(in, t, w, h);
  point2<<<g, b>>>(t, out, w, h);
}

// 1D: a store under if/else, then an in-place update at the own element (`a[i] += ...`),
// then a consumer reading both with clamped neighbours.
__global__ void select1(const float *in, float *t, int n, float th) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  if (v > th)
    t[i] = v * 2.0f;
  else
    t[i] = -v;
}
__global__ void only_some(const float *in, float *t, int n, float th) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (in[i] < th) t[i] = in[i] + 10.0f;  // no else: the element keeps its contents
  }
}
__global__ void accumulate(float *a, const float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += t[i] * 0.5f;
}
__global__ void diff1(const float *a, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = a[i] - a[i > 0 ? i - 1 : 0] + a[i + 1 < n ? i + 1 : n - 1];
}
extern "C" void p_select(const float *in, float *t, float *a, float *out, int w, int h) {
  int n = w * h;
  select1<<<(n + 63) / 64, 64>>>(in, t, n, 0.5f);
  accumulate<<<(n + 63) / 64, 64>>>(a, t, n);
  diff1<<<(n + 63) / 64, 64>>>(a, out, n);
}
extern "C" void p_some(const float *in, float *t, float *out, int w, int h) {
  int n = w * h;
  only_some<<<(n + 63) / 64, 64>>>(in, t, n, 0.5f);
  diff1<<<(n + 63) / 64, 64>>>(t, out, n);
}

// FDTD-style updates in place: e reads h at i - 1, h reads e at i + 1.
__global__ void update_e(float *e, const float *hf, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n) e[i] = e[i] - 0.5f * (hf[i] - hf[i - 1]);
}
__global__ void update_h(const float *e, float *hf, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 1) hf[i] = hf[i] - 0.5f * (e[i + 1] - e[i]);
}
__global__ void scale_e(const float *e, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = e[i] * 4.0f;
}
extern "C" void p_fdtd(float *e, float *hf, int w, int h) {
  int n = w * h;
  update_e<<<(n + 63) / 64, 64>>>(e, hf, n);
  update_h<<<(n + 63) / 64, 64>>>(e, hf, n);
}
extern "C" void p_inplace_point(float *e, const float *hf, float *out, int w, int h) {
  int n = w * h;
  update_e<<<(n + 63) / 64, 64>>>(e, hf, n);
  scale_e<<<(n + 63) / 64, 64>>>(e, out, n);
}
