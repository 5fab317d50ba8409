// <cuda_awbarrier.h> for cudafuse emulation builds: the C-style arrive-wait barrier
// (__mbarrier_*) on the emulator's barriers. The 64-bit barrier holds the pending count
// (bits 0-20), the expected count (bits 21-41) and the phase (bits 42-63); a token is the
// barrier's value at the arrival. __mbarrier_test_wait waits until the phase completes and
// answers true (a legal schedule for a poll: the caller ran late), so that a loop polling it
// lets the block's other threads run.
#pragma once
#include "cudafuse_emu_async.h"

typedef uint64_t __mbarrier_t;
typedef uint64_t __mbarrier_token_t;

namespace cudafuse_emu {
namespace mbar {
constexpr uint64_t __cf_MASK = (1ull << 21) - 1;
inline uint64_t pending(uint64_t v) { return v & __cf_MASK; }
inline uint64_t expected(uint64_t v) { return v >> 21 & __cf_MASK; }
inline uint64_t phase(uint64_t v) { return v >> 42; }
inline uint64_t pack(uint64_t pend, uint64_t exp, uint64_t ph) {
  return pend | exp << 21 | (ph & ((1ull << 22) - 1)) << 42;
}
inline __mbarrier_token_t arrive(__mbarrier_t *bar, bool drop, const char *what,
                                 const char *file, int line) {
  uint64_t v = *bar, pend = pending(v), exp = expected(v), ph = phase(v);
  if (pend == 0)
    fail("%s:%d: %s on a barrier with no pending arrivals (not initialised with "
         "__mbarrier_init, or more arrivals than its count of %llu)",
         file, line, what, (unsigned long long)exp);
  if (drop) --exp;
  __mbarrier_token_t token = v;
  if (--pend == 0) {
    *bar = pack(exp, exp, ph + 1);
    event_wake(bar, ph);
  } else {
    *bar = pack(pend, exp, ph);
  }
  return token;
}
}  // namespace mbar
}  // namespace cudafuse_emu

inline uint32_t __mbarrier_maximum_count() { return (1u << 20) - 1; }
inline void __mbarrier_init(__mbarrier_t *bar, uint32_t expected_count) {
  *bar = ::cudafuse_emu::mbar::pack(expected_count, expected_count, 0);
}
inline void __mbarrier_inval(__mbarrier_t *bar) { *bar = 0; }
inline __mbarrier_token_t __mbarrier_arrive(__mbarrier_t *bar,
                                            const char *file = __builtin_FILE(),
                                            int line = __builtin_LINE()) {
  return ::cudafuse_emu::mbar::arrive(bar, false, "__mbarrier_arrive", file, line);
}
inline __mbarrier_token_t __mbarrier_arrive_and_drop(__mbarrier_t *bar,
                                                     const char *file = __builtin_FILE(),
                                                     int line = __builtin_LINE()) {
  return ::cudafuse_emu::mbar::arrive(bar, true, "__mbarrier_arrive_and_drop", file, line);
}
inline bool __mbarrier_test_wait(__mbarrier_t *bar, __mbarrier_token_t token,
                                 const char *file = __builtin_FILE(),
                                 int line = __builtin_LINE()) {
  uint64_t ph = ::cudafuse_emu::mbar::phase(token);
  while (::cudafuse_emu::mbar::phase(*bar) == ph)
    ::cudafuse_emu::event_wait(bar, ph, "__mbarrier_test_wait", file, line);
  return true;
}
inline uint32_t __mbarrier_token_pending_count(__mbarrier_token_t token) {
  return (uint32_t)::cudafuse_emu::mbar::pending(token);
}
