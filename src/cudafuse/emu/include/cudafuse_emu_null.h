// cudafuse_emu_null.h: a literal 0 or NULL passed to a kernel launched in a header.
//
// emu/overlay.py rewrites a header's launches as a generic call that forwards the
// arguments, where `0` and `NULL` would arrive as integers that no longer convert to the
// kernel's pointer parameters (nvcc converts them at the call). Such an argument, written as
// the literal, becomes a __cf_null_constant: it converts to whatever pointer or arithmetic
// parameter the kernel has, as the literal did.
#pragma once
#include <type_traits>

namespace cudafuse_emu {
struct __cf_null_constant {
  template <class __cf_T, std::enable_if_t<std::is_pointer_v<__cf_T> || std::is_arithmetic_v<__cf_T> ||
                                          std::is_enum_v<__cf_T>, int> = 0>
  constexpr operator __cf_T() const { return __cf_T(0); }
};
}  // namespace cudafuse_emu
