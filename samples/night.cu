// Night-vision tone mapping, after Hipacc's Night sample: two a-trous ("with holes") wavelet
// smoothing passes, then an expensive per-pixel tone-mapping operator.
//
//   atrous0 = 3x3 binomial [1 2 1]^T [1 2 1] / 16, taps at distance 1     (3x3 footprint)
//   atrous1 = the same weights with taps at distance 2                    (5x5 footprint)
//   out     = tone map: Reinhard global curve blended with a scotopic (rod vision) curve,
//             then display gamma
//
// Border: repeat (periodic wrap-around), (x % w + w) % w.
// Hipacc's sample works on RGBA; this version keeps a single float luminance channel for
// simplicity (the tone-mapping operator works on luminance anyway).
//
// Build: nvcc -O3 -arch=sm_90 night.cu -o night
// Run:   ./night [w h [out.raw]]
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define KEY 0.18f          // Reinhard key value
#define LOG_AVG_LUM -0.8f  // assumed log-average luminance of the scene
#define WHITE 1.5f         // smallest luminance mapped to pure white

__device__ __forceinline__ int wrap(int i, int n) { return (i % n + n) % n; }

// One a-trous step with hole size `step` (1 for the 3x3 pass, 2 for the 5x5 pass).
__device__ float atrous_at(const float *in, int x, int y, int w, int h, int step) {
  const float k[3] = {0.25f, 0.5f, 0.25f};
  float sum = 0.0f;
  for (int j = -1; j <= 1; ++j) {
    int yy = wrap(y + j * step, h);
    for (int i = -1; i <= 1; ++i) {
      int xx = wrap(x + i * step, w);
      sum += k[j + 1] * k[i + 1] * in[yy * w + xx];
    }
  }
  return sum;
}

__global__ void atrous0(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = atrous_at(in, x, y, w, h, 1);
}

__global__ void atrous1(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = atrous_at(in, x, y, w, h, 2);
}

__global__ void tonemap(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;

  float lum = fmaxf(in[y * w + x], 1e-4f);
  // Reinhard et al. 2002, global operator with a burn-out white point.
  float scaled = KEY * lum / expf(LOG_AVG_LUM);
  float photopic = scaled * (1.0f + scaled / (WHITE * WHITE)) / (1.0f + scaled);
  // Share of rod vision: a sigmoid in log10 luminance (rods dominate in the dark).
  float rod = 1.0f / (1.0f + expf(4.0f * (log10f(lum) + 0.7f)));
  // Rods saturate early: a logarithmic response, slightly dimmer.
  float scotopic = 0.8f * logf(1.0f + 10.0f * photopic) / logf(11.0f);
  float mapped = rod * scotopic + (1.0f - rod) * photopic;
  out[y * w + x] = powf(mapped, 1.0f / 2.2f);
}

// Device pointers, w*h floats each. Live-out: `out`. smooth0 and smooth1 are scratch.
extern "C" void night_pipeline(const float *in, float *out, float *smooth0, float *smooth1,
                               int w, int h) {
  dim3 block(32, 8);
  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  atrous0<<<grid, block>>>(in, smooth0, w, h);
  atrous1<<<grid, block>>>(smooth0, smooth1, w, h);
  tonemap<<<grid, block>>>(smooth1, out, w, h);
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

  float *d_in, *d_out, *d_smooth0, *d_smooth1;
  CHECK(cudaMalloc(&d_in, bytes));
  CHECK(cudaMalloc(&d_out, bytes));
  CHECK(cudaMalloc(&d_smooth0, bytes));
  CHECK(cudaMalloc(&d_smooth1, bytes));
  CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));

  night_pipeline(d_in, d_out, d_smooth0, d_smooth1, w, h);
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
  cudaFree(d_smooth0);
  cudaFree(d_smooth1);
  free(h_in);
  free(h_out);
  return 0;
}
#endif  // CUDAFUSE_NO_MAIN
