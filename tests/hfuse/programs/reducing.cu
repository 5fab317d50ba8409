// Kernels that use __syncthreads_count / _and / _or, to fuse with a kernel that has barriers
// of its own: in thread mode each becomes bar.red on its part's named barrier.
#include <cuda_runtime.h>

// Per block: how many of its elements are positive, whether all are, whether any is.
__global__ void votes(const int *in, int *count, int *all, int *any, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  int c = __syncthreads_count(v > 0);
  int a = __syncthreads_and(i >= n || v > -100);
  int o = __syncthreads_or(v > 90);
  if (threadIdx.x == 0) {
    count[blockIdx.x] = c;
    all[blockIdx.x] = a;
    any[blockIdx.x] = o;
  }
}

// A shared-memory block sum with plain barriers.
__global__ void block_sum(const int *in, int *out, int n) {
  __shared__ int s[128];
  int i = blockIdx.x * 128 + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int k = 64; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

// The same votes through a helper: the helper gets a per-part copy with bar.red in it.
__device__ int count_positive(int v) { return __syncthreads_count(v > 0); }

__global__ void votes_helper(const int *in, int *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int c = count_positive(i < n ? in[i] : 0);
  if (threadIdx.x == 0) count[blockIdx.x] = c;
}
