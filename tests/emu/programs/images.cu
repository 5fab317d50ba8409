// Image kernels: 3x3 stencils with each border mode, a shared-memory tile with a halo,
// __constant__ weights, intrinsics, early returns, and a host pipeline using the runtime API.
#include <cuda_runtime.h>

enum Border { CLAMP = 0, MIRROR = 1, MIRROR101 = 2, WRAP = 3, CONSTANT = 4 };

__constant__ float c_weights[9];

__device__ int fold(int i, int n, int mode) {
  if (mode == CLAMP) return min(max(i, 0), n - 1);
  if (mode == MIRROR) return i < 0 ? -i - 1 : (i >= n ? 2 * n - i - 1 : i);
  if (mode == MIRROR101) return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i);
  return (i % n + n) % n;  // WRAP
}

__global__ void stencil3x3(const float *in, float *out, int w, int h, int mode, float cval) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float acc = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int xx = x + dx, yy = y + dy;
      float v;
      if (mode == CONSTANT && (xx < 0 || yy < 0 || xx >= w || yy >= h)) v = cval;
      else v = in[fold(yy, h, mode) * w + fold(xx, w, mode)];
      acc += c_weights[(dy + 1) * 3 + dx + 1] * v;
    }
  out[y * w + x] = acc;
}

#define TILE 16
// Shared-memory tile with a one-pixel halo (clamped), loaded cooperatively.
__global__ void tiled_blur(const float *in, float *out, int w, int h) {
  __shared__ float tile[TILE + 2][TILE + 2];
  int bx = blockIdx.x * TILE, by = blockIdx.y * TILE;
  for (int k = threadIdx.y * TILE + threadIdx.x; k < (TILE + 2) * (TILE + 2); k += TILE * TILE) {
    int ty = k / (TILE + 2), tx = k % (TILE + 2);
    int gx = min(max(bx + tx - 1, 0), w - 1), gy = min(max(by + ty - 1, 0), h - 1);
    tile[ty][tx] = in[gy * w + gx];
  }
  __syncthreads();
  int x = bx + threadIdx.x, y = by + threadIdx.y;
  if (x >= w || y >= h) return;  // early return after the last barrier
  float s = 0.0f;
  for (int dy = 0; dy < 3; ++dy)
    for (int dx = 0; dx < 3; ++dx) s += tile[threadIdx.y + dy][threadIdx.x + dx];
  out[y * w + x] = s / 9.0f;
}

__global__ void intrinsics(const unsigned *a, const unsigned *b, unsigned *r, float *f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i];
  unsigned *o = r + 8 * i;
  o[0] = __popc(x);
  o[1] = __clz((int)x);
  o[2] = __ffs((int)x);
  o[3] = __byte_perm(x, y, 0x5140);
  o[4] = __funnelshift_l(x, y, i & 31);
  o[5] = __funnelshift_r(x, y, i & 31);
  o[6] = __umulhi(x, y);
  o[7] = __brev(x) ^ (unsigned)min((int)(x & 0xff), -3) ^ max(x, 5u);
  float v = (float)(x & 0xffff) / 65536.0f + 0.25f;
  float *g = f + 4 * i;
  g[0] = __expf(v);
  g[1] = rsqrtf(v);
  g[2] = __fdividef(1.0f, v);
  g[3] = __ldg(&v) * __saturatef(v);
}

void set_weights(const float *w9) { cudaMemcpyToSymbol(c_weights, w9, 9 * sizeof(float)); }

// A host pipeline in the style of the samples: it allocates its own temporaries, uses
// streams and events, and copies results with cudaMemcpy.
int smooth_twice(const float *img, float *out, int w, int h, int mode) {
  float *tmp = nullptr, *tmp2 = nullptr;
  size_t bytes = (size_t)w * h * sizeof(float);
  cudaMalloc(&tmp, bytes);
  cudaMalloc((void **)&tmp2, bytes);
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventRecord(e0, s);
  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
  stencil3x3<<<grid, block, 0, s>>>(img, tmp, w, h, mode, 0.5f);
  tiled_blur<<<grid, block, 0, s>>>(tmp, tmp2, w, h);
  cudaMemcpyAsync(out, tmp2, bytes, cudaMemcpyDeviceToDevice, s);
  cudaEventRecord(e1, s);
  cudaEventSynchronize(e1);
  cudaStreamSynchronize(s);
  cudaStreamDestroy(s);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaFree(tmp);
  cudaFree(tmp2);
  cudaDeviceSynchronize();
  return (int)cudaGetLastError();
}

template <class T>
__global__ void axpy(T a, const T *x, T *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void axpy_both(float a, const float *x, float *y, double b, const double *xd, double *yd, int n) {
  axpy<float><<<(n + 63) / 64, 64>>>(a, x, y, n);
  axpy<<<(n + 63) / 64, 64>>>(b, xd, yd, n);
}
