// Kernels whose blocks the emulator runs on several OS threads (a tiled stencil with static
// shared memory and a barrier, a block reduction in dynamic shared memory, a plain point
// operation, a histogram of integer atomics whose old value is dropped, a block that traps)
// and kernels it keeps serial (float atomics, atomics whose old value places an element, a
// count read after a fence, device printf). tests/emu/test_emu_parallel_blocks.py runs
// them with one thread and with four: every output byte and printed line must agree.
#include <cstdio>

#define TILE 64

__global__ void smooth(const float *in, float *out, int n) {
  __shared__ float tile[TILE + 2];
  int i = blockIdx.x * TILE + threadIdx.x;
  tile[threadIdx.x + 1] = i < n ? in[i] : 0.0f;
  if (threadIdx.x == 0) tile[0] = i > 0 && i - 1 < n ? in[i - 1] : 0.0f;
  if (threadIdx.x == TILE - 1) tile[TILE + 1] = i + 1 < n ? in[i + 1] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = 0.25f * tile[threadIdx.x] + 0.5f * tile[threadIdx.x + 1] +
                      0.25f * tile[threadIdx.x + 2];
}

__global__ void block_sums(const float *in, float *sums, int n) {
  extern __shared__ float part[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  part[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = part[0];
}

__global__ void scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * a + (float)blockIdx.x;
}

__global__ void float_total(const float *in, float *total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(total, in[i]);
}

__global__ void claim(int *next, int *order, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) order[atomicAdd(next, 1)] = i;
}

__global__ void signs(const float *x, unsigned *bins, int *low, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(&bins[x[i] < 0.0f ? 0 : 1], 1u);
  atomicMin(low, (int)(x[i] * 1000.0f));
}

__global__ void last_block(int *done, float *flag) {
  if (threadIdx.x == 0) {
    atomicAdd(done, 1);
    __threadfence();
    if (*done == (int)gridDim.x) *flag = (float)blockIdx.x;
  }
}

__device__ void say(const float *x, int i) { printf("x[%d] = %.4f\n", i, x[i]); }

__global__ void report(const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i % 97 == 0) say(x, i);
}

__global__ void trap_late(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 3 && (blockIdx.x == 5 || blockIdx.x == 9)) __trap();
  if (i < n) x[i] = 1.0f;
}

void pipeline(const float *in, float *out, float *sums, float *total, int *next, int *order,
              unsigned *bins, int *low, int *done, float *flag, int n) {
  int blocks = (n + TILE - 1) / TILE;
  smooth<<<blocks, TILE>>>(in, out, n);
  scale<<<(n + 127) / 128, 128>>>(out, 1.5f, n);
  block_sums<<<(n + 255) / 256, 256, 256 * sizeof(float)>>>(out, sums, n);
  float_total<<<(n + 127) / 128, 128>>>(out, total, n);
  claim<<<(n + 127) / 128, 128>>>(next, order, n);
  signs<<<(n + 127) / 128, 128>>>(out, bins, low, n);
  last_block<<<(n + 127) / 128, 32>>>(done, flag);
  report<<<(n + 127) / 128, 128>>>(out, n);
  fflush(stdout);
}
