// Tiles staged in shared memory by several stores, in styles other than one loop nest over
// the tile (kernel/tile_writers.py): each element's writers found by running the staging
// for every thread of the block, the read rewritten as the value they all store.
#include <cuda_runtime.h>
#define TILE 16
#define B1 64
#define R1 3
#define TW 16
#define TH 8

// Four corner loads per thread into an 18x18 tile, each padded with zeros by its own test
// (only the test on its own side), coordinates over blockDim (every launch: 16 x 16).
// Reads its own element and its left and upper neighbours.
__global__ void corners(float *img, float *out, int width, int height) {
  int x0 = blockIdx.x * blockDim.x + threadIdx.x;
  int y0 = blockIdx.y * blockDim.y + threadIdx.y;
  __shared__ float s[TILE + 2][TILE + 2];
  if (threadIdx.x < TILE && threadIdx.y < TILE) {
    int x = x0 - 1;
    int y = y0 - 1;
    s[threadIdx.y][threadIdx.x] = (x >= 0 && y >= 0) ? img[x + y * width] : 0.0f;
    x = x0 + 1;
    y = y0 - 1;
    s[threadIdx.y][threadIdx.x + 2] = (x < width && y >= 0) ? img[x + y * width] : 0.0f;
    x = x0 - 1;
    y = y0 + 1;
    s[threadIdx.y + 2][threadIdx.x] = (x >= 0 && y < height) ? img[x + y * width] : 0.0f;
    x = x0 + 1;
    y = y0 + 1;
    s[threadIdx.y + 2][threadIdx.x + 2] = (x < width && y < height) ? img[x + y * width] : 0.0f;
  }
  __syncthreads();
  if (x0 < width && y0 < height) {
    float c = s[threadIdx.y + 1][threadIdx.x + 1];
    float acc = 0.0f;
    for (int i = -1; i <= 0; i++)
      for (int j = -1; j <= 0; j++)
        acc += s[threadIdx.y + 1 + i][threadIdx.x + 1 + j];
    out[y0 * width + x0] = c > 0.1f ? acc : -acc;
  }
}

// The same tile read at its right and lower neighbours too: at the image's right edge the
// top-left load of thread tx + 2 (tested only x >= 0) reads the next row while the top-right
// load of thread tx stores 0 at the same element. Which lands is a race: refused.
__global__ void corners_race(float *img, float *out, int width, int height) {
  int x0 = blockIdx.x * blockDim.x + threadIdx.x;
  int y0 = blockIdx.y * blockDim.y + threadIdx.y;
  __shared__ float s[TILE + 2][TILE + 2];
  if (threadIdx.x < TILE && threadIdx.y < TILE) {
    int x = x0 - 1;
    int y = y0 - 1;
    s[threadIdx.y][threadIdx.x] = (x >= 0 && y >= 0) ? img[x + y * width] : 0.0f;
    x = x0 + 1;
    s[threadIdx.y][threadIdx.x + 2] = (x < width && y >= 0) ? img[x + y * width] : 0.0f;
    x = x0 - 1;
    y = y0 + 1;
    s[threadIdx.y + 2][threadIdx.x] = (x >= 0 && y < height) ? img[x + y * width] : 0.0f;
    x = x0 + 1;
    s[threadIdx.y + 2][threadIdx.x + 2] = (x < width && y < height) ? img[x + y * width] : 0.0f;
  }
  __syncthreads();
  if (x0 < width && y0 < height) {
    float acc = 0.0f;
    for (int i = -1; i <= 1; i++)
      for (int j = -1; j <= 1; j++)
        acc += s[threadIdx.y + 1 + i][threadIdx.x + 1 + j];
    out[y0 * width + x0] = acc;
  }
}

// A 1-D tile with halo threads: each thread its centre element, the first R1 threads the
// left and right halos, every load padded with zeros by its own test.
__global__ void smooth1d(const float *in, float *out, int n) {
  __shared__ float s[B1 + 2 * R1];
  int i = blockIdx.x * B1 + threadIdx.x;
  s[threadIdx.x + R1] = i < n ? in[i] : 0.0f;
  if (threadIdx.x < R1) {
    s[threadIdx.x] = i - R1 >= 0 ? in[i - R1] : 0.0f;
    s[threadIdx.x + B1 + R1] = i + B1 < n ? in[i + B1] : 0.0f;
  }
  __syncthreads();
  if (i < n) {
    float acc = 0.0f;
    for (int k = -R1; k <= R1; ++k)
      acc += (0.1f * k + 0.5f) * s[threadIdx.x + R1 + k];
    out[i] = acc;
  }
}

// The tile loaded in rounds by the block's linear thread index (each thread the elements
// tid, tid + TW * TH, ...), clamped into the image; __restrict__ and #pragma unroll.
__global__ void box2d(const float *__restrict__ in, float *__restrict__ out, int w, int h) {
  __shared__ float t[TH + 2][TW + 2];
  const int x = blockIdx.x * TW + threadIdx.x;
  const int y = blockIdx.y * TH + threadIdx.y;
  const int tid = threadIdx.y * TW + threadIdx.x;
#pragma unroll
  for (int k = tid; k < (TH + 2) * (TW + 2); k += TW * TH) {
    const int ty = k / (TW + 2);
    const int tx = k % (TW + 2);
    const int gx = min(max((int)(blockIdx.x * TW) + tx - 1, 0), w - 1);
    const int gy = min(max((int)(blockIdx.y * TH) + ty - 1, 0), h - 1);
    t[ty][tx] = in[gy * w + gx];
  }
  __syncthreads();
  if (x < w && y < h) {
    float acc = 0.0f;
#pragma unroll
    for (int j = -1; j <= 1; ++j)
#pragma unroll
      for (int i = -1; i <= 1; ++i)
        acc += (0.2f + 0.01f * (3 * j + i)) * t[threadIdx.y + 1 + j][threadIdx.x + 1 + i];
    out[y * w + x] = acc;
  }
}

// The tile and its halo loaded with if/else (zero outside the image), the halo by the
// threads at the block's edges, read by a 5-point stencil.
__global__ void edges2d(const float *in, float *out, int w, int h) {
  __shared__ float t[TH + 2][TW + 2];
  const int x = blockIdx.x * TW + threadIdx.x;
  const int y = blockIdx.y * TH + threadIdx.y;
  const int tx = threadIdx.x + 1;
  const int ty = threadIdx.y + 1;
  if (x < w && y < h)
    t[ty][tx] = in[y * w + x];
  else
    t[ty][tx] = 0.0f;
  if (threadIdx.x == 0) {
    if (x >= 1 && y < h) t[ty][0] = in[y * w + x - 1];
    else t[ty][0] = 0.0f;
  }
  if (threadIdx.x == TW - 1) {
    if (x + 1 < w && y < h) t[ty][TW + 1] = in[y * w + x + 1];
    else t[ty][TW + 1] = 0.0f;
  }
  if (threadIdx.y == 0) {
    if (y >= 1 && x < w) t[0][tx] = in[(y - 1) * w + x];
    else t[0][tx] = 0.0f;
  }
  if (threadIdx.y == TH - 1) {
    if (y + 1 < h && x < w) t[TH + 1][tx] = in[(y + 1) * w + x];
    else t[TH + 1][tx] = 0.0f;
  }
  __syncthreads();
  if (x < w && y < h)
    out[y * w + x] = 0.5f * t[ty][tx] +
                     0.125f * (t[ty][tx - 1] + 0.5f * t[ty][tx + 1] + t[ty - 1][tx] -
                               t[ty + 1][tx]);
}

// A centre load per thread, clamped into the image, and halo loads by the first R2 threads
// of each dimension, each clamped on its own side only (the value is the clamp of both).
#define R2 2
__global__ void cross2d(const float *in, float *out, int w, int h) {
  __shared__ float s[TH + 2 * R2][TW + 2 * R2];
  int gx = blockIdx.x * TW + threadIdx.x, gy = blockIdx.y * TH + threadIdx.y;
  int lx = threadIdx.x + R2, ly = threadIdx.y + R2;
  int cx = min(gx, w - 1), cy = min(gy, h - 1);
  s[ly][lx] = in[cy * w + cx];
  if (threadIdx.x < R2) {
    s[ly][lx - R2] = in[cy * w + max(gx - R2, 0)];
    s[ly][lx + TW] = in[cy * w + min(gx + TW, w - 1)];
  }
  if (threadIdx.y < R2) {
    s[ly - R2][lx] = in[max(gy - R2, 0) * w + cx];
    s[ly + TH][lx] = in[min(gy + TH, h - 1) * w + cx];
  }
  __syncthreads();
  if (gx < w && gy < h) {
    float acc = 0.0f;
    for (int k = -R2; k <= R2; ++k)
      acc += (0.3f + 0.1f * k) * s[ly][lx + k] + (0.2f - 0.05f * k) * s[ly + k][lx];
    out[gy * w + gx] = acc;
  }
}

__global__ void scale2d(const float *t, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = 2.0f * t[y * w + x] + 1.0f;
}

__global__ void scale1d(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] * t[i] - 0.5f;
}

extern "C" void corner_pipe(float *img, float *t, float *out, int w, int h) {
  dim3 block(TILE, TILE);
  dim3 grid((w + TILE - 1) / TILE, (h + TILE - 1) / TILE);
  corners<<<grid, block>>>(img, t, w, h);
  scale2d<<<grid, block>>>(t, out, w, h);
}

extern "C" void race_pipe(float *img, float *t, float *out, int w, int h) {
  dim3 block(TILE, TILE);
  dim3 grid((w + TILE - 1) / TILE, (h + TILE - 1) / TILE);
  corners_race<<<grid, block>>>(img, t, w, h);
  scale2d<<<grid, block>>>(t, out, w, h);
}

extern "C" void halo_pipe(const float *in, float *t, float *out, int n) {
  smooth1d<<<(n + B1 - 1) / B1, B1>>>(in, t, n);
  scale1d<<<(n + 127) / 128, 128>>>(t, out, n);
}

extern "C" void rounds_pipe(const float *img, float *t, float *out, int w, int h) {
  dim3 block(TW, TH);
  dim3 grid((w + TW - 1) / TW, (h + TH - 1) / TH);
  box2d<<<grid, block>>>(img, t, w, h);
  scale2d<<<grid, block>>>(t, out, w, h);
}

extern "C" void ifelse_pipe(const float *img, float *t, float *out, int w, int h) {
  dim3 block(TW, TH);
  dim3 grid((w + TW - 1) / TW, (h + TH - 1) / TH);
  edges2d<<<grid, block>>>(img, t, w, h);
  scale2d<<<grid, block>>>(t, out, w, h);
}

extern "C" void cross_pipe(const float *img, float *t, float *out, int w, int h) {
  dim3 block(TW, TH);
  dim3 grid((w + TW - 1) / TW, (h + TH - 1) / TH);
  cross2d<<<grid, block>>>(img, t, w, h);
  scale2d<<<grid, block>>>(t, out, w, h);
}
