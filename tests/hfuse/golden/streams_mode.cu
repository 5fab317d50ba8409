// RUN: hfuse %s --kernels big_shared,plain --block1 96 --block2 32x2 --mode streams -o - --explain --report /dev/null
// Streams mode: no fused kernel; the launcher of the usual signature runs both kernels
// unchanged on two streams joined by events. Nothing is refused: the barrier after an early
// return and a 96-thread block would be fine here.
#include <cuda_runtime.h>

__global__ void big_shared(float *out, const float *in, int n) {
  extern __shared__ float buf[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  buf[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = buf[blockDim.x - 1 - threadIdx.x];
}

__global__ void plain(int *x, int w) { x[threadIdx.y * w + threadIdx.x] += 1; }

// CODE: // Launcher by cudafuse hfuse for streams_mode.cu: kernels 'big_shared' (block 96) and 'plain' (block 32x2),
// CODE-NEXT: // mode streams: not fused; they run unchanged on two streams, joined to the caller's stream.
// CODE: __global__ void big_shared(
// CODE-NOT: hfused(
// CODE-NOT: CUDAFUSE_BAR_SYNC
// CODE: void big_shared_plain_hfused_launch(float *cf_p1_out,
// CODE: cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)
// CODE: cudaEventRecord(cf_fork, stream);
// CODE-NEXT: cudaStreamWaitEvent(cf_side, cf_fork, 0);
// CODE-NEXT: if (smem1 > 48 * 1024)
// CODE-NEXT: cudaFuncSetAttribute(big_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem1);
// CODE-NEXT: big_shared<<<grid1, dim3(96, 1, 1), smem1, stream>>>(cf_p1_out, cf_p1_in, cf_p1_n);
// CODE: plain<<<grid2, dim3(32, 2, 1), smem2, cf_side>>>(cf_p2_x, cf_p2_w);
// CODE-NEXT: cudaEventRecord(cf_join, cf_side);
// CODE-NEXT: cudaStreamWaitEvent(stream, cf_join, 0);
// DIAG: big_shared_plain_hfused_launch: mode streams: 'big_shared' (96 block) on the caller's stream and 'plain' (32x2 block) on a second one, unchanged; events join them to the caller's stream (no fused kernel)
