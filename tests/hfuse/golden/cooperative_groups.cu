// RUN: hfuse %s --kernels warp_sums,scale2d --block1 64 --block2 32x2 -o -
// Thread mode with cooperative groups: each part using the block group gets a type of its
// own, built from the part's threadIdx/blockIdx, whose sync() is the part's named barrier;
// the part's this_thread_block(), thread_block and tiled_partition are renamed to it.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void warp_sums(int *out, const int *in) {
  cg::thread_block block = cg::this_thread_block();
  auto tile = cg::tiled_partition<32>(block);
  int v = in[block.group_index().x * block.size() + block.thread_rank()];
  for (int o = 16; o > 0; o /= 2) v += tile.shfl_down(v, o);
  if (tile.thread_rank() == 0) out[blockIdx.x * tile.meta_group_size() + tile.meta_group_rank()] = v;
}

__device__ void wait_for(const cg::thread_block &g) { g.sync(); }

__global__ void scale2d(int *out, int w) {
  __shared__ int row[64];
  cooperative_groups::thread_block b = cooperative_groups::this_thread_block();
  dim3 t = b.thread_index();
  row[b.thread_rank()] = (int)(t.y * w + t.x);
  wait_for(b);
  out[b.group_index().x * 64 + b.thread_rank()] = row[63 - b.thread_rank()];
}

// CODE: // mode thread, split 64+64 threads, regcap none.
// CODE: #define CUDAFUSE_BAR_SYNC(id, n)
// The tile of a part's block: the real tile with the part's meta group rank and size (the
// emulator's tiles take them in a constructor; CUDA's keep them in the group's data).
// CODE: #if defined(__CUDAFUSE_EMU__)
// CODE: return cooperative_groups::thread_block_tile<N>(rank, size);
// CODE: #else
// CODE: this->_data.coalesced.metaGroupRank = rank;
// CODE-NEXT: this->_data.coalesced.metaGroupSize = size;
// CODE: #endif
// CODE: // Part 1 ('warp_sums'): cooperative groups' thread block as the part sees it
// CODE-NEXT: // (its this_thread_block()); its sync() is the part's barrier 1 for its 64 threads.
// CODE-NEXT: struct cf_p1_thread_block {
// CODE-NEXT:   uint3 cf_t, cf_b;  // the part's threadIdx and blockIdx
// CODE-NEXT:   __device__ cf_p1_thread_block(uint3 t, uint3 b) : cf_t(t), cf_b(b) {}
// CODE-NEXT:   struct arrival_token {};
// CODE-NEXT:   __device__ void sync(const char * = nullptr, int = 0) const { CUDAFUSE_BAR_SYNC(1, 64); }
// CODE-NEXT:   __device__ arrival_token barrier_arrive() const { return arrival_token(); }
// CODE-NEXT:   __device__ void barrier_wait(arrival_token &&) const { sync(); }
// CODE-NEXT:   __device__ unsigned size() const { return 64u; }
// CODE-NEXT:   __device__ unsigned num_threads() const { return 64u; }
// CODE-NEXT:   __device__ unsigned thread_rank() const { return cf_t.x + 64u * (cf_t.y + 1u * cf_t.z); }
// CODE-NEXT:   __device__ dim3 group_index() const { return dim3(cf_b.x, cf_b.y, cf_b.z); }
// CODE-NEXT:   __device__ dim3 thread_index() const { return dim3(cf_t.x, cf_t.y, cf_t.z); }
// CODE-NEXT:   __device__ dim3 group_dim() const { return dim3(64u, 1u, 1u); }
// CODE-NEXT:   __device__ dim3 dim_threads() const { return dim3(64u, 1u, 1u); }
// CODE-NEXT: };
// CODE: __device__ cooperative_groups::thread_block_tile<N> cf_p1_tiled_partition(const cf_p1_thread_block &b) {
// CODE: return cudafuse_part_tile<N>(b.thread_rank() / N, (b.size() + N - 1) / N);
// Part 2 is 32x2: its rank is x + 32 y, its barrier 2 counts 64 threads.
// CODE: struct cf_p2_thread_block {
// CODE: __device__ void sync(const char * = nullptr, int = 0) const { CUDAFUSE_BAR_SYNC(2, 64); }
// CODE: __device__ unsigned thread_rank() const { return cf_t.x + 32u * (cf_t.y + 2u * cf_t.z); }
// CODE: __device__ dim3 group_dim() const { return dim3(32u, 2u, 1u); }
// A helper taking the block group gets a copy per part, with the part's type.
// CODE: // 'wait_for' for part 2 ('scale2d'): it uses cooperative groups' thread block
// CODE-NEXT: __device__ void cf_p2_wait_for({{.*}} const uint3 threadIdx, {{.*}}, const cf_p2_thread_block &g) { g.sync(); }
// CODE: __global__ void __launch_bounds__(128) warp_sums_scale2d_hfused(
// CODE: #ifdef __CUDAFUSE_SHIM__
// CODE-NEXT: // Read by cudafuse's front end only
// CODE: if (false) __syncthreads();
// CODE-NEXT: #endif
// CODE: {  // part 1: kernel 'warp_sums'
// CODE: cf_p1_thread_block block = cf_p1_thread_block(threadIdx, blockIdx);
// CODE-NEXT: auto tile = cf_p1_tiled_partition<32>(block);
// CODE: {  // part 2: kernel 'scale2d'
// CODE: cf_p2_thread_block b = cf_p2_thread_block(threadIdx, blockIdx);
// CODE: cf_p2_wait_for(threadIdx, blockDim, blockIdx, gridDim, b);
