// Kernels a program includes: a template whose arguments each launch deduces, overloads.
#pragma once
template <typename T>
__global__ void weighted(unsigned char *out, const unsigned char *a, const T wa,
                         const unsigned char *b, const T wb, const unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    T v = a[i] * wa + b[i] * wb;
    out[i] = v < 0 ? 0 : v > 255 ? 255 : (unsigned char)v;
  }
}
__global__ void shift(unsigned char *out, const unsigned char *in, int by, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (unsigned char)(in[i] + by);
}
__global__ void shift(int *out, const int *in, int by, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + by;
}
