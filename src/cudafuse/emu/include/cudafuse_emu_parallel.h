// cudafuse_emu_parallel.h: the blocks of one launch on several OS threads (see
// docs/emulation.md, "Parallel blocks").
//
// Blocks of a launch share nothing but global memory, so a kernel whose blocks cannot observe
// each other's order (no atomics, device printf or malloc, clock, device-side launches, grid
// synchronisation: emu/parallel.py decides, and passes `parallel` to launch()) runs them on a
// pool of OS threads, each with its own thread geometry, scheduler, fiber stacks and shared
// memory (thread_local in cudafuse_emu.h and cudafuse_emu_device.h; `__shared__` is
// `static thread_local`). Every other launch runs on the calling thread, as before.
//
// Results are those of the serial order: blocks are claimed in increasing linear id, and an
// error (fail, or a fault the guard handler reports) in block b parks its thread, lets the
// blocks below b finish, and is reported only if no lower block stopped: the report is the
// serial run's first. What may differ is what a block reads that no one wrote (shared memory
// a block left behind): the program's own undefined behaviour, which verify's two fills show.
//
// CUDAFUSE_EMU_THREADS=N sets the pool's size (1: every launch serial); by default, the CPUs
// this process may run on. The calling thread only waits: on 2 CPUs two pool threads run.
#pragma once
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace cudafuse_emu {

inline int worker_count() {
  static const int n = [] {
#if defined(__SANITIZE_ADDRESS__)
    return 1;  // the AddressSanitizer build reports the first bad access: one thread
#else
    if (const char *env = getenv("CUDAFUSE_EMU_THREADS"); env && *env) {
      long v = strtol(env, nullptr, 10);
      return int(v < 1 ? 1 : v > 64 ? 64 : v);
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    int c = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
    if (c < 1) c = (int)std::thread::hardware_concurrency();
    return c < 1 ? 1 : c > 64 ? 64 : c;
#endif
  }();
  return n;
}

// verify's race check (execute.py, when an original's outputs differ between two runs): a
// launch that may run its blocks in parallel is listed, once per site, in the file
// CUDAFUSE_EMU_PARALLEL_LOG names ("kernel<TAB>file<TAB>line"); its blocks run serially in
// decreasing linear id when CUDAFUSE_EMU_REVERSE names its kernel ("*": every such launch).
// Results that then differ from the increasing order show blocks that observe their order.
inline bool order_check(const Site &site) {
  static const char *reverse = getenv("CUDAFUSE_EMU_REVERSE");
  static FILE *log = [] {
    const char *path = getenv("CUDAFUSE_EMU_PARALLEL_LOG");
    return path && *path ? fopen(path, "w") : nullptr;
  }();
  static std::set<std::pair<const char *, int>> logged;
  if (log && logged.insert({site.file, site.line}).second) {
    fprintf(log, "%s\t%s\t%d\n", site.kernel, site.file, site.line);
    fflush(log);
  }
  return reverse && (strcmp(reverse, "*") == 0 || strcmp(reverse, site.kernel) == 0);
}

// Set by the fault handler (emu/guard.cpp) when it is installed: a pool thread's own signal
// stack (a fiber's stack overflow faults on it), and the report of a fault that stopped a
// parallel launch, written by the launching thread before the signal ends the process.
inline void (*g_thread_start)() = nullptr;
inline void (*g_refault)(const char *text, int sig) = nullptr;

// The lowest block that stopped the running launch, and its report.
struct StopRecord {
  std::atomic<long long> block{LLONG_MAX};
  std::atomic_flag lock = ATOMIC_FLAG_INIT;
  int sig = 0;  // 0: an emulator error (fail); else the fault's signal
  char text[8192] = {};
};

struct BlockPool {
  std::mutex mu;
  std::condition_variable wake, done;
  std::vector<std::thread> threads;
  unsigned long long generation = 0;
  int active = 0;  // pool threads taking part in the running launch
  std::atomic<int> finished{0};
  std::function<void(int)> job;
  StopRecord stop;
};
inline BlockPool &block_pool() {
  static BlockPool *p = new BlockPool;  // never destroyed: its threads wait until the exit
  return *p;
}

// A pool thread stopped by an error: it records the error if its block is the lowest so far
// and waits for the exit, which the launching thread makes. Safe in a signal handler (no lock
// but a spin flag, no allocation; the sleep is nanosleep).
[[noreturn]] inline void par_stop(int sig, const char *text) {
  BlockPool &P = block_pool();
  StopRecord &s = P.stop;
  while (s.lock.test_and_set(std::memory_order_acquire)) {
  }
  if (g_par_block < s.block.load()) {
    size_t k = 0;
    for (; text[k] && k + 1 < sizeof s.text; ++k) s.text[k] = text[k];
    s.text[k] = 0;
    s.sig = sig;
    s.block.store(g_par_block);
  }
  s.lock.clear(std::memory_order_release);
  P.finished.fetch_add(1);
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

inline void pool_thread(int index) {
  if (g_thread_start) g_thread_start();
  BlockPool &P = block_pool();
  unsigned long long seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> l(P.mu);
      for (;;) {
        P.wake.wait(l, [&] { return P.generation != seen; });
        seen = P.generation;
        if (index < P.active) break;
      }
    }
    P.job(index);
    {
      std::lock_guard<std::mutex> l(P.mu);
      P.finished.fetch_add(1);
    }
    P.done.notify_one();
  }
}

// Runs job(0..workers-1) on the pool's threads and waits until each has returned or stopped.
inline void pool_run(int workers, std::function<void(int)> job) {
  BlockPool &P = block_pool();
  std::unique_lock<std::mutex> l(P.mu);
  while ((int)P.threads.size() < workers) {
    P.threads.emplace_back(pool_thread, (int)P.threads.size());
    P.threads.back().detach();
  }
  P.job = std::move(job);
  P.active = workers;
  P.finished = 0;
  P.stop.block = LLONG_MAX;
  ++P.generation;
  P.wake.notify_all();
  // A stopped thread does not notify (it may be in a signal handler): look now and then.
  while (P.finished.load() < workers) P.done.wait_for(l, std::chrono::milliseconds(2));
  P.active = 0;
}

inline void run_block_fibers(int n);

struct BodyRef;  // a kernel launch's body, type-erased (cudafuse_emu.h)

// One launch whose blocks run on the pool (Launch::run_body, cudafuse_emu.h).
struct ParallelLaunch {
  Site site;
  dim3 grid, block;
  size_t shared;
  bool fibers;
  unsigned char canary;
  int n;
  long long nb;

  // Defined in emu/runtime.cpp (compiled once): the kernel reaches it type-erased.
  void run(const BodyRef &body, int workers);
};

}  // namespace cudafuse_emu
