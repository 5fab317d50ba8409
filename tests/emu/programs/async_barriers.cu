// Arrive-wait barriers, pipelines and asynchronous copies on the emulator (libcu++'s
// <cuda/barrier> and <cuda/pipeline>, cuda_pipeline.h, cuda_awbarrier.h).
// test_emu_async.py checks each kernel against numpy.
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_awbarrier.h>
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

// Block sum: elements staged with memcpy_async on a block barrier, then a tree reduction
// whose steps are separated by arrive + wait on the same barrier.
__global__ void barrier_block_sum(const float *x, float *out, int n) {
  __shared__ block_barrier bar;
  __shared__ float buf[256];
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  if (t == 0) init(&bar, blockDim.x);
  __syncthreads();
  if (i < (unsigned)n) cuda::memcpy_async(&buf[t], &x[i], cuda::aligned_size_t<4>(4), bar);
  else buf[t] = 0.0f;
  bar.arrive_and_wait();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s) buf[t] += buf[t + s];
    block_barrier::arrival_token token = bar.arrive();
    bar.wait(std::move(token));
  }
  if (t == 0) out[blockIdx.x] = buf[0];
}

// One barrier per warp (counting 32 threads, fewer than the block): each lane reads its
// neighbour's value after its warp's barrier only. Warps work a different number of rounds,
// so a block-wide barrier would deadlock.
__global__ void warp_barrier_rotate(const int *x, int *out) {
  __shared__ block_barrier bars[4];
  __shared__ int buf[128];
  unsigned t = threadIdx.x, warp = t / 32, lane = t % 32;
  if (lane == 0) init(&bars[warp], 32);
  __syncthreads();
  int v = x[blockIdx.x * blockDim.x + t];
  for (unsigned round = 0; round <= warp; ++round) {
    buf[t] = v;
    bars[warp].arrive_and_wait();
    v = buf[warp * 32 + (lane + 1) % 32];
    bars[warp].arrive_and_wait();
  }
  out[blockIdx.x * blockDim.x + t] = v;
}

// Producer/consumer pipeline: warp 0 copies rows of x into a ring of 2 stages, the other
// warps (one column each) wait for a row, add its element and release the stage.
__global__ void pipeline_column_sums(const float *x, float *out, int rows, int cols) {
  constexpr int stages = 2;
  __shared__ float ring[stages][96];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, stages> state;
  auto block = cg::this_thread_block();
  bool producer = threadIdx.x < 32;
  auto pipe = cuda::make_pipeline(block, &state,
                                  producer ? cuda::pipeline_role::producer
                                           : cuda::pipeline_role::consumer);
  float sum = 0.0f;
  for (int r = 0; r < rows; ++r) {
    int s = r % stages;
    if (producer) {
      pipe.producer_acquire();
      for (int c = threadIdx.x; c < cols; c += 32)
        cuda::memcpy_async(&ring[s][c], &x[r * cols + c], sizeof(float), pipe);
      pipe.producer_commit();
    } else {
      pipe.consumer_wait();
      sum += ring[s][threadIdx.x - 32];
      pipe.consumer_release();
    }
  }
  if (!producer) out[threadIdx.x - 32] = sum;
}

// A thread-scope pipeline double-buffering its own elements, and a unified block pipeline
// where every thread both copies and reads its neighbour's copy.
__global__ void pipeline_scaled(const float *x, float *out, int per_thread) {
  __shared__ float buf[2][128];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 1> state;
  auto mine = cuda::make_pipeline();
  auto shared = cuda::make_pipeline(cg::this_thread_block(), &state);
  unsigned t = threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < per_thread; ++k) {
    mine.producer_acquire();
    cuda::memcpy_async(&buf[k % 2][t], &x[k * blockDim.x + t], sizeof(float), mine);
    mine.producer_commit();
    cuda::pipeline_consumer_wait_prior<0>(mine);
    acc += 2.0f * buf[k % 2][t];
  }
  shared.producer_acquire();
  buf[0][t] = acc;
  shared.producer_commit();
  shared.consumer_wait();
  out[t] = buf[0][(t + 1) % blockDim.x];
  shared.consumer_release();
}

// The C-style primitives: __pipeline_memcpy_async (with a zero-filled tail) and an
// __mbarrier polled with __mbarrier_test_wait.
__global__ void primitives_sum(const int *x, int *out) {
  __shared__ int buf[64];
  __shared__ __mbarrier_t bar;
  unsigned t = threadIdx.x;
  if (t == 0) __mbarrier_init(&bar, blockDim.x);
  __syncthreads();
  // Even threads fill 8 bytes: their element and the next, or (t % 4 == 2) their element
  // and a zero-filled one.
  if (t % 2 == 0) __pipeline_memcpy_async(&buf[t], &x[t], 8, t % 4 == 2 ? 4 : 0);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __mbarrier_token_t token = __mbarrier_arrive(&bar);
  while (!__mbarrier_test_wait(&bar, token)) {
  }
  if (t == 0) {
    int s = 0;
    for (unsigned i = 0; i < blockDim.x; ++i) s += buf[i];
    *out = s;
  }
}

// A barrier counting the whole block while one warp returns early: the others never complete
// their phase (the GPU would hang), which the emulator reports.
__global__ void barrier_missing_arrivals(int *out) {
  __shared__ block_barrier bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  if (threadIdx.x >= 32) return;
  bar.arrive_and_wait();
  out[threadIdx.x] = 1;
}
