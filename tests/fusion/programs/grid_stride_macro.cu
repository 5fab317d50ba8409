// Grid-stride kernels written with a loop macro, as ATen (CUDA_KERNEL_LOOP) and Caffe
// (CUDA_1D_KERNEL_LOOP) write them: the `for` header lives in the macro's definition, the
// file holds only the invocation. A 1D pipeline (n = w * h elements) of such kernels, one
// plain-mapping kernel mixed in, and launches with grids smaller and larger than n / block;
// a 2D pipeline whose macro writes two nested loops (mmcv's CUDA_2D_KERNEL_LOOP style).
#include <cuda_runtime.h>

#define CUDA_KERNEL_LOOP(i, n) \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)

#define CUDA_1D_KERNEL_LOOP(j, n)                                                  \
  for (size_t j = blockIdx.x * blockDim.x + threadIdx.x; j < (size_t)(n);          \
       j += blockDim.x * gridDim.x)

#define CUDA_2D_KERNEL_LOOP(x, w, y, h)                                            \
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < (h);                      \
       y += blockDim.y * gridDim.y)                                                 \
    for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < (w);                    \
         x += blockDim.x * gridDim.x)

__global__ void mk_scale(const int n, const float *in, float *a) {
  CUDA_KERNEL_LOOP(index, n) {
    a[index] = in[index] * 2.0f + 1.0f;
  }
}

__global__ void mk_relu(const int n, const float *a, float *b) {
  CUDA_1D_KERNEL_LOOP(index, n) {
    const float v = a[index];
    b[index] = v > 1.5f ? v : 0.1f * v;
  }
}

__global__ void mk_shift(const int n, const float *b, float *c) {
  CUDA_KERNEL_LOOP(index, n) {
    c[index] = b[index] - 0.75f;
  }
}

__global__ void mk_plain(const int n, const float *c, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = c[i] * c[i];
}

// The usual launch: grids cover n.
void mk_chain(const float *in, float *out, int w, int h) {
  int n = w * h;
  float *a, *b, *c;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&c, n * sizeof(float));
  mk_scale<<<(n + 127) / 128, 128>>>(n, in, a);
  mk_relu<<<(n + 63) / 64, 64>>>(n, a, b);
  mk_shift<<<(n + 255) / 256, 256>>>(n, b, c);
  mk_plain<<<(n + 127) / 128, 128>>>(n, c, out);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
}

// Grids far smaller than n / block: every loop iterates several times.
void mk_chain_small(const float *in, float *out, int w, int h) {
  int n = w * h;
  float *a, *b;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  mk_scale<<<3, 32>>>(n, in, a);
  mk_relu<<<2, 64>>>(n, a, b);
  mk_shift<<<1, 32>>>(n, b, out);
  cudaFree(a);
  cudaFree(b);
}

__global__ void m2_scale(const float *in, float *a, int w, int h) {
  CUDA_2D_KERNEL_LOOP(x, w, y, h) {
    a[y * w + x] = in[y * w + x] * 2.0f + 1.0f;
  }
}

__global__ void m2_blur(const float *a, float *b, int w, int h) {
  CUDA_2D_KERNEL_LOOP(x, w, y, h) {
    float s = 0.0f;
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        int yy = min(max(y + dy, 0), h - 1);
        int xx = min(max(x + dx, 0), w - 1);
        s += a[yy * w + xx];
      }
    b[y * w + x] = s / 9.0f;
  }
}

__global__ void m2_square(const float *b, float *out, int w, int h) {
  CUDA_2D_KERNEL_LOOP(x, w, y, h) {
    float v = b[y * w + x];
    out[y * w + x] = v * v;
  }
}

// 2D: the middle kernel's grid is far smaller than the image.
void m2_chain(const float *in, float *out, int w, int h) {
  float *a, *b;
  cudaMalloc(&a, w * h * sizeof(float));
  cudaMalloc(&b, w * h * sizeof(float));
  dim3 block(8, 4);
  dim3 grid((w + 7) / 8, (h + 3) / 4);
  m2_scale<<<grid, block>>>(in, a, w, h);
  m2_blur<<<dim3(2, 3), block>>>(a, b, w, h);
  m2_square<<<grid, block>>>(b, out, w, h);
  cudaFree(a);
  cudaFree(b);
}
