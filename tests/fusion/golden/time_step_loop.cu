// A time-step loop: the loop body is a sequence of its own, fused in place; the launch
// before the loop stays, with a note; 'prev', an intermediate the next iteration's first
// launch reads, is still stored, and that launch does not join the group.
// RUN: fuse %s -o - --fuse-all
// CODE: __global__ void cf_steps_fused0(
// CODE: void steps(const float *in, float *out, int w, int h, int n) {
// CODE: step_copy<<<g, b>>>(in, prev, w, h);
// CODE-NEXT: for (int t = 0; t < n; ++t) {
// CODE-NEXT: step_mix<<<g, b>>>(in, prev, mix, w, h);
// CODE-NEXT: /* cudafuse: step_blur fused into cf_steps_fused0 */;
// CODE-NEXT: cf_steps_fused0<<<g, b>>>(out, w, h, mix, prev);
// CODE-NEXT: }
// DIAG: time_step_loop.cu:39:3: note: launch of 'step_copy' in 'steps' left as it is: line 40 separates it from the launch of 'step_mix' at line 41: it launches kernels inside a for loop (its body is a sequence of its own)
// DIAG: note: step_mix -> step_blur: not fused: 'step_mix' reads 'prev' from memory, which the fused kernel writes
#include <cuda_runtime.h>
__global__ void step_copy(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = in[y * w + x];
}
__global__ void step_mix(const float *a, const float *b, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = a[y * w + x] + 0.5f * b[y * w + x];
}
__global__ void step_blur(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int l = max(x - 1, 0), r = min(x + 1, w - 1);
  out[y * w + x] = (in[y * w + l] + in[y * w + x] + in[y * w + r]) / 3.0f;
}
__global__ void step_scale(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = in[y * w + x] * 0.75f;
}
void steps(const float *in, float *out, int w, int h, int n) {
  float *prev, *mix;
  cudaMalloc(&prev, sizeof(float) * w * h);
  cudaMalloc(&mix, sizeof(float) * w * h);
  dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
  step_copy<<<g, b>>>(in, prev, w, h);
  for (int t = 0; t < n; ++t) {
    step_mix<<<g, b>>>(in, prev, mix, w, h);
    step_blur<<<g, b>>>(mix, prev, w, h);
    step_scale<<<g, b>>>(prev, out, w, h);
  }
  cudaFree(prev);
  cudaFree(mix);
}
