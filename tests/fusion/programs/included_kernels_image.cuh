// Kernels of included_kernels.cu, kept in a header as cuda-samples do (`*_kernel.cuh`):
// a 2-D image pipeline of a point operation, a 3x3 stencil with clamped borders, and a
// point operation again, plus a device helper they share.
#ifndef INCLUDED_KERNELS_IMAGE_CUH
#define INCLUDED_KERNELS_IMAGE_CUH

#define IK_GAIN 1.5f

__device__ __forceinline__ int ik_clamp(int v, int lo, int hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

__global__ void ik_brighten(const float *in, float *a, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    a[y * w + x] = in[y * w + x] * IK_GAIN + 0.25f;
}

__global__ void ik_blur(const float *a, float *b, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      s += a[ik_clamp(y + dy, 0, h - 1) * w + ik_clamp(x + dx, 0, w - 1)];
  b[y * w + x] = s / 9.0f;
}

__global__ void ik_square(const float *b, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float v = b[y * w + x];
    out[y * w + x] = v * v - 0.5f;
  }
}

#endif
