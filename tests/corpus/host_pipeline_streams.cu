// A host pipeline with cudaMalloc/cudaMemcpy, dim3 grids, streams and events.
// EXPECT-KERNEL: scale 3
// EXPECT-KERNEL: add 4
// EXPECT-KERNEL: square 2
// EXPECT-LAUNCH: pipeline -> scale 3
// EXPECT-LAUNCH: pipeline -> square 2
// EXPECT-LAUNCH: pipeline -> add 4
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(call)                                                           \
  do {                                                                        \
    cudaError_t err_ = (call);                                                \
    if (err_ != cudaSuccess) {                                                \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      return -1;                                                              \
    }                                                                         \
  } while (0)

__global__ void scale(float *v, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= s;
}

__global__ void square(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = v[i] * v[i];
}

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

extern "C" int pipeline(const float *host_in, float *host_out, int n) {
  float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
  size_t bytes = n * sizeof(float);
  CHECK(cudaMalloc(&d_a, bytes));
  CHECK(cudaMalloc(&d_b, bytes));
  CHECK(cudaMalloc((void **)&d_c, bytes));
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  cudaEvent_t done;
  cudaEventCreate(&done);
  CHECK(cudaMemcpyAsync(d_a, host_in, bytes, cudaMemcpyHostToDevice, s1));
  CHECK(cudaMemcpyAsync(d_b, host_in, bytes, cudaMemcpyHostToDevice, s2));
  dim3 block(256);
  dim3 grid((n + block.x - 1) / block.x);
  scale<<<grid, block, 0, s1>>>(d_a, 3.0f, n);
  square<<<grid, block, 0, s2>>>(d_b, n);
  cudaEventRecord(done, s2);
  cudaStreamWaitEvent(s1, done, 0);
  add<<<grid, block, 0, s1>>>(d_a, d_b, d_c, n);
  CHECK(cudaMemcpy(host_out, d_c, bytes, cudaMemcpyDeviceToHost));
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
  cudaEventDestroy(done);
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
  return 0;
}
