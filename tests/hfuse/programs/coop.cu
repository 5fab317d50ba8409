// Kernels written with cooperative groups, for horizontal fusion (test_hfuse_coop.py): a
// part's this_thread_block() must be the part's threads, its sync() the part's barrier, and
// its tiles' meta group rank and size the part's.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

// A sum in shared memory over any group (instantiated with the part's block group).
template <class Group>
__device__ int group_sum(const Group &g, int *s, int v) {
  s[g.thread_rank()] = v;
  g.sync();
  for (unsigned k = g.size() / 2; k > 0; k >>= 1) {
    if (g.thread_rank() < k) s[g.thread_rank()] += s[g.thread_rank() + k];
    g.sync();
  }
  int total = s[0];
  g.sync();
  return total;
}

// Block reduction with the block group's sync() (member and free function).
__global__ void cg_block_sum(int *out, const int *in, int n) {
  __shared__ int s[256];
  cg::thread_block block = cg::this_thread_block();
  unsigned t = block.thread_rank();
  int i = block.group_index().x * block.size() + t;
  s[t] = i < n ? in[i] : 0;
  block.sync();
  for (unsigned k = block.size() / 2; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    cg::sync(block);
  }
  if (t == 0) out[block.group_index().x] = s[0];
}

// Warp tiles reduced by shuffles; each tile's sum goes to its meta group rank's slot.
__global__ void cg_tile_sum(int *out, const int *in, int n) {
  auto block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int o = tile.size() / 2; o > 0; o >>= 1) v += tile.shfl_down(v, o);
  if (tile.thread_rank() == 0)
    out[blockIdx.x * tile.meta_group_size() + tile.meta_group_rank()] = v;
}

// cg::reduce over tiles of 16 (plus, greater), then the tiles' sums combined through shared
// memory by their meta group ranks, waiting at the block group.
__global__ void cg_reduce(int *sums, int *maxes, const int *in, int n) {
  __shared__ int partial[64];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : -1000;
  int m = cg::reduce(tile, v, cg::greater<int>());
  int s = cg::reduce(tile, i < n ? v : 0, cg::plus<int>());
  if (tile.thread_rank() == 0) {
    partial[tile.meta_group_rank()] = s;
    maxes[blockIdx.x * tile.meta_group_size() + tile.meta_group_rank()] = m;
  }
  block.sync();
  if (block.thread_rank() == 0) {
    int total = 0;
    for (unsigned k = 0; k < tile.meta_group_size(); ++k) total += partial[k];
    sums[blockIdx.x] = total;
  }
}

// Only the block group's member sync(), and indexing by its thread rank (a kernel reading
// blockIdx but not threadIdx: its blocks must not be taken for one thread each).
__global__ void cg_reverse(int *out, const int *in, int n) {
  __shared__ int s[64];
  cg::thread_block block = cg::this_thread_block();
  unsigned t = block.thread_rank();
  int i = blockIdx.x * 64 + t;
  s[t] = i < n ? in[i] : 0;
  block.sync();
  int j = blockIdx.x * 64 + (63 - t);
  if (j < n) out[j] = s[t];
}

// Dynamic tiles of 16 (thread_groups), through a helper taking a thread_group.
__device__ int tile_total(cg::thread_group g, int *s, int v) {
  s[g.thread_rank()] = v;
  g.sync();
  int total = 0;
  for (unsigned k = 0; k < g.size(); ++k) total += s[k];
  g.sync();
  return total;
}

__global__ void cg_dynamic_tile(int *out, const int *in, int n) {
  __shared__ int s[96];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_group tile = cg::tiled_partition(block, 16);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned first = block.thread_rank() - tile.thread_rank();
  int total = tile_total(tile, s + first, i < n ? in[i] : 0);
  if (i < n) out[i] = total * 100 + (int)tile.thread_rank();
}

// No cooperative groups at all.
__global__ void plain_scale(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * in[i] - 1;
}

// A helper taking the block group (it gets a copy per part) and a generic one (instantiated
// with the part's group); a 2D block described by the group.
__device__ int row_total(cg::thread_block g, int *s, int v) {
  return group_sum(g, s, v);
}

__global__ void cg_helper_2d(int *out, const int *in, int w, int h) {
  __shared__ int s[128];
  cg::thread_block block = cg::this_thread_block();
  dim3 t = block.thread_index(), d = block.group_dim(), b = block.group_index();
  int x = b.x * d.x + t.x, y = b.y * d.y + t.y;
  int v = x < w && y < h ? in[y * w + x] : 0;
  int total = row_total(block, s, v);
  if (x < w && y < h) out[y * w + x] = v * (int)block.num_threads() + total;
  if (block.thread_rank() == 0) out[w * h + b.y * gridDim.x + b.x] = total;
}

// coalesced_threads() and tiles of a tile: warp-level, whichever part runs them.
__global__ void cg_coalesced(int *count, int *quads, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  cg::thread_block_tile<4> quad = cg::tiled_partition<4>(warp);
  int v = i < n ? in[i] : 0;
  int q = cg::reduce(quad, v, cg::plus<int>());
  if (i < n && quad.thread_rank() == 0) quads[i / 4] = q * 8 + (int)quad.meta_group_rank();
  if (i < n && v > 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    if (active.thread_rank() == 0) atomicAdd(count, (int)active.size());
  }
}

// ---- refused ----
__global__ void cg_grid_rank(int *out) {
  cg::grid_group grid = cg::this_grid();
  out[grid.thread_rank()] = (int)grid.size();
}

__global__ void cg_big_tile(int *out) {
  auto tile = cg::tiled_partition<64>(cg::this_thread_block());
  out[threadIdx.x] = (int)tile.meta_group_rank();
}

#define THE_BLOCK() cg::this_thread_block()
__global__ void cg_block_in_macro(int *out) {
  auto block = THE_BLOCK();
  out[threadIdx.x] = (int)block.thread_rank();
}

__device__ void grid_helper(int *out) { out[cg::this_grid().thread_rank()] = 1; }
__global__ void cg_grid_in_helper(int *out) { grid_helper(out); }

__global__ void cg_return_then_sync(int *out, int n) {
  cg::thread_block block = cg::this_thread_block();
  if ((int)block.thread_rank() >= n) return;
  block.sync();
  out[block.thread_rank()] = 1;
}

__device__ int rank_plus(cg::thread_group g, int v) { return v + (int)g.thread_rank(); }
__global__ void cg_block_as_thread_group(int *out) {
  cg::thread_block block = cg::this_thread_block();
  out[threadIdx.x] = rank_plus(block, 1);
}

__global__ void cg_copy_async(int *out, const int *in) {
  __shared__ int s[64];
  cg::thread_block block = cg::this_thread_block();
  cg::memcpy_async(block, s, in + blockIdx.x * 64, sizeof(int) * 64);
  cg::wait(block);
  out[blockIdx.x * 64 + block.thread_rank()] = s[63 - block.thread_rank()];
}
