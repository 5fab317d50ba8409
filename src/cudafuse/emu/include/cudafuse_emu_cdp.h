// cudafuse_emu_cdp.h: dynamic parallelism, kernel launches in device code (see
// docs/emulation.md, "Dynamic parallelism").
//
// A child grid runs at its launch, to completion, on the launching thread. That is a legal
// schedule: CUDA promises a parent only that the child sees the parent's writes made before
// the launch and that children complete before the parent grid does (so a device-side
// cudaDeviceSynchronize, where it still exists, has nothing left to wait for). Tail launches
// (cudaStreamTailLaunch) run after the launching grid's last block instead, in launch order.
//
// While the child runs, the launching grid's state is set aside (ChildGrid): its block's
// fibers and scheduler context, the launch geometry, its dynamic shared memory and the static
// __shared__ variables the rewrite registered (CUDAFUSE_SMEM_REG: they are function statics,
// which a recursive child would otherwise overwrite); the child's threads run on fiber
// stacks of their own nesting level, so the parent's stacks stay as they are.
#pragma once

namespace cudafuse_emu {

constexpr int MAX_NESTING = 24;  // CUDA's launch nesting limit (levels, the host's grid is 0)

struct SmemVar {
  unsigned char *p;
  size_t n;
};
inline std::vector<SmemVar> &smem_vars() {
  static std::vector<SmemVar> *v = new std::vector<SmemVar>;
  return *v;
}
template <class T>
inline bool smem_register(T *p, size_t n) {
  void *at = const_cast<void *>(static_cast<const volatile void *>(p));
  smem_vars().push_back(SmemVar{static_cast<unsigned char *>(at), n});
  return true;
}

inline int g_depth = 0;                                  // nesting level of the running grid
inline std::vector<std::vector<char *>> g_level_stacks;  // fiber stacks of the other levels
inline std::vector<std::function<void()>> g_tail;        // tail launches not yet run

// Sets the launching grid's state aside for a launch made in device code, and puts it back
// when the child grid has completed. Inactive for a launch made by host code.
class ChildGrid {
 public:
  bool refused = false;  // nested too deep: the launch fails, as on the GPU

  explicit ChildGrid(const Site &child) : nested_(g_in_kernel) {
    if (!nested_) return;
    if (g_depth + 1 >= MAX_NESTING) {
      refused = true;
      rt_error(cudaErrorLaunchMaxDepthExceeded);
      (void)child;
      return;
    }
    site_ = g_site;
    fibers_ = g_fibers;
    coop_ = g_coop;
    grid_ = gridDim;
    block_ = blockDim;
    bidx_ = blockIdx;
    tidx_ = threadIdx;
    smem_size_ = g_dyn_smem_size;
    dyn_.assign(g_dyn_smem, g_dyn_smem + smem_size_);
    nvars_ = smem_vars().size();
    for (const SmemVar &v : smem_vars()) statics_.insert(statics_.end(), v.p, v.p + v.n);
    block_state_ = std::move((*__cf_tls_block()));
    (*__cf_tls_block()) = __cf_Block{};
    store_.swap((*__cf_tls_fibers()));
    sched_sp_ = g_sched_sp;
    level_ = g_depth++;
    if (g_level_stacks.size() < size_t(level_) + 2) g_level_stacks.resize(level_ + 2);
    std::swap((*__cf_tls_stacks()), g_level_stacks[level_]);      // park the parent's stacks
    std::swap((*__cf_tls_stacks()), g_level_stacks[level_ + 1]);  // take the child level's
    g_in_kernel = false;
  }
  ChildGrid(const ChildGrid &) = delete;
  ChildGrid &operator=(const ChildGrid &) = delete;

  ~ChildGrid() {
    if (!nested_ || refused) return;
    std::swap((*__cf_tls_stacks()), g_level_stacks[level_ + 1]);
    std::swap((*__cf_tls_stacks()), g_level_stacks[level_]);
    g_depth = level_;
    g_sched_sp = sched_sp_;
    __cf_tls_fibers()->swap(store_);
    (*__cf_tls_block()) = std::move(block_state_);
    size_t at = 0;
    for (size_t k = 0; k < nvars_; ++k) {
      const SmemVar &v = smem_vars()[k];
      memcpy(v.p, statics_.data() + at, v.n);
      at += v.n;
    }
    if (smem_size_) memcpy(g_dyn_smem, dyn_.data(), smem_size_);
    g_dyn_smem_size = smem_size_;
    gridDim = grid_;
    blockDim = block_;
    blockIdx = bidx_;
    threadIdx = tidx_;
    g_site = site_;
    g_fibers = fibers_;
    g_coop = coop_;
    g_in_kernel = true;
  }

 private:
  bool nested_;
  Site site_{"", "", 0};
  bool fibers_ = false, coop_ = false;
  dim3 grid_, block_;
  uint3 bidx_{}, tidx_{};
  size_t smem_size_ = 0, nvars_ = 0;
  std::vector<unsigned char> dyn_, statics_;
  __cf_Block block_state_;
  std::vector<__cf_Fiber> store_;
  void *sched_sp_ = nullptr;
  int level_ = 0;
};

// Runs the tail launches made by the grid that has just completed (those queued after
// `mark`), in launch order; theirs run at the end of each.
inline void run_tail_launches(size_t mark) {
  while (g_tail.size() > mark) {
    std::function<void()> op = std::move(g_tail[mark]);
    g_tail.erase(g_tail.begin() + (long)mark);
    op();
  }
}

}  // namespace cudafuse_emu

// CUDAFUSE_SMEM_REG(v), after a static __shared__ declaration (emu/rewrite.py, programs with
// launches in device code): registers v once, when a thread first reaches it.
#define CUDAFUSE_SMEM_REG(v)                                       \
  static const bool CF_SMEM_CAT(cf_smem_reg_, __COUNTER__) =       \
      ::cudafuse_emu::smem_register(std::addressof(v), sizeof(v))
#define CF_SMEM_CAT(a, b) CF_SMEM_CAT2(a, b)
#define CF_SMEM_CAT2(a, b) a##b
