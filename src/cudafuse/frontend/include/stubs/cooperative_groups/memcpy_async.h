/* cudafuse stand-in for <cooperative_groups/memcpy_async.h> (declarations for libclang). */
#pragma once
#include <cooperative_groups.h>

namespace cooperative_groups {
// Copies `count` bytes (a size_t or a cuda::aligned_size_t) from src to dst, the group's
// threads sharing the work; wait / wait_prior<N> complete the copies.
template <class GroupT, class __cf_T, class __cf_SizeT>
__device__ void memcpy_async(const GroupT &group, __cf_T *dst, const __cf_T *src, __cf_SizeT count);
template <class GroupT, class __cf_T>
__device__ void memcpy_async(const GroupT &group, __cf_T *dst, size_t dst_count, const __cf_T *src,
                             size_t src_count);
template <class GroupT> __device__ void wait(const GroupT &group);
template <unsigned int Stage, class GroupT> __device__ void wait_prior(const GroupT &group);
}  // namespace cooperative_groups
