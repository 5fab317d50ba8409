// cooperative_groups::inclusive_scan / exclusive_scan for cudafuse emulation.
#pragma once
#include "../cooperative_groups.h"
#include "functional.h"

namespace cooperative_groups {
namespace cf_detail {
// Hillis-Steele over rank order: works for tiles and coalesced groups alike.
template <class __cf_G, class __cf_T, class __cf_Op>
inline __cf_T group_inclusive_scan(const __cf_G &g, __cf_T v, __cf_Op &op, const char *file, int line) {
  unsigned r = (unsigned)g.thread_rank(), n = (unsigned)g.size();
  for (unsigned d = 1; d < n; d *= 2) {
    __cf_T other = g.shfl_up(v, d, file, line);
    if (r >= d) v = op(other, v);
  }
  return v;
}
}  // namespace cf_detail

template <class __cf_G, class __cf_T, class __cf_Op>
inline auto inclusive_scan(const __cf_G &g, __cf_T &&val, __cf_Op &&op, const char *file = __builtin_FILE(),
                           int line = __builtin_LINE())
    -> typename std::decay<decltype(op(val, val))>::type {
  typename std::decay<decltype(op(val, val))>::type v = val;
  return cf_detail::group_inclusive_scan(g, v, op, file, line);
}
template <class __cf_G, class __cf_T>
inline typename std::decay<__cf_T>::type inclusive_scan(const __cf_G &g, __cf_T &&val,
                                                   const char *file = __builtin_FILE(),
                                                   int line = __builtin_LINE()) {
  return inclusive_scan(g, val, plus<typename std::decay<__cf_T>::type>(), file, line);
}
// Rank 0 gets a value-initialised T, as with CUDA's exclusive_scan.
template <class __cf_G, class __cf_T, class __cf_Op>
inline auto exclusive_scan(const __cf_G &g, __cf_T &&val, __cf_Op &&op, const char *file = __builtin_FILE(),
                           int line = __builtin_LINE())
    -> typename std::decay<decltype(op(val, val))>::type {
  using __cf_R = typename std::decay<decltype(op(val, val))>::type;
  __cf_R v = val;
  v = cf_detail::group_inclusive_scan(g, v, op, file, line);
  __cf_R prev = g.shfl_up(v, 1, file, line);
  return g.thread_rank() == 0 ? __cf_R{} : prev;
}
template <class __cf_G, class __cf_T>
inline typename std::decay<__cf_T>::type exclusive_scan(const __cf_G &g, __cf_T &&val,
                                                   const char *file = __builtin_FILE(),
                                                   int line = __builtin_LINE()) {
  return exclusive_scan(g, val, plus<typename std::decay<__cf_T>::type>(), file, line);
}
}  // namespace cooperative_groups
