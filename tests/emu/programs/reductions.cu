// Block and warp reductions, scans and votes: every barrier and warp collective the emulator
// models, with numpy references in tests/emu/test_reductions.py.
#include <cuda_runtime.h>

__global__ void block_sum_static(const float *in, float *out, int n) {
  __shared__ float part[256];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  part[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) part[t] += part[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = part[0];
}

__global__ void block_max_dynamic(const int *in, int *out, int n) {
  extern __shared__ int dyn[];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  dyn[t] = i < n ? in[i] : -2147483647;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) dyn[t] = max(dyn[t], dyn[t + s]);
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = dyn[0];
}

__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

// Warp shuffles in a device function, then one value per warp through shared memory.
__global__ void block_sum_shfl(const float *in, float *out, int n) {
  __shared__ float warps[32];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  float v = warp_sum(i < n ? in[i] : 0.0f);
  if ((t & 31) == 0) warps[t >> 5] = v;
  __syncthreads();
  if (t < 32) {
    v = t < (int)(blockDim.x + 31) / 32 ? warps[t] : 0.0f;
    v = warp_sum(v);
    if (t == 0) out[blockIdx.x] = v;
  }
}

// Per lane: xor butterfly over width 16, inclusive shfl_up scan, broadcast of lane 3 with
// width 8, and shfl_down with width 16.
__global__ void shuffles(const int *in, int *xor16, int *scan, int *bcast8, int *down16) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
  int v = in[i];
  int x = v;
  for (int m = 8; m > 0; m >>= 1) x += __shfl_xor_sync(0xffffffffu, x, m, 16);
  xor16[i] = x;
  int s = v;
  for (int d = 1; d < 32; d <<= 1) {
    int o = __shfl_up_sync(0xffffffffu, s, d);
    if (lane >= d) s += o;
  }
  scan[i] = s;
  bcast8[i] = __shfl_sync(0xffffffffu, v, 3, 8);
  down16[i] = __shfl_down_sync(0xffffffffu, v, 5, 16);
}

__global__ void votes(const int *in, unsigned *ballot, int *any, int *all, int *count,
                      int *and_, int *or_) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int p = in[i] > 0;
  ballot[i] = __ballot_sync(0xffffffffu, p);
  any[i] = __any_sync(0xffffffffu, p);
  all[i] = __all_sync(0xffffffffu, p);
  count[i] = __syncthreads_count(p);
  and_[i] = __syncthreads_and(p);
  or_[i] = __syncthreads_or(p);
}

// Half-warp groups that shuffle with their own masks, then __syncwarp.
__global__ void half_warps(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
  unsigned mask = lane < 16 ? 0x0000ffffu : 0xffff0000u;
  float v = in[i];
  for (int o = 8; o > 0; o >>= 1) v += __shfl_xor_sync(mask, v, o, 16);
  __syncwarp();
  out[i] = v;
}

// A 2D block: linear thread ids and warps span rows.
__global__ void block2d_sum(const float *in, float *out, int w) {
  __shared__ float part[16][16];
  int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  part[threadIdx.y][threadIdx.x] = in[y * w + x];
  __syncthreads();
  if (threadIdx.y == 0) {
    float s = 0.0f;
    for (int k = 0; k < 16; ++k) s += part[k][threadIdx.x];
    out[(blockIdx.y * gridDim.x + blockIdx.x) * 16 + threadIdx.x] = s;
  }
}

void sum_host(const float *in, float *out, int n) {
  block_sum_static<<<(n + 255) / 256, 256>>>(in, out, n);
}
