// Cooperative groups for cudafuse emulation builds (see docs/emulation.md).
//
// Built on the emulator's barriers and warp collectives (cudafuse_emu.h): a thread_block's
// sync() is the block barrier (__syncthreads), a tile of N <= 32 threads is N aligned lanes
// of one warp whose collectives are the warp collectives over those lanes (shuffles with
// width N, votes over the tile's mask), and a coalesced group is a mask of lanes of one
// warp. Every collective takes the caller's file and line (default arguments) for reports.
// Grid synchronisation (grid_group::sync()) is a barrier across every thread of a cooperative
// launch (cudaLaunchCooperativeKernel: cudafuse_emu_launch.h runs all of its blocks' threads
// as fibers); in a <<<...>>> launch it ends the run with a report.
#pragma once
// CUDA 13's header brings __half and __nv_bfloat16 with it (through libcu++'s type traits);
// code that uses them without including cuda_bf16.h compiles with nvcc.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "cudafuse_emu.h"

namespace cooperative_groups {

namespace cf_detail {
using ::cudafuse_emu::fail;

inline unsigned block_rank() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
inline unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
inline unsigned lane() { return block_rank() & 31u; }
inline unsigned lanes_below() { return (1u << lane()) - 1u; }
inline unsigned tile_mask(unsigned n) {  // the lanes of the caller's aligned tile of n
  if (n >= 32) return 0xffffffffu;
  return ((1u << n) - 1u) << (lane() & ~(n - 1u));
}
inline unsigned nth_lane(unsigned mask, unsigned k) {  // the k-th set bit of mask
  for (unsigned l = 0; l < 32; ++l)
    if (mask >> l & 1u) {
      if (k == 0) return l;
      --k;
    }
  return lane();
}
inline unsigned pack(unsigned mask, unsigned bits) {  // bits of mask's lanes, in rank order
  unsigned out = 0, k = 0;
  for (unsigned l = 0; l < 32; ++l)
    if (mask >> l & 1u) out |= (bits >> l & 1u) << k++;
  return out;
}

inline void need(const char *what, const char *file, int line) {
  ::cudafuse_emu::need_fibers(what, file, line);
}

// One warp collective over `mask` moving a value of any trivially copyable type (in pieces of
// 8 bytes: the emulator's collectives move at most that much at once).
template <class __cf_T>
inline __cf_T xfer(uint8_t op, unsigned mask, const __cf_T &v, int arg, int width, const char *file,
              int line) {
  static_assert(std::is_trivially_copyable<__cf_T>::value,
                "cooperative groups shuffle trivially copyable values only");
  __cf_T out;
  const char *src = reinterpret_cast<const char *>(&v);
  char *dst = reinterpret_cast<char *>(&out);
  for (size_t at = 0; at < sizeof(__cf_T); at += 8) {
    size_t n = sizeof(__cf_T) - at < 8 ? sizeof(__cf_T) - at : 8;
    uint64_t bits = 0;
    memcpy(&bits, src + at, n);
    bits = ::cudafuse_emu::__cf_warp_op(op, mask, bits, arg, width, file, line);
    memcpy(dst + at, &bits, n);
  }
  return out;
}
inline uint64_t vote(uint8_t op, unsigned mask, int pred, const char *file, int line) {
  return ::cudafuse_emu::__cf_warp_op(op, mask, pred ? 1 : 0, 0, 32, file, line);
}
inline void warp_sync(unsigned mask, const char *file, int line) {
  ::cudafuse_emu::__cf_warp_op(::cudafuse_emu::__cf_W_SYNC, mask, 0, 0, 32, file, line);
}
inline void block_sync(const char *file, int line) {
  need("thread_block::sync", file, line);
  ::cudafuse_emu::bar_enter(0, 0, 1, file, line);
}
inline void grid_sync(const char *file, int line) { ::cudafuse_emu::grid_barrier(file, line); }

// coalesced_threads(): a thread waits (state __cf_AT_COALESCE) until no thread of the block can
// run; then the waiting threads of each warp that called from the same place form a group.
constexpr uint8_t __cf_AT_COALESCE = 4;
inline bool release_coalesced() {
  ::cudafuse_emu::__cf_Block &__cf_B = *::cudafuse_emu::__cf_tls_block();
  bool any = false;
  for (int base = 0; base < __cf_B.n; base += 32)
    for (int i = base; i < base + 32 && i < __cf_B.n; ++i) {
      ::cudafuse_emu::__cf_Fiber &a = __cf_B.f[i];
      if (a.state != __cf_AT_COALESCE) continue;
      unsigned mask = 0;
      for (int j = i; j < base + 32 && j < __cf_B.n; ++j)
        if (__cf_B.f[j].state == __cf_AT_COALESCE && __cf_B.f[j].line == a.line && __cf_B.f[j].file == a.file)
          mask |= 1u << (j - base);
      for (int j = i; j < base + 32 && j < __cf_B.n; ++j)
        if (mask >> (j - base) & 1u) {
          __cf_B.f[j].state = ::cudafuse_emu::__cf_RUN;
          __cf_B.f[j].res = mask;
        }
      any = true;
    }
  return any;
}
// Tiles of more than 32 threads synchronise with a barrier of their own: a thread waits
// (state __cf_AT_TILE_BAR, __cf_Fiber::arg = the tile's first thread, __cf_Fiber::width = its size) until
// every thread of the tile that has not exited waits there too.
// 8, not 5: cudafuse_emu_launch.h's __cf_AT_GRID is 5, and a grid waiter with a tile's
// arguments left over from its last tile.sync() was released by release_stalled().
constexpr uint8_t __cf_AT_TILE_BAR = 8;
inline bool tile_bar_ready(int first, int size) {
  ::cudafuse_emu::__cf_Block &__cf_B = *::cudafuse_emu::__cf_tls_block();
  bool waiting = false;
  for (int t = first; t < first + size && t < __cf_B.n; ++t) {
    const ::cudafuse_emu::__cf_Fiber &f = __cf_B.f[t];
    if (f.state == ::cudafuse_emu::__cf_DONE) continue;
    if (f.state != __cf_AT_TILE_BAR || f.arg != first) return false;
    waiting = true;
  }
  return waiting;
}
inline void tile_bar_release(int first, int size) {
  ::cudafuse_emu::__cf_Block &__cf_B = *::cudafuse_emu::__cf_tls_block();
  for (int t = first; t < first + size && t < __cf_B.n; ++t)
    if (__cf_B.f[t].state == __cf_AT_TILE_BAR) __cf_B.f[t].state = ::cudafuse_emu::__cf_RUN;
}
// When the block stalls: form the coalesced groups, and complete the tile barriers that
// threads exiting since their last arrival have made complete.
inline bool release_stalled() {
  ::cudafuse_emu::__cf_Block &__cf_B = *::cudafuse_emu::__cf_tls_block();
  bool any = release_coalesced();
  for (int i = 0; i < __cf_B.n; ++i)
    if (__cf_B.f[i].state == __cf_AT_TILE_BAR && tile_bar_ready(__cf_B.f[i].arg, __cf_B.f[i].width)) {
      tile_bar_release(__cf_B.f[i].arg, __cf_B.f[i].width);
      any = true;
    }
  return any;
}
inline void tile_barrier(unsigned size, const char *file, int line) {
  need("thread_block_tile::sync", file, line);
  ::cudafuse_emu::g_on_stall = &release_stalled;
  ::cudafuse_emu::__cf_Block &__cf_B = *::cudafuse_emu::__cf_tls_block();
  ::cudafuse_emu::__cf_Fiber &me = __cf_B.f[__cf_B.cur];
  int first = __cf_B.cur & ~int(size - 1);
  me.state = __cf_AT_TILE_BAR;
  me.arg = first;
  me.width = (int)size;
  me.file = file;
  me.line = line;
  if (tile_bar_ready(first, (int)size)) tile_bar_release(first, (int)size);
  if (me.state != ::cudafuse_emu::__cf_RUN) ::cudafuse_emu::block_wait();
}
// Per-thread slots through which the threads of a multi-warp tile exchange values.
template <class __cf_T>
inline unsigned char *slots() {
  static thread_local std::vector<unsigned char> buf;  // per OS thread: parallel blocks
  size_t need_bytes = (size_t)::cudafuse_emu::__cf_tls_block()->n * sizeof(__cf_T);
  if (buf.size() < need_bytes) buf.resize(need_bytes);
  return buf.data();
}

inline unsigned coalesce(const char *file, int line) {
  need("coalesced_threads", file, line);
  ::cudafuse_emu::g_on_stall = &release_stalled;
  ::cudafuse_emu::__cf_Block &__cf_B = *::cudafuse_emu::__cf_tls_block();
  ::cudafuse_emu::__cf_Fiber &me = __cf_B.f[__cf_B.cur];
  me.state = __cf_AT_COALESCE;
  me.file = file;
  me.line = line;
  ::cudafuse_emu::block_wait();
  return (unsigned)me.res;
}

enum __cf_Kind : unsigned { __cf_GRID, __cf_BLOCK, __cf_TILE, __cf_COALESCED };
}  // namespace cf_detail

// A group of any kind (what tiled_partition(parent, n) returns); the typed groups below are
// thread_groups as well. `mask_` is the caller's warp's lanes for tiles and coalesced groups.
class thread_group {
 protected:
  unsigned kind_, mask_ = 0, tile_ = 0, meta_rank_ = 0, meta_size_ = 1;
  explicit thread_group(unsigned kind) : kind_(kind) {}

 public:
  unsigned get_type() const { return kind_; }
  unsigned long long size() const {
    switch (kind_) {
      case cf_detail::__cf_GRID:
        return (unsigned long long)cf_detail::block_size() * gridDim.x * gridDim.y * gridDim.z;
      case cf_detail::__cf_BLOCK: return cf_detail::block_size();
      case cf_detail::__cf_TILE: return tile_;
      default: return __builtin_popcount(mask_);
    }
  }
  unsigned long long num_threads() const { return size(); }
  unsigned long long thread_rank() const {
    switch (kind_) {
      case cf_detail::__cf_GRID:
        return (unsigned long long)(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z))
                   * cf_detail::block_size() + cf_detail::block_rank();
      case cf_detail::__cf_BLOCK: return cf_detail::block_rank();
      case cf_detail::__cf_TILE: return cf_detail::block_rank() & (tile_ - 1);
      default: return __builtin_popcount(mask_ & cf_detail::lanes_below());
    }
  }
  void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
    if (kind_ == cf_detail::__cf_GRID) cf_detail::grid_sync(file, line);
    if (kind_ == cf_detail::__cf_BLOCK) cf_detail::block_sync(file, line);
    else if (kind_ == cf_detail::__cf_TILE && tile_ > 32) cf_detail::tile_barrier(tile_, file, line);
    else cf_detail::warp_sync(mask_, file, line);
  }
};

class grid_group : public thread_group {
  friend grid_group this_grid();
  grid_group() : thread_group(cf_detail::__cf_GRID) {}

 public:
  struct arrival_token {};
  // Only a cooperative launch (cudaLaunchCooperativeKernel) makes a grid that can synchronise.
  bool is_valid() const { return ::cudafuse_emu::g_coop; }
  void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
    cf_detail::grid_sync(file, line);
  }
  arrival_token barrier_arrive(const char *file = __builtin_FILE(),
                               int line = __builtin_LINE()) const {
    cf_detail::grid_sync(file, line);  // the arrival completes the barrier; the wait is free
    return arrival_token{};
  }
  void barrier_wait(arrival_token &&, const char * = __builtin_FILE(),
                    int = __builtin_LINE()) const {}
  unsigned long long num_blocks() const {
    return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
  }
  unsigned long long block_rank() const {
    return blockIdx.x + gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
  }
  dim3 group_dim() const { return blockDim; }
  dim3 dim_threads() const { return blockDim; }
  dim3 dim_blocks() const { return gridDim; }
  dim3 block_index() const { return blockIdx; }
  dim3 group_index() const { return blockIdx; }
  dim3 thread_index() const { return threadIdx; }
};
inline grid_group this_grid() { return grid_group(); }

template <unsigned int MaxBlockSize = 1024, unsigned int __cf_TileCommunicationSize = 8,
          unsigned int __cf_MaxWarps = MaxBlockSize / 32>
struct block_tile_memory {};

class thread_block : public thread_group {
  friend thread_block this_thread_block();
  thread_block() : thread_group(cf_detail::__cf_BLOCK) {}

 public:
  struct arrival_token {};
  void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
    cf_detail::block_sync(file, line);
  }
  unsigned size() const { return cf_detail::block_size(); }
  unsigned num_threads() const { return cf_detail::block_size(); }
  unsigned thread_rank() const { return cf_detail::block_rank(); }
  dim3 group_index() const { return blockIdx; }
  dim3 thread_index() const { return threadIdx; }
  dim3 group_dim() const { return blockDim; }
  dim3 dim_threads() const { return blockDim; }
};
inline thread_block this_thread_block() { return thread_block(); }
template <unsigned int __cf_A, unsigned int __cf_B, unsigned int __cf_C>
inline thread_block this_thread_block(block_tile_memory<__cf_A, __cf_B, __cf_C> &) {
  return this_thread_block();
}

// The threads of a warp converged at coalesced_threads(), or a partition of such a group.
class coalesced_group : public thread_group {
 public:
  explicit coalesced_group(unsigned mask, unsigned meta_rank = 0, unsigned meta_size = 1)
      : thread_group(cf_detail::__cf_COALESCED) {
    mask_ = mask;
    meta_rank_ = meta_rank;
    meta_size_ = meta_size;
  }
  unsigned get_mask() const { return mask_; }
  unsigned size() const { return __builtin_popcount(mask_); }
  unsigned num_threads() const { return size(); }
  unsigned thread_rank() const { return __builtin_popcount(mask_ & cf_detail::lanes_below()); }
  unsigned meta_group_rank() const { return meta_rank_; }
  unsigned meta_group_size() const { return meta_size_; }
  void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
    cf_detail::warp_sync(mask_, file, line);
  }
  template <class __cf_T>
  __cf_T shfl(__cf_T var, int src_rank, const char *file = __builtin_FILE(),
         int line = __builtin_LINE()) const {
    unsigned src = cf_detail::nth_lane(mask_, (unsigned)src_rank % size());
    return cf_detail::xfer(::cudafuse_emu::__cf_W_SHFL, mask_, var, (int)src, 32, file, line);
  }
  template <class __cf_T>
  __cf_T shfl_down(__cf_T var, unsigned delta, const char *file = __builtin_FILE(),
              int line = __builtin_LINE()) const {
    unsigned r = thread_rank() + delta;
    unsigned src = r < size() ? cf_detail::nth_lane(mask_, r) : cf_detail::lane();
    return cf_detail::xfer(::cudafuse_emu::__cf_W_SHFL, mask_, var, (int)src, 32, file, line);
  }
  template <class __cf_T>
  __cf_T shfl_up(__cf_T var, unsigned delta, const char *file = __builtin_FILE(),
            int line = __builtin_LINE()) const {
    unsigned r = thread_rank();
    unsigned src = r >= delta ? cf_detail::nth_lane(mask_, r - delta) : cf_detail::lane();
    return cf_detail::xfer(::cudafuse_emu::__cf_W_SHFL, mask_, var, (int)src, 32, file, line);
  }
  int any(int p, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return (int)cf_detail::vote(::cudafuse_emu::__cf_W_ANY, mask_, p, file, line);
  }
  int all(int p, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return (int)cf_detail::vote(::cudafuse_emu::__cf_W_ALL, mask_, p, file, line);
  }
  unsigned ballot(int p, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return cf_detail::pack(mask_,
                           (unsigned)cf_detail::vote(::cudafuse_emu::__cf_W_BALLOT, mask_, p, file, line));
  }
  template <class __cf_T>
  unsigned match_any(__cf_T v, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
    unsigned out = 0;
    for (unsigned k = 0, n = size(); k < n; ++k)
      if (shfl(v, (int)k, file, line) == v) out |= 1u << k;
    return out;
  }
  template <class __cf_T>
  unsigned match_all(__cf_T v, int &pred, const char *file = __builtin_FILE(),
                     int line = __builtin_LINE()) const {
    pred = all(shfl(v, 0, file, line) == v, file, line);
    return pred ? (size() == 32 ? 0xffffffffu : (1u << size()) - 1u) : 0u;
  }
};

inline coalesced_group coalesced_threads(const char *file = __builtin_FILE(),
                                         int line = __builtin_LINE()) {
  return coalesced_group(cf_detail::coalesce(file, line));
}

template <unsigned int Size, class ParentT = void>
class thread_block_tile;

// A tile of Size (1, 2, 4, ..., 32) aligned, consecutive threads of the block.
template <unsigned int Size>
class cf_warp_tile : public thread_group {
 public:
  cf_warp_tile(unsigned meta_rank, unsigned meta_size) : thread_group(cf_detail::__cf_TILE) {
    mask_ = cf_detail::tile_mask(Size);
    tile_ = Size;
    meta_rank_ = meta_rank;
    meta_size_ = meta_size;
  }
  static constexpr unsigned size() { return Size; }
  static constexpr unsigned num_threads() { return Size; }
  unsigned thread_rank() const { return cf_detail::block_rank() & (Size - 1); }
  unsigned meta_group_rank() const { return meta_rank_; }
  unsigned meta_group_size() const { return meta_size_; }
  void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
    cf_detail::warp_sync(mask_, file, line);
  }
  template <class __cf_T>
  __cf_T shfl(__cf_T var, int src, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return cf_detail::xfer(::cudafuse_emu::__cf_W_SHFL, mask_, var, src, (int)Size, file, line);
  }
  template <class __cf_T>
  __cf_T shfl_down(__cf_T var, unsigned delta, const char *file = __builtin_FILE(),
              int line = __builtin_LINE()) const {
    return cf_detail::xfer(::cudafuse_emu::__cf_W_DOWN, mask_, var, (int)delta, (int)Size, file, line);
  }
  template <class __cf_T>
  __cf_T shfl_up(__cf_T var, unsigned delta, const char *file = __builtin_FILE(),
            int line = __builtin_LINE()) const {
    return cf_detail::xfer(::cudafuse_emu::__cf_W_UP, mask_, var, (int)delta, (int)Size, file, line);
  }
  template <class __cf_T>
  __cf_T shfl_xor(__cf_T var, unsigned lane_mask, const char *file = __builtin_FILE(),
             int line = __builtin_LINE()) const {
    return cf_detail::xfer(::cudafuse_emu::__cf_W_XOR, mask_, var, (int)lane_mask, (int)Size, file,
                           line);
  }
  int any(int p, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return (int)cf_detail::vote(::cudafuse_emu::__cf_W_ANY, mask_, p, file, line);
  }
  int all(int p, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return (int)cf_detail::vote(::cudafuse_emu::__cf_W_ALL, mask_, p, file, line);
  }
  unsigned ballot(int p, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
    unsigned b = (unsigned)cf_detail::vote(::cudafuse_emu::__cf_W_BALLOT, mask_, p, file, line);
    return Size == 32 ? b : (b >> (cf_detail::lane() & ~(Size - 1))) & ((1u << Size) - 1u);
  }
  template <class __cf_T>
  unsigned match_any(__cf_T v, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
    unsigned out = 0;
    for (unsigned k = 0; k < Size; ++k)
      if (shfl(v, (int)k, file, line) == v) out |= 1u << k;
    return out;
  }
  template <class __cf_T>
  unsigned match_all(__cf_T v, int &pred, const char *file = __builtin_FILE(),
                     int line = __builtin_LINE()) const {
    pred = all(shfl(v, 0, file, line) == v, file, line);
    return pred ? (Size == 32 ? 0xffffffffu : (1u << Size) - 1u) : 0u;
  }
};

// A tile of Size (64, 128, ..., 1024) aligned, consecutive threads of the block: a barrier
// of its own (cf_detail::tile_barrier), values exchanged through per-thread slots between two
// of its barriers. (On the GPU such tiles need block_tile_memory scratch; here they do not.)
template <unsigned int Size>
class cf_multi_warp_tile : public thread_group {
  template <class __cf_T>
  __cf_T exchange(const __cf_T &v, unsigned src_rank, const char *file, int line) const {
    static_assert(std::is_trivially_copyable<__cf_T>::value,
                  "cooperative groups exchange trivially copyable values only");
    unsigned char *buf = cf_detail::slots<__cf_T>();
    unsigned first = cf_detail::block_rank() & ~(Size - 1);
    memcpy(buf + sizeof(__cf_T) * cf_detail::block_rank(), &v, sizeof(__cf_T));
    cf_detail::tile_barrier(Size, file, line);
    __cf_T out;
    memcpy(&out, buf + sizeof(__cf_T) * (first + src_rank), sizeof(__cf_T));
    cf_detail::tile_barrier(Size, file, line);  // nobody writes its slot before all have read
    return out;
  }

 public:
  cf_multi_warp_tile(unsigned meta_rank, unsigned meta_size) : thread_group(cf_detail::__cf_TILE) {
    mask_ = 0xffffffffu;
    tile_ = Size;
    meta_rank_ = meta_rank;
    meta_size_ = meta_size;
  }
  static constexpr unsigned size() { return Size; }
  static constexpr unsigned num_threads() { return Size; }
  unsigned thread_rank() const { return cf_detail::block_rank() & (Size - 1); }
  unsigned meta_group_rank() const { return meta_rank_; }
  unsigned meta_group_size() const { return meta_size_; }
  void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
    cf_detail::tile_barrier(Size, file, line);
  }
  template <class __cf_T>
  __cf_T shfl(__cf_T var, unsigned src, const char *file = __builtin_FILE(),
         int line = __builtin_LINE()) const {
    return exchange(var, src & (Size - 1), file, line);
  }
  template <class __cf_T>
  __cf_T shfl_down(__cf_T var, unsigned delta, const char *file = __builtin_FILE(),
              int line = __builtin_LINE()) const {
    unsigned r = thread_rank();
    return exchange(var, r + delta < Size ? r + delta : r, file, line);
  }
  template <class __cf_T>
  __cf_T shfl_up(__cf_T var, unsigned delta, const char *file = __builtin_FILE(),
            int line = __builtin_LINE()) const {
    unsigned r = thread_rank();
    return exchange(var, r >= delta ? r - delta : r, file, line);
  }
  // `op` over the tile's values in rank order (threads that exited contribute nothing).
  template <class __cf_T, class __cf_Op>
  __cf_T cf_fold(const __cf_T &v, __cf_Op &op, const char *file, int line) const {
    unsigned char *buf = cf_detail::slots<__cf_T>();
    unsigned first = cf_detail::block_rank() & ~(Size - 1);
    memcpy(buf + sizeof(__cf_T) * cf_detail::block_rank(), &v, sizeof(__cf_T));
    cf_detail::tile_barrier(Size, file, line);
    ::cudafuse_emu::__cf_Block &__cf_B = *::cudafuse_emu::__cf_tls_block();
    __cf_T acc = v;
    bool started = false;
    for (unsigned t = first; t < first + Size && (int)t < __cf_B.n; ++t) {
      if (__cf_B.f[t].state == ::cudafuse_emu::__cf_DONE) continue;
      __cf_T x;
      memcpy(&x, buf + sizeof(__cf_T) * t, sizeof(__cf_T));
      acc = started ? op(acc, x) : x;
      started = true;
    }
    cf_detail::tile_barrier(Size, file, line);
    return acc;
  }
  int any(int p, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
    auto op = [](int a, int b) { return a | b; };
    return cf_fold(p ? 1 : 0, op, file, line);
  }
  int all(int p, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
    auto op = [](int a, int b) { return a & b; };
    return cf_fold(p ? 1 : 0, op, file, line);
  }
};

template <unsigned int Size>
using cf_tile_base = typename std::conditional<(Size <= 32), cf_warp_tile<Size>,
                                               cf_multi_warp_tile<Size>>::type;

template <unsigned int Size>
class thread_block_tile<Size, void> : public cf_tile_base<Size> {
  static_assert(Size >= 1 && Size <= 1024 && (Size & (Size - 1)) == 0,
                "thread_block_tile: the size must be a power of two up to 1024");

 public:
  thread_block_tile(unsigned meta_rank, unsigned meta_size)
      : cf_tile_base<Size>(meta_rank, meta_size) {}
};

// A tile that remembers its parent's type; it is a thread_block_tile<Size> as well.
template <unsigned int Size, class ParentT>
class thread_block_tile : public thread_block_tile<Size, void> {
 public:
  using thread_block_tile<Size, void>::thread_block_tile;
};

namespace cf_detail {
// Rank in the parent and size of the parent, for meta_group_rank / meta_group_size.
inline unsigned parent_rank(const thread_group &g) { return (unsigned)g.thread_rank(); }
inline unsigned parent_size(const thread_group &g) { return (unsigned)g.size(); }
inline void check_tile(unsigned n, unsigned parent, const char *file, int line) {
  if (n < 1 || n > 32 || (n & (n - 1)))
    fail("%s:%d: tiled_partition: tile size %u is not a power of two up to 32 (the emulator "
         "has no multi-warp tiles)", file, line, n);
  if (n > parent)
    fail("%s:%d: tiled_partition: tile size %u exceeds its parent group's %u threads", file,
         line, n, parent);
}
}  // namespace cf_detail

template <unsigned int Size, class ParentT>
inline thread_block_tile<Size, ParentT> tiled_partition(const ParentT &parent) {
  static_assert(std::is_base_of<thread_group, ParentT>::value,
                "tiled_partition<N>(parent): the parent must be a cooperative group");
  unsigned r = cf_detail::parent_rank(parent), n = cf_detail::parent_size(parent);
  return thread_block_tile<Size, ParentT>(r / Size, (n + Size - 1) / Size);
}

// A tile of a thread_block or of a tile: a thread_group of kind TILE.
class cf_tile_group : public thread_group {
 public:
  cf_tile_group(unsigned n, unsigned meta_rank, unsigned meta_size)
      : thread_group(cf_detail::__cf_TILE) {
    mask_ = cf_detail::tile_mask(n);
    tile_ = n;
    meta_rank_ = meta_rank;
    meta_size_ = meta_size;
  }
};

inline coalesced_group tiled_partition(const coalesced_group &parent, unsigned n,
                                       const char *file = __builtin_FILE(),
                                       int line = __builtin_LINE()) {
  cf_detail::check_tile(n, 32, file, line);
  unsigned r = parent.thread_rank(), size = parent.size(), first = r / n * n, mask = 0;
  for (unsigned k = first; k < first + n && k < size; ++k)
    mask |= 1u << cf_detail::nth_lane(parent.get_mask(), k);
  return coalesced_group(mask, r / n, (size + n - 1) / n);
}
inline thread_group tiled_partition(const thread_group &parent, unsigned n,
                                    const char *file = __builtin_FILE(),
                                    int line = __builtin_LINE()) {
  if (parent.get_type() == cf_detail::__cf_COALESCED)
    return tiled_partition(static_cast<const coalesced_group &>(parent), n, file, line);
  if (parent.get_type() == cf_detail::__cf_GRID)
    cf_detail::fail("%s:%d: tiled_partition of a grid_group is not supported", file, line);
  unsigned r = cf_detail::parent_rank(parent), size = cf_detail::parent_size(parent);
  cf_detail::check_tile(n, size, file, line);
  return cf_tile_group(n, r / n, (size + n - 1) / n);
}

// binary_partition / labeled_partition: the parent's threads with equal predicate / label.
namespace cf_detail {
template <class __cf_G> inline unsigned abs_mask(const __cf_G &g) { return g.get_mask(); }
template <unsigned __cf_S, class __cf_P> inline unsigned abs_mask(const thread_block_tile<__cf_S, __cf_P> &) {
  return tile_mask(__cf_S);
}
}  // namespace cf_detail

inline coalesced_group binary_partition(const coalesced_group &g, bool pred,
                                        const char *file = __builtin_FILE(),
                                        int line = __builtin_LINE()) {
  unsigned m = g.get_mask();
  unsigned b = (unsigned)cf_detail::vote(::cudafuse_emu::__cf_W_BALLOT, m, pred, file, line);
  return coalesced_group(pred ? b : m & ~b, pred ? 1 : 0, 2);
}
template <unsigned int Size, class ParentT>
inline coalesced_group binary_partition(const thread_block_tile<Size, ParentT> &t, bool pred,
                                        const char *file = __builtin_FILE(),
                                        int line = __builtin_LINE()) {
  return binary_partition(coalesced_group(cf_detail::tile_mask(Size)), pred, file, line);
}
template <class __cf_Label>
inline coalesced_group labeled_partition(const coalesced_group &g, __cf_Label label,
                                         const char *file = __builtin_FILE(),
                                         int line = __builtin_LINE()) {
  static_assert(std::is_integral<__cf_Label>::value || std::is_pointer<__cf_Label>::value,
                "labeled_partition: the label must be an integral or pointer type");
  unsigned m = g.get_mask(), out = 0;
  for (unsigned k = 0, n = g.size(); k < n; ++k)
    if (g.shfl(label, (int)k, file, line) == label) out |= 1u << cf_detail::nth_lane(m, k);
  return coalesced_group(out);
}
template <unsigned int Size, class ParentT, class __cf_Label>
inline coalesced_group labeled_partition(const thread_block_tile<Size, ParentT> &t, __cf_Label label,
                                         const char *file = __builtin_FILE(),
                                         int line = __builtin_LINE()) {
  return labeled_partition(coalesced_group(cf_detail::tile_mask(Size)), label, file, line);
}

template <class __cf_G>
inline void sync(const __cf_G &g, const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
  g.sync(file, line);
}
template <class __cf_G> inline auto thread_rank(const __cf_G &g) -> decltype(g.thread_rank()) {
  return g.thread_rank();
}
template <class __cf_G> inline auto group_size(const __cf_G &g) -> decltype(g.num_threads()) {
  return g.num_threads();
}

}  // namespace cooperative_groups
