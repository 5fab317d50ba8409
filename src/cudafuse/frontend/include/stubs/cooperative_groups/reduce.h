/* cudafuse stand-in for <cooperative_groups/reduce.h> (declarations for libclang). */
#pragma once
#include <cooperative_groups.h>
#include <cooperative_groups/functional.h>

namespace cooperative_groups {
// The value combined over the group with `op` (cg::plus<T>(), cg::greater<T>(), a lambda...).
template <class GroupT, class __cf_T, class __cf_Op>
__device__ __cf_T reduce(const GroupT &group, __cf_T val, __cf_Op op);
}  // namespace cooperative_groups
