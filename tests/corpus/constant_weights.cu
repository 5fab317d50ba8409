// __constant__ filter weights uploaded with cudaMemcpyToSymbol; 1D convolution, zero border.
// EXPECT-KERNEL: conv_rows 4
// EXPECT-KERNEL: conv_cols 4
// EXPECT-LAUNCH: separable -> conv_rows 4
// EXPECT-LAUNCH: separable -> conv_cols 4
#include <cuda_runtime.h>

#define RADIUS 4
#define TAPS (2 * RADIUS + 1)

__constant__ float c_weights[TAPS];

__global__ void conv_rows(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
#pragma unroll
  for (int k = -RADIUS; k <= RADIUS; ++k) {
    int xx = x + k;
    if (xx >= 0 && xx < w) s += c_weights[k + RADIUS] * in[y * w + xx];
  }
  out[y * w + x] = s;
}

__global__ void conv_cols(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  for (int k = -RADIUS; k <= RADIUS; ++k) {
    int yy = y + k;
    float v = (yy >= 0 && yy < h) ? in[yy * w + x] : 0.0f;
    s += c_weights[k + RADIUS] * v;
  }
  out[y * w + x] = s;
}

extern "C" void separable(const float *host_weights, const float *in, float *tmp, float *out,
                          int w, int h) {
  cudaMemcpyToSymbol(c_weights, host_weights, TAPS * sizeof(float));
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  conv_rows<<<g, b>>>(in, tmp, w, h);
  conv_cols<<<g, b>>>(tmp, out, w, h);
}
