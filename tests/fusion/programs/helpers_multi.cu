// Pipelines composed from host helpers that each launch SEVERAL kernels in a row (the
// style of image libraries' gaussian = rows then columns, canny = gaussian, gradient,
// threshold): a helper's launches fuse with each other, with the caller's launches before
// and after its call, and with the launches of the next helper. The helpers keep dim3
// locals, an error-check macro between their launches, parameter names unlike the
// caller's variables; one returns a status the caller drops; one is called twice.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define HM_CHECK(call)                                                         \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

__global__ void hm_rows(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int l = x > 0 ? x - 1 : 0, r = x < w - 1 ? x + 1 : w - 1;
  out[y * w + x] = 0.25f * in[y * w + l] + 0.5f * in[y * w + x] + 0.25f * in[y * w + r];
}

__global__ void hm_cols(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    int u = max(y - 1, 0), d = min(y + 1, h - 1);
    out[y * w + x] = 0.25f * in[u * w + x] + 0.5f * in[y * w + x] + 0.25f * in[d * w + x];
  }
}

__global__ void hm_scale(const float *in, float *out, float s, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = in[y * w + x] * s - 0.125f;
}

__global__ void hm_grad(const float *img, float *mag, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  int xl = max(x - 1, 0), xr = min(x + 1, width - 1);
  int yu = max(y - 1, 0), yd = min(y + 1, height - 1);
  float gx = img[y * width + xr] - img[y * width + xl];
  float gy = img[yd * width + x] - img[yu * width + x];
  mag[y * width + x] = fabsf(gx) + fabsf(gy);
}

// Per column, the largest value over the rows: reads 'mag' at run-time rows.
__global__ void hm_colmax(const float *mag, float *peak, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= w) return;
  float m = mag[x];
  for (int y = 1; y < h; ++y) m = fmaxf(m, mag[y * w + x]);
  peak[x] = m;
}

__global__ void hm_thresh(const float *mag, float *edge, float t, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) edge[y * w + x] = mag[y * w + x] > t ? 1.0f : 0.0f;
}

template <typename T>
__global__ void hm_affine(const T *in, T *out, T a, T b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * in[i] + b;
}

__global__ void hm_blend(const float *p, const float *q, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 0.5f * (p[i] + q[i]);
}

// Another style: a stream and the launch shape as parameters, a template kernel, a launch
// through cudaLaunchKernel, parameters named as the caller's variables in other roles.
static void stage(cudaStream_t s, const float *x, float *y, float *out, int n, dim3 grid,
                  dim3 block) {
  hm_affine<float><<<grid, block, 0, s>>>(x, y, 2.0f, -1.0f, n);
  void *args[] = {&x, &y, &out, &n};
  cudaLaunchKernel((const void *)hm_blend, grid, block, args, 0, s);
}

// Two launches, a dim3 grid computed from the block, an error check after each.
void smooth(const float *src, float *tmp, float *dst, int width, int height) {
  dim3 block(16, 8);
  dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
  hm_rows<<<grid, block>>>(src, tmp, width, height);
  HM_CHECK(cudaGetLastError());
  hm_cols<<<grid, block>>>(tmp, dst, width, height);
  HM_CHECK(cudaGetLastError());
}

// Two launches with other grids, a threshold by value.
void edges(const float *img, float *mag, float *edge, int w, int h) {
  dim3 b(8, 8), g((w + 7) / 8, (h + 7) / 8);
  hm_grad<<<g, b>>>(img, mag, w, h);
  const float level = 0.05f;
  hm_thresh<<<g, b>>>(mag, edge, level, w, h);
}

// Returns the launches' status; its callers drop it.
cudaError_t smooth_status(const float *in, float *t, float *out, int w, int h) {
  dim3 b(32, 4), g((w + 31) / 32, (h + 3) / 4);
  hm_rows<<<g, b>>>(in, t, w, h);
  hm_cols<<<g, b>>>(t, out, w, h);
  return cudaGetLastError();
}

// One launch (a one-launch wrapper, wrappers.py).
void scale_one(const float *in, float *out, float s, int w, int h) {
  dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
  hm_scale<<<g, b>>>(in, out, s, w, h);
}

// A gradient, then per-column peaks of it (a launch no other joins: its reads of 'mag'
// run over the rows, and the caller's 'mag' may be read after it).
void grad_peaks(const float *img, float *mag, float *peak, int w, int h) {
  dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
  hm_grad<<<g, b>>>(img, mag, w, h);
  hm_colmax<<<(w + 127) / 128, 128>>>(mag, peak, w, h);
}

// (a) a launch of the caller, the helper's two, another launch of the caller.
void hm_around(const float *x, float *a, float *t, float *b, float *y, int w, int h) {
  dim3 blk(16, 16), grd((w + 15) / 16, (h + 15) / 16);
  hm_scale<<<grd, blk>>>(x, a, 2.0f, w, h);
  smooth(a, t, b, w, h);
  hm_scale<<<grd, blk>>>(b, y, 0.5f, w, h);
}

// (b) two helpers called in turn, the second reading what the first wrote.
void hm_chain(const float *x, float *t1, float *s, float *m, float *e, int w, int h) {
  smooth(x, t1, s, w, h);
  edges(s, m, e, w, h);
}

// (c) one helper called twice with different buffers.
void hm_twice(const float *x, float *t1, float *a, float *t2, float *y, int w, int h) {
  smooth(x, t1, a, w, h);
  smooth(a, t2, y, w, h);
}

// A status nobody reads, then a launch of the caller.
void hm_status(const float *x, float *t, float *a, float *y, int w, int h) {
  smooth_status(x, t, a, w, h);
  dim3 blk(8, 8), grd((w + 7) / 8, (h + 7) / 8);
  hm_scale<<<grd, blk>>>(a, y, 3.0f, w, h);
}

// A helper's launches, then a one-launch wrapper's: the group ends in the wrapper's call.
void hm_then_wrapper(const float *x, float *t, float *a, float *y, int w, int h) {
  smooth(x, t, a, w, h);
  scale_one(a, y, 0.25f, w, h);
}

// The caller's launch joins the helper's first launch only; its second stays as written.
void hm_partial(const float *x, float *a, float *m, float *p, int w, int h) {
  dim3 blk(16, 16), grd((w + 15) / 16, (h + 15) / 16);
  hm_scale<<<grd, blk>>>(x, a, 2.0f, w, h);
  grad_peaks(a, m, p, w, h);
}

// The other style: the helper's two launches and the caller's template launch on a stream.
void hm_stream(const float *y, float *x, float *out, float *z, int w, int h) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  int n = w * h;
  dim3 block(64), grid((n + 63) / 64);
  stage(s, y, x, out, n, grid, block);
  hm_affine<float><<<grid, block, 0, s>>>(out, z, 0.5f, 0.25f, n);
  cudaStreamSynchronize(s);
  cudaStreamDestroy(s);
}
