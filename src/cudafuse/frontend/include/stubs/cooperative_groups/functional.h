/* cudafuse stand-in: the function objects that cooperative_groups::reduce and the scans take
   (declarations for libclang; never compiled). */
#pragma once

namespace cooperative_groups {
template <class T> struct plus { __device__ T operator()(T a, T b) const; };
template <class T> struct less { __device__ T operator()(T a, T b) const; };
template <class T> struct greater { __device__ T operator()(T a, T b) const; };
template <class T> struct bit_and { __device__ T operator()(T a, T b) const; };
template <class T> struct bit_or { __device__ T operator()(T a, T b) const; };
template <class T> struct bit_xor { __device__ T operator()(T a, T b) const; };
}  // namespace cooperative_groups
