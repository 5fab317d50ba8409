// Launches of kernels defined in an included header, as nvcc takes them: a template with
// deduced arguments (float, then double), an overloaded name, and a pointer variable.
#include "kernels_s11.cuh"

void run(unsigned char *out, const unsigned char *in, int *counts, unsigned n) {
  unsigned char *d_in, *d_t, *d_out;
  int *d_c, *d_c2;
  cudaMalloc(&d_in, n);
  cudaMalloc(&d_t, n);
  cudaMalloc(&d_out, n);
  cudaMalloc(&d_c, n * sizeof(int));
  cudaMalloc(&d_c2, n * sizeof(int));
  cudaMemcpy(d_in, in, n, cudaMemcpyHostToDevice);
  cudaMemcpy(d_c, counts, n * sizeof(int), cudaMemcpyHostToDevice);
  unsigned blocks = (n + 63) / 64;
  shift<<<blocks, 64>>>(d_t, d_in, 3, n);
  weighted<<<blocks, 64>>>(d_out, d_in, 1.5f, d_t, -0.5f, n);
  weighted << <blocks, 64 >> >(d_t, d_out, 0.25, d_in, 0.75, n);
  void (*add)(int *, const int *, int, unsigned) = shift;
  add<<<blocks, 64>>>(d_c2, d_c, 7, n);
  cudaMemcpy(out, d_t, n, cudaMemcpyDeviceToHost);
  cudaMemcpy(counts, d_c2, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_t);
  cudaFree(d_out);
  cudaFree(d_c);
  cudaFree(d_c2);
}
