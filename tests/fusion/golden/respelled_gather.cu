// cs344-style code: int2 coordinates respelled into one int per dimension (the lines keep
// their numbers), a blur whose filter width is a run-time argument (a gather: the producer
// is recomputed at each element it reads), a uchar4 stored whole; and a zero
// border returning early past the guard, before which the live intermediate is stored.
// RUN: fuse %s -o - --fuse-all
// CODE: const int p_x = (blockIdx.x * blockDim.x + threadIdx.x),
// CODE-NEXT: p_y = (blockIdx.y * blockDim.y + threadIdx.y);
// CODE-NEXT: if (p_x >= cols || p_y >= rows) return;
// CODE-NEXT: r[p_y * cols + p_x] = rgba[p_y * cols + p_x].x;
// CODE: unsigned char cf_course_fused0_0_red_r_xy(long long cf_x, long long cf_y,
// CODE: const int p_x = (int)(cf_x); const int p_y = (int)(cf_y);
// CODE-NEXT: return cf_round(rgba[p_y * cols + p_x].x);
// CODE: __global__ void cf_course_fused0(uchar4 *out, int rows, int cols, int fw,
// CODE: s += in.at2(0 + (min(max((p_x + c), 0), (cols - 1))), (min(max((p_y + r), 0), (rows - 1))), (cols));
// CODE: cf_p5[p_y * cols + p_x] = cf_e0, out[p_y * cols + p_x] = px;
// CODE: cf_course_fused0<<<g, b>>>(out, rows, cols, fw, in, r);
// CODE: __global__ void cf_border_fused1(
// CODE: if (x >= w || y >= h) return;
// CODE-NEXT: cf_p4[(long long)y * (w) + x] = t[(long long)y * (w) + x]; if (x == 0 || x == w - 1) { out[y * w + x] = 0.0f; return; }
// CODE-NEXT: out[y * w + x] = t.at2(0 + (x) + (1), (y), (w)) - t.at2(0 + (x) - (1), (y), (w));
// DIAG: respelled_gather.cu:26:3: note: kernel 'red': coordinates int2 'p' (p_x, p_y) read as one variable per dimension
// DIAG: respelled_gather.cu:32:3: note: kernel 'blur': coordinates int2 'p'
// DIAG-NOT: not fused
#include <cuda_runtime.h>
__global__ void red(const uchar4 *rgba, unsigned char *r, int rows, int cols) {
  const int2 p = make_int2(blockIdx.x * blockDim.x + threadIdx.x,
                           blockIdx.y * blockDim.y + threadIdx.y);
  if (p.x >= cols || p.y >= rows) return;
  r[p.y * cols + p.x] = rgba[p.y * cols + p.x].x;
}
__global__ void blur(const unsigned char *in, uchar4 *out, int rows, int cols, int fw) {
  const int2 p = make_int2(blockIdx.x * blockDim.x + threadIdx.x,
                           blockIdx.y * blockDim.y + threadIdx.y);
  if (p.x >= cols || p.y >= rows) return;
  float s = 0.f;
  for (int r = -fw / 2; r <= fw / 2; ++r)
    for (int c = -fw / 2; c <= fw / 2; ++c)
      s += in[min(max(p.y + r, 0), rows - 1) * cols + min(max(p.x + c, 0), cols - 1)];
  uchar4 px = make_uchar4((unsigned char)(s / (fw * fw)), 0, 0, 255);
  out[p.y * cols + p.x] = px;
}
void course(const uchar4 *in, unsigned char *r, uchar4 *out, int rows, int cols, int fw) {
  dim3 b(16, 16), g((cols + 15) / 16, (rows + 15) / 16);
  red<<<g, b>>>(in, r, rows, cols);
  blur<<<g, b>>>(r, out, rows, cols, fw);
}
__global__ void gain(const float *in, float *t, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  t[y * w + x] = in[y * w + x] * 0.5f;
}
__global__ void edge(const float *t, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  if (x == 0 || x == w - 1) { out[y * w + x] = 0.0f; return; }
  out[y * w + x] = t[y * w + x + 1] - t[y * w + x - 1];
}
void border(const float *in, float *t, float *out, int w, int h) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  gain<<<g, b>>>(in, t, w, h);
  edge<<<g, b>>>(t, out, w, h);
}
