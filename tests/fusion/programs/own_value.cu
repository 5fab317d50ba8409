// The last kernel evaluates each producer once at its own element: the stored live
// intermediate and the consumer's reads there share one local. Neighbour reads still go
// through the view.
#include <cuda_runtime.h>

__global__ void lap(const float *in, float *l, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int xl = max(x - 1, 0), xr = min(x + 1, w - 1), yu = max(y - 1, 0), yd = min(y + 1, h - 1);
  l[y * w + x] = in[y * w + xl] + in[y * w + xr] + in[yu * w + x] + in[yd * w + x] -
                 4.0f * in[y * w + x];
}
// Reads the intermediate at its own element once, stores it too (the issue's example).
__global__ void mag(const float *l, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int i = y * w + x;
  out[i] = fabsf(l[i]) * 0.5f;
}
// Two outputs, a store between two reads at the own element, a read before the store.
__global__ void split2(const float *l, float *lo, float *hi, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float v = l[y * w + x];
  lo[y * w + x] = fminf(v, 0.0f);
  hi[y * w + x] = fmaxf(l[y * w + x], 0.0f) + v;
}
// A clamped 3x3 over the intermediate: the centre is the local, neighbours the view.
__global__ void smooth(const float *l, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      s += l[min(max(y + dy, 0), h - 1) * w + min(max(x + dx, 0), w - 1)];
  out[y * w + x] = s / 9.0f - l[y * w + x];
}
// An enclosing guard whose body is the unbraced store.
__global__ void halve(const float *l, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = l[y * w + x] * 0.5f + l[y * w + x];
}
// Indices through a macro, the intermediate read twice with a store between.
#define AT(x, y) ((y) * w + (x))
__global__ void twice(const float *l, float *out, float *out2, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[AT(x, y)] = l[AT(x, y)] * 3.0f;
  out2[AT(x, y)] = l[AT(x, y)] - out[AT(x, y)];
}
// 1D grid-stride, two producers both stored: both evaluated before either store.
__global__ void gs_sq(const float *in, float *a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    a[i] = in[i] * in[i];
}
__global__ void gs_nb(const float *a, float *b, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    b[i] = a[i] - a[i > 0 ? i - 1 : 0];
}
__global__ void gs_out(const float *a, const float *b, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  while (i < n) {
    float t = b[i] * 2.0f;
    out[i] = t + a[i];
    i += blockDim.x * gridDim.x;
  }
}

extern "C" void o_mag(const float *in, float *l, float *out, int w, int h) {
  dim3 b(16, 8), g((w + 15) / 16, (h + 7) / 8);
  lap<<<g, b>>>(in, l, w, h);
  mag<<<g, b>>>(l, out, w, h);
}
extern "C" void o_split(const float *in, float *l, float *lo, float *hi, int w, int h) {
  dim3 b(16, 8), g((w + 15) / 16, (h + 7) / 8);
  lap<<<g, b>>>(in, l, w, h);
  split2<<<g, b>>>(l, lo, hi, w, h);
}
extern "C" void o_smooth(const float *in, float *l, float *out, int w, int h) {
  dim3 b(16, 8), g((w + 15) / 16, (h + 7) / 8);
  lap<<<g, b>>>(in, l, w, h);
  smooth<<<g, b>>>(l, out, w, h);
}
extern "C" void o_halve(const float *in, float *l, float *out, int w, int h) {
  dim3 b(16, 8), g((w + 15) / 16, (h + 7) / 8);
  lap<<<g, b>>>(in, l, w, h);
  halve<<<g, b>>>(l, out, w, h);
}
extern "C" void o_twice(const float *in, float *l, float *out, float *out2, int w, int h) {
  dim3 b(16, 8), g((w + 15) / 16, (h + 7) / 8);
  lap<<<g, b>>>(in, l, w, h);
  twice<<<g, b>>>(l, out, out2, w, h);
}
extern "C" void o_gs(const float *in, float *a, float *b, float *out, int w, int h) {
  int n = w * h;
  gs_sq<<<3, 32>>>(in, a, n);
  gs_nb<<<3, 32>>>(a, b, n);
  gs_out<<<3, 32>>>(a, b, out, n);
}
