// cooperative_groups::inclusive_scan / exclusive_scan for cudafuse emulation.
#pragma once
#include "../cooperative_groups.h"
#include "functional.h"

namespace cooperative_groups {
namespace cf_detail {
// Hillis-Steele over rank order: works for tiles and coalesced groups alike.
template <class G, class T, class Op>
inline T group_inclusive_scan(const G &g, T v, Op &op, const char *file, int line) {
  unsigned r = (unsigned)g.thread_rank(), n = (unsigned)g.size();
  for (unsigned d = 1; d < n; d *= 2) {
    T other = g.shfl_up(v, d, file, line);
    if (r >= d) v = op(other, v);
  }
  return v;
}
}  // namespace cf_detail

template <class G, class T, class Op>
inline auto inclusive_scan(const G &g, T &&val, Op &&op, const char *file = __builtin_FILE(),
                           int line = __builtin_LINE())
    -> typename std::decay<decltype(op(val, val))>::type {
  typename std::decay<decltype(op(val, val))>::type v = val;
  return cf_detail::group_inclusive_scan(g, v, op, file, line);
}
template <class G, class T>
inline typename std::decay<T>::type inclusive_scan(const G &g, T &&val,
                                                   const char *file = __builtin_FILE(),
                                                   int line = __builtin_LINE()) {
  return inclusive_scan(g, val, plus<typename std::decay<T>::type>(), file, line);
}
// Rank 0 gets a value-initialised T, as with CUDA's exclusive_scan.
template <class G, class T, class Op>
inline auto exclusive_scan(const G &g, T &&val, Op &&op, const char *file = __builtin_FILE(),
                           int line = __builtin_LINE())
    -> typename std::decay<decltype(op(val, val))>::type {
  using R = typename std::decay<decltype(op(val, val))>::type;
  R v = val;
  v = cf_detail::group_inclusive_scan(g, v, op, file, line);
  R prev = g.shfl_up(v, 1, file, line);
  return g.thread_rank() == 0 ? R{} : prev;
}
template <class G, class T>
inline typename std::decay<T>::type exclusive_scan(const G &g, T &&val,
                                                   const char *file = __builtin_FILE(),
                                                   int line = __builtin_LINE()) {
  return exclusive_scan(g, val, plus<typename std::decay<T>::type>(), file, line);
}
}  // namespace cooperative_groups
