/* cudafuse stand-in for <cooperative_groups/scan.h> (declarations for libclang). */
#pragma once
#include <cooperative_groups.h>
#include <cooperative_groups/functional.h>

namespace cooperative_groups {
template <class GroupT, class __cf_T, class __cf_Op>
__device__ __cf_T inclusive_scan(const GroupT &group, __cf_T val, __cf_Op op);
template <class GroupT, class __cf_T>
__device__ __cf_T inclusive_scan(const GroupT &group, __cf_T val);
template <class GroupT, class __cf_T, class __cf_Op>
__device__ __cf_T exclusive_scan(const GroupT &group, __cf_T val, __cf_Op op);
template <class GroupT, class __cf_T>
__device__ __cf_T exclusive_scan(const GroupT &group, __cf_T val);
}  // namespace cooperative_groups
