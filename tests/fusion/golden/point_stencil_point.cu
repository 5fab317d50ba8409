// A point -> stencil -> point pipeline with a shared intermediate: all three fuse (--fuse-all:
// the calibrated cost model keeps the point kernel apart, docs/cost-model.md; this golden is
// about the code a point producer of a stencil gets).
// RUN: fuse %s -o - --scratch t1 --scratch t2 --fuse-all
// CODE: template <class cf_T> __device__ __forceinline__ cf_T cf_round(cf_T __cf_v)
// CODE: __device__ __forceinline__ float cf_pipe_fused0_0_scale_out_xy(long long cf_x, long long cf_y,
// CODE: int x = (int)(cf_x); int y = (int)(cf_y);
// CODE: return cf_round(a * in[y * w + x] + 0.1f);
// CODE: __device__ __forceinline__ float cf_pipe_fused0_0_scale_out_at(long long cf_i,
// CODE: return cf_pipe_fused0_0_scale_out_xy((int)cf_i % (w), (int)cf_i / (w),
// CODE: struct cf_pipe_fused0_0_scale_out_view {
// CODE: at2(long long x, long long y, long long s) const {
// CODE: __device__ __forceinline__ float cf_pipe_fused0_1_blur_out_xy(
// CODE: const cf_pipe_fused0_0_scale_out_view in{{[{]}}{{.*}}, (w), (h), nullptr, 0, 0, 0, 0};
// The macro-spelled clamped read takes the division-free path:
// CODE: s += in.at2(0 + (min(max((x + dx), 0), (w - 1))), (min(max((y + dy), 0), (h - 1))), (w));
// CODE: __global__ void cf_pipe_fused0(float *out, int w, int h,
// CODE: const cf_pipe_fused0_0_scale_out_view a{
// CODE: const cf_pipe_fused0_1_blur_out_view b{
// CODE: out[i] = clampf(a[i] - b[i] + 0.5f);
// CODE: extern "C" void pipe(
// CODE: /* cudafuse: scale fused into cf_pipe_fused0 */;
// CODE-NEXT: /* cudafuse: blur fused into cf_pipe_fused0 */;
// CODE-NEXT: cf_pipe_fused0<<<grid, block>>>(out, w, h, img, 0.8f);
// CODE-NOT: <<<
// DIAG-NOT: note:
#include <cuda_runtime.h>
#define IDX(x, y, w) ((y) * (w) + (x))
__device__ inline float clampf(float v) { return fminf(fmaxf(v, 0.f), 1.f); }

__global__ void scale(const float *__restrict__ in, float *__restrict__ out, int w, int h,
                      float a) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = a * in[y * w + x] + 0.1f;
}

__global__ void blur(const float *__restrict__ in, float *__restrict__ out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      s += in[IDX(min(max(x + dx, 0), w - 1), min(max(y + dy, 0), h - 1), w)];
  out[IDX(x, y, w)] = s / 9.0f;
}

__global__ void diff(const float *a, const float *b, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    int i = y * w + x;
    out[i] = clampf(a[i] - b[i] + 0.5f);
  }
}

extern "C" void pipe(const float *img, float *t1, float *t2, float *out, int w, int h) {
  dim3 block(32, 8);
  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  scale<<<grid, block>>>(img, t1, w, h, 0.8f);
  blur<<<grid, block>>>(t1, t2, w, h);
  diff<<<grid, block>>>(t1, t2, out, w, h);
}
