// cooperative_groups::memcpy_async / wait for cudafuse emulation: each thread of the group
// copies its share of the bytes at the call, and wait() is the group's barrier, so the data
// is in place for every thread of the group after wait(), as on the GPU.
#pragma once
#include "../cooperative_groups.h"

namespace cooperative_groups {
template <class __cf_G, class __cf_T, class __cf_SizeT>
inline void memcpy_async(const __cf_G &g, __cf_T *dst, const __cf_T *src, __cf_SizeT bytes) {
  size_t n = static_cast<size_t>(bytes);
  size_t rank = (size_t)g.thread_rank(), size = (size_t)g.size();
  char *d = reinterpret_cast<char *>(dst);
  const char *s = reinterpret_cast<const char *>(src);
  for (size_t i = rank; i < n; i += size) d[i] = s[i];
}
template <class __cf_G, class __cf_T>
inline void memcpy_async(const __cf_G &g, __cf_T *dst, size_t dst_count, const __cf_T *src, size_t src_count) {
  size_t n = dst_count < src_count ? dst_count : src_count;
  memcpy_async(g, dst, src, n * sizeof(__cf_T));
}
template <class __cf_G>
inline void wait(const __cf_G &g, const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
  g.sync(file, line);
}
template <unsigned int Stage, class __cf_G>
inline void wait_prior(const __cf_G &g, const char *file = __builtin_FILE(),
                       int line = __builtin_LINE()) {
  g.sync(file, line);
}
}  // namespace cooperative_groups
