// Sibling launches (issue 16): independent launches of one sequence, run as one launch.
// Entries take (inputs..., outputs..., int w, int h[, int steps]).
#include <cuda_runtime.h>

__global__ void sb_scale(const float *a, float *o, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) o[y * w + x] = a[y * w + x] * 0.75f + 0.125f;
}

__global__ void sb_square(const float *a, float *o, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float v = a[y * w + x];
  o[y * w + x] = v * v - 0.5f;
}

__global__ void sb_blur(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int xx = min(max(x + dx, 0), w - 1);
      int yy = min(max(y + dy, 0), h - 1);
      s += in[yy * w + xx];
    }
  out[y * w + x] = s / 9.0f;
}

// One thread per row: the sum of the row (grid-stride over rows).
__global__ void sb_rowsum(const float *m, float *rs, int w, int h) {
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < h; r += blockDim.x * gridDim.x) {
    float s = 0.0f;
    for (int c = 0; c < w; ++c) s += m[r * w + c];
    rs[r] = s;
  }
}

// One thread per column: the largest element of the column.
__global__ void sb_colmax(const float *m, float *cm, int w, int h) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= w) return;
  float best = m[c];
  for (int r = 1; r < h; ++r) best = fmaxf(best, m[r * w + c]);
  cm[c] = best;
}

// Field updates of a time step: each updates its own field from the source, in place.
__global__ void sb_update_u(float *u, const float *src, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) u[y * w + x] = u[y * w + x] * 0.5f + src[y * w + x];
}

__global__ void sb_update_v(float *v, const float *src, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const float s = src[y * w + x];
  v[y * w + x] = v[y * w + x] * 0.25f + s * s;
}

// Equal shapes, a shared input read at the own element by both.
void equal_shared(const float *a, float *o1, float *o2, int w, int h) {
  dim3 block(16, 16);
  dim3 grid((w + 15) / 16, (h + 15) / 16);
  sb_scale<<<grid, block>>>(a, o1, w, h);
  sb_square<<<grid, block>>>(a, o2, w, h);
}

// Equal shapes, no input in common.
void equal_disjoint(const float *a, const float *b, float *o1, float *o2, int w, int h) {
  dim3 block(16, 16);
  dim3 grid((w + 15) / 16, (h + 15) / 16);
  sb_square<<<grid, block>>>(b, o2, w, h);
  sb_scale<<<grid, block>>>(a, o1, w, h);
}

// Equal shapes, one a stencil with an early return: the model expects the fused thread's
// registers to cost more than the launch saved (fused under --fuse-all).
void equal_heavy(const float *a, const float *b, float *o1, float *o2, int w, int h) {
  dim3 block(16, 16);
  dim3 grid((w + 15) / 16, (h + 15) / 16);
  sb_blur<<<grid, block>>>(b, o2, w, h);
  sb_scale<<<grid, block>>>(a, o1, w, h);
}

// Different shapes, both grids small constants: a block split.
void small_grids(const float *m, float *rs, float *cm, int w, int h) {
  sb_rowsum<<<2, 64>>>(m, rs, w, h);
  sb_colmax<<<3, 32>>>(m, cm, w, h);
}

// Different shapes, grids that grow with the image: fused only when asked (--fuse-all).
void large_grids(const float *m, float *rs, float *cm, int w, int h) {
  sb_rowsum<<<(h + 127) / 128, 128>>>(m, rs, w, h);
  sb_colmax<<<(w + 63) / 64, 64>>>(m, cm, w, h);
}

// A time-step loop: the two field updates of a step are siblings.
void time_loop(const float *src, float *u, float *v, int w, int h, int steps) {
  dim3 block(16, 16);
  dim3 grid((w + 15) / 16, (h + 15) / 16);
  for (int t = 0; t < steps; ++t) {
    sb_update_u<<<grid, block>>>(u, src, w, h);
    sb_update_v<<<grid, block>>>(v, src, w, h);
  }
}

// The launch between them depends on the first: the pair is launched at the first's place.
void across(const float *a, float *o1, float *o2, float *rs, int w, int h) {
  dim3 block(16, 16);
  dim3 grid((w + 15) / 16, (h + 15) / 16);
  sb_scale<<<grid, block>>>(a, o1, w, h);
  sb_rowsum<<<2, 64>>>(o1, rs, w, h);
  sb_square<<<grid, block>>>(a, o2, w, h);
}

// Refused: both write o.
void write_write(const float *a, float *o, int w, int h) {
  dim3 block(16, 16);
  dim3 grid((w + 15) / 16, (h + 15) / 16);
  sb_scale<<<grid, block>>>(a, o, w, h);
  sb_square<<<grid, block>>>(a, o, w, h);
}

// Refused: the second reads the first's output (vertical fusion refuses it too).
void reads_other(const float *a, float *o1, float *rs, int w, int h) {
  dim3 block(16, 16);
  dim3 grid((w + 15) / 16, (h + 15) / 16);
  sb_scale<<<grid, block>>>(a, o1, w, h);
  sb_rowsum<<<2, 64>>>(o1, rs, w, h);
}

// Never siblings: the branches of an if, and launches a host statement touching the
// earlier one's buffers separates (a memset of a buffer only the later one uses would not).
void separated(const float *a, float *o1, float *o2, int w, int h) {
  dim3 block(16, 16);
  dim3 grid((w + 15) / 16, (h + 15) / 16);
  if (w > 20)
    sb_scale<<<grid, block>>>(a, o1, w, h);
  else
    sb_square<<<grid, block>>>(a, o2, w, h);
  sb_scale<<<grid, block>>>(a, o1, w, h);
  cudaMemset(o1, 0, sizeof(float) * w * h);
  sb_square<<<grid, block>>>(a, o2, w, h);
}
