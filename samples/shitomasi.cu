// Shi-Tomasi corner detector ("good features to track"), after Hipacc's ShiTomasi sample.
// Same front end as Harris -- derivatives, products, 3x3 Gaussian of the products -- but the
// response is the smaller eigenvalue of the structure tensor [gx gxy; gxy gy]:
//
//   lambda_min = (gx + gy) / 2 - sqrt(((gx - gy) / 2)^2 + gxy^2)
//
// This version reuses one generic product kernel and one generic blur kernel (three launches
// each), and indexes through the PIX macro. Border: clamp-to-edge with min/max.
//
// Build: nvcc -O3 -arch=sm_90 shitomasi.cu -o shitomasi
// Run:   ./shitomasi [w h [out.raw]]
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define PIX(img, x, y, w) ((img)[(y) * (w) + (x)])

__constant__ float c_gauss[3][3];

static const float h_gauss[3][3] = {
    {0.057118f, 0.124758f, 0.057118f},
    {0.124758f, 0.272496f, 0.124758f},
    {0.057118f, 0.124758f, 0.057118f},
};

// Prewitt derivative in x, scaled by 1/6.
__global__ void derivative_x(const float *in, float *dx, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int x0 = max(x - 1, 0), x2 = min(x + 1, w - 1);
  int y0 = max(y - 1, 0), y2 = min(y + 1, h - 1);
  float s = (PIX(in, x2, y0, w) - PIX(in, x0, y0, w)) +
            (PIX(in, x2, y, w) - PIX(in, x0, y, w)) +
            (PIX(in, x2, y2, w) - PIX(in, x0, y2, w));
  PIX(dx, x, y, w) = s / 6.0f;
}

// Prewitt derivative in y, scaled by 1/6.
__global__ void derivative_y(const float *in, float *dy, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int x0 = max(x - 1, 0), x2 = min(x + 1, w - 1);
  int y0 = max(y - 1, 0), y2 = min(y + 1, h - 1);
  float s = (PIX(in, x0, y2, w) - PIX(in, x0, y0, w)) +
            (PIX(in, x, y2, w) - PIX(in, x, y0, w)) +
            (PIX(in, x2, y2, w) - PIX(in, x2, y0, w));
  PIX(dy, x, y, w) = s / 6.0f;
}

// out = a * b, pixel-wise (used for dx*dx, dy*dy and dx*dy).
__global__ void mul(const float *a, const float *b, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  PIX(out, x, y, w) = PIX(a, x, y, w) * PIX(b, x, y, w);
}

__global__ void gauss3(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < 3; ++j) {
    int yy = min(max(y + j - 1, 0), h - 1);
#pragma unroll
    for (int i = 0; i < 3; ++i) {
      int xx = min(max(x + i - 1, 0), w - 1);
      sum += c_gauss[j][i] * PIX(in, xx, yy, w);
    }
  }
  PIX(out, x, y, w) = sum;
}

__global__ void min_eigenvalue(const float *gx, const float *gy, const float *gxy, float *out,
                               int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float a = PIX(gx, x, y, w);
  float b = PIX(gy, x, y, w);
  float c = PIX(gxy, x, y, w);
  float half_diff = (a - b) * 0.5f;
  PIX(out, x, y, w) = (a + b) * 0.5f - sqrtf(half_diff * half_diff + c * c);
}

// Device pointers, w*h floats each. Live-out: `out` only. dx, dy, sx, sy, sxy, gx, gy, gxy
// are caller-allocated scratch.
extern "C" void shitomasi_pipeline(const float *in, float *out,
                                   float *dx, float *dy, float *sx, float *sy, float *sxy,
                                   float *gx, float *gy, float *gxy, int w, int h) {
  cudaMemcpyToSymbol(c_gauss, h_gauss, sizeof(h_gauss));

  dim3 block(32, 8);
  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  derivative_x<<<grid, block>>>(in, dx, w, h);
  derivative_y<<<grid, block>>>(in, dy, w, h);
  mul<<<grid, block>>>(dx, dx, sx, w, h);
  mul<<<grid, block>>>(dy, dy, sy, w, h);
  mul<<<grid, block>>>(dx, dy, sxy, w, h);
  gauss3<<<grid, block>>>(sx, gx, w, h);
  gauss3<<<grid, block>>>(sy, gy, w, h);
  gauss3<<<grid, block>>>(sxy, gxy, w, h);
  min_eigenvalue<<<grid, block>>>(gx, gy, gxy, out, w, h);
}

#ifndef CUDAFUSE_NO_MAIN

#define CHECK(call)                                                                  \
  do {                                                                               \
    cudaError_t err_ = (call);                                                       \
    if (err_ != cudaSuccess) {                                                       \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

// Smooth pattern plus hash noise, in [0.1, 0.9].
static float test_pixel(int x, int y, int w, int h) {
  float u = (float)x / (float)w, v = (float)y / (float)h;
  float smooth = 0.5f + 0.3f * sinf(12.0f * u + 3.0f * v) * cosf(9.0f * v - 2.0f * u);
  unsigned int s = (unsigned int)x * 0x9E3779B1u ^ (unsigned int)y * 0x85EBCA77u;
  s ^= s >> 15;
  s *= 0x2C1B3C6Du;
  s ^= s >> 12;
  float noise = (float)(s & 0xFFFFu) / 65535.0f - 0.5f;
  return smooth + 0.2f * noise;
}

int main(int argc, char **argv) {
  int w = 1024, h = 1024;
  if (argc > 2) {
    w = atoi(argv[1]);
    h = atoi(argv[2]);
  }
  if (w <= 0 || h <= 0) {
    fprintf(stderr, "usage: %s [w h [out.raw]]\n", argv[0]);
    return 1;
  }
  size_t n = (size_t)w * h, bytes = n * sizeof(float);

  float *h_in = (float *)malloc(bytes), *h_out = (float *)malloc(bytes);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) h_in[(size_t)y * w + x] = test_pixel(x, y, w, h);

  float *d_in, *d_out, *d_dx, *d_dy, *d_sx, *d_sy, *d_sxy, *d_gx, *d_gy, *d_gxy;
  CHECK(cudaMalloc(&d_in, bytes));
  CHECK(cudaMalloc(&d_out, bytes));
  CHECK(cudaMalloc(&d_dx, bytes));
  CHECK(cudaMalloc(&d_dy, bytes));
  CHECK(cudaMalloc(&d_sx, bytes));
  CHECK(cudaMalloc(&d_sy, bytes));
  CHECK(cudaMalloc(&d_sxy, bytes));
  CHECK(cudaMalloc(&d_gx, bytes));
  CHECK(cudaMalloc(&d_gy, bytes));
  CHECK(cudaMalloc(&d_gxy, bytes));
  CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));

  shitomasi_pipeline(d_in, d_out, d_dx, d_dy, d_sx, d_sy, d_sxy, d_gx, d_gy, d_gxy, w, h);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));

  if (argc > 3) {
    FILE *f = fopen(argv[3], "wb");
    if (!f || fwrite(h_out, sizeof(float), n, f) != n) {
      fprintf(stderr, "cannot write %s\n", argv[3]);
      return 1;
    }
    fclose(f);
  }
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) sum += h_out[i];
  printf("checksum %.9g\n", sum);

  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_dx);
  cudaFree(d_dy);
  cudaFree(d_sx);
  cudaFree(d_sy);
  cudaFree(d_sxy);
  cudaFree(d_gx);
  cudaFree(d_gy);
  cudaFree(d_gxy);
  free(h_in);
  free(h_out);
  return 0;
}
#endif  // CUDAFUSE_NO_MAIN
