// Kernels launched through the runtime API (host/api_launches.py, issue 25): a
// cudaLaunchKernel whose argument array is a local list of &variables reads as the launch
// k<<<grid, block, shared, stream>>>(values at the call). The group's first launch becomes
// cudaSuccess; the last one, whose status is kept and checked, becomes the fused launch
// followed by cudaPeekAtLastError(), so the check still sees a failed launch.
// RUN: fuse %s -o -
// CODE: __global__ void cf_pipeline_fused0(float *out, float by, int n, const float *cf_p3, float *cf_p4) {
// CODE: if (i < n) { const float cf_e0 = t[i]; cf_p4[i] = cf_e0, out[i] = cf_e0 + by; }
// CODE: CHECK(cudaSuccess);
// CODE: cudaError_t err = (cf_pipeline_fused0<<<grid, block, 0, s>>>(out, by, n, in, t), cudaPeekAtLastError());
// CODE-NEXT: CHECK(err);
// CODE-NOT: cudaLaunchKernel(
// DIAG-NOT: note:
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(e_)); exit(1); } } while (0)
__global__ void scale(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = 2.0f * in[i];
}
__global__ void offset(const float *t, float *out, float by, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] + by;
}
void pipeline(const float *in, float *t, float *out, int n, cudaStream_t s) {
  dim3 grid((n + 127) / 128), block(128);
  void *first[] = {&in, &t, &n};
  CHECK(cudaLaunchKernel((const void *)scale, grid, block, first, 0, s));
  float by = 1.5f;
  void *second[] = {&t, &out, &by, &n};
  cudaError_t err = cudaLaunchKernel((const void *)offset, grid, block, second, 0, s);
  CHECK(err);
}
