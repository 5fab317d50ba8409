// Work-efficient exclusive scan in shared memory (one block), with bank-conflict padding.
// EXPECT-KERNEL: scan_block 3
// EXPECT-LAUNCH: exclusive_scan -> scan_block 3
#include <cuda_runtime.h>

#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)

__global__ void scan_block(const float *in, float *out, int n) {
  extern __shared__ float temp[];
  int thid = threadIdx.x;
  int offset = 1;
  int ai = thid, bi = thid + n / 2;
  temp[ai + CONFLICT_FREE_OFFSET(ai)] = in[ai];
  temp[bi + CONFLICT_FREE_OFFSET(bi)] = in[bi];
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (thid < d) {
      int a = offset * (2 * thid + 1) - 1, b = offset * (2 * thid + 2) - 1;
      a += CONFLICT_FREE_OFFSET(a);
      b += CONFLICT_FREE_OFFSET(b);
      temp[b] += temp[a];
    }
    offset *= 2;
  }
  if (thid == 0) temp[n - 1 + CONFLICT_FREE_OFFSET(n - 1)] = 0;
  for (int d = 1; d < n; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (thid < d) {
      int a = offset * (2 * thid + 1) - 1, b = offset * (2 * thid + 2) - 1;
      a += CONFLICT_FREE_OFFSET(a);
      b += CONFLICT_FREE_OFFSET(b);
      float t = temp[a];
      temp[a] = temp[b];
      temp[b] += t;
    }
  }
  __syncthreads();
  out[ai] = temp[ai + CONFLICT_FREE_OFFSET(ai)];
  out[bi] = temp[bi + CONFLICT_FREE_OFFSET(bi)];
}

extern "C" void exclusive_scan(const float *in, float *out, int n) {
  size_t smem = (n + CONFLICT_FREE_OFFSET(n)) * sizeof(float);
  scan_block<<<1, n / 2, smem>>>(in, out, n);
}
