// Harris corner detector, after Hipacc's Harris sample:
//
//   dx, dy      3x3 derivative stencils (Prewitt weights / 6), clamp-to-edge border
//   sx, sy, sxy point products dx*dx, dy*dy, dx*dy
//   gx, gy, gxy 3x3 Gaussian of each product (weights in constant memory), clamp-to-edge
//   out         Harris response det(M) - k * trace(M)^2 with k = 0.04
//
// Nine kernels, one launch each, every intermediate in its own device buffer.
//
// Build: nvcc -O3 -arch=sm_90 harris.cu -o harris
// Run:   ./harris [w h [out.raw]]
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define HARRIS_K 0.04f

// 3x3 Gaussian (sigma ~ 1), row-major, uploaded by harris_pipeline().
__constant__ float c_gauss[9];

static const float h_gauss[9] = {
    0.057118f, 0.124758f, 0.057118f,
    0.124758f, 0.272496f, 0.124758f,
    0.057118f, 0.124758f, 0.057118f,
};

__device__ __forceinline__ int clamp_coord(int v, int n) {
  return min(max(v, 0), n - 1);
}

__global__ void deriv_x(const float *__restrict__ in, float *__restrict__ dx, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;

  int xl = clamp_coord(x - 1, w), xr = clamp_coord(x + 1, w);
  int yu = clamp_coord(y - 1, h), yd = clamp_coord(y + 1, h);
  float s = -in[yu * w + xl] + in[yu * w + xr]
            - in[y * w + xl] + in[y * w + xr]
            - in[yd * w + xl] + in[yd * w + xr];
  dx[y * w + x] = s * (1.0f / 6.0f);
}

__global__ void deriv_y(const float *__restrict__ in, float *__restrict__ dy, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;

  int xl = clamp_coord(x - 1, w), xr = clamp_coord(x + 1, w);
  int yu = clamp_coord(y - 1, h), yd = clamp_coord(y + 1, h);
  float s = -in[yu * w + xl] - in[yu * w + x] - in[yu * w + xr]
            + in[yd * w + xl] + in[yd * w + x] + in[yd * w + xr];
  dy[y * w + x] = s * (1.0f / 6.0f);
}

__global__ void square_x(const float *__restrict__ dx, float *__restrict__ sx, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float v = dx[y * w + x];
  sx[y * w + x] = v * v;
}

__global__ void square_y(const float *__restrict__ dy, float *__restrict__ sy, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float v = dy[y * w + x];
  sy[y * w + x] = v * v;
}

__global__ void product_xy(const float *__restrict__ dx, const float *__restrict__ dy,
                           float *__restrict__ sxy, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  sxy[y * w + x] = dx[y * w + x] * dy[y * w + x];
}

// The three blurs are written out separately, as in the Hipacc sample.
__global__ void gauss_x(const float *__restrict__ sx, float *__restrict__ gx, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float sum = 0.0f;
  for (int j = -1; j <= 1; ++j) {
    int yy = clamp_coord(y + j, h);
    for (int i = -1; i <= 1; ++i) {
      int xx = clamp_coord(x + i, w);
      sum += c_gauss[(j + 1) * 3 + (i + 1)] * sx[yy * w + xx];
    }
  }
  gx[y * w + x] = sum;
}

__global__ void gauss_y(const float *__restrict__ sy, float *__restrict__ gy, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float sum = 0.0f;
  for (int j = -1; j <= 1; ++j) {
    int yy = clamp_coord(y + j, h);
    for (int i = -1; i <= 1; ++i) {
      int xx = clamp_coord(x + i, w);
      sum += c_gauss[(j + 1) * 3 + (i + 1)] * sy[yy * w + xx];
    }
  }
  gy[y * w + x] = sum;
}

__global__ void gauss_xy(const float *__restrict__ sxy, float *__restrict__ gxy, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float sum = 0.0f;
  for (int j = -1; j <= 1; ++j) {
    int yy = clamp_coord(y + j, h);
    for (int i = -1; i <= 1; ++i) {
      int xx = clamp_coord(x + i, w);
      sum += c_gauss[(j + 1) * 3 + (i + 1)] * sxy[yy * w + xx];
    }
  }
  gxy[y * w + x] = sum;
}

__global__ void harris_response(const float *__restrict__ gx, const float *__restrict__ gy,
                                const float *__restrict__ gxy, float *__restrict__ out,
                                int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int i = y * w + x;
  float a = gx[i], b = gy[i], c = gxy[i];
  float det = a * b - c * c;
  float trace = a + b;
  out[i] = det - HARRIS_K * trace * trace;
}

// All pointers are device pointers to w*h floats. Only `out` is live-out; dx, dy, sx, sy,
// sxy, gx, gy and gxy are scratch buffers owned by the caller (inspectable, not meant to be
// used after the call).
extern "C" void harris_pipeline(const float *in, float *out,
                                float *dx, float *dy, float *sx, float *sy, float *sxy,
                                float *gx, float *gy, float *gxy, int w, int h) {
  cudaMemcpyToSymbol(c_gauss, h_gauss, sizeof(h_gauss));

  dim3 block(32, 8);
  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  deriv_x<<<grid, block>>>(in, dx, w, h);
  deriv_y<<<grid, block>>>(in, dy, w, h);
  square_x<<<grid, block>>>(dx, sx, w, h);
  square_y<<<grid, block>>>(dy, sy, w, h);
  product_xy<<<grid, block>>>(dx, dy, sxy, w, h);
  gauss_x<<<grid, block>>>(sx, gx, w, h);
  gauss_y<<<grid, block>>>(sy, gy, w, h);
  gauss_xy<<<grid, block>>>(sxy, gxy, w, h);
  harris_response<<<grid, block>>>(gx, gy, gxy, out, w, h);
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

  harris_pipeline(d_in, d_out, d_dx, d_dy, d_sx, d_sy, d_sxy, d_gx, d_gy, d_gxy, w, h);
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
