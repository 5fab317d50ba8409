// RUN: hfuse %s --kernels guarded,tail --block1 64 --block2 8x8x2 --mode block -o -
// Block mode: a block runs one part; __syncthreads and early returns stay as written.
#include <cuda_runtime.h>

__global__ void guarded(int *out, int n) {
  __shared__ int t[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  t[threadIdx.x] = i;
  __syncthreads();
  out[i] = t[threadIdx.x];
}

__global__ void tail(int *out) {
  out[threadIdx.z * 64 + threadIdx.y * 8 + threadIdx.x] = blockIdx.x;
}

// CODE: // mode block, split 64+128 threads, regcap none.
// CODE-NOT: CUDAFUSE_BAR_SYNC
// CODE-NOT: __maxnreg__
// CODE: __global__ void __launch_bounds__(128) guarded_tail_hfused(int *cf_p1_out,
// CODE: dim3 cf_grid2) {
// CODE: if (cf_bid < cf_nblocks1) {
// CODE-NEXT: if (cf_tid >= 64u) return;
// CODE: const unsigned cf_b1 = cf_bid;
// CODE: __syncthreads();
// CODE: } else {
// CODE-NEXT: if (cf_tid >= 128u) return;
// CODE: const unsigned cf_b2 = cf_bid - cf_nblocks1;
// CODE: const uint3 threadIdx = {cf_t2 % 8u, cf_t2 / 8u % 8u, cf_t2 / 64u};
// CODE: const unsigned long long cf_blocks = cf_g1 + cf_g2;
// CODE: const size_t cf_smem = smem1 > smem2 ? smem1 : smem2;
// CODE: const unsigned cf_threads = 128u;
