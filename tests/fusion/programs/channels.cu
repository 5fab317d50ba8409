// Kernels that store several channels per element: planar (c * plane + i) and interleaved
// (i * K + c), as producers, as consumers and as the last kernel (issue 15).
#include <cuda_runtime.h>

#define PLANE(c, i) ((c) * w * h + (i))

__global__ void split_planes(const unsigned char *rgb, float *planes, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int i = y * w + x;
  planes[i] = rgb[3 * i] / 255.0f;
  planes[w * h + i] = rgb[3 * i + 1] / 255.0f;
  planes[2 * w * h + i] = rgb[3 * i + 2] / 255.0f;
}

// Planar in and out: a consumer of channels and a producer of them.
__global__ void gain_planes(const float *in, float *out, int w, int h, float g) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    const int plane = w * h;
    out[y * w + x] = in[y * w + x] * g;
    out[plane + y * w + x] = in[plane + y * w + x] * g + 0.25f;
    out[2 * plane + y * w + x] = in[2 * plane + y * w + x] * (1.0f - g);
  }
}

__global__ void to_gray(const float *planes, float *gray, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int i = y * w + x;
  int plane = w * h;
  gray[i] = 0.299f * planes[i] + 0.587f * planes[plane + i] + 0.114f * planes[2 * plane + i];
}

// Reads the channels through a macro, in another order, one of them twice.
__global__ void chroma(const float *planes, float *out, int w, int h) {
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (y >= h || x >= w) return;
  int i = x + w * y;
  out[i] = planes[PLANE(2, i)] - planes[PLANE(0, i)] + 0.5f * planes[PLANE(2, i)];
}

// Interleaved, 1D over pixels.
__global__ void brighten(const float *in, float *out, int n, float g) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i * 3 + 0] = in[i * 3 + 0] * g;
    out[i * 3 + 1] = in[i * 3 + 1] * g;
    out[i * 3 + 2] = in[i * 3 + 2] * g;
  }
}

__global__ void luma(const float *rgb, float *lum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) lum[i] = 0.2126f * rgb[3 * i] + 0.7152f * rgb[3 * i + 1] + 0.0722f * rgb[2 + 3 * i];
}

// Interleaved 2D, four channels; the last kernel stores channels too.
__global__ void to_rgba(const float *gray, float *rgba, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float v = gray[y * w + x];
  rgba[(y * w + x) * 4 + 0] = v;
  rgba[(y * w + x) * 4 + 1] = v * v;
  rgba[(y * w + x) * 4 + 3] = 1.0f;
  rgba[(y * w + x) * 4 + 2] = 0.5f * v;
}

__global__ void square(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = in[y * w + x] * in[y * w + x];
}

// Refused: a neighbour of a channel (a stencil over a plane).
__global__ void blur_red(const float *planes, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int xl = max(x - 1, 0);
  out[y * w + x] = 0.5f * (planes[y * w + x] + planes[y * w + xl]);
}

// Channels stored in a loop over c: fused, the loop unrolled (kernel/respell/unroll.py).
__global__ void split_loop(const float *rgb, float *planes, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  for (int c = 0; c < 3; ++c) planes[c * w * h + y * w + x] = rgb[(y * w + x) * 3 + c];
}

void planar_gray(const unsigned char *rgb, float *planes, float *gray, int w, int h) {
  dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
  split_planes<<<grid, block>>>(rgb, planes, w, h);
  to_gray<<<grid, block>>>(planes, gray, w, h);
}

void planar_chain(const unsigned char *rgb, float *planes, float *graded, float *gray,
                  float *chr, int w, int h) {
  dim3 block(32, 4), grid((w + 31) / 32, (h + 3) / 4);
  split_planes<<<grid, block>>>(rgb, planes, w, h);
  gain_planes<<<grid, block>>>(planes, graded, w, h, 0.75f);
  to_gray<<<grid, block>>>(graded, gray, w, h);
  chroma<<<grid, block>>>(graded, chr, w, h);
}

void interleaved(const float *in, float *tmp, float *lum, int w, int h) {
  int n = w * h;
  brighten<<<(n + 127) / 128, 128>>>(in, tmp, n, 1.5f);
  luma<<<(n + 127) / 128, 128>>>(tmp, lum, n);
}

void rgba_sink(const float *in, float *sq, float *rgba, int w, int h) {
  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
  square<<<grid, block>>>(in, sq, w, h);
  to_rgba<<<grid, block>>>(sq, rgba, w, h);
}

void refused(const unsigned char *rgb, const float *rgbf, float *planes, float *planes2,
             float *out, float *out2, int w, int h) {
  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
  split_planes<<<grid, block>>>(rgb, planes, w, h);
  blur_red<<<grid, block>>>(planes, out, w, h);
  split_loop<<<grid, block>>>(rgbf, planes2, w, h);
  to_gray<<<grid, block>>>(planes2, out2, w, h);
}
