// The parts of libcu++ that <cuda/barrier> and <cuda/pipeline> provide, for cudafuse
// emulation builds (see docs/emulation.md, "Asynchronous copies, barriers and pipelines"):
// thread scopes, cuda::barrier, cuda::pipeline (thread scope, and block scope with shared
// state, unified or with producer and consumer roles), cuda::aligned_size_t and
// cuda::memcpy_async with a barrier or a pipeline. Copies are done at the call; waits switch
// to the block's other threads until the phase they wait for completes.
#pragma once
// CUDA 13's header brings __half and __nv_bfloat16 with it (through libcu++'s type traits);
// code that uses them without including cuda_bf16.h compiles with nvcc.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include "../cudafuse_emu_async.h"
#include "../../../cuda_api/cudafuse_std.h"

namespace cuda {

enum thread_scope {
  thread_scope_system = 0,
  thread_scope_device = 1,
  thread_scope_block = 2,
  thread_scope_thread = 3
};

template <std::size_t __cf_Align>
struct aligned_size_t {
  static constexpr std::size_t align = __cf_Align;
  std::size_t value;
  explicit constexpr aligned_size_t(std::size_t v) : value(v) {}
  constexpr operator std::size_t() const { return value; }
};

namespace cf_detail {
struct empty_completion {
  void operator()() noexcept {}
};
}  // namespace cf_detail

template <thread_scope __cf_Scope, class __cf_CompletionFunction = cf_detail::empty_completion>
class barrier {
  ::cudafuse_emu::awbar bar_;
  __cf_CompletionFunction completion_{};

 public:
  class arrival_token {
    friend class barrier;
    uint64_t phase_ = 0;
    explicit arrival_token(uint64_t p) : phase_(p) {}

   public:
    arrival_token() = default;
  };

  barrier() = default;
  barrier(const barrier &) = delete;
  barrier &operator=(const barrier &) = delete;
  explicit barrier(std::ptrdiff_t expected, __cf_CompletionFunction f = __cf_CompletionFunction(),
                   const char *file = __builtin_FILE(), int line = __builtin_LINE())
      : completion_(f) {
    bar_.init(expected, file, line);
  }
  friend void init(barrier *b, std::ptrdiff_t expected,
                   __cf_CompletionFunction f = __cf_CompletionFunction(),
                   const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    b->bar_.init(expected, file, line);
    b->completion_ = f;
  }
  static constexpr std::ptrdiff_t max() noexcept { return std::numeric_limits<int32_t>::max(); }

  arrival_token arrive(std::ptrdiff_t update = 1, const char *file = __builtin_FILE(),
                       int line = __builtin_LINE()) {
    return arrival_token(bar_.arrive(update, completion_, "cuda::barrier::arrive", file, line));
  }
  void wait(arrival_token &&t, const char *file = __builtin_FILE(),
            int line = __builtin_LINE()) const {
    bar_.wait_until(t.phase_ + 1, "cuda::barrier::wait", file, line);
  }
  // Waiting until the phase completes and then answering true is a legal schedule for a
  // poll: the caller simply ran late.
  bool try_wait(arrival_token &&t, const char *file = __builtin_FILE(),
                int line = __builtin_LINE()) const {
    bar_.wait_until(t.phase_ + 1, "cuda::barrier::try_wait", file, line);
    return true;
  }
  void arrive_and_wait(const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    uint64_t ph = bar_.arrive(1, completion_, "cuda::barrier::arrive_and_wait", file, line);
    bar_.wait_until(ph + 1, "cuda::barrier::arrive_and_wait", file, line);
  }
  void arrive_and_drop(const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    bar_.drop(completion_, "cuda::barrier::arrive_and_drop", file, line);
  }
  // The phase whose parity is `parity` (the current one, or the one before it) completes.
  void wait_parity(bool parity, const char *file = __builtin_FILE(),
                   int line = __builtin_LINE()) const {
    if ((bar_.phase & 1u) == (uint64_t)parity)
      bar_.wait_until(bar_.phase + 1, "cuda::barrier::wait_parity", file, line);
  }
  bool try_wait_parity(bool parity, const char *file = __builtin_FILE(),
                       int line = __builtin_LINE()) const {
    wait_parity(parity, file, line);
    return true;
  }
};

// ---- pipelines ---------------------------------------------------------------------------
enum class pipeline_role { producer, consumer };

// Each stage has two barriers: `produced` counts the producers' commits of the stage's
// current use, `consumed` the consumers' releases.
template <thread_scope __cf_Scope, uint8_t __cf_StagesCount = 2>
struct pipeline_shared_state {
  ::cudafuse_emu::awbar produced[__cf_StagesCount], consumed[__cf_StagesCount];
  unsigned producers = 0;
  static constexpr uint8_t stages = __cf_StagesCount;
};

template <thread_scope __cf_Scope>
class pipeline {
  ::cudafuse_emu::awbar *produced_ = nullptr, *consumed_ = nullptr;  // null: thread scope
  uint8_t stages_ = 1;
  bool producer_ = true, consumer_ = true;
  uint64_t head_ = 0, tail_ = 0;  // stage uses acquired by this thread, and waited for

  template <thread_scope __cf_S, class __cf_G, uint8_t __cf_N>
  friend pipeline<__cf_S> make_pipeline_impl(const __cf_G &, pipeline_shared_state<__cf_S, __cf_N> *, int,
                                        const char *, int);
  friend pipeline<thread_scope_thread> make_pipeline();

 public:
  pipeline() = default;

  // A stage may be filled again once every consumer released its previous use.
  void producer_acquire(const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    if (!produced_) return;
    if (!producer_) ::cudafuse_emu::fail("%s:%d: producer_acquire by a consumer thread", file, line);
    uint64_t use = head_ / stages_;
    consumed_[head_ % stages_].wait_until(use, "cuda::pipeline::producer_acquire", file, line);
  }
  void producer_commit(const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    if (!produced_) return;
    if (!producer_) ::cudafuse_emu::fail("%s:%d: producer_commit by a consumer thread", file, line);
    produced_[head_ % stages_].arrive(1, "cuda::pipeline::producer_commit", file, line);
    ++head_;
  }
  // Every producer committed the stage's current use.
  void consumer_wait(const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    if (!produced_) return;
    if (!consumer_) ::cudafuse_emu::fail("%s:%d: consumer_wait by a producer thread", file, line);
    uint64_t use = tail_ / stages_;
    produced_[tail_ % stages_].wait_until(use + 1, "cuda::pipeline::consumer_wait", file, line);
  }
  template <class Duration>
  bool consumer_wait_for(const Duration &, const char *file = __builtin_FILE(),
                         int line = __builtin_LINE()) {
    consumer_wait(file, line);
    return true;
  }
  template <class __cf_TimePoint>
  bool consumer_wait_until(const __cf_TimePoint &, const char *file = __builtin_FILE(),
                           int line = __builtin_LINE()) {
    consumer_wait(file, line);
    return true;
  }
  void consumer_release(const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    if (!produced_) return;
    if (!consumer_) ::cudafuse_emu::fail("%s:%d: consumer_release by a producer thread", file, line);
    consumed_[tail_ % stages_].arrive(1, "cuda::pipeline::consumer_release", file, line);
    ++tail_;
  }
};

inline pipeline<thread_scope_thread> make_pipeline() { return pipeline<thread_scope_thread>(); }

// role: 0 producer, 1 consumer, 2 both (a unified pipeline). Collective over the group.
template <thread_scope __cf_Scope, class __cf_Group, uint8_t __cf_N>
pipeline<__cf_Scope> make_pipeline_impl(const __cf_Group &g, pipeline_shared_state<__cf_Scope, __cf_N> *st,
                                   int role, const char *file, int line) {
  unsigned rank = (unsigned)g.thread_rank(), size = (unsigned)g.size();
  if (rank == 0) st->producers = 0;
  g.sync(file, line);
  if (role == 0) ++st->producers;
  g.sync(file, line);
  if (rank == 0) {
    unsigned producers = role == 2 ? size : st->producers;
    unsigned consumers = role == 2 ? size : size - st->producers;
    for (uint8_t s = 0; s < __cf_N; ++s) {
      st->produced[s].init(producers, file, line);
      st->consumed[s].init(consumers, file, line);
    }
  }
  g.sync(file, line);
  pipeline<__cf_Scope> p;
  p.produced_ = st->produced;
  p.consumed_ = st->consumed;
  p.stages_ = __cf_N;
  p.producer_ = role != 1;
  p.consumer_ = role != 0;
  return p;
}
template <class __cf_Group, thread_scope __cf_Scope, uint8_t __cf_N>
pipeline<__cf_Scope> make_pipeline(const __cf_Group &g, pipeline_shared_state<__cf_Scope, __cf_N> *st,
                              const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
  return make_pipeline_impl(g, st, 2, file, line);
}
template <class __cf_Group, thread_scope __cf_Scope, uint8_t __cf_N>
pipeline<__cf_Scope> make_pipeline(const __cf_Group &g, pipeline_shared_state<__cf_Scope, __cf_N> *st,
                              pipeline_role role, const char *file = __builtin_FILE(),
                              int line = __builtin_LINE()) {
  return make_pipeline_impl(g, st, role == pipeline_role::producer ? 0 : 1, file, line);
}

// A thread-scope pipeline's copies are complete when issued: nothing to wait for.
template <uint8_t __cf_Prior>
inline void pipeline_consumer_wait_prior(pipeline<thread_scope_thread> &) {}

// ---- asynchronous copies (done at the call) -----------------------------------------------
template <class __cf_Shape, thread_scope __cf_Scope, class __cf_F>
inline void memcpy_async(void *dst, const void *src, __cf_Shape size, barrier<__cf_Scope, __cf_F> &) {
  std::memcpy(dst, src, (std::size_t)size);
}
template <class __cf_Group, class __cf_Shape, thread_scope __cf_Scope, class __cf_F>
inline void memcpy_async(const __cf_Group &g, void *dst, const void *src, __cf_Shape size,
                         barrier<__cf_Scope, __cf_F> &) {
  ::cudafuse_emu::group_copy(g, dst, src, (std::size_t)size);
}
template <class __cf_Shape, thread_scope __cf_Scope>
inline void memcpy_async(void *dst, const void *src, __cf_Shape size, pipeline<__cf_Scope> &) {
  std::memcpy(dst, src, (std::size_t)size);
}
template <class __cf_Group, class __cf_Shape, thread_scope __cf_Scope>
inline void memcpy_async(const __cf_Group &g, void *dst, const void *src, __cf_Shape size,
                         pipeline<__cf_Scope> &) {
  ::cudafuse_emu::group_copy(g, dst, src, (std::size_t)size);
}

}  // namespace cuda
