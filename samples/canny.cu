// Canny edge detector, front end (no hysteresis):
//
//   smooth          5x5 binomial Gaussian ([1 4 6 4 1]^T [1 4 6 4 1] / 256)
//   mag, dir        Sobel gradient magnitude and direction (atan2, radians) -- one kernel,
//                   two output images
//   out             non-maximum suppression: keep mag where it is a maximum along the gradient
//                   direction (quantised to 0/45/90/135 degrees), else 0
//
// Border: clamp-to-edge everywhere.
//
// Build: nvcc -O3 -arch=sm_90 canny.cu -o canny
// Run:   ./canny [w h [out.raw]]
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

__global__ void gaussian5x5(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;

  const int R = 2;
  const float binom[2 * R + 1] = {1.0f, 4.0f, 6.0f, 4.0f, 1.0f};
  float sum = 0.0f;
  for (int j = -R; j <= R; ++j) {
    int yy = min(max(y + j, 0), h - 1);
    for (int i = -R; i <= R; ++i) {
      int xx = min(max(x + i, 0), w - 1);
      sum += binom[j + R] * binom[i + R] * in[yy * w + xx];
    }
  }
  out[y * w + x] = sum * (1.0f / 256.0f);
}

__global__ void sobel_grad(const float *in, float *mag, float *dir, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;

  int xm = max(x - 1, 0), xp = min(x + 1, w - 1);
  int ym = max(y - 1, 0), yp = min(y + 1, h - 1);
  float tl = in[ym * w + xm], t = in[ym * w + x], tr = in[ym * w + xp];
  float l = in[y * w + xm], r = in[y * w + xp];
  float bl = in[yp * w + xm], b = in[yp * w + x], br = in[yp * w + xp];

  float gx = (tr + 2.0f * r + br) - (tl + 2.0f * l + bl);
  float gy = (bl + 2.0f * b + br) - (tl + 2.0f * t + tr);
  mag[y * w + x] = sqrtf(gx * gx + gy * gy);
  dir[y * w + x] = atan2f(gy, gx);
}

__global__ void non_max_suppression(const float *mag, const float *dir, float *out,
                                    int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;

  int xm = max(x - 1, 0), xp = min(x + 1, w - 1);
  int ym = max(y - 1, 0), yp = min(y + 1, h - 1);

  float m = mag[y * w + x];
  float deg = dir[y * w + x] * (180.0f / 3.14159265f);
  if (deg < 0.0f) deg += 180.0f;

  // The two neighbours along the gradient (y grows downwards).
  float n1, n2;
  if (deg < 22.5f || deg >= 157.5f) {         // horizontal gradient: vertical edge
    n1 = mag[y * w + xm];
    n2 = mag[y * w + xp];
  } else if (deg < 67.5f) {                   // down-right / up-left
    n1 = mag[yp * w + xp];
    n2 = mag[ym * w + xm];
  } else if (deg < 112.5f) {                  // vertical gradient: horizontal edge
    n1 = mag[ym * w + x];
    n2 = mag[yp * w + x];
  } else {                                    // down-left / up-right
    n1 = mag[yp * w + xm];
    n2 = mag[ym * w + xp];
  }
  out[y * w + x] = (m >= n1 && m >= n2) ? m : 0.0f;
}

// Device pointers, w*h floats each. Live-out: `out`. smooth, mag and dir are scratch.
extern "C" void canny_pipeline(const float *in, float *out, float *smooth, float *mag,
                               float *dir, int w, int h) {
  dim3 block(32, 8);
  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  gaussian5x5<<<grid, block>>>(in, smooth, w, h);
  sobel_grad<<<grid, block>>>(smooth, mag, dir, w, h);
  non_max_suppression<<<grid, block>>>(mag, dir, out, w, h);
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

  float *d_in, *d_out, *d_smooth, *d_mag, *d_dir;
  CHECK(cudaMalloc(&d_in, bytes));
  CHECK(cudaMalloc(&d_out, bytes));
  CHECK(cudaMalloc(&d_smooth, bytes));
  CHECK(cudaMalloc(&d_mag, bytes));
  CHECK(cudaMalloc(&d_dir, bytes));
  CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));

  canny_pipeline(d_in, d_out, d_smooth, d_mag, d_dir, w, h);
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
  cudaFree(d_smooth);
  cudaFree(d_mag);
  cudaFree(d_dir);
  free(h_in);
  free(h_out);
  return 0;
}
#endif  // CUDAFUSE_NO_MAIN
