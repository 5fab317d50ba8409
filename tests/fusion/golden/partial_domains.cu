// A producer that writes only the interior keeps its guard in the fused code and yields
// memory outside it; an in-place update read at a neighbour another thread stores is refused.
// RUN: fuse %s -o - --fuse-all
// CODE: if (!(x >= 1 && x < w - 1 && y >= 1 && y < h - 1)) return t[y * (w) + x];
// CODE: return t[y * (w) + x];
// CODE: cf_p_inner_fused0<<<g, b>>>(out, w, h, in, t);
// CODE-NOT: cf_p_leapfrog_fused
// CODE: step_e<<<(n + 63) / 64, 64>>>(e, f, n);
// CODE-NEXT: step_f<<<(n + 63) / 64, 64>>>(e, f, n);
// DIAG: note: step_e -> step_f: not fused: 'step_f' reads 'e' at offset +0..+1 in x, an element another thread of the fused kernel may already have overwritten ('step_e' updates 'e' in place and 'e' must still be stored)
#include <cuda_runtime.h>
__global__ void inner(const float *in, float *t, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 1 && x < w - 1 && y >= 1 && y < h - 1) t[y * w + x] = in[y * w + x] + 1.0f;
}
__global__ void halve(const float *t, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = t[y * w + x] * 0.5f;
}
extern "C" void p_inner(const float *in, float *t, float *out, int w, int h) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  inner<<<g, b>>>(in, t, w, h);
  halve<<<g, b>>>(t, out, w, h);
}
__global__ void step_e(float *e, const float *f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n) e[i] -= 0.5f * (f[i] - f[i - 1]);
}
__global__ void step_f(const float *e, float *f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 1) f[i] = f[i] - 0.5f * (e[i + 1] - e[i]);
}
extern "C" void p_leapfrog(float *e, float *f, int n) {
  step_e<<<(n + 63) / 64, 64>>>(e, f, n);
  step_f<<<(n + 63) / 64, 64>>>(e, f, n);
}
