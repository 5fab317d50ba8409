// Shared-memory tiled 1D stencil with halo loads (as in the CUDA programming guide).
// EXPECT-KERNEL: stencil_1d 3
// EXPECT-LAUNCH: run_stencil -> stencil_1d 3
#include <cuda_runtime.h>

#define RADIUS 3
#define BLOCK_SIZE 256

__global__ void stencil_1d(const int *in, int *out, int n) {
  __shared__ int temp[BLOCK_SIZE + 2 * RADIUS];
  int gindex = threadIdx.x + blockIdx.x * blockDim.x;
  int lindex = threadIdx.x + RADIUS;
  temp[lindex] = gindex < n ? in[gindex] : 0;
  if (threadIdx.x < RADIUS) {
    temp[lindex - RADIUS] = gindex >= RADIUS ? in[gindex - RADIUS] : 0;
    temp[lindex + BLOCK_SIZE] = gindex + BLOCK_SIZE < n ? in[gindex + BLOCK_SIZE] : 0;
  }
  __syncthreads();
  if (gindex >= n) return;
  int result = 0;
  for (int offset = -RADIUS; offset <= RADIUS; offset++) result += temp[lindex + offset];
  out[gindex] = result;
}

extern "C" void run_stencil(const int *in, int *out, int n) {
  stencil_1d<<<(n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(in, out, n);
}
