// Host buffers owned by smart pointers, and C/C++ library calls on host memory, between
// launches (host/pointsto.py's owners, hoststmts.py's library calls): none of them touches a
// buffer of the launches, so each pipeline fuses whole.
#include <algorithm>
#include <cstring>
#include <memory>
#include <cuda_runtime.h>

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
