/* cudafuse stand-in for <cooperative_groups/scan.h> (declarations for libclang). */
#pragma once
#include <cooperative_groups.h>
#include <cooperative_groups/functional.h>

namespace cooperative_groups {
template <class GroupT, class T, class Op>
__device__ T inclusive_scan(const GroupT &group, T val, Op op);
template <class GroupT, class T>
__device__ T inclusive_scan(const GroupT &group, T val);
template <class GroupT, class T, class Op>
__device__ T exclusive_scan(const GroupT &group, T val, Op op);
template <class GroupT, class T>
__device__ T exclusive_scan(const GroupT &group, T val);
}  // namespace cooperative_groups
