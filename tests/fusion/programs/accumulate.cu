// Kernels that build an element's value in the output itself (PolyBench-style ports of CPU
// loops): every access at the thread's own element, the first an unconditional store. They
// fuse as producers; the element is a local of the value-at-element function (issue 15).
#include <cuda_runtime.h>
#include <math.h>

__global__ void col_mean(const float *data, float *mean, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    mean[j] = 0.0f;
    for (int i = 0; i < n; i++) mean[j] += data[i * m + j];
    mean[j] /= (float)n;
  }
}

__global__ void col_std(const float *data, const float *mean, float *sd, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    sd[j] = 0.0f;
    for (int i = 0; i < n; i++)
      sd[j] += (data[i * m + j] - mean[j]) * (data[i * m + j] - mean[j]);
    sd[j] /= (float)n;
    sd[j] = sqrt(sd[j]);  // <math.h>: by value, not a write of sd
    if (sd[j] <= 0.1f) sd[j] = 1.0f;
  }
}

__global__ void col_ratio(const float *mean, const float *sd, float *out, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) out[j] = mean[j] / sd[j];
}

// 2D: a windowed sum accumulated in the output, then a point stage.
__global__ void box_acc(const float *in, float *acc, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  acc[y * w + x] = in[y * w + x];
  for (int d = 1; d <= 2; ++d) {
    acc[y * w + x] += in[y * w + min(x + d, w - 1)];
    if (acc[y * w + x] > 1.5f) acc[y * w + x] *= 0.5f;
  }
}

__global__ void box_out(const float *acc, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = acc[y * w + x] * acc[y * w + x] - 0.25f;
}

// Not an accumulation: its first access reads the element's previous contents.
__global__ void add_on(const float *in, float *acc, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  for (int d = 0; d < 2; ++d) acc[y * w + x] += in[y * w + x] * (float)d;
}

void stats(const float *data, float *mean, float *sd, float *out, int w, int h) {
  int m = w, n = h;
  col_mean<<<(m + 63) / 64, 64>>>(data, mean, m, n);
  col_std<<<(m + 63) / 64, 64>>>(data, mean, sd, m, n);
  col_ratio<<<(m + 63) / 64, 64>>>(mean, sd, out, m);
}

void box(const float *in, float *acc, float *out, int w, int h) {
  dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
  box_acc<<<grid, block>>>(in, acc, w, h);
  box_out<<<grid, block>>>(acc, out, w, h);
}

void added(const float *in, float *acc, float *out, int w, int h) {
  dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
  add_on<<<grid, block>>>(in, acc, w, h);
  box_out<<<grid, block>>>(acc, out, w, h);
}
