// Cooperative groups: the block, static and dynamic tiles, coalesced groups and their
// partitions, cg::reduce with the functional objects, the scans, memcpy_async, and the
// grid group's ranks (no grid synchronisation).
// EXPECT-KERNEL: tile_stats 5
// EXPECT-KERNEL: warp_matches 3
// EXPECT-KERNEL: staged_scan 3
// EXPECT-KERNEL: bucket_counts 4
// EXPECT-LAUNCH: run_all -> tile_stats 5
// EXPECT-LAUNCH: run_all -> warp_matches 3
// EXPECT-LAUNCH: run_all -> staged_scan 3
// EXPECT-LAUNCH: run_all -> bucket_counts 4
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

template <unsigned N>
__device__ int tile_sum(const cg::thread_block_tile<N> &tile, int v) {
  for (unsigned d = tile.num_threads() / 2; d > 0; d /= 2) v += tile.shfl_down(v, d);
  return tile.shfl(v, 0);
}

// Per tile of 16: sum (shuffles), min, max, and/or/xor (cg::reduce); per block: the count
// of positive values (ballot per warp, then shared memory).
__global__ void tile_stats(const int *in, int *sums, int *mins, int *bits, int *positives) {
  __shared__ int warp_counts[32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(warp);
  unsigned i = block.group_index().x * block.num_threads() + block.thread_rank();
  int v = in[i];
  int s = tile_sum(tile, v);
  int lo = cg::reduce(tile, v, cg::less<int>());
  int hi = cg::reduce(tile, v, cg::greater<int>());
  int all_and = cg::reduce(tile, v, cg::bit_and<int>());
  int any_or = cg::reduce(tile, v, cg::bit_or<int>());
  int parity = cg::reduce(tile, v, cg::bit_xor<int>());
  unsigned ballot = warp.ballot(v > 0);
  if (warp.thread_rank() == 0) warp_counts[warp.meta_group_rank()] = __popc(ballot);
  block.sync();
  if (tile.thread_rank() == 0) {
    unsigned t = i / tile.size();
    sums[t] = s;
    mins[2 * t] = lo;
    mins[2 * t + 1] = hi;
    bits[3 * t] = all_and;
    bits[3 * t + 1] = any_or;
    bits[3 * t + 2] = parity;
  }
  if (block.thread_rank() == 0) {
    int total = 0;
    for (unsigned w = 0; w < warp.meta_group_size(); ++w) total += warp_counts[w];
    positives[block.group_index().x] = total;
  }
  cg::sync(block);
}

// Lanes holding equal keys (match_any), whether the warp agrees (match_all, any, all), and
// an xor-butterfly maximum over a dynamic tile of 8.
__global__ void warp_matches(const int *keys, unsigned *peers, int *flags) {
  cg::thread_block block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  cg::thread_group eight = cg::tiled_partition(block, 8);
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int k = keys[i];
  peers[i] = warp.match_any(k);
  int same = 0;
  warp.match_all(k, same);
  int m = k;
  for (unsigned d = 16; d > 0; d /= 2) m = max(m, warp.shfl_xor(m, d));
  flags[i] = same + 2 * warp.any(k == m) + 4 * warp.all(k <= m) +
             8 * (int)(eight.thread_rank() == 0) + 16 * (warp.shfl_up(k, 1) == k);
  eight.sync();
}

// A block's inputs copied to shared memory with memcpy_async, then scanned per warp.
__global__ void staged_scan(const float *in, float *inclusive, float *exclusive) {
  __shared__ float stage[256];
  cg::thread_block block = cg::this_thread_block();
  cg::memcpy_async(block, stage, in + blockIdx.x * block.size(), sizeof(float) * block.size());
  cg::wait(block);
  auto warp = cg::tiled_partition<32>(block);
  float v = stage[block.thread_rank()];
  unsigned i = blockIdx.x * block.size() + block.thread_rank();
  inclusive[i] = cg::inclusive_scan(warp, v);
  exclusive[i] = cg::exclusive_scan(warp, v, cg::plus<float>());
}

// Grid-stride counting with warp-aggregated atomics: threads with equal buckets meet in a
// labeled partition of the coalesced threads, and one of them adds the group's count.
__global__ void bucket_counts(const int *values, int n, int buckets, int *counts) {
  cg::grid_group grid = cg::this_grid();
  for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size()) {
    int b = values[i] % buckets;
    if (b < 0) b += buckets;
    cg::coalesced_group active = cg::coalesced_threads();
    cg::coalesced_group same = cg::labeled_partition(active, b);
    if (same.thread_rank() == 0) atomicAdd(&counts[b], (int)same.size());
    cg::coalesced_group odd = cg::binary_partition(active, b & 1);
    odd.sync();
  }
}

extern "C" void run_all(const int *d_in, int *d_sums, int *d_mins, int *d_bits, int *d_pos,
                        unsigned *d_peers, int *d_flags, const float *d_x, float *d_inc,
                        float *d_exc, int n, int *d_counts) {
  tile_stats<<<n / 128, 128>>>(d_in, d_sums, d_mins, d_bits, d_pos);
  warp_matches<<<n / 128, 128>>>(d_in, d_peers, d_flags);
  staged_scan<<<n / 256, 256>>>(d_x, d_inc, d_exc);
  bucket_counts<<<4, 64>>>(d_in, n, 7, d_counts);
}
