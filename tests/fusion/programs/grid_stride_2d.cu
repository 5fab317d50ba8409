// 2D grid-stride pipelines (w x h images, row stride w): nested for and while loops, y outer
// or x outer, the steps written inline or held in variables declared before the loops,
// 3x3 stencils with clamped and constant borders, plain 2D mappings mixed in, and launches
// with grids smaller and larger than the image / block.
#include <cuda_runtime.h>

__global__ void g2_scale(const float *in, float *a, int w, int h) {
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += blockDim.y * gridDim.y)
    for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < w; x += blockDim.x * gridDim.x)
      a[y * w + x] = in[y * w + x] * 2.0f + 1.0f;
}

__global__ void g2_blur(const float *a, float *b, int w, int h) {
  int sx = blockDim.x * gridDim.x;
  int sy = gridDim.y * blockDim.y;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += sy) {
    for (int x = threadIdx.x + blockIdx.x * blockDim.x; x < w; x += sx) {
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
}

__global__ void g2_edge(const float *b, float *c, int w, int h) {
  int sy = blockDim.y * gridDim.y;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  while (y < h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    while (x < w) {
      float left = x >= 1 ? b[y * w + x - 1] : 0.0f;
      float down = y + 1 < h ? b[(y + 1) * w + x] : 0.0f;
      c[y * w + x] = down - left + b[y * w + x];
      x += blockDim.x * gridDim.x;
    }
    y += sy;
  }
}

__global__ void g2_square(const float *c, float *out, int w, int h) {
  for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < w; x += gridDim.x * blockDim.x)
    for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += gridDim.y * blockDim.y) {
      float v = c[y * w + x];
      out[y * w + x] = v * v - 0.25f;
    }
}

__global__ void plain2_offset(const float *in, float *a, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  a[y * w + x] = in[y * w + x] + 0.5f;
}

__global__ void plain2_blur(const float *b, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float l = b[y * w + (x > 0 ? x - 1 : 0)];
    float u = b[(y > 0 ? y - 1 : 0) * w + x];
    out[y * w + x] = 0.25f * (l + u) + 0.5f * b[y * w + x];
  }
}

// Grids cover the image exactly or more (the usual launch).
void g2_chain(const float *in, float *out, int w, int h) {
  float *a, *b, *c;
  cudaMalloc(&a, w * h * sizeof(float));
  cudaMalloc(&b, w * h * sizeof(float));
  cudaMalloc(&c, w * h * sizeof(float));
  dim3 block(16, 8);
  dim3 grid((w + 15) / 16, (h + 7) / 8);
  g2_scale<<<grid, block>>>(in, a, w, h);
  g2_blur<<<dim3((w + 7) / 8 + 1, (h + 7) / 8), dim3(8, 8)>>>(a, b, w, h);
  g2_edge<<<grid, block>>>(b, c, w, h);
  g2_square<<<dim3((w + 31) / 32, (h + 3) / 4 + 2), dim3(32, 4)>>>(c, out, w, h);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
}

// Grids far smaller than the image: every thread visits several elements in x and in y.
void g2_chain_small(const float *in, float *out, int w, int h) {
  float *a, *b, *c;
  cudaMalloc(&a, w * h * sizeof(float));
  cudaMalloc(&b, w * h * sizeof(float));
  cudaMalloc(&c, w * h * sizeof(float));
  g2_scale<<<dim3(2, 1), dim3(4, 4)>>>(in, a, w, h);
  g2_blur<<<dim3(1, 2), dim3(8, 2)>>>(a, b, w, h);
  g2_edge<<<dim3(3, 1), dim3(4, 2)>>>(b, c, w, h);
  g2_square<<<dim3(1, 1), dim3(8, 4)>>>(c, out, w, h);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
}

// The intermediate is the caller's: the fused kernel (a small grid) must still store it.
void g2_live(const float *in, float *mid, float *out, int w, int h) {
  g2_scale<<<dim3(3, 2), dim3(8, 4)>>>(in, mid, w, h);
  g2_blur<<<dim3(2, 2), dim3(4, 4)>>>(mid, out, w, h);
}

__global__ void plain2_inner(const float *in, float *a, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || x >= w || y < 1 || y >= h) return;
  a[y * w + x] = in[y * w + x] - 0.5f;
}

// Plain 2D mappings feeding and fed by grid-stride kernels.
void g2_mixed(const float *in, float *out, int w, int h) {
  float *a, *b;
  cudaMalloc(&a, w * h * sizeof(float));
  cudaMalloc(&b, w * h * sizeof(float));
  dim3 block(8, 8);
  dim3 grid((w + 7) / 8, (h + 7) / 8);
  plain2_offset<<<grid, block>>>(in, a, w, h);
  g2_blur<<<dim3(2, 1), dim3(8, 4)>>>(a, b, w, h);
  plain2_blur<<<grid, block>>>(b, out, w, h);
  cudaFree(a);
  cudaFree(b);
}

// A plain producer and a grid-stride last kernel with a small grid.
void g2_mixed_last(const float *in, float *out, int w, int h) {
  float *a;
  cudaMalloc(&a, w * h * sizeof(float));
  plain2_offset<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(in, a, w, h);
  g2_edge<<<dim3(1, 2), dim3(8, 8)>>>(a, out, w, h);
  cudaFree(a);
}

// A plain producer that writes only the interior (x >= 1, y >= 1): the grid-stride blur
// reads the first row and column from memory, as the original does.
void g2_partial(const float *in, float *out, int w, int h) {
  float *a;
  cudaMalloc(&a, w * h * sizeof(float));
  cudaMemset(a, 0, w * h * sizeof(float));
  plain2_inner<<<dim3((w + 7) / 8, (h + 7) / 8), dim3(8, 8)>>>(in, a, w, h);
  g2_blur<<<dim3(1, 1), dim3(4, 4)>>>(a, out, w, h);
  cudaFree(a);
}

// Refused: the blur runs over the top half of the rows only, not the producer's space.
void g2_half(const float *in, float *out, int w, int h) {
  float *a;
  cudaMalloc(&a, w * h * sizeof(float));
  g2_scale<<<dim3(2, 2), dim3(8, 8)>>>(in, a, w, h);
  g2_blur<<<dim3(2, 2), dim3(8, 8)>>>(a, out, w, h / 2);
  cudaFree(a);
}
