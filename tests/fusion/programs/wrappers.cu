// Pipelines composed from host wrapper functions that each launch one kernel (the styles of
// llm.c's *_forward, Rodinia cfd, cuda-samples HSOpticalFlow/fluidsGL and small image
// processing projects): dim3 locals, a `const int threads = 256` local, error checks after
// the launch, parameter names that differ from the caller's variables, one wrapper called
// twice with different buffers, and a wrapper call mixed with a launch of the caller.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK_LAST(msg)                                                        \
  do {                                                                         \
    cudaError_t e_ = cudaGetLastError();                                       \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s: %s\n", msg, cudaGetErrorString(e_));                \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static void cudaCheck(cudaError_t err) {
  if (err != cudaSuccess) {
    fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err));
    exit(EXIT_FAILURE);
  }
}

__global__ void wr_blur_k(const float *src, float *dst, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int xx = min(max(x + dx, 0), w - 1), yy = min(max(y + dy, 0), h - 1);
      s += src[yy * w + xx];
    }
  dst[y * w + x] = s / 9.0f;
}

__global__ void wr_sharpen_k(const float *a, const float *b, float *o, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) o[y * width + x] = 2.0f * a[y * width + x] - b[y * width + x];
}

__global__ void wr_scale_k(const float *in, float *out, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * s + 1.0f;
}

__global__ void wr_relu_k(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] > 0.75f ? in[i] : 0.0f;
}

// Image style: dim3 locals, an error check after the launch.
void blur(const float *in, float *out, int w, int h) {
  dim3 block(16, 16);
  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  wr_blur_k<<<grid, block>>>(in, out, w, h);
  CHECK_LAST("blur");
}

void sharpen(const float *orig, const float *smooth, float *result, int w, int h) {
  dim3 b(8, 8), g((w + 7) / 8, (h + 7) / 8);
  wr_sharpen_k<<<g, b>>>(orig, smooth, result, w, h);
  cudaCheck(cudaGetLastError());
}

// llm.c style: `const int block_size = 256`, a grid from a helper-free ceil division.
void scale_forward(float *out, const float *inp, int N, float factor) {
  const int threads = 256;
  const int blocks = (N + threads - 1) / threads;
  wr_scale_k<<<blocks, threads>>>(inp, out, factor, N);
  cudaCheck(cudaGetLastError());
}

void relu_forward(float *out, const float *inp, int N) {
  wr_relu_k<<<(N + 255) / 256, 256>>>(inp, out, N);
}

// blur -> sharpen: the image pipeline.
void wr_image(const float *src, float *smooth, float *dst, int w, int h) {
  blur(src, smooth, w, h);
  sharpen(src, smooth, dst, w, h);
}

// One wrapper called twice with different buffers: scale -> relu -> scale.
void wr_twice(const float *x, float *a, float *b, float *y, int w, int h) {
  int n = w * h;
  scale_forward(a, x, n, 0.5f);
  relu_forward(b, a, n);
  cudaCheck(cudaDeviceSynchronize());
  scale_forward(y, b, n, 3.0f);
}

// A wrapper call, then a launch of the caller itself.
void wr_mixed(const float *x, float *t, float *y, int w, int h) {
  int n = w * h;
  scale_forward(t, x, n, 2.0f);
  wr_relu_k<<<(n + 127) / 128, 128>>>(t, y, n);
}

// A launch of the caller, then a wrapper call (the wrapper's launch is the fused one).
void wr_launch_first(const float *x, float *t, float *y, int w, int h) {
  int n = w * h;
  wr_scale_k<<<(n + 63) / 64, 64>>>(x, t, 1.5f, n);
  relu_forward(y, t, n);
}
