// __activemask() in the tail of a grid-stride loop (issue 31): in the last round only the
// lanes with i < n are in the loop; the others have left it and wait at the __syncthreads
// after it. Each round reduces x over the lanes that are in the loop together.
#include <cuda_runtime.h>

// part[i]: the sum of x over the lanes of i's warp in i's round; mask[i]: __activemask()
// there; total: the sum of every x (added by each group's lowest lane).
__global__ void tail_reduce(const int *x, int n, int *part, unsigned *mask, int *total) {
  const int lane = threadIdx.x & 31;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    unsigned m = __activemask();
    int v = __reduce_add_sync(m, x[i]);
    int lead = __shfl_sync(m, lane, __ffs(m) - 1);  // the group's lowest lane, from itself
    if (lane == lead) atomicAdd(total, v);
    part[i] = v;
    mask[i] = m;
  }
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(total, 0);
}

// The same with the lanes that left the loop going on to a warp collective of their own.
__global__ void tail_then_vote(const int *x, int n, int *part, int *votes) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (; i < n; i += blockDim.x * gridDim.x) {
    unsigned m = __activemask();
    part[i] = __reduce_add_sync(m, x[i]);
  }
  unsigned all = __ballot_sync(0xffffffffu, 1);
  votes[blockIdx.x * blockDim.x + threadIdx.x] = __popc(all);
}
