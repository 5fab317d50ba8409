// Host helpers that launch several kernels in a row (host/wrappers.py, emit/helper_calls.py;
// issue 25): each call stands for the helper's launches in the caller's sequence. The first
// call's copy, written at the call, keeps the helper's locals and its synchronisation, its
// launches fused away; the second's starts the fused kernel where the helper launched its
// last kernel, given the buffers only the earlier members use as extra arguments. The
// helper's own definition stays (its two launches fuse there too).
// RUN: fuse --fuse-all %s -o -
// CODE: void stage(const float *src, float *tmp, float *dst, int n) {
// CODE: void pipeline(const float *x, float *a, float *b, float *c, float *d, float *y, int n) {
// CODE-NEXT: /* cudafuse: g_square fused into [[F:cf_pipeline_fused[0-9]+]] */;
// CODE-NEXT: /* cudafuse: a copy of 'stage' */ [](const float *src, float *tmp, float *dst, int n) {
// CODE-NEXT: const int threads = 128;
// CODE-NEXT: int blocks = (n + threads - 1) / threads;
// CODE-NEXT: /* cudafuse: g_scale fused into [[F]] */;
// CODE-NEXT: cudaDeviceSynchronize();
// CODE-NEXT: /* cudafuse: g_offset fused into [[F]] */;
// CODE-NEXT: }(a, b, c, n);
// CODE-NEXT: /* cudafuse: a copy of 'stage' */ [](const float *src, float *tmp, float *dst, int n, const float *[[F]]_x0, float *[[F]]_x1, float *[[F]]_x2, float [[F]]_x3, float *[[F]]_x4, float *[[F]]_x5) {
// CODE-NEXT: const int threads = 128;
// CODE-NEXT: int blocks = (n + threads - 1) / threads;
// CODE-NEXT: /* cudafuse: g_scale fused into [[F]] */;
// CODE-NEXT: cudaDeviceSynchronize();
// CODE-NEXT: [[F]]<<<blocks, threads>>>(dst, n, [[F]]_x0, [[F]]_x1, [[F]]_x2, [[F]]_x3, [[F]]_x4, [[F]]_x5);
// CODE-NEXT: }(c, d, y, n, x, a, b, 2.0f, c, d);
// CODE-NEXT: }
// CODE-NOT: stage(
// DIAG-NOT: note:
#include <cuda_runtime.h>
__global__ void g_square(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * in[i];
}
__global__ void g_scale(const float *in, float *out, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * s;
}
__global__ void g_offset(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1.0f;
}
void stage(const float *src, float *tmp, float *dst, int n) {
  const int threads = 128;
  int blocks = (n + threads - 1) / threads;
  g_scale<<<blocks, threads>>>(src, tmp, 2.0f, n);
  cudaDeviceSynchronize();
  g_offset<<<blocks, threads>>>(tmp, dst, n);
}
void pipeline(const float *x, float *a, float *b, float *c, float *d, float *y, int n) {
  g_square<<<(n + 255) / 256, 256>>>(x, a, n);
  stage(a, b, c, n);
  stage(c, d, y, n);
}
