// Kernels as people write them, fused in pairs by tests/hfuse/test_equivalence.py.
#include <cuda_runtime.h>

#define IDX2(x, y, w) ((y) * (w) + (x))
#define TID_X threadIdx.x

__constant__ int c_bias[4] = {1, 2, 3, 4};

__device__ int twice(int v) { return 2 * v + c_bias[v & 3]; }

// 1D, grid-stride loop, a helper and __constant__ data.
__global__ void saxpy(int *y, const int *x, int a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + twice(y[i]);
}

// 2D blocks and grid, the builtin read through a macro, an early return (no barrier).
__global__ void scale2d(int *out, const int *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + TID_X;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[IDX2(x, y, w)] = in[IDX2(x, y, w)] * 3 + threadIdx.y;
}

// Static shared memory and barriers: reverse each block's chunk.
__global__ void reverse_static(int *out, const int *in, int n) {
  __shared__ int tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : -1;
  __syncthreads();
  int j = blockIdx.x * blockDim.x + (blockDim.x - 1 - threadIdx.x);
  if (j < n) out[j] = tile[threadIdx.x];
}

// Same static shared name, barriers in a loop: block sums by tree reduction.
__global__ void block_sum_static(int *sums, const int *in, int n) {
  __shared__ int tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) tile[threadIdx.x] += tile[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = tile[0];
}

// Dynamic shared memory (size from the launch) and a barrier.
__global__ void rotate_dynamic(int *out, const int *in, int n) {
  extern __shared__ int buf[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  if (i < n) out[i] = buf[(threadIdx.x + 1) % blockDim.x];
}

// Dynamic shared memory of another type.
__global__ void prefix_dynamic(long long *out, const int *in, int n) {
  extern __shared__ long long acc[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  acc[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (unsigned k = 1; k < blockDim.x; ++k) acc[k] += acc[k - 1];
  }
  __syncthreads();
  if (i < n) out[i] = acc[threadIdx.x];
}

// Warp shuffle reduction (no barrier).
__global__ void warp_sum(int *sums, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  if ((threadIdx.x & 31) == 0) sums[i / 32] = v;
}

// Integer atomics: a histogram.
__global__ void histogram(unsigned *bins, const int *in, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[in[i] & 15], 1u);
}

// 3D blocks over a 3D grid.
__global__ void fill3d(int *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz) out[(z * ny + y) * nx + x] = x + 10 * y + 100 * z;
}

// An early return before a barrier: fine on its own (block mode keeps __syncthreads).
__global__ void guarded_reverse(int *out, const int *in, int n) {
  __shared__ int t[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.x * blockDim.x >= n) return;
  t[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  if (i < n) out[i] = t[blockDim.x - 1 - threadIdx.x];
}

__device__ int warp_reduce(int v) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

// The usual block reduction helper: reads threadIdx and blockDim, has a static __shared__
// array and a barrier. Each part needs its own copy.
__device__ int block_reduce(int v) {
  __shared__ int partial[32];
  int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  v = warp_reduce(v);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = threadIdx.x < blockDim.x / 32 ? partial[lane] : 0;
  if (warp == 0) v = warp_reduce(v);
  return v;
}

__global__ void sum_abs(int *sums, const int *in, int n) {
  int acc = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    acc += abs(in[i]);
  acc = block_reduce(acc);
  if (threadIdx.x == 0) sums[blockIdx.x] = acc;
}

__global__ void sum_sq(int *sums, const int *in, int n) {
  int acc = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    acc += in[i] * in[i];
  acc = block_reduce(acc);
  if (threadIdx.x == 0) sums[blockIdx.x] = acc;
}

// Dynamic shared memory declared at file scope.
extern __shared__ float g_dyn[];

__global__ void shift_file_scope_dynamic(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  g_dyn[threadIdx.x] = i < n ? in[i] : 0.f;
  __syncthreads();
  if (i < n) out[i] = g_dyn[blockDim.x - 1 - threadIdx.x] * 0.5f;
}

// Returns only after its last barrier: every thread has passed all barriers by then, so
// the return is fine even with counted barriers.
__global__ void stencil_then_return(int *out, const int *in, int n) {
  __shared__ int t[130];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  t[threadIdx.x + 1] = g < n ? in[g] : 0;
  if (threadIdx.x == 0) t[0] = g > 0 && g - 1 < n ? in[g - 1] : 0;
  if (threadIdx.x == blockDim.x - 1) t[blockDim.x + 1] = g + 1 < n ? in[g + 1] : 0;
  __syncthreads();
  if (g >= n) return;
  out[g] = t[threadIdx.x] + t[threadIdx.x + 1] + t[threadIdx.x + 2];
}
