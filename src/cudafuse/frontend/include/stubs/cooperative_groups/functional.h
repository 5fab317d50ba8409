/* cudafuse stand-in: the function objects that cooperative_groups::reduce and the scans take
   (declarations for libclang; never compiled). */
#pragma once

namespace cooperative_groups {
template <class __cf_T> struct plus { __device__ __cf_T operator()(__cf_T a, __cf_T b) const; };
template <class __cf_T> struct less { __device__ __cf_T operator()(__cf_T a, __cf_T b) const; };
template <class __cf_T> struct greater { __device__ __cf_T operator()(__cf_T a, __cf_T b) const; };
template <class __cf_T> struct bit_and { __device__ __cf_T operator()(__cf_T a, __cf_T b) const; };
template <class __cf_T> struct bit_or { __device__ __cf_T operator()(__cf_T a, __cf_T b) const; };
template <class __cf_T> struct bit_xor { __device__ __cf_T operator()(__cf_T a, __cf_T b) const; };
}  // namespace cooperative_groups
