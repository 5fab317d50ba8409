// Image enhancement, after Hipacc's Enhance sample: a geometric-mean filter for denoising,
// then a gain and a gamma correction.
//
//   denoised = exp(mean(log(in))) over a 3x3 window; outside the image the window reads the
//              constant 1.0 (log 1 = 0, so out-of-image taps add nothing to the sum)
//   gained   = min(GAIN * denoised, 1)
//   out      = gained ^ (1 / GAMMA)
//
// The input must be positive (logf); the test image lies in [0.1, 0.9].
//
// Build: nvcc -O3 -arch=sm_90 enhance.cu -o enhance
// Run:   ./enhance [w h [out.raw]]
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define GAIN 1.25f
#define GAMMA 2.2f

__global__ void geometric_mean(const float *__restrict__ in, float *__restrict__ out,
                               int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;

  float log_sum = 0.0f;
  for (int dy = -1; dy <= 1; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      int xx = x + dx, yy = y + dy;
      float v = (xx >= 0 && xx < w && yy >= 0 && yy < h) ? in[yy * w + xx] : 1.0f;
      log_sum += logf(v);
    }
  }
  out[y * w + x] = expf(log_sum * (1.0f / 9.0f));
}

__global__ void gain(const float *__restrict__ in, float *__restrict__ out, float g,
                     int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = fminf(g * in[y * w + x], 1.0f);
}

__global__ void gamma_correct(const float *__restrict__ in, float *__restrict__ out,
                              float inv_gamma, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = powf(in[y * w + x], inv_gamma);
}

// Device pointers, w*h floats each. Live-out: `out`. denoised and gained are scratch.
extern "C" void enhance_pipeline(const float *in, float *out, float *denoised, float *gained,
                                 int w, int h) {
  dim3 block(32, 8);
  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  geometric_mean<<<grid, block>>>(in, denoised, w, h);
  gain<<<grid, block>>>(denoised, gained, GAIN, w, h);
  gamma_correct<<<grid, block>>>(gained, out, 1.0f / GAMMA, w, h);
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

  float *d_in, *d_out, *d_denoised, *d_gained;
  CHECK(cudaMalloc(&d_in, bytes));
  CHECK(cudaMalloc(&d_out, bytes));
  CHECK(cudaMalloc(&d_denoised, bytes));
  CHECK(cudaMalloc(&d_gained, bytes));
  CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));

  enhance_pipeline(d_in, d_out, d_denoised, d_gained, w, h);
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
  cudaFree(d_denoised);
  cudaFree(d_gained);
  free(h_in);
  free(h_out);
  return 0;
}
#endif  // CUDAFUSE_NO_MAIN
