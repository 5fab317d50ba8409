// Arrive-wait barriers and asynchronous copies for cudafuse emulation: the core of the
// emulator's <cuda/barrier>, <cuda/pipeline>, <cuda_awbarrier.h> and <cuda_pipeline.h>
// (see docs/emulation.md, "Asynchronous copies, barriers and pipelines").
//
// An asynchronous copy is done at the call: a legal schedule, since it then completes before
// anything that waits for it. A barrier counts the arrivals still pending in its current
// phase; the arrival that brings the count to zero completes the phase (runs the completion
// function, restores the count to the expected number, wakes the threads waiting for that
// phase). A thread waiting for a phase that has not completed switches to the block's other
// threads (cudafuse_emu.h's event_wait), so a barrier may count any number of the block's
// threads: one warp, a group, the producers of a pipeline, or the whole block.
#pragma once
#include "cudafuse_emu.h"

namespace cudafuse_emu {

struct awbar {
  long long expected = 0, pending = 0;
  uint64_t phase = 0;  // phases completed since init

  void init(long long count, const char *file, int line) {
    if (count < 0) fail("%s:%d: barrier initialised with a negative count (%lld)", file, line, count);
    expected = pending = count;
    phase = 0;
  }
  // The phase the arrival belongs to; `complete` runs when it completes the phase.
  template <class __cf_F>
  uint64_t arrive(long long n, __cf_F &&complete, const char *what, const char *file, int line) {
    if (n <= 0 || n > pending)
      fail("%s:%d: %s: %lld arrival(s) at a barrier with %lld pending in its phase (not "
           "initialised, or more arrivals than its expected count of %lld)",
           file, line, what, n, pending, expected);
    uint64_t ph = phase;
    pending -= n;
    if (pending == 0) {
      complete();
      pending = expected;
      ++phase;
      event_wake(this, ph);
    }
    return ph;
  }
  uint64_t arrive(long long n, const char *what, const char *file, int line) {
    return arrive(n, [] {}, what, file, line);
  }
  // arrive_and_drop: one arrival now, one fewer expected in the phases after this one.
  template <class __cf_F>
  uint64_t drop(__cf_F &&complete, const char *what, const char *file, int line) {
    if (expected <= 0) fail("%s:%d: %s at a barrier that expects no arrivals", file, line, what);
    --expected;
    return arrive(1, complete, what, file, line);
  }
  // Waits until `count` phases have completed.
  void wait_until(uint64_t count, const char *what, const char *file, int line) const {
    while (phase < count) event_wait(this, phase, what, file, line);
  }
};

// Each thread of a group copies its share of the bytes (as cooperative_groups::memcpy_async).
template <class __cf_G>
inline void group_copy(const __cf_G &g, void *dst, const void *src, size_t n) {
  size_t rank = (size_t)g.thread_rank(), size = (size_t)g.size();
  char *d = static_cast<char *>(dst);
  const char *s = static_cast<const char *>(src);
  for (size_t i = rank; i < n; i += size) d[i] = s[i];
}

}  // namespace cudafuse_emu
