// Unsharp masking, after Hipacc's Unsharp sample: a Gaussian-like blur, then three point
// operators that all read the original image `in`:
//
//   blur      = (2R+1)x(2R+1) tent-weighted blur of in (R = 1: the 1-2-1 binomial), clamp border
//   diff      = in - blur                                  (the detail layer)
//   amplified = in + AMOUNT * diff                         (the sharpened image)
//   out       = |diff| > THRESHOLD ? clamp(amplified, 0, 1) : in
//
// Build: nvcc -O3 -arch=sm_90 unsharp.cu -o unsharp
// Run:   ./unsharp [w h [out.raw]]
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define R 1
#define AMOUNT 1.5f
#define THRESHOLD 0.01f

__global__ void blur(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;

  float sum = 0.0f, norm = 0.0f;
  for (int dy = -R; dy <= R; ++dy) {
    for (int dx = -R; dx <= R; ++dx) {
      int xx = min(max(x + dx, 0), w - 1);
      int yy = min(max(y + dy, 0), h - 1);
      float wgt = (float)((R + 1 - abs(dx)) * (R + 1 - abs(dy)));
      sum += wgt * in[yy * w + xx];
      norm += wgt;
    }
  }
  out[y * w + x] = sum / norm;
}

__global__ void difference(const float *in, const float *blurred, float *diff, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int i = y * w + x;
  diff[i] = in[i] - blurred[i];
}

__global__ void amplify(const float *in, const float *diff, float *amplified, float amount,
                        int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int i = y * w + x;
  amplified[i] = in[i] + amount * diff[i];
}

__global__ void threshold_clamp(const float *in, const float *diff, const float *amplified,
                                float *out, float threshold, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int i = y * w + x;
  out[i] = fabsf(diff[i]) > threshold ? fminf(fmaxf(amplified[i], 0.0f), 1.0f) : in[i];
}

// Device pointers, w*h floats each. Live-out: `out`. blurred, diff and amplified are scratch.
extern "C" void unsharp_pipeline(const float *in, float *out, float *blurred, float *diff,
                                 float *amplified, int w, int h) {
  dim3 block(32, 8);
  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  blur<<<grid, block>>>(in, blurred, w, h);
  difference<<<grid, block>>>(in, blurred, diff, w, h);
  amplify<<<grid, block>>>(in, diff, amplified, AMOUNT, w, h);
  threshold_clamp<<<grid, block>>>(in, diff, amplified, out, THRESHOLD, w, h);
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
  const size_t n = (size_t)w * h;
  const size_t bytes = n * sizeof(float);

  std::vector<float> img(n), result(n);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) img[(size_t)y * w + x] = test_pixel(x, y, w, h);

  float *d_in = nullptr, *d_out = nullptr, *d_blurred = nullptr, *d_diff = nullptr, *d_amp = nullptr;
  CHECK(cudaMalloc(&d_in, bytes));
  CHECK(cudaMalloc(&d_out, bytes));
  CHECK(cudaMalloc(&d_blurred, bytes));
  CHECK(cudaMalloc(&d_diff, bytes));
  CHECK(cudaMalloc(&d_amp, bytes));
  CHECK(cudaMemcpy(d_in, img.data(), bytes, cudaMemcpyHostToDevice));

  unsharp_pipeline(d_in, d_out, d_blurred, d_diff, d_amp, w, h);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(result.data(), d_out, bytes, cudaMemcpyDeviceToHost));

  if (argc > 3) {
    FILE *f = fopen(argv[3], "wb");
    if (!f || fwrite(result.data(), sizeof(float), n, f) != n) {
      fprintf(stderr, "cannot write %s\n", argv[3]);
      return 1;
    }
    fclose(f);
  }
  double sum = 0.0;
  for (float v : result) sum += v;
  printf("checksum %.9g\n", sum);

  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_blurred));
  CHECK(cudaFree(d_diff));
  CHECK(cudaFree(d_amp));
  return 0;
}
#endif  // CUDAFUSE_NO_MAIN
