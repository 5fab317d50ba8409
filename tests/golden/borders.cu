// One 1x3 horizontal stencil per border mode the analysis recognises.
// RUN: analyze %s
#define ROW(img, xx) (img)[y * w + (xx)]
__device__ int mirror(int v, int n) { return v < 0 ? -v - 1 : (v >= n ? 2 * n - v - 1 : v); }
__device__ int reflect101(int v, int n) { return v < 0 ? -v : (v >= n ? 2 * n - v - 2 : v); }

__global__ void k_clamp(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = ROW(in, max(x - 1, 0)) + ROW(in, x) + ROW(in, min(x + 1, w - 1));
}
__global__ void k_mirror(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = ROW(in, mirror(x - 1, w)) + ROW(in, x) + ROW(in, mirror(x + 1, w));
}
__global__ void k_mirror101(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = ROW(in, reflect101(x - 1, w)) + ROW(in, x) + ROW(in, reflect101(x + 1, w));
}
__global__ void k_wrap(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = ROW(in, (x - 1 + w) % w) + ROW(in, x) + ROW(in, (x + 1) % w);
}
__global__ void k_constant(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float l = x > 0 ? ROW(in, x - 1) : 0.f;
  float r = x + 1 < w ? ROW(in, x + 1) : 0.f;
  out[y * w + x] = l + ROW(in, x) + r;
}
__global__ void k_unguarded(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = ROW(in, x - 1) + ROW(in, x) + ROW(in, x + 1);
}

// CHECK-LABEL: kernel k_clamp
// CHECK: in: stencil layout x*1 y*w window (-1,0) (0,0) (1,0) extent x[-1,1] y[0,0] border x=clamp(w) y=none
// CHECK-LABEL: kernel k_mirror
// CHECK: calls: mirror
// CHECK: in: stencil {{.*}} border x=mirror(w) y=none
// CHECK-LABEL: kernel k_mirror101
// CHECK: in: stencil {{.*}} border x=mirror101(w) y=none
// CHECK-LABEL: kernel k_wrap
// CHECK: in: stencil {{.*}} border x=wrap(w) y=none
// CHECK-LABEL: kernel k_constant
// CHECK: in: stencil {{.*}} border x=constant(w) y=none
// CHECK-LABEL: kernel k_unguarded
// CHECK-NOT: clamp
// CHECK: in: stencil {{.*}} border x=unguarded y=none
// CHECK-NOT: kernel
