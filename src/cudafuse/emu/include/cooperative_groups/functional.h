// The function objects of cooperative_groups::reduce and the scans (cudafuse emulation).
#pragma once
#include "../cooperative_groups.h"

namespace cooperative_groups {
template <class __cf_T> struct plus { __cf_T operator()(__cf_T a, __cf_T b) const { return a + b; } };
template <class __cf_T> struct less { __cf_T operator()(__cf_T a, __cf_T b) const { return b < a ? b : a; } };
template <class __cf_T> struct greater { __cf_T operator()(__cf_T a, __cf_T b) const { return a < b ? b : a; } };
template <class __cf_T> struct bit_and { __cf_T operator()(__cf_T a, __cf_T b) const { return a & b; } };
template <class __cf_T> struct bit_or { __cf_T operator()(__cf_T a, __cf_T b) const { return a | b; } };
template <class __cf_T> struct bit_xor { __cf_T operator()(__cf_T a, __cf_T b) const { return a ^ b; } };
}  // namespace cooperative_groups
