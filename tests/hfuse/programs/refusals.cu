// Kernels hfuse must refuse (in thread mode), each for the reason on its comment.
#include <cuda_runtime.h>
#include <cooperative_groups.h>

#define SYNC() __syncthreads()

__shared__ int g_scratch[64];

__device__ int lane_id() { return threadIdx.x & 31; }

__device__ int stash(int v) {
  __shared__ int s[32];
  s[v & 31] = v;
  return s[0];
}

__global__ void plain(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

// An early return before a counted barrier: the part's other threads would wait forever.
__global__ void return_then_barrier(int *out, int n) {
  __shared__ int t[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  t[threadIdx.x] = i;
  __syncthreads();
  out[i] = t[threadIdx.x ^ 1];
}

// A barrier with a reduction.
__global__ void count_barrier(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int c = __syncthreads_count(i < n);
  if (i < n) out[i] = c;
}

// A reducing barrier written through a macro cannot be rewritten in place.
#define COUNT_BELOW(v, n) __syncthreads_count((v) < (n))
__global__ void count_in_macro(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int c = COUNT_BELOW(i, n);
  if (i < n) out[i] = c;
}

// Inline assembly (here a named barrier of its own).
__global__ void own_named_barrier(int *out) {
  asm volatile("bar.sync 1, 64;");
  out[threadIdx.x] = 1;
}

// A helper reading threadIdx would see the fused block's thread index.
__global__ void helper_reads_builtin(int *out) { out[threadIdx.x] = lane_id(); }

// A barrier hidden in a macro cannot be rewritten.
__global__ void barrier_in_macro(int *out) {
  __shared__ int t[64];
  t[threadIdx.x] = threadIdx.x;
  SYNC();
  out[threadIdx.x] = t[63 - threadIdx.x];
}

// A helper with a static __shared__ array, called by two kernels.
__global__ void stash_a(int *out) { out[threadIdx.x] = stash(threadIdx.x); }
__global__ void stash_b(int *out) { out[threadIdx.x] = stash(2 * threadIdx.x); }

// A file-scope __shared__ array used by two kernels.
__global__ void scratch_a(int *out) {
  g_scratch[threadIdx.x] = 1;
  out[threadIdx.x] = g_scratch[threadIdx.x];
}
__global__ void scratch_b(int *out) {
  g_scratch[threadIdx.x] = 2;
  out[threadIdx.x] = g_scratch[threadIdx.x];
}

// A helper that needs the part's builtins but is a template: no per-part copy is made.
template <int W>
__device__ int lane_in(int base) { return base + threadIdx.x % W; }
__global__ void template_helper(int *out) { out[threadIdx.x] = lane_in<8>(1); }

// A call of a helper that needs the part's builtins, hidden in a macro.
#define LANE() lane_id()
__global__ void helper_call_in_macro(int *out) { out[threadIdx.x] = LANE(); }

// An early return before a barrier that a helper waits at.
__device__ void wait_all() { __syncthreads(); }
__global__ void return_then_helper_barrier(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 2 * n) return;
  wait_all();
  out[i] = i;
}

// A label: fused with itself, the label would be defined twice in one function.
__global__ void with_label(int *out, int n) {
  int i = threadIdx.x;
  if (i >= n) goto done;
  out[i] = i;
done:
  out[0] += 0;
}

// A return inside a loop whose next iteration waits at a barrier.
__global__ void return_in_barrier_loop(int *out, int n) {
  __shared__ int t[64];
  for (int k = 0; k < 4; ++k) {
    t[threadIdx.x] = k;
    __syncthreads();
    if (threadIdx.x + k * 64 >= n) return;
  }
  out[threadIdx.x] = t[0];
}

// A grid group: its ranks would be the fused grid's (and grid.sync() needs a cooperative
// launch). Block groups and tiles are fused (tests/hfuse/programs/coop.cu).
__global__ void uses_cooperative_groups(int *out) {
  cooperative_groups::grid_group g = cooperative_groups::this_grid();
  out[g.thread_rank()] = 1;
}
