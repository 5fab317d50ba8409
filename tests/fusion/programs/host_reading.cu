// Host code read by meaning (issue 25): events recorded only to time launches (a stop-watch
// class from a header, records written inline: host/timers.py), host memory that no launch
// is given (smart pointers owning fresh memory, C/C++ library calls: host/pointsto.py,
// hoststmts.py), grids sized by a header's helper template (host/resolver.py) or passed by
// the caller against a bound in a once-set local, and rows laid out with a #define stride
// against a parameter bound (host/runtime_check.py). Nothing in this file makes the events
// order work (no streams, no event waits or polls, no managed or mapped memory).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <cuda_runtime.h>
#include "host_timers_timer.cuh"
#include "grid_helpers_util.cuh"

__global__ void ht_split(const uchar4 *rgba, unsigned char *r, unsigned char *g, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  uchar4 p = rgba[y * w + x];
  r[y * w + x] = p.x;
  g[y * w + x] = p.y;
}

__global__ void ht_smooth(const unsigned char *in, unsigned char *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int sum = 0;
  for (int dx = -1; dx <= 1; ++dx) {
    int cx = min(max(x + dx, 0), w - 1);
    sum += in[y * w + cx];
  }
  out[y * w + x] = (unsigned char)(sum / 3);
}

__global__ void ht_merge(const unsigned char *r, const unsigned char *g, uchar4 *out, int w,
                         int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = make_uchar4(r[y * w + x], g[y * w + x], 0, 255);
}

void ht_stopwatch(const uchar4 *d_in, uchar4 *d_out, unsigned char *d_r, unsigned char *d_g,
                  unsigned char *d_rs, unsigned char *d_gs, int w, int h) {
  const dim3 block(16, 8);
  const dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  StopWatch watch;
  watch.Start();
  ht_split<<<grid, block>>>(d_in, d_r, d_g, w, h);
  cudaDeviceSynchronize();
  watch.Stop();
  fprintf(stderr, "split: %f ms\n", watch.Millis());
  watch.Start();
  ht_smooth<<<grid, block>>>(d_r, d_rs, w, h);
  ht_smooth<<<grid, block>>>(d_g, d_gs, w, h);
  watch.Stop();
  fprintf(stderr, "smooth: %f ms\n", watch.Millis());
  watch.Start();
  ht_merge<<<grid, block>>>(d_rs, d_gs, d_out, w, h);
  watch.Stop();
  fprintf(stderr, "merge: %f ms\n", watch.Millis());
}

void ht_inline_events(const uchar4 *d_in, uchar4 *d_out, unsigned char *d_r,
                      unsigned char *d_g, unsigned char *d_rs, unsigned char *d_gs, int w,
                      int h) {
  dim3 block(32, 4);
  dim3 grid((w + 31) / 32, (h + 3) / 4);
  cudaEvent_t marks[3];
  for (int i = 0; i < 3; ++i) cudaEventCreate(&marks[i]);
  cudaEventRecord(marks[0]);
  ht_split<<<grid, block>>>(d_in, d_r, d_g, w, h);
  cudaEventRecord(marks[1]);
  ht_smooth<<<grid, block>>>(d_r, d_rs, w, h);
  ht_smooth<<<grid, block>>>(d_g, d_gs, w, h);
  ht_merge<<<grid, block>>>(d_rs, d_gs, d_out, w, h);
  cudaEventRecord(marks[2]);
  cudaEventSynchronize(marks[2]);
  float first = 0.0f, rest = 0.0f;
  cudaEventElapsedTime(&first, marks[0], marks[1]);
  cudaEventElapsedTime(&rest, marks[1], marks[2]);
  printf("%f %f\n", first, rest);
  for (int i = 0; i < 3; ++i) cudaEventDestroy(marks[i]);
}

__global__ void hl_square(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * in[i];
}

__global__ void hl_shift(const float *t, float *out, float bias, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] - bias;
}

void hl_owned(const float *d_in, float *d_t, float *d_out, int n) {
  const int threads = 64;
  std::unique_ptr<int> counts(new int[4]);
  std::unique_ptr<float[]> stats(new float[2]);
  hl_square<<<(n + threads - 1) / threads, threads>>>(d_in, d_t, n);
  memset(counts.get(), 0, 4 * sizeof(int));
  for (int i = 0; i < 4; ++i) counts.get()[i] += i;
  stats[0] = 0.25f;
  std::fill(stats.get(), stats.get() + 2, 0.5f);
  hl_shift<<<(n + threads - 1) / threads, threads>>>(d_t, d_out, 0.5f, n);
}

void hl_host_array(const float *d_in, float *d_t, float *d_out, int n) {
  float table[8];
  int *order = (int *)malloc(8 * sizeof(int));
  hl_square<<<(n + 31) / 32, 32>>>(d_in, d_t, n);
  memset(table, 0, sizeof(table));
  memcpy(order, table, 4 * sizeof(int));
  std::sort(table, table + 8);
  hl_shift<<<(n + 31) / 32, 32>>>(d_t, d_out, 0.25f, n);
  free(order);
}

__global__ void gh_scale(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  t[i] = in[i] * 3.0f;
}

__global__ void gh_add(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = t[i] + 1.0f;
}

__global__ void gh_head(const float *in, float *t, int n, int tail) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int last = n - tail;
  if (i >= last) return;
  t[i] = in[i] - 0.5f;
}

__global__ void gh_twice(const float *t, float *out, int n, int tail) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int last = n - tail;
  if (i >= last) return;
  out[i] = t[i] * 2.0f;
}

void gh_template_grid(const float *in, float *t, float *out, int n) {
  const int threads = 128;
  gh_scale<<<ceil_div(n, threads), threads>>>(in, t, n);
  gh_add<<<ceil_div(n, threads), threads>>>(t, out, n);
}

void gh_caller_grid(const float *in, float *out, int n, dim3 grid, dim3 block) {
  float *t;
  cudaMalloc(&t, n * sizeof(float));
  gh_head<<<grid, block>>>(in, t, n, 3);
  gh_twice<<<grid, block>>>(t, out, n, 3);
  cudaFree(t);
}

#define SX 64

__global__ void sc_scale(const float *a, float *t, int nx, int ny) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < ny && j < nx) t[i * SX + j] = a[i * SX + j] * 1.5f;
}

__global__ void sc_blend(const float *t, const float *a, float *out, int nx, int ny) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < ny && j < nx) out[i * SX + j] = t[i * SX + j] - a[i * SX + j];
}

void sc_pipeline(const float *a, float *t, float *out, int nx, int ny) {
  dim3 block(32, 8);
  dim3 grid((nx + 31) / 32, (ny + 7) / 8);
  sc_scale<<<grid, block>>>(a, t, nx, ny);
  sc_blend<<<grid, block>>>(t, a, out, nx, ny);
}
