// Asynchronous copies into shared memory through libcu++'s cuda::pipeline and
// cuda::barrier, with `__shared__ alignas(...)` arrays (nvcc's order; clang wants alignas
// first, which the front end respells at the same length).
// EXPECT-KERNEL: staged_sum 3
// EXPECT-KERNEL: barrier_copy 3
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cooperative_groups.h>

__global__ void staged_sum(const float *in, float *out, int n) {
  __shared__ alignas(alignof(float4)) float tile[256];
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  const auto shape = cuda::aligned_size_t<alignof(float)>(sizeof(float));
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  pipe.producer_acquire();
  if (i < n) cuda::memcpy_async(&tile[threadIdx.x], &in[i], shape, pipe);
  pipe.producer_commit();
  cuda::pipeline_consumer_wait_prior<0>(pipe);
  __syncthreads();
  if (i < n) out[i] = tile[threadIdx.x] + tile[(threadIdx.x + 1) % blockDim.x];
  pipe.consumer_release();
}

#pragma nv_diag_suppress static_var_with_dynamic_init
__global__ void barrier_copy(const float4 *in, float4 *out, int n) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ alignas(16) float4 buf[128];
  auto block = cooperative_groups::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) cuda::memcpy_async(&buf[threadIdx.x], &in[i], sizeof(float4), bar);
  bar.arrive_and_wait();
  if (i < n) out[i] = buf[threadIdx.x];
}
