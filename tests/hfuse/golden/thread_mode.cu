// RUN: hfuse %s --kernels reduce,copy2d --block1 128 --block2 16x4 --regcap 64 -o - --explain
// Thread mode: barriers become per-part named barriers, builtins are shadowed by the
// part's own values, dynamic shared memory is split, registers capped.
#include <cuda_runtime.h>

__global__ void __launch_bounds__(128) reduce(float *sums, const float *in, int n) {
  extern __shared__ float s[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.f;
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = s[0];
}

__global__ void copy2d(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = in[y * w + x];
}

// The inputs come first, unchanged.
// CODE: // Horizontally fused by cudafuse hfuse from thread_mode.cu: kernels 'reduce' (block 128) and 'copy2d' (block 16x4),
// CODE-NEXT: // mode thread, split 128+64 threads, regcap 64.
// CODE: __global__ void __launch_bounds__(128) reduce(
// CODE: #ifndef CUDAFUSE_BAR_SYNC
// CODE-NEXT: #ifdef __CUDA_ARCH__
// CODE: #define CUDAFUSE_BAR_SYNC(id, n) asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n) : "memory")
// Never __launch_bounds__ together with __maxnreg__ (nvcc 13 rejects both on one kernel).
// CODE-NOT: __launch_bounds__
// CODE: __global__ void __maxnreg__(64) reduce_copy2d_hfused(float *cf_p1_sums,
// CODE: dim3 cf_grid1,
// CODE-NEXT: dim3 cf_grid2,
// CODE-NEXT: unsigned cf_smem_off2) {
// CODE: extern __shared__ __align__(16) unsigned char cf_dyn_smem[];
// CODE: if (cf_tid < 128u) {
// CODE-NEXT: if (cf_bid < cf_nblocks1) {
// CODE: const uint3 threadIdx = {cf_t1, 0u, 0u};
// CODE: const dim3 blockDim(128u, 1u, 1u);
// CODE: const uint3 blockIdx = {cf_b1 % cf_grid1.x, cf_b1 / cf_grid1.x % cf_grid1.y, cf_b1 / (cf_grid1.x * cf_grid1.y)};
// CODE: decltype(cf_p1_sums) sums = cf_p1_sums;
// CODE: float *const s = reinterpret_cast<float *>(cf_dyn_smem);
// CODE: CUDAFUSE_BAR_SYNC(1, 128);
// CODE: CUDAFUSE_BAR_SYNC(1, 128);
// CODE-NOT: __syncthreads
// CODE: } else {
// CODE-NEXT: if (cf_bid < cf_nblocks2) {
// CODE: const unsigned cf_t2 = cf_tid - 128u;
// CODE: const uint3 threadIdx = {cf_t2 % 16u, cf_t2 / 16u, 0u};
// CODE: const dim3 blockDim(16u, 4u, 1u);
// CODE: if (x >= w || y >= h) return;
// CODE: void reduce_copy2d_hfused_launch(float *cf_p1_sums,
// CODE: dim3 grid1,
// CODE-NEXT: dim3 grid2,
// CODE-NEXT: size_t smem1,
// CODE-NEXT: size_t smem2,
// CODE-NEXT: cudaStream_t stream) {
// CODE: const unsigned long long cf_blocks = cf_g1 > cf_g2 ? cf_g1 : cf_g2;
// CODE: const size_t cf_off2 = (smem1 + 15) & ~(size_t)15;
// CODE: const unsigned cf_threads = 192u;
// CODE: reduce_copy2d_hfused<<<dim3((unsigned)cf_blocks), dim3(cf_threads), cf_smem, stream>>>(
// CODE-NEXT: cf_p1_sums, cf_p1_in, cf_p1_n, cf_p2_out, cf_p2_in, cf_p2_w, cf_p2_h, grid1, grid2, (unsigned)cf_off2);

// DIAG: reduce_copy2d_hfused: mode thread, regcap 64
// DIAG-NEXT: part 1: 'reduce' ({{.*}}thread_mode.cu:6) runs threads 0-127 of each block as a 128 block; 2 __syncthreads() -> bar.sync 1, 128
// DIAG-NEXT: dynamic shared memory at offset 0
// DIAG-NEXT: block 128 from --block1; its results may depend on the block size (it halves blockDim.x (line 11), a tree reduction that needs a power-of-two block; it stores one result per block (line 15): how many, and what each covers, is set by the number of blocks, which the caller derives from the block size): it runs as a 128 block, and profiling does not change that size
// DIAG-NEXT: part 2: 'copy2d' ({{.*}}thread_mode.cu:18) runs threads 128-191 of each block as a 16x4 block; no barriers
// DIAG-NEXT: 1 early return(s) (no counted barrier waits on them)
// DIAG-NEXT: block 16x4 from --block2; no dependence on the block size found (it reads blockDim): profiling may run it with another size
