// RUN: hfuse %s --kernels votes,any_big --block1 128 --block2 64 -o - --explain
// Thread mode with reducing barriers: __syncthreads_count/_and/_or, in the kernels and in a
// helper, become CUDAFUSE_BAR_RED (bar.red.popc/.and/.or) on the part's named barrier,
// defined once before the fused kernel; the helper gets a per-part copy.
// CODE: #ifndef CUDAFUSE_BAR_RED
// CODE: __device__ __forceinline__ int cudafuse_bar_red(int kind, int id, int n, int p) {
// CODE: bar.red.popc.u32 %0, %1, %2, q;
// CODE: bar.red.and.pred s, %1, %2, q;
// CODE: bar.red.or.pred s, %1, %2, q;
// CODE: #define CUDAFUSE_BAR_RED(kind, id, n, p) cudafuse_bar_red((kind), (id), (n), (p))
// CODE-NOT: #ifndef CUDAFUSE_BAR_SYNC
// CODE: int cf_p1_count_positive({{.*}}int v) { return CUDAFUSE_BAR_RED(0, 1, 128, v > 0); }
// CODE: int c = cf_p1_count_positive(threadIdx, blockDim, blockIdx, gridDim, v);
// CODE-NEXT: int a = CUDAFUSE_BAR_RED(1, 1, 128, i >= n || v > -100);
// CODE: int o = CUDAFUSE_BAR_RED(2, 2, 64, i < n && in[i] > 90);
// DIAG: part 1: 'votes' ({{.*}}) runs threads 0-127 of each block as a 128 block; 2 __syncthreads_count/_and/_or -> bar.red 1, 128
// DIAG: helper 'count_positive' copied for the part (it waits at __syncthreads_count())
// DIAG: part 2: 'any_big' ({{.*}}) runs threads 128-191 of each block as a 64 block; 1 __syncthreads_count/_and/_or -> bar.red 2, 64
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
