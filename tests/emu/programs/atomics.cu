// Histograms with dynamic shared memory and atomics, and every atomic on every type.
#include <cuda_runtime.h>

__global__ void histogram(const unsigned char *data, unsigned *hist, int n, int bins) {
  extern __shared__ unsigned local[];
  for (int b = threadIdx.x; b < bins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i] % bins], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += blockDim.x)
    if (local[b]) atomicAdd(&hist[b], local[b]);
}

__global__ void atomics_int(const int *v, int *r, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = v[i];
  atomicAdd(&r[0], x);
  atomicSub(&r[1], x);
  atomicMin(&r[2], x);
  atomicMax(&r[3], x);
  atomicAnd(&r[4], x | 0x0ff0);
  atomicOr(&r[5], x & 0x0f0f);
  atomicXor(&r[6], x);
  atomicCAS(&r[7], i, i + 1);  // a chain: succeeds for i = 0, 1, 2, ... in thread order
  atomicExch(&r[8], 7);
}

__global__ void atomics_other(const unsigned *u, unsigned *ru, unsigned long long *rl,
                              float *rf, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = u[i];
  atomicAdd(&ru[0], x);
  atomicMax(&ru[1], x);
  atomicMin(&ru[2], x);
  atomicInc(&ru[3], 9u);
  atomicDec(&ru[4], 9u);
  atomicAdd(&rl[0], (unsigned long long)x * 1000000ull);
  atomicMax(&rl[1], (unsigned long long)x << 20);
  atomicCAS(&rl[2], 0ull, (unsigned long long)i + 1);
  atomicAdd(&rf[0], 0.5f);
  atomicExch(&rf[1], 2.5f);
  atomicMax((int *)&rf[2], __float_as_int((float)x));  // no float atomicMax: x >= 0
}
