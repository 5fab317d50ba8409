// Sobel edge magnitude, after Hipacc's Sobel sample: two 3x3 derivative stencils with a
// mirror (symmetric, edge pixel repeated) border, then the gradient magnitude.
//
//   gx  = [-1 0 1; -2 0 2; -1 0 1] * in
//   gy  = [-1 -2 -1; 0 0 0; 1 2 1] * in
//   out = sqrt(gx^2 + gy^2)
//
// Build: nvcc -O3 -arch=sm_90 sobel.cu -o sobel
// Run:   ./sobel [w h [out.raw]]
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

// Symmetric reflection: -1 -> 0, -2 -> 1, w -> w-1, w+1 -> w-2.
__device__ int mirror(int x, int w) {
  return x < 0 ? -x - 1 : (x >= w ? 2 * w - x - 1 : x);
}

__device__ float load_mirror(const float *img, int x, int y, int w, int h) {
  return img[mirror(y, h) * w + mirror(x, w)];
}

__global__ void sobel_x(const float *in, float *gx, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;

  float v = -1.0f * load_mirror(in, x - 1, y - 1, w, h) + 1.0f * load_mirror(in, x + 1, y - 1, w, h)
            - 2.0f * load_mirror(in, x - 1, y, w, h) + 2.0f * load_mirror(in, x + 1, y, w, h)
            - 1.0f * load_mirror(in, x - 1, y + 1, w, h) + 1.0f * load_mirror(in, x + 1, y + 1, w, h);
  gx[y * w + x] = v;
}

__global__ void sobel_y(const float *in, float *gy, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;

  float v = -1.0f * load_mirror(in, x - 1, y - 1, w, h) - 2.0f * load_mirror(in, x, y - 1, w, h)
            - 1.0f * load_mirror(in, x + 1, y - 1, w, h)
            + 1.0f * load_mirror(in, x - 1, y + 1, w, h) + 2.0f * load_mirror(in, x, y + 1, w, h)
            + 1.0f * load_mirror(in, x + 1, y + 1, w, h);
  gy[y * w + x] = v;
}

__global__ void magnitude(const float *gx, const float *gy, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float a = gx[y * w + x];
  float b = gy[y * w + x];
  out[y * w + x] = sqrtf(a * a + b * b);
}

// Device pointers, w*h floats each. Live-out: `out`. gx and gy are scratch.
extern "C" void sobel_pipeline(const float *in, float *out, float *gx, float *gy, int w, int h) {
  dim3 block(32, 8);
  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  sobel_x<<<grid, block>>>(in, gx, w, h);
  sobel_y<<<grid, block>>>(in, gy, w, h);
  magnitude<<<grid, block>>>(gx, gy, out, w, h);
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

  float *d_in = nullptr, *d_out = nullptr, *d_gx = nullptr, *d_gy = nullptr;
  CHECK(cudaMalloc(&d_in, bytes));
  CHECK(cudaMalloc(&d_out, bytes));
  CHECK(cudaMalloc(&d_gx, bytes));
  CHECK(cudaMalloc(&d_gy, bytes));
  CHECK(cudaMemcpy(d_in, img.data(), bytes, cudaMemcpyHostToDevice));

  sobel_pipeline(d_in, d_out, d_gx, d_gy, w, h);
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
  CHECK(cudaFree(d_gx));
  CHECK(cudaFree(d_gy));
  return 0;
}
#endif  // CUDAFUSE_NO_MAIN
