// Named barriers as fused kernels use them, and the failures the emulator must report.
#include <cuda_runtime.h>
#ifndef CUDAFUSE_BAR_SYNC
#define CUDAFUSE_BAR_SYNC(id, n) asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n) : "memory")
#endif

// Two parts of a horizontally fused kernel: warps 0-1 reverse a[], warps 2-3 reverse b[];
// each part synchronises only its own 64 threads.
__global__ void two_parts(const int *a, const int *b, int *ra, int *rb) {
  __shared__ int sa[64], sb[64];
  int t = threadIdx.x;
  if (t < 64) {
    sa[t] = a[t];
    CUDAFUSE_BAR_SYNC(1, 64);
    ra[t] = sa[63 - t];
  } else {
    int u = t - 64;
    sb[u] = b[u];
    CUDAFUSE_BAR_SYNC(2, 64);
    rb[u] = sb[63 - u];
  }
}

// Part 2 exits early; part 1 counts only its own warps: no deadlock.
__global__ void early_exit_ok(int *out) {
  if (threadIdx.x >= 64) return;
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x * 3;
  CUDAFUSE_BAR_SYNC(1, 64);
  out[threadIdx.x] = s[63 - threadIdx.x];
}

// A counted barrier waiting for warps that have exited: deadlock on the GPU.
__global__ void early_exit_deadlock(int *out) {
  if (threadIdx.x >= 64) return;
  CUDAFUSE_BAR_SYNC(1, 128);
  out[threadIdx.x] = 1;
}

// Partially exited warp: lanes 0-15 of warp 1 exit; the warp still counts once the others
// arrive, so bar.sync 1, 64 completes.
__global__ void partial_warp_ok(int *out) {
  if (threadIdx.x >= 32 && threadIdx.x < 48) return;
  __shared__ int s[64];
  s[threadIdx.x] = 1;
  CUDAFUSE_BAR_SYNC(1, 64);
  out[threadIdx.x] = s[0] + s[63];
}

// __syncthreads with exited threads: they are released from barrier 0.
__global__ void syncthreads_after_exit(const int *in, int *out, int n) {
  __shared__ int s[128];
  int t = threadIdx.x;
  if (t >= n) return;
  s[t] = in[t];
  __syncthreads();
  out[t] = s[n - 1 - t];
}

__global__ void divergent(int *out) {
  if (threadIdx.x < 32) {
    __syncthreads();
  } else {
    __syncthreads();
  }
  out[threadIdx.x] = 1;
}

__global__ void bad_count(int *out, int n) {
  CUDAFUSE_BAR_SYNC(1, n);
  out[threadIdx.x] = 1;
}

__global__ void bad_id(int *out, int id) {
  CUDAFUSE_BAR_SYNC(id, 32);
  out[threadIdx.x] = 1;
}

// Warp 0 waits at a shuffle for lanes that wait at __syncthreads: neither can finish.
__global__ void warp_deadlock(int *out) {
  int v = threadIdx.x;
  if (threadIdx.x < 16) v = __shfl_sync(0xffffffffu, v, 0);
  else __syncthreads();
  out[threadIdx.x] = v;
}

// Data race exposed by a random thread order: reads a neighbour's slot without a barrier.
__global__ void racy(int *out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x + 1;
  __syncwarp();
  out[threadIdx.x] = s[(threadIdx.x + 32) % 64];
}

__global__ void out_of_bounds(float *a) {
  a[threadIdx.x + (1 << 28)] = 1.0f;
}

// Each thread's id before and after a barrier (a resumed fiber gets its threadIdx back from
// the scheduler's table, which must follow the launch's block shape).
__global__ void ids_across_barrier(int *out) {
  int before = threadIdx.x | threadIdx.y << 10 | threadIdx.z << 20;
  __syncthreads();
  int after = threadIdx.x | threadIdx.y << 10 | threadIdx.z << 20;
  int lin = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  int g = blockIdx.x * blockDim.x * blockDim.y * blockDim.z + lin;
  out[2 * g] = before;
  out[2 * g + 1] = after;
}
