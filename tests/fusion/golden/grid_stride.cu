// Grid-stride loops: a 1D for/while loop stepping by the whole grid fuses; the producer's
// value at element i is its loop body at i, and the fused kernel keeps the last kernel's loop.
// A loop stepping by less than the grid, and one reading what another iteration wrote, are
// left alone.
// RUN: fuse %s -o - --fuse-all
// CODE: float cf_gs_fused0_0_scale_a_xy(long long cf_x,
// CODE-NEXT: {{.*}}maybe_unused{{.*}} const float *in =
// CODE-NEXT: {{.*}}maybe_unused{{.*}} int n =
// CODE-NEXT: {
// CODE-NEXT: int i = (int)(cf_x); return cf_round(in[i] * 2.0f + 1.0f);
// CODE: float cf_gs_fused0_1_smooth_b_xy(long long cf_x,
// CODE-NOT: stride
// CODE: int i = (int)(cf_x); {
// CODE-NEXT: float l = a[i > 0 ? i - 1 : 0];
// CODE-NEXT: return cf_round(0.5f * (l + a[i]));
// CODE-NOT: i += stride
// CODE: __global__ void cf_gs_fused0(float *out, int n, const float *cf_p2) {
// CODE-NEXT: const cf_gs_fused0_1_smooth_b_view b{
// CODE: for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
// CODE-NEXT: { const float cf_e0 = b[i]; out[i] = cf_e0 * cf_e0; }
// CODE: cf_gs_fused0<<<2, 32>>>(out, n, in);
// CODE-NOT: cf_half_fused
// CODE-NOT: cf_scan_fused
// CODE: half_step<<<2, 32>>>(in, t, n);
// CODE: running<<<2, 32>>>(in, t, n);
// DIAG: note: half_step -> after_half: not fused: 'half_step' cannot be recomputed: its grid-stride loop's step is not the whole grid (blockDim.x * gridDim.x)
// DIAG: note: running -> after_running: not fused: 'running' reads 't' from memory, which the fused kernel writes
#include <cuda_runtime.h>

__global__ void scale(const float *in, float *a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    a[i] = in[i] * 2.0f + 1.0f;
}

__global__ void smooth(const float *a, float *b, int n) {
  int stride = blockDim.x * gridDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  while (i < n) {
    float l = a[i > 0 ? i - 1 : 0];
    b[i] = 0.5f * (l + a[i]);
    i += stride;
  }
}

__global__ void square(const float *b, float *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = b[i] * b[i];
}

void gs(const float *in, float *out, int n) {
  float *a, *b;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  scale<<<4, 64>>>(in, a, n);
  smooth<<<3, 128>>>(a, b, n);
  square<<<2, 32>>>(b, out, n);
  cudaFree(a);
  cudaFree(b);
}

// Each thread walks a block's width, not the grid's: its elements depend on the grid.
__global__ void half_step(const float *in, float *t, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x)
    t[i] = in[i] + 1.0f;
}

__global__ void after_half(const float *t, float *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = t[i] * 3.0f;
}

void half(const float *in, float *out, int n) {
  float *t;
  cudaMalloc(&t, n * sizeof(float));
  half_step<<<2, 32>>>(in, t, n);
  after_half<<<2, 32>>>(t, out, n);
  cudaFree(t);
}

// Reads the neighbour another iteration (perhaps another thread) writes.
__global__ void running(const float *in, float *t, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    t[i] = in[i] + (i > 0 ? t[i - 1] : 0.0f);
}

__global__ void after_running(const float *t, float *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = t[i] * 3.0f;
}

void scan(const float *in, float *out, int n) {
  float *t;
  cudaMalloc(&t, n * sizeof(float));
  running<<<2, 32>>>(in, t, n);
  after_running<<<2, 32>>>(t, out, n);
  cudaFree(t);
}
