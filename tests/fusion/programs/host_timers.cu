// Launches timed between them with CUDA events: a stop-watch class from a header, and
// records written inline (host/timers.py). Nothing in this file makes the events order
// work (no streams, no event waits or polls, no managed or mapped memory), so each
// pipeline fuses whole.
#include <cstdio>
#include <cuda_runtime.h>
#include "host_timers_timer.cuh"

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
