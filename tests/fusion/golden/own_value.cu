// A live intermediate the last kernel stores and reads at its own element is evaluated once
// there, into a local: the 5-point Laplacian is not computed twice (issue 15).
// RUN: fuse %s -o -
// CODE: __global__ void cf_pipe_fused0(
// CODE: if (x >= w || y >= h) return;
// CODE-NEXT: int i = y * w + x;
// CODE-NEXT: const float cf_e0 = l.at2(0 + (x), (y), (w));
// CODE-NOT: l[
// CODE-NOT: l.at2
// CODE: cf_p4[i] = cf_e0, out[i] = fabsf(cf_e0) * 0.5f;
// CODE-NOT: l[
// CODE-NOT: l.at2
// CODE: cf_pipe_fused0<<<g, b>>>(out, w, h, in, l);
// DIAG-NOT: note:
#include <cuda_runtime.h>
__global__ void lap(const float *in, float *l, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int xl = max(x - 1, 0), xr = min(x + 1, w - 1), yu = max(y - 1, 0), yd = min(y + 1, h - 1);
  l[y * w + x] = in[y * w + xl] + in[y * w + xr] + in[yu * w + x] + in[yd * w + x] -
                 4.0f * in[y * w + x];
}
__global__ void mag(const float *l, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int i = y * w + x;
  out[i] = fabsf(l[i]) * 0.5f;
}
extern "C" void pipe(const float *in, float *l, float *out, int w, int h) {
  dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
  lap<<<g, b>>>(in, l, w, h);
  mag<<<g, b>>>(l, out, w, h);
}
