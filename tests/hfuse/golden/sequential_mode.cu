// RUN: hfuse %s --kernels votes,any_big --block1 128 --block2 64 --mode sequential -o - --explain
// Sequential mode (profiling's second baseline): no fused kernel; the launcher of the usual
// signature runs both kernels unchanged, one after the other, on the caller's stream.
// CODE: // mode sequential: not fused; they run unchanged, one after the other, on the caller's stream.
// CODE-NOT: hfused(
// CODE-NOT: cudaStreamCreate
// CODE: void votes_any_big_hfused_launch(
// CODE: votes<<<grid1, dim3(128, 1, 1), smem1, stream>>>(
// CODE: any_big<<<grid2, dim3(64, 1, 1), smem2, stream>>>(
// CODE-NOT: cudaEventRecord
// DIAG: votes_any_big_hfused_launch: mode sequential: 'votes' (128 block), then 'any_big' (64 block), unchanged, on the caller's stream (no fused kernel)
#include <cuda_runtime.h>

__device__ int count_positive(int v) { return __syncthreads_count(v > 0); }

__global__ void votes(const int *in, int *count, int *all, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  int c = count_positive(v);
  int a = __syncthreads_and(i >= n || v > -100);
  if (threadIdx.x == 0) {
    count[blockIdx.x] = c;
    all[blockIdx.x] = a;
  }
}

__global__ void any_big(const int *in, int *any, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int o = __syncthreads_or(i < n && in[i] > 90);
  if (threadIdx.x == 0) any[blockIdx.x] = o;
}
