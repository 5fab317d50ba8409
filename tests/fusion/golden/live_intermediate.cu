// t1 is a parameter the caller may read: the fused kernel still stores it, at the thread's own
// element, before the consumer's store. A helper that receives the view gets an overload.
// RUN: fuse %s -o -
// CODE: template <class cfV0>
// CODE-NEXT: __device__ __forceinline__ float tap(const cfV0 &p, int x, int y, int w, int h)
// CODE: __global__ void cf_two_fused0(float *out, int w, int h, const float *cf_p3, float *cf_p4)
// CODE: const float cf_e0 = t.at2(0 + (x), (y), (w));
// CODE-NEXT: cf_p4[y * w + x] = cf_e0, out[y * w + x] =
// CODE: cf_two_fused0<<<g, b>>>(out, w, h, in, t);
// DIAG-NOT: note:
#include <cuda_runtime.h>
__device__ float tap(const float *p, int x, int y, int w, int h) {
  return p[min(max(y, 0), h - 1) * w + min(max(x, 0), w - 1)];
}
__global__ void square(const float *in, float *t, int w, int h) {
  int x = threadIdx.x + blockIdx.x * blockDim.x, y = threadIdx.y + blockIdx.y * blockDim.y;
  if (x >= w || y >= h) return;
  float v = in[y * w + x];
  t[y * w + x] = v * v;
}
__global__ void edge(const float *t, float *out, int w, int h) {
  int x = threadIdx.x + blockIdx.x * blockDim.x, y = threadIdx.y + blockIdx.y * blockDim.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = tap(t, x + 1, y, w, h) - tap(t, x - 1, y, w, h);
}
extern "C" void two(const float *in, float *t, float *out, int w, int h) {
  dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
  square<<<g, b>>>(in, t, w, h);
  edge<<<g, b>>>(t, out, w, h);
}
