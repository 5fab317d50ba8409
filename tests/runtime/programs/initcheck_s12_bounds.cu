// Reads and writes outside a device allocation, and a read of one nothing wrote (issue 27):
// test_initcheck_s12_bounds.py. Each entry takes an input of at least n floats and an output
// of at least n floats.
#include <cuda_runtime.h>

__global__ void shift(const float *src, float *dst, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i + 1] * 2.0f;  // i + 1 == n: one past the end
}

__global__ void back(float *dst, const float *src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i - 1] = src[i];  // i == 0: one before the start
}

__global__ void sum(const float *acc, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = acc[i] + x[i];  // acc: never written
}

__global__ void quads(const float4 *in, float4 *out, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) out[i] = make_float4(in[i].w, in[i].z, in[i].y, in[i].x);
}

__global__ void rows(float *img, size_t pitch, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) {
    float *row = (float *)((char *)img + y * pitch);
    row[x] = row[x] + 1.0f;
  }
}

extern "C" void past_end(const float *in, float *out, int n) {
  float *src, *dst;
  cudaMalloc(&src, n * sizeof(float));
  cudaMalloc(&dst, n * sizeof(float));
  cudaMemcpy(src, in, n * sizeof(float), cudaMemcpyHostToDevice);
  shift<<<(n + 63) / 64, 64>>>(src, dst, n);
  cudaMemcpy(out, dst, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(src);
  cudaFree(dst);
}

extern "C" void before_start(const float *in, float *out, int n) {
  float *src, *dst;
  cudaMalloc(&src, n * sizeof(float));
  cudaMalloc(&dst, n * sizeof(float));
  cudaMemcpy(src, in, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(dst, 0, n * sizeof(float));
  back<<<(n + 63) / 64, 64>>>(dst, src, n);
  cudaMemcpy(out, dst, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(src);
  cudaFree(dst);
}

extern "C" void unwritten(const float *in, float *out, int n) {
  float *acc, *x, *y;
  cudaMalloc(&acc, n * sizeof(float));
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMemcpy(x, in, n * sizeof(float), cudaMemcpyHostToDevice);
  sum<<<(n + 63) / 64, 64>>>(acc, x, y, n);
  cudaMemcpy(out, y, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(acc);
  cudaFree(x);
  cudaFree(y);
}

// In bounds: float4 loads up to the last byte; a pitched image's rows.
extern "C" void clean(const float *in, float *out, int n) {
  float4 *a, *b;
  int m = n / 4;
  cudaMalloc(&a, m * sizeof(float4));
  cudaMalloc(&b, m * sizeof(float4));
  cudaMemcpy(a, in, m * sizeof(float4), cudaMemcpyHostToDevice);
  quads<<<(m + 63) / 64, 64>>>(a, b, m);
  float *img;
  size_t pitch;
  int w = 5, h = n / 5;
  cudaMallocPitch(&img, &pitch, w * sizeof(float), h);
  cudaMemcpy2D(img, pitch, in, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice);
  rows<<<dim3(1, h), 64>>>(img, pitch, w, h);
  cudaMemcpy(out, b, m * sizeof(float4), cudaMemcpyDeviceToHost);
  cudaMemcpy2D(out + m * 4, w * sizeof(float), img, pitch, w * sizeof(float), h,
               cudaMemcpyDeviceToHost);
  cudaFree(a);
  cudaFree(b);
  cudaFree(img);
}

// n floats read as float4s: the last one passes the end when n is no multiple of 4.
extern "C" void quads_tail(const float *in, float *out, int n) {
  float4 *a, *b;
  int m = (n + 3) / 4;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, m * sizeof(float4));
  cudaMemcpy(a, in, n * sizeof(float), cudaMemcpyHostToDevice);
  quads<<<(m + 63) / 64, 64>>>(a, b, m);
  cudaMemcpy(out, b, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(a);
  cudaFree(b);
}
