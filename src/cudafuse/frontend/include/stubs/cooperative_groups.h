/* cudafuse stand-in for <cooperative_groups.h>: the group types and calls that real code uses,
   declared so that kernels parse (libclang only; never compiled). The emulator has its own
   implementation (src/cudafuse/emu/include/cooperative_groups.h). Group collectives are
   member functions and free templates of namespace cooperative_groups; analyses see them as
   calls whose declaration lies in this directory. */
#pragma once
// CUDA 13's header brings __half and __nv_bfloat16 with it (through libcu++'s type traits);
// code that uses them without including cuda_bf16.h compiles with nvcc.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

namespace cooperative_groups {

class thread_group {
 public:
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long thread_rank() const;
  __device__ void sync() const;
  __device__ unsigned int get_type() const;
};

class grid_group : public thread_group {
 public:
  struct arrival_token {};
  __device__ bool is_valid() const;
  __device__ void sync() const;
  __device__ arrival_token barrier_arrive() const;
  __device__ void barrier_wait(arrival_token &&token) const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long thread_rank() const;
  __device__ unsigned long long num_blocks() const;
  __device__ unsigned long long block_rank() const;
  __device__ dim3 group_dim() const;
  __device__ dim3 dim_threads() const;
  __device__ dim3 dim_blocks() const;
  __device__ dim3 block_index() const;
  __device__ dim3 group_index() const;
  __device__ dim3 thread_index() const;
};
__device__ grid_group this_grid();

template <unsigned int MaxBlockSize = 1024, unsigned int __cf_TileCommunicationSize = 8,
          unsigned int __cf_MaxWarps = MaxBlockSize / 32>
struct block_tile_memory {
  char storage[__cf_TileCommunicationSize * __cf_MaxWarps + __cf_MaxWarps * 8];
};

class thread_block : public thread_group {
 public:
  struct arrival_token {};
  __device__ void sync() const;
  __device__ unsigned int size() const;
  __device__ unsigned int num_threads() const;
  __device__ unsigned int thread_rank() const;
  __device__ dim3 group_index() const;
  __device__ dim3 thread_index() const;
  __device__ dim3 group_dim() const;
  __device__ dim3 dim_threads() const;
  __device__ arrival_token barrier_arrive() const;
  __device__ void barrier_wait(arrival_token &&token) const;
};
__device__ thread_block this_thread_block();
template <unsigned int MaxBlockSize, unsigned int __cf_TileCommunicationSize, unsigned int __cf_MaxWarps>
__device__ thread_block this_thread_block(
    block_tile_memory<MaxBlockSize, __cf_TileCommunicationSize, __cf_MaxWarps> &scratch);

// The threads of a warp that are converged at the call of coalesced_threads().
class coalesced_group : public thread_group {
 public:
  __device__ unsigned int size() const;
  __device__ unsigned int num_threads() const;
  __device__ unsigned int thread_rank() const;
  __device__ unsigned int meta_group_rank() const;
  __device__ unsigned int meta_group_size() const;
  __device__ void sync() const;
  __device__ unsigned int get_mask() const;
  template <class __cf_T> __device__ __cf_T shfl(__cf_T var, int src_rank) const;
  template <class __cf_T> __device__ __cf_T shfl_up(__cf_T var, unsigned int delta) const;
  template <class __cf_T> __device__ __cf_T shfl_down(__cf_T var, unsigned int delta) const;
  __device__ int any(int predicate) const;
  __device__ int all(int predicate) const;
  __device__ unsigned int ballot(int predicate) const;
  template <class __cf_T> __device__ unsigned int match_any(__cf_T val) const;
  template <class __cf_T> __device__ unsigned int match_all(__cf_T val, int &pred) const;
};
__device__ coalesced_group coalesced_threads();

template <unsigned int Size, class ParentT = void>
class thread_block_tile;

// A tile of Size threads (thread_rank / Size of the parent: meta_group_rank). Like CUDA's, it
// is a thread_group but not a coalesced_group.
template <unsigned int Size>
class thread_block_tile<Size, void> : public thread_group {
 public:
  static constexpr unsigned int size() { return Size; }
  static constexpr unsigned int num_threads() { return Size; }
  __device__ unsigned int thread_rank() const;
  __device__ unsigned int meta_group_rank() const;
  __device__ unsigned int meta_group_size() const;
  __device__ void sync() const;
  template <class __cf_T> __device__ __cf_T shfl(__cf_T var, int src_rank) const;
  template <class __cf_T> __device__ __cf_T shfl_up(__cf_T var, unsigned int delta) const;
  template <class __cf_T> __device__ __cf_T shfl_down(__cf_T var, unsigned int delta) const;
  template <class __cf_T> __device__ __cf_T shfl_xor(__cf_T var, unsigned int __cf_lane_mask) const;
  __device__ int any(int predicate) const;
  __device__ int all(int predicate) const;
  __device__ unsigned int ballot(int predicate) const;
  template <class __cf_T> __device__ unsigned int match_any(__cf_T val) const;
  template <class __cf_T> __device__ unsigned int match_all(__cf_T val, int &pred) const;
};

// A tile that remembers its parent's type; it is a thread_block_tile<Size> as well.
template <unsigned int Size, class ParentT>
class thread_block_tile : public thread_block_tile<Size, void> {};

template <unsigned int Size, class ParentT>
__device__ thread_block_tile<Size, ParentT> tiled_partition(const ParentT &parent);
__device__ thread_group tiled_partition(const thread_group &parent, unsigned int tilesz);
__device__ thread_group tiled_partition(const thread_block &parent, unsigned int tilesz);
__device__ coalesced_group tiled_partition(const coalesced_group &parent, unsigned int tilesz);

__device__ coalesced_group binary_partition(const coalesced_group &group, bool pred);
template <unsigned int Size, class ParentT>
__device__ coalesced_group binary_partition(const thread_block_tile<Size, ParentT> &tile,
                                            bool pred);
template <class __cf_Label>
__device__ coalesced_group labeled_partition(const coalesced_group &group, __cf_Label __cf_label);
template <unsigned int Size, class ParentT, class __cf_Label>
__device__ coalesced_group labeled_partition(const thread_block_tile<Size, ParentT> &tile,
                                             __cf_Label __cf_label);

template <class GroupT> __device__ void sync(const GroupT &group);
template <class GroupT> __device__ unsigned long long thread_rank(const GroupT &group);
template <class GroupT> __device__ unsigned long long group_size(const GroupT &group);

}  // namespace cooperative_groups
