// Separable 5-tap Gaussian blur (binomial 1 4 6 4 1 / 16): a horizontal 1x5 pass into a
// temporary image, then a vertical 5x1 pass.
//
// Border: mirror-101 (reflection without repeating the edge pixel: -1 -> 1, w -> w-2), as in
// OpenCV's BORDER_REFLECT_101. Needs w >= 3 and h >= 3.
// The kernels take the row pitch (in elements) as a separate `stride` argument; the pipeline
// uses tightly packed images, so stride == w.
//
// Build: nvcc -O3 -arch=sm_90 blur.cu -o blur
// Run:   ./blur [w h [out.raw]]
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

__device__ inline int reflect101(int i, int n) {
  return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i);
}

__global__ void blur_h(const float *__restrict__ in, float *__restrict__ out,
                       int w, int h, int stride) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;

  const float taps[5] = {1.0f / 16, 4.0f / 16, 6.0f / 16, 4.0f / 16, 1.0f / 16};
  const float *row = in + y * stride;
  float sum = 0.0f;
#pragma unroll
  for (int k = -2; k <= 2; ++k) sum += taps[k + 2] * row[reflect101(x + k, w)];
  out[y * stride + x] = sum;
}

__global__ void blur_v(const float *__restrict__ in, float *__restrict__ out,
                       int w, int h, int stride) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;

  const float taps[5] = {1.0f / 16, 4.0f / 16, 6.0f / 16, 4.0f / 16, 1.0f / 16};
  float sum = 0.0f;
#pragma unroll
  for (int k = -2; k <= 2; ++k) sum += taps[k + 2] * in[reflect101(y + k, h) * stride + x];
  out[y * stride + x] = sum;
}

// Device pointers, w*h floats each (row pitch w). Live-out: `out`. tmp is scratch.
extern "C" void blur_pipeline(const float *in, float *out, float *tmp, int w, int h) {
  int stride = w;
  dim3 block(32, 8);
  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  blur_h<<<grid, block>>>(in, tmp, w, h, stride);
  blur_v<<<grid, block>>>(tmp, out, w, h, stride);
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
  if (w < 3 || h < 3) {  // reflect101 needs at least 3 pixels
    fprintf(stderr, "usage: %s [w h [out.raw]]\n", argv[0]);
    return 1;
  }
  const size_t n = (size_t)w * h;
  const size_t bytes = n * sizeof(float);

  std::vector<float> img(n), result(n);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) img[(size_t)y * w + x] = test_pixel(x, y, w, h);

  float *d_in = nullptr, *d_out = nullptr, *d_tmp = nullptr;
  CHECK(cudaMalloc(&d_in, bytes));
  CHECK(cudaMalloc(&d_out, bytes));
  CHECK(cudaMalloc(&d_tmp, bytes));
  CHECK(cudaMemcpy(d_in, img.data(), bytes, cudaMemcpyHostToDevice));

  blur_pipeline(d_in, d_out, d_tmp, w, h);
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
  CHECK(cudaFree(d_tmp));
  return 0;
}
#endif  // CUDAFUSE_NO_MAIN
