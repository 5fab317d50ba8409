// cooperative_groups::reduce for cudafuse emulation: shuffles within the group's lanes.
#pragma once
#include "../cooperative_groups.h"
#include "functional.h"

namespace cooperative_groups {
namespace cf_detail {
// Tiles of up to 32: a butterfly over shfl_xor, so that every thread combines the same
// values; larger tiles: every thread folds the tile's values in rank order.
template <unsigned __cf_S, class __cf_P, class __cf_T, class __cf_Op>
inline __cf_T group_reduce(const thread_block_tile<__cf_S, __cf_P> &g, __cf_T v, __cf_Op &op, const char *file,
                      int line) {
  if constexpr (__cf_S <= 32) {
    for (unsigned d = __cf_S / 2; d > 0; d /= 2) v = op(v, g.shfl_xor(v, d, file, line));
    return v;
  } else {
    return g.cf_fold(v, op, file, line);
  }
}
// Coalesced groups (any size): a tree towards rank 0, then rank 0's value to all.
template <class __cf_T, class __cf_Op>
inline __cf_T group_reduce(const coalesced_group &g, __cf_T v, __cf_Op &op, const char *file, int line) {
  unsigned r = g.thread_rank(), n = g.size();
  for (unsigned d = 1; d < n; d *= 2) {
    __cf_T other = g.shfl_down(v, d, file, line);
    if (r % (2 * d) == 0 && r + d < n) v = op(v, other);
  }
  return g.shfl(v, 0, file, line);
}
}  // namespace cf_detail

// The value `op` combines over the group (a thread_block_tile or a coalesced_group),
// returned to every thread of it.
template <class __cf_G, class __cf_T, class __cf_Op>
inline auto reduce(const __cf_G &g, __cf_T &&val, __cf_Op &&op, const char *file = __builtin_FILE(),
                   int line = __builtin_LINE()) -> typename std::decay<decltype(op(val, val))>::type {
  typename std::decay<decltype(op(val, val))>::type v = val;
  return cf_detail::group_reduce(g, v, op, file, line);
}
}  // namespace cooperative_groups
