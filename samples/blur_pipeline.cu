// A small edge-detection pipeline, the front-end demo (`make demo`):
//
//   rgba --grayscale--> gray --blur3x3 (clamp)--> smooth --sobel (mirror)--> mag
//        --threshold--> edges
//
// Four kernels, each reading the previous one's output from global memory: a point
// operator, two 3x3 stencils with different border modes, and another point operator.
// `cudafuse analyze blur_pipeline.cu` shows the kernels, their access footprints and the
// producer/consumer graph of `edge_pipeline`.
//
// Build: nvcc -O3 -arch=sm_90 blur_pipeline.cu -o blur_pipeline && ./blur_pipeline [w h]
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define IDX(x, y, w) ((y) * (w) + (x))

// ITU-R BT.601 luma, scaled to [0, 1].
__global__ void grayscale(const uchar4 *__restrict__ rgba, float *__restrict__ gray, int w,
                          int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  uchar4 p = rgba[IDX(x, y, w)];
  gray[IDX(x, y, w)] = (0.299f * p.x + 0.587f * p.y + 0.114f * p.z) * (1.0f / 255.0f);
}

// 3x3 box blur; clamp-to-edge border.
__global__ void blur3x3(const float *__restrict__ in, float *__restrict__ out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float sum = 0.0f;
  for (int dy = -1; dy <= 1; ++dy) {
    int yy = min(max(y + dy, 0), h - 1);
    for (int dx = -1; dx <= 1; ++dx) {
      int xx = min(max(x + dx, 0), w - 1);
      sum += in[IDX(xx, yy, w)];
    }
  }
  out[IDX(x, y, w)] = sum * (1.0f / 9.0f);
}

// Symmetric reflection: -1 -> 0, w -> w-1 (edge pixel repeated).
__device__ __forceinline__ int mirror(int i, int n) {
  return i < 0 ? -i - 1 : (i >= n ? 2 * n - i - 1 : i);
}

// Sobel gradient magnitude; mirror border.
__global__ void sobel_mag(const float *__restrict__ in, float *__restrict__ mag, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int xm = mirror(x - 1, w), xp = mirror(x + 1, w);
  int ym = mirror(y - 1, h), yp = mirror(y + 1, h);
  float gx = (in[IDX(xp, ym, w)] + 2.0f * in[IDX(xp, y, w)] + in[IDX(xp, yp, w)]) -
             (in[IDX(xm, ym, w)] + 2.0f * in[IDX(xm, y, w)] + in[IDX(xm, yp, w)]);
  float gy = (in[IDX(xm, yp, w)] + 2.0f * in[IDX(x, yp, w)] + in[IDX(xp, yp, w)]) -
             (in[IDX(xm, ym, w)] + 2.0f * in[IDX(x, ym, w)] + in[IDX(xp, ym, w)]);
  mag[IDX(x, y, w)] = sqrtf(gx * gx + gy * gy);
}

// Binary edge map.
__global__ void threshold(const float *__restrict__ mag, unsigned char *__restrict__ edges,
                          float t, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  edges[IDX(x, y, w)] = mag[IDX(x, y, w)] > t ? 255 : 0;
}

// Device pointers. Live-in: rgba (w*h uchar4). Live-out: edges (w*h bytes).
// gray, smooth and mag (w*h floats each) are scratch between the kernels.
extern "C" void edge_pipeline(const uchar4 *rgba, unsigned char *edges, float *gray,
                              float *smooth, float *mag, int w, int h, cudaStream_t stream) {
  dim3 block(32, 8);
  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  grayscale<<<grid, block, 0, stream>>>(rgba, gray, w, h);
  blur3x3<<<grid, block, 0, stream>>>(gray, smooth, w, h);
  sobel_mag<<<grid, block, 0, stream>>>(smooth, mag, w, h);
  threshold<<<grid, block, 0, stream>>>(mag, edges, 0.25f, w, h);
}

#ifndef CUDAFUSE_NO_MAIN
#define CHECK(call)                                                                      \
  do {                                                                                   \
    cudaError_t err_ = (call);                                                           \
    if (err_ != cudaSuccess) {                                                           \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));      \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)

int main(int argc, char **argv) {
  int w = argc > 2 ? atoi(argv[1]) : 1920;
  int h = argc > 2 ? atoi(argv[2]) : 1080;
  size_t n = (size_t)w * h;
  uchar4 *host_in = (uchar4 *)malloc(n * sizeof(uchar4));
  unsigned char *host_out = (unsigned char *)malloc(n);
  // Deterministic input: concentric rings and a diagonal ramp, so there are edges to find.
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int dx = x - w / 2, dy = y - h / 2;
      unsigned char ring = ((dx * dx + dy * dy) / 4096) % 2 ? 220 : 30;
      unsigned char ramp = (unsigned char)((x + y) & 255);
      host_in[(size_t)y * w + x] = make_uchar4(ring, ramp, (unsigned char)(ring ^ ramp), 255);
    }
  uchar4 *rgba;
  unsigned char *edges;
  float *gray, *smooth, *mag;
  CHECK(cudaMalloc(&rgba, n * sizeof(uchar4)));
  CHECK(cudaMalloc(&edges, n));
  CHECK(cudaMalloc(&gray, n * sizeof(float)));
  CHECK(cudaMalloc(&smooth, n * sizeof(float)));
  CHECK(cudaMalloc(&mag, n * sizeof(float)));
  CHECK(cudaMemcpy(rgba, host_in, n * sizeof(uchar4), cudaMemcpyHostToDevice));
  edge_pipeline(rgba, edges, gray, smooth, mag, w, h, 0);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(host_out, edges, n, cudaMemcpyDeviceToHost));
  unsigned long long checksum = 0, count = 0;
  for (size_t i = 0; i < n; ++i) {
    checksum = checksum * 31 + host_out[i];
    count += host_out[i] != 0;
  }
  printf("%dx%d: %llu edge pixels, checksum %016llx\n", w, h, count, checksum);
  cudaFree(rgba);
  cudaFree(edges);
  cudaFree(gray);
  cudaFree(smooth);
  cudaFree(mag);
  free(host_in);
  free(host_out);
  return 0;
}
#endif
