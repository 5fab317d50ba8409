// extern __shared__ (dynamic shared memory) block reduction, launched with a shared size
// and a stream.
// EXPECT-KERNEL: block_sum 3
// EXPECT-KERNEL: final_sum 3
// EXPECT-LAUNCH: sum -> block_sum 3
// EXPECT-LAUNCH: sum -> final_sum 3
#include <cuda_runtime.h>

__global__ void block_sum(const float *in, float *partial, int n) {
  extern __shared__ float sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
  float v = 0.0f;
  if (i < n) v += in[i];
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  sdata[tid] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = sdata[0];
}

__global__ void final_sum(const float *partial, float *out, int m) {
  extern __shared__ float buf[];
  float acc = 0.0f;
  for (int i = threadIdx.x; i < m; i += blockDim.x) acc += partial[i];
  buf[threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.0f;
    for (int i = 0; i < blockDim.x; ++i) t += buf[i];
    *out = t;
  }
}

extern "C" void sum(const float *in, float *partial, float *out, int n, cudaStream_t s) {
  const int threads = 256;
  int blocks = (n + threads * 2 - 1) / (threads * 2);
  block_sum<<<blocks, threads, threads * sizeof(float), s>>>(in, partial, n);
  final_sum<<<1, threads, threads * sizeof(float), s>>>(partial, out, blocks);
}
