// Pipelines split over two levels of host functions (issue 25, session 11): a caller calls
// helpers that call helpers that launch. Two spellings: (a) `denoise` calls two one-launch
// stages and is called by `nh_pipeline` between launches of its own; (b) `enhance` returns
// the status of its last helper (`return sharpen_stage(...)`) and checks the first with a
// macro, its stages launching with a stream and a local launch shape. `nh_aliased` calls
// `nh_chain` twice, the second time with one buffer for two of its parameters: the group
// `nh_chain` makes through its helpers must stay unfused there.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define NH_TRY(x)                                                                  \
  do {                                                                            \
    cudaError_t s_ = (x);                                                         \
    if (s_ != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(s_)); exit(2); } \
  } while (0)

__global__ void nh_offset(const float *src, float *dst, float k, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) dst[y * w + x] = src[y * w + x] * k + 0.25f;
}

__global__ void nh_box_h(const float *src, float *dst, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int l = x > 0 ? x - 1 : 0, r = x + 1 < w ? x + 1 : w - 1;
  dst[y * w + x] = (src[y * w + l] + src[y * w + x] + src[y * w + r]) * (1.0f / 3.0f);
}

__global__ void nh_box_v(const float *src, float *dst, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    int u = y > 0 ? y - 1 : 0, d = y < h - 1 ? y + 1 : h - 1;
    dst[y * w + x] = (src[u * w + x] + src[y * w + x] + src[d * w + x]) * (1.0f / 3.0f);
  }
}

__global__ void nh_sharp(const float *blurred, const float *orig, float *out, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = orig[i] + a * (orig[i] - blurred[i]);
}

__global__ void nh_clip(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fminf(fmaxf(in[i], 0.0f), 1.0f);
}

// ---- (a) helpers of one launch, and a helper calling them ----
void box_rows(const float *in, float *out, int cols, int rows) {
  dim3 threads(16, 8);
  dim3 blocks((cols + threads.x - 1) / threads.x, (rows + threads.y - 1) / threads.y);
  nh_box_h<<<blocks, threads>>>(in, out, cols, rows);
}

void box_cols(const float *in, float *out, int cols, int rows) {
  dim3 threads(16, 8);
  dim3 blocks((cols + 15) / 16, (rows + 7) / 8);
  nh_box_v<<<blocks, threads>>>(in, out, cols, rows);
  NH_TRY(cudaGetLastError());
}

void denoise(const float *img, float *scratch, float *res, int cols, int rows) {
  box_rows(img, scratch, cols, rows);
  NH_TRY(cudaGetLastError());
  box_cols(scratch, res, cols, rows);
}

void nh_pipeline(const float *a, float *t0, float *t1, float *t2, float *b, int w, int h) {
  dim3 blk(8, 8), grd((w + 7) / 8, (h + 7) / 8);
  nh_offset<<<grd, blk>>>(a, t0, 1.5f, w, h);
  denoise(t0, t1, t2, w, h);
  nh_offset<<<grd, blk>>>(t2, b, 0.5f, w, h);
}

// ---- (b) statuses returned up two levels, a stream ----
cudaError_t sharpen_stage(const float *soft, const float *orig, float *out, int n,
                          cudaStream_t st) {
  int per = 96;
  nh_sharp<<<(n + per - 1) / per, per, 0, st>>>(soft, orig, out, 0.75f, n);
  return cudaGetLastError();
}

cudaError_t clip_stage(const float *in, float *out, int n, cudaStream_t st) {
  nh_clip<<<(n + 63) / 64, 64, 0, st>>>(in, out, n);
  return cudaPeekAtLastError();
}

cudaError_t enhance(const float *soft, const float *orig, float *tmp, float *out, int n,
                    cudaStream_t st) {
  NH_TRY(sharpen_stage(soft, orig, tmp, n, st));
  return clip_stage(tmp, out, n, st);
}

void nh_enhance(const float *a, float *s, float *t, float *b, int w, int h) {
  int n = w * h;
  nh_box_h<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(a, s, w, h);
  enhance(s, a, t, b, n, 0);
}

// ---- two levels, one buffer given for two parameters at one call ----
void nh_chain(const float *src, float *mid, float *dst, int w, int h) {
  denoise(src, mid, dst, w, h);
}

void nh_aliased(const float *a, float *t, float *b, int w, int h) {
  nh_chain(a, t, b, w, h);
  nh_chain(a, b, b, w, h);
}

// ---- statuses checked by the caller: an if around a helper of helpers, a declaration ----
cudaError_t smooth_checked(const float *in, float *mid, float *out, int cols, int rows) {
  box_rows(in, mid, cols, rows);
  box_cols(mid, out, cols, rows);
  return cudaGetLastError();
}

void nh_checked(const float *a, float *t0, float *t1, float *b, int w, int h) {
  if (smooth_checked(a, t0, t1, w, h) != cudaSuccess) {
    fprintf(stderr, "smoothing failed\n");
    exit(3);
  }
  cudaError_t e = clip_stage(t1, b, w * h, 0);
  if (e != cudaSuccess) exit(4);
}

// ---- a helper with a loop of host code only (checking its sizes), around a helper ----
void checked_rows(const float *in, float *out, int cols, int rows) {
  const int dims[2] = {cols, rows};
  for (int k = 0; k < 2; ++k)
    if (dims[k] <= 0) {
      fprintf(stderr, "bad size %d\n", dims[k]);
      exit(1);
    }
  box_rows(in, out, cols, rows);
}

void nh_validated(const float *a, float *t, float *b, int w, int h) {
  checked_rows(a, t, w, h);
  nh_offset<<<dim3((w + 31) / 32, h), dim3(32, 1)>>>(t, b, 2.0f, w, h);
}
