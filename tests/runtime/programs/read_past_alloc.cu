// A filter allocated and uploaded as 9 bytes (sizeof(unsigned char)) but read as 96 floats,
// as a third-party CS344 blur does: the reads past the 256 bytes the allocation rounds to
// fault in its guard zone, an error naming the allocation (test_uninit.py).
#include <cuda_runtime.h>

__global__ void weigh(const float *f, const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * f[i % 96];  // 384 bytes: past the 256 an allocation rounds to
}

extern "C" void run_past(const float *in, float *out, int n) {
  const float h[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  float *f;
  cudaMalloc(&f, 9 * sizeof(unsigned char));
  cudaMemcpy(f, h, 9 * sizeof(unsigned char), cudaMemcpyHostToDevice);
  weigh<<<(n + 127) / 128, 128>>>(f, in, out, n);
  cudaFree(f);
}

// What a kernel reads past a 4-byte allocation: the fill, up to the 256 bytes the allocation
// rounds to (past them, a fault without --sanitize; past the 4, one with it).
__global__ void peek(const unsigned char *p, unsigned char *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = p[4 + i];
}

extern "C" void run_peek(unsigned char *out, int n) {
  unsigned char *p;
  cudaMalloc(&p, 4);
  cudaMemset(p, 1, 4);
  peek<<<(n + 127) / 128, 128>>>(p, out, n);
  cudaFree(p);
}
