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
// __shared__ variables the rewrite registered (__CF_SMEM_REG: they are function statics,
// which a recursive child would otherwise overwrite); the child's threads run on fiber
// stacks of their own nesting level, so the parent's stacks stay as they are.
#pragma once

namespace cudafuse_emu {

constexpr int MAX_NESTING = 24;  // CUDA's launch nesting limit (levels, the host's grid is 0)

struct SmemVar {
  unsigned char *p;
  size_t n;
};
std::vector<SmemVar> &smem_vars();
template <class T>
inline bool __cf_smem_register(T *p, size_t n) {
  void *at = const_cast<void *>(static_cast<const volatile void *>(p));
  smem_vars().push_back(SmemVar{static_cast<unsigned char *>(at), n});
  return true;
}

inline int g_depth = 0;                                  // nesting level of the running grid
extern std::vector<std::vector<char *>> g_level_stacks;  // fiber stacks of the other levels
extern std::vector<std::function<void()>> g_tail;        // tail launches not yet run

// Sets the launching grid's state aside for a launch made in device code, and puts it back
// when the child grid has completed. Inactive for a launch made by host code.
class ChildGrid {
 public:
  bool refused = false;  // nested too deep: the launch fails, as on the GPU

  explicit ChildGrid(const Site &child);
  ChildGrid(const ChildGrid &) = delete;
  ChildGrid &operator=(const ChildGrid &) = delete;

  ~ChildGrid();

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
void run_tail_launches(size_t mark);
// Queues a tail launch (Launch::run): out of line, so no program compiles the vector's code.
void push_tail(std::function<void()> op);

}  // namespace cudafuse_emu

// __CF_SMEM_REG(v), after a static __shared__ declaration (emu/rewrite.py, programs with
// launches in device code): registers v once, when a thread first reaches it.
#define __CF_SMEM_REG(v)                                       \
  static const bool __CF_SMEM_CAT(__cf_smem_reg_, __COUNTER__) =       \
      ::__cf_emu::__cf_smem_register(__builtin_addressof(v), sizeof(v))
#define __CF_SMEM_CAT(a, b) __CF_SMEM_CAT2(a, b)
#define __CF_SMEM_CAT2(a, b) a##b
