// Warp shuffles and votes: a warp-level reduction and a ballot-based compaction count.
// EXPECT-KERNEL: warp_sum 3
// EXPECT-KERNEL: count_positive 3
// EXPECT-LAUNCH: stats -> warp_sum 3
// EXPECT-LAUNCH: stats -> count_positive 3
#include <cuda_runtime.h>

#define FULL_MASK 0xffffffffu

__device__ float warp_reduce(float v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    v += __shfl_down_sync(FULL_MASK, v, offset);
  return v;
}

__global__ void warp_sum(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  v = warp_reduce(v);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}

__global__ void count_positive(const float *in, int *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned ballot = __ballot_sync(FULL_MASK, i < n && in[i] > 0.0f);
  bool any = __any_sync(FULL_MASK, i < n);
  if (any && threadIdx.x % 32 == 0) atomicAdd(count, __popc(ballot));
}

extern "C" void stats(const float *in, float *sum, int *count, int n) {
  warp_sum<<<(n + 255) / 256, 256>>>(in, sum, n);
  count_positive<<<(n + 255) / 256, 256>>>(in, count, n);
}
