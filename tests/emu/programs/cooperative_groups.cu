// Cooperative groups on the emulator: blocks, static and dynamic tiles, coalesced groups,
// cg::reduce and the scans. test_emu_cooperative_groups.py checks each kernel against numpy.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

// Block sum in shared memory; the block's barrier is this_thread_block().sync() and
// cg::sync(block), alternately.
__global__ void block_sum(const float *x, float *out, int n) {
  __shared__ float buf[256];
  cg::thread_block block = cg::this_thread_block();
  unsigned t = block.thread_rank();
  unsigned i = block.group_index().x * block.size() + t;
  buf[t] = i < (unsigned)n ? x[i] : 0.0f;
  block.sync();
  for (unsigned s = block.size() / 2; s > 0; s /= 2) {
    if (t < s) buf[t] += buf[t + s];
    if (s % 2) cg::sync(block);
    else cg::this_thread_block().sync();
  }
  if (t == 0) out[block.group_index().x] = buf[0];
}

// Sum of each tile of 32 and of 16 threads with shfl_down; one output per tile of the grid.
template <unsigned N>
__device__ void tile_sum(const int *x, int *out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < (unsigned)n ? x[i] : 0;
  for (unsigned d = tile.size() / 2; d > 0; d /= 2) v += tile.shfl_down(v, d);
  if (tile.thread_rank() == 0)
    out[blockIdx.x * tile.meta_group_size() + tile.meta_group_rank()] = v;
}
__global__ void tile32_sum(const int *x, int *out, int n) { tile_sum<32>(x, out, n); }
__global__ void tile16_sum(const int *x, int *out, int n) { tile_sum<16>(x, out, n); }

// cg::reduce: float sums over tiles of 32, int maxima over tiles of 16 (every thread writes
// what it got, so that the broadcast to the whole tile is checked too).
__global__ void reduce_plus32(const float *x, float *out) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = cg::reduce(tile, x[i], cg::plus<float>());
}
__global__ void reduce_max16(const int *x, int *out) {
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = cg::reduce(tile, x[i], cg::greater<int>());
}

// Votes and shuffles on tiles of 8 inside tiles of 32.
__global__ void tile_votes(const int *x, int threshold, unsigned *ballot, int *any, int *all,
                           int *rotated, int *xored) {
  auto tile32 = cg::tiled_partition<32>(cg::this_thread_block());
  auto tile8 = cg::tiled_partition<8>(tile32);
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int p = x[i] > threshold;
  ballot[i] = tile8.ballot(p);
  any[i] = tile8.any(p);
  all[i] = tile8.all(p);
  rotated[i] = tile8.shfl(x[i], (tile8.thread_rank() + 1) % tile8.size());
  xored[i] = tile8.shfl_xor(x[i], 5);
  tile8.sync();
}

// Inclusive and exclusive scans over tiles of 32 (the exclusive one with bit_or).
__global__ void tile_scans(const int *x, int *inc, int *exc) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  inc[i] = cg::inclusive_scan(tile, x[i]);
  exc[i] = cg::exclusive_scan(tile, x[i], cg::bit_or<int>());
}

// A dynamic tile (thread_group): ranks and sizes, and its sync between a write and a read.
__global__ void dynamic_tiles(int *rank, int *size, int *neighbour) {
  __shared__ int buf[128];
  cg::thread_group tile = cg::tiled_partition(cg::this_thread_block(), 16);
  unsigned t = threadIdx.x;
  buf[t] = (int)t * 3;
  tile.sync();
  rank[t] = (int)tile.thread_rank();
  size[t] = (int)tile.size();
  unsigned base = t - tile.thread_rank();
  neighbour[t] = buf[base + (tile.thread_rank() + 1) % tile.size()];
}

// Warp-aggregated atomics: the threads that take the branch elect a leader, which reserves
// room for all of them with one atomicAdd; each then writes at its own rank.
__device__ int reserve(int *counter) {
  cg::coalesced_group active = cg::coalesced_threads();
  int first;
  if (active.thread_rank() == 0) first = atomicAdd(counter, (int)active.size());
  return active.shfl(first, 0) + (int)active.thread_rank();
}
__global__ void compact_positive(const int *x, int *out, int *counter, int n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < (unsigned)n;
       i += blockDim.x * gridDim.x)
    if (x[i] > 0) out[reserve(counter)] = x[i];
}

// Per-label maxima: threads with equal labels form a group (labeled_partition), reduce with
// cg::greater, and the group's first thread publishes the result.
__global__ void label_max(const int *x, const int *label, int *best, int *groups, int n) {
  cg::grid_group grid = cg::this_grid();
  for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size()) {
    cg::coalesced_group active = cg::coalesced_threads();
    cg::coalesced_group same = cg::labeled_partition(active, label[i]);
    int m = cg::reduce(same, x[i], cg::greater<int>());
    if (same.thread_rank() == 0) {
      atomicMax(&best[label[i]], m);
      atomicAdd(groups, 1);
    }
  }
}

// Even and odd values of each warp, summed separately (binary_partition of a tile).
__global__ void parity_sums(const int *x, int *even, int *odd) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  cg::coalesced_group part = cg::binary_partition(tile, x[i] & 1);
  int s = cg::reduce(part, x[i], cg::plus<int>());
  if (part.thread_rank() == 0) atomicAdd((x[i] & 1) ? odd : even, s);
}

// In the style of a CUDA sample's block reduction: each warp reduces with cg::reduce, the
// warp results meet in shared memory, and the first warp reduces those.
__global__ void reduce_blocks(const double *x, double *out, unsigned n) {
  extern __shared__ double partial[];
  cg::thread_block cta = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cta);
  double sum = 0.0;
  for (unsigned i = blockIdx.x * cta.size() + cta.thread_rank(); i < n;
       i += cta.size() * gridDim.x)
    sum += x[i];
  sum = cg::reduce(warp, sum, cg::plus<double>());
  if (warp.thread_rank() == 0) partial[warp.meta_group_rank()] = sum;
  cg::sync(cta);
  if (warp.meta_group_rank() == 0) {
    double v = warp.thread_rank() < warp.meta_group_size() ? partial[warp.thread_rank()] : 0.0;
    v = cg::reduce(warp, v, cg::plus<double>());
    if (warp.thread_rank() == 0) out[blockIdx.x] = v;
  }
}

// Host side: a launch through a host function, as programs do.
void reduce_host(const double *x, double *out, unsigned n, int blocks, int threads) {
  reduce_blocks<<<blocks, threads, (threads / 32) * sizeof(double)>>>(x, out, n);
}

// Tiles of 64 threads (two warps): a barrier of their own between a write and a read of
// shared memory, shuffles across warps, cg::reduce, votes and an inclusive scan.
__global__ void multi_warp_tiles(const int *x, int *sum, int *rotated, int *votes, int *scan,
                                 int *neighbour) {
  __shared__ cg::block_tile_memory<256> scratch;
  __shared__ int buf[256];
  cg::thread_block block = cg::this_thread_block(scratch);
  cg::thread_block_tile<64> tile = cg::tiled_partition<64>(block);
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x, r = tile.thread_rank();
  buf[threadIdx.x] = x[i];
  tile.sync();
  neighbour[i] = buf[threadIdx.x - r + (r + 1) % 64];
  sum[i] = cg::reduce(tile, x[i], cg::plus<int>());
  rotated[i] = tile.shfl(x[i], (r + 63) % 64);
  votes[i] = tile.any(x[i] > 90) + 2 * tile.all(x[i] >= 0) + 4 * (int)tile.meta_group_rank();
  scan[i] = cg::inclusive_scan(tile, x[i]);
}
