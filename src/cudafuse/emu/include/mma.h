// <mma.h> for cudafuse emulation builds: warp matrix multiply-accumulate (nvcuda::wmma) on the
// CPU (see docs/emulation.md, "Warp matrix multiply-accumulate").
//
// Every thread's fragment holds the whole tile (num_elements is the tile's size, x[] the
// elements in row-major order), so element-wise code over x[] (scaling by alpha and beta,
// conversions to tf32) does the same to every lane's copy. load_matrix_sync reads the whole
// tile; mma_sync computes the whole product in each thread, in the accumulator's type (float
// for half, bfloat16 and tf32 inputs: their products are exact in float), summing over k in
// order; store_matrix_sync writes the thread's share of the tile (the elements whose index
// is its lane modulo the warp's size), so each element is written once and an in-place
// update (C loaded, scaled and stored back) is correct whatever order the lanes run in.
#pragma once
#include <cstring>
#include <limits>
#include <type_traits>
#include "cuda_bf16.h"
#include "cuda_fp16.h"
#include "cudafuse_emu.h"

namespace nvcuda {
namespace wmma {

struct row_major {};
struct col_major {};
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
namespace precision {
struct tf32 {};
}  // namespace precision
namespace experimental {
namespace precision {
struct u4 {};
struct s4 {};
struct b1 {};
}  // namespace precision
}  // namespace experimental
enum layout_t { mem_row_major, mem_col_major };

namespace cf_detail {
template <class Use, int __cf_M, int __cf_N, int __cf_K> struct tile;
template <int __cf_M, int __cf_N, int __cf_K> struct tile<matrix_a, __cf_M, __cf_N, __cf_K> {
  static constexpr int rows = __cf_M, cols = __cf_K;
};
template <int __cf_M, int __cf_N, int __cf_K> struct tile<matrix_b, __cf_M, __cf_N, __cf_K> {
  static constexpr int rows = __cf_K, cols = __cf_N;
};
template <int __cf_M, int __cf_N, int __cf_K> struct tile<accumulator, __cf_M, __cf_N, __cf_K> {
  static constexpr int rows = __cf_M, cols = __cf_N;
};
template <class __cf_T> struct storage { using type = __cf_T; };
template <> struct storage<precision::tf32> { using type = float; };
template <class __cf_T> struct unsupported : std::false_type {};
template <> struct unsupported<experimental::precision::u4> : std::true_type {};
template <> struct unsupported<experimental::precision::s4> : std::true_type {};
template <> struct unsupported<experimental::precision::b1> : std::true_type {};

template <class __cf_T> struct from {
  template <class __cf_U> static __cf_T cvt(const __cf_U &v) { return (__cf_T)v; }
  static __cf_T cvt(const __half &v) { return (__cf_T)(float)v; }
  static __cf_T cvt(const __nv_bfloat16 &v) { return (__cf_T)(float)v; }
};
template <> struct from<__half> {
  template <class __cf_U> static __half cvt(const __cf_U &v) { return __float2half_rn((float)v); }
  static __half cvt(const __half &v) { return v; }
  static __half cvt(const double &v) { return __double2half(v); }
};
template <> struct from<__nv_bfloat16> {
  template <class __cf_U> static __nv_bfloat16 cvt(const __cf_U &v) { return __float2bfloat16_rn((float)v); }
  static __nv_bfloat16 cvt(const __nv_bfloat16 &v) { return v; }
  static __nv_bfloat16 cvt(const double &v) { return __double2bfloat16(v); }
};

// The lanes that share a warp-wide store: the caller's lane and its warp's thread count.
inline void lane_share(int *lane, int *lanes) {
  if (!::cudafuse_emu::g_in_kernel) {
    *lane = 0;
    *lanes = 1;
    return;
  }
  int t = int(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  int size = int(blockDim.x * blockDim.y * blockDim.z);
  *lane = t & 31;
  *lanes = std::min(32, size - (t & ~31));
}
}  // namespace cf_detail

template <class Use, int m, int n, int k, class __cf_T, class Layout = void>
class fragment {
  static_assert(!cf_detail::unsupported<__cf_T>::value,
                "cudafuse emulator: sub-byte WMMA types (u4, s4, b1) are not supported");
  using tile = cf_detail::tile<Use, m, n, k>;

 public:
  using element_type = typename cf_detail::storage<__cf_T>::type;
  using storage_element_type = element_type;
  enum { num_elements = tile::rows * tile::cols, num_storage_elements = num_elements };
  static constexpr int rows = tile::rows, cols = tile::cols;
  element_type x[num_elements];
};

template <class Use, int m, int n, int k, class __cf_T, class Layout, class __cf_V>
inline void fill_fragment(fragment<Use, m, n, k, __cf_T, Layout> &f, const __cf_V &v) {
  using __cf_E = typename fragment<Use, m, n, k, __cf_T, Layout>::element_type;
  __cf_E e = cf_detail::from<__cf_E>::cvt(v);
  for (int i = 0; i < f.num_elements; ++i) f.x[i] = e;
}

namespace cf_detail {
template <class __cf_F, class __cf_P>
inline void load(__cf_F &f, const __cf_P *p, unsigned ldm, bool row_major) {
  using __cf_E = typename __cf_F::element_type;
  for (int r = 0; r < __cf_F::rows; ++r)
    for (int c = 0; c < __cf_F::cols; ++c) {
      const __cf_P &v = row_major ? p[(size_t)r * ldm + c] : p[(size_t)c * ldm + r];
      f.x[r * __cf_F::cols + c] = from<__cf_E>::cvt(v);
    }
}
}  // namespace cf_detail

// matrix_a / matrix_b: the layout is the fragment's.
template <class Use, int m, int n, int k, class __cf_T, class Layout, class __cf_P>
inline void load_matrix_sync(fragment<Use, m, n, k, __cf_T, Layout> &f, const __cf_P *p, unsigned ldm) {
  static_assert(!std::is_void<Layout>::value,
                "load_matrix_sync without a layout needs a matrix_a or matrix_b fragment");
  cf_detail::load(f, p, ldm, std::is_same<Layout, row_major>::value);
}
// accumulator: the layout is the call's.
template <int m, int n, int k, class __cf_T, class __cf_P>
inline void load_matrix_sync(fragment<accumulator, m, n, k, __cf_T> &f, const __cf_P *p, unsigned ldm,
                             layout_t layout) {
  cf_detail::load(f, p, ldm, layout == mem_row_major);
}

template <int m, int n, int k, class __cf_T, class __cf_P>
inline void store_matrix_sync(__cf_P *p, const fragment<accumulator, m, n, k, __cf_T> &f, unsigned ldm,
                              layout_t layout) {
  using __cf_F = fragment<accumulator, m, n, k, __cf_T>;
  int lane, lanes;
  cf_detail::lane_share(&lane, &lanes);
  for (int i = lane; i < __cf_F::num_elements; i += lanes) {
    int r = i / __cf_F::cols, c = i % __cf_F::cols;
    __cf_P &dst = layout == mem_row_major ? p[(size_t)r * ldm + c] : p[(size_t)c * ldm + r];
    dst = cf_detail::from<__cf_P>::cvt(f.x[i]);
  }
}

// Rounded to tf32 (10 mantissa bits) to nearest, ties away from zero; NaN and infinities kept.
inline float __float_to_tf32(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  if ((b & 0x7f800000u) != 0x7f800000u) {
    b += 0x1000u;
    b &= ~0x1fffu;
  }
  std::memcpy(&v, &b, 4);
  return v;
}

namespace cf_detail {
template <class __cf_E> inline float max_finite() { return std::numeric_limits<float>::max(); }
template <> inline float max_finite<__half>() { return 65504.0f; }
template <> inline float max_finite<__nv_bfloat16>() { return 3.38953139e38f; }  // 0x7f7f
template <class __cf_T> inline float as_float(const __cf_T &v) { return (float)v; }
inline float as_float(const __half &v) { return (float)v; }
inline float as_float(const __nv_bfloat16 &v) { return (float)v; }
}  // namespace cf_detail

// D = A B + C over the whole tile, summing over k in order: in float for half, bfloat16 and
// tf32 inputs (tf32 inputs are rounded as by __float_to_tf32 first; every product is then
// exact in float), in double for double, in 32-bit integers (wrapping) for 8-bit ones. satf:
// float results clamped to the output type's finite range and NaN made 0; integer sums
// clamped to the int range.
template <int m, int n, int k, class __cf_TA, class __cf_LA, class __cf_TB, class __cf_LB, class __cf_TC, class __cf_TD>
inline void mma_sync(fragment<accumulator, m, n, k, __cf_TD> &d,
                     const fragment<matrix_a, m, n, k, __cf_TA, __cf_LA> &a,
                     const fragment<matrix_b, m, n, k, __cf_TB, __cf_LB> &b,
                     const fragment<accumulator, m, n, k, __cf_TC> &c, bool satf = false) {
  using __cf_E = typename fragment<accumulator, m, n, k, __cf_TD>::element_type;
  constexpr bool tf32 = std::is_same<__cf_TA, precision::tf32>::value;
  __cf_E out[m * n];
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      const auto &cv = c.x[i * n + j];
      if constexpr (std::is_integral<__cf_E>::value) {
        long long acc = (long long)cv;
        for (int q = 0; q < k; ++q) acc += (long long)a.x[i * k + q] * (long long)b.x[q * n + j];
        out[i * n + j] = satf ? (__cf_E)std::max<long long>(INT32_MIN, std::min<long long>(INT32_MAX, acc))
                              : (__cf_E)(int32_t)(uint32_t)(unsigned long long)acc;
      } else if constexpr (std::is_same<__cf_E, double>::value) {
        double acc = (double)cv;
        for (int q = 0; q < k; ++q) acc += (double)a.x[i * k + q] * (double)b.x[q * n + j];
        out[i * n + j] = acc;
      } else {
        float acc = cf_detail::as_float(cv);
        for (int q = 0; q < k; ++q) {
          float x = cf_detail::as_float(a.x[i * k + q]), y = cf_detail::as_float(b.x[q * n + j]);
          if (tf32) {
            x = __float_to_tf32(x);
            y = __float_to_tf32(y);
          }
          acc += x * y;
        }
        if (satf) {
          float hi = cf_detail::max_finite<__cf_E>();
          acc = acc != acc ? 0.0f : std::max(-hi, std::min(hi, acc));
        }
        out[i * n + j] = cf_detail::from<__cf_E>::cvt(acc);
      }
    }
  for (int i = 0; i < m * n; ++i) d.x[i] = out[i];
}

}  // namespace wmma
}  // namespace nvcuda
