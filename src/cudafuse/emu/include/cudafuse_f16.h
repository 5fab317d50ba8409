// cudafuse emulator: rounding into 16-bit floating-point formats, shared by cuda_fp16.h and
// cuda_bf16.h. A format has EB exponent bits and MB fraction bits (binary16: 5, 10; bfloat16:
// 8, 7). Every conversion into a format rounds exactly once, from the exact value, in the
// requested mode; arithmetic is done in double and, where double is not exact, corrected into
// "round to odd" first, which then rounds to the 16-bit format exactly as a single rounding
// of the exact result would (53 bits >= the format's precision + 2).
#pragma once
#include "cudafuse_emu.h"
#include <limits>

namespace cudafuse_emu {
namespace f16 {

enum __cf_Mode { __cf_RN, __cf_RZ, __cf_RU, __cf_RD };

template <int __cf_EB, int __cf_MB> struct __cf_Fmt {
  static constexpr int bias = (1 << (__cf_EB - 1)) - 1;
  static constexpr int emin = 1 - bias;  // exponent of the smallest normal
  static constexpr int emax = bias;
  static constexpr uint16_t inf = uint16_t(((1u << __cf_EB) - 1) << __cf_MB);
  static constexpr uint16_t max_finite = uint16_t(inf - 1);
  static constexpr uint16_t sign = 0x8000;
  static constexpr uint16_t qnan = 0x7fff;  // CUDA's canonical NaN for both formats
};
using __cf_Half = __cf_Fmt<5, 10>;
using __cf_BF16 = __cf_Fmt<8, 7>;

inline int msb64(uint64_t v) { return 63 - __builtin_clzll(v); }

// Round the value (-1)^neg * mant * 2^exp2 (+ a little more when sticky: the exact value has
// further non-zero bits below mant's last one) into format __cf_F. mant must be non-zero.
template <class __cf_F>
inline uint16_t round_parts(bool neg, uint64_t mant, int exp2, bool sticky, __cf_Mode mode) {
  constexpr int __cf_MB = __builtin_ctz(__cf_F::inf);  // fraction bits: the exponent field's offset
  const uint16_t s = neg ? __cf_F::sign : 0;
  const int e = msb64(mant) + exp2;  // the value lies in [2^e, 2^(e+1))
  auto overflow = [&]() -> uint16_t {
    bool to_inf = mode == __cf_RN || (mode == __cf_RU && !neg) || (mode == __cf_RD && neg);
    return uint16_t(s | (to_inf ? __cf_F::inf : __cf_F::max_finite));
  };
  if (e > __cf_F::emax) return overflow();
  const bool normal = e >= __cf_F::emin;
  const int q = (normal ? e : __cf_F::emin) - __cf_MB;  // exponent of the result's last bit
  uint64_t kept;
  if (exp2 >= q) {
    kept = mant << (exp2 - q);  // exact (fits: the value has at most MB+1 bits at quantum q)
  } else {
    int shift = q - exp2;
    if (shift > 100) shift = 100;
    const unsigned __int128 m = mant;
    kept = uint64_t(m >> shift);
    const unsigned __int128 rem = m - ((unsigned __int128)kept << shift);
    const unsigned __int128 half = (unsigned __int128)1 << (shift - 1);
    const bool inexact = rem != 0 || sticky;
    bool up = false;
    if (mode == __cf_RN) up = rem > half || (rem == half && (sticky || (kept & 1)));
    else if (mode == __cf_RU) up = inexact && !neg;
    else if (mode == __cf_RD) up = inexact && neg;
    kept += up;
  }
  const uint64_t bits = kept + (normal ? uint64_t(e + __cf_F::bias - 1) << __cf_MB : 0);
  if (bits >= __cf_F::inf) return overflow();
  return uint16_t(s | bits);
}

template <class __cf_F> inline uint16_t from_double(double x, __cf_Mode mode = __cf_RN) {
  uint64_t u;
  memcpy(&u, &x, 8);
  const bool neg = u >> 63;
  const int ex = int(u >> 52) & 0x7ff;
  const uint64_t frac = u & ((1ull << 52) - 1);
  if (ex == 0x7ff) return frac ? __cf_F::qnan : uint16_t((neg ? __cf_F::sign : 0) | __cf_F::inf);
  if (ex == 0 && frac == 0) return neg ? __cf_F::sign : 0;
  if (ex == 0) return round_parts<__cf_F>(neg, frac, -1074, false, mode);
  return round_parts<__cf_F>(neg, frac | (1ull << 52), ex - 1075, false, mode);
}

// float -> 16 bits: exact through double (every float is a double).
template <class __cf_F> inline uint16_t from_float(float x, __cf_Mode mode = __cf_RN) {
  return from_double<__cf_F>(double(x), mode);
}

template <class __cf_F> inline uint16_t from_int(bool neg, uint64_t mag, __cf_Mode mode) {
  if (mag == 0) return 0;
  return round_parts<__cf_F>(neg, mag, 0, false, mode);
}
template <class __cf_F, class __cf_I> inline uint16_t from_integer(__cf_I v, __cf_Mode mode) {
  if (std::is_signed<__cf_I>::value && v < 0)
    return from_int<__cf_F>(true, uint64_t(0) - uint64_t((long long)v), mode);
  return from_int<__cf_F>(false, uint64_t(v), mode);
}

// A 16-bit value (as an exact float) -> integer type I, rounded in `mode`: NaN gives 0 (the
// smallest 64-bit value for 64-bit types, as cvt.*.s64/u64.f16 do), out-of-range saturates.
template <class __cf_I> inline __cf_I to_int(float x, __cf_Mode mode) {
  constexpr bool wide = sizeof(__cf_I) == 8;
  if (x != x) return wide ? __cf_I(1ull << 63) : __cf_I(0);
  const float r = mode == __cf_RN ? std::nearbyint(x) : mode == __cf_RZ ? std::trunc(x)
                : mode == __cf_RU ? std::ceil(x) : std::floor(x);
  const long double lo = (long double)std::numeric_limits<__cf_I>::min();
  const long double hi = (long double)std::numeric_limits<__cf_I>::max();
  if ((long double)r <= lo) return std::numeric_limits<__cf_I>::min();
  if ((long double)r >= hi) return std::numeric_limits<__cf_I>::max();
  return __cf_I(r);
}

// 16 bits -> float: exact. A NaN keeps its sign and payload (shifted into place).
template <class __cf_F> inline float to_float(uint16_t h) {
  constexpr int __cf_MB = __builtin_ctz(__cf_F::inf);
  constexpr int __cf_EB = 15 - __cf_MB;
  const uint32_t sign = uint32_t(h & 0x8000) << 16;
  const int ex = (h >> __cf_MB) & ((1 << __cf_EB) - 1);
  uint32_t frac = h & ((1u << __cf_MB) - 1);
  uint32_t out;
  if (ex == (1 << __cf_EB) - 1) {
    out = sign | 0x7f800000u | (frac << (23 - __cf_MB));
  } else if (ex == 0) {
    if (frac == 0) {
      out = sign;
    } else {  // subnormal: value frac * 2^(emin - MB), normal in float
      const int p = 31 - __builtin_clz(frac);
      const int e = p + __cf_F::emin - __cf_MB;
      if (e < -126) {  // a bfloat16 subnormal is a float subnormal at the same bits
        out = sign | (frac << (23 - __cf_MB));
      } else {
        out = sign | uint32_t(e + 127) << 23 | ((frac << (23 - p)) & 0x7fffffu);
      }
    }
  } else {
    out = sign | uint32_t(ex - __cf_F::bias + 127) << 23 | (frac << (23 - __cf_MB));
  }
  float f;
  memcpy(&f, &out, 4);
  return f;
}

// The exact value s + err (err exactly representable, |err| <= ulp(s)/2) made "round to odd":
// s itself when err is 0, else whichever of s and its neighbour towards err is odd.
inline double odd(double s, double err) {
  if (err == 0 || !std::isfinite(s)) return s;
  uint64_t u;
  memcpy(&u, &s, 8);
  if (u & 1) return s;
  return std::nextafter(s, err > 0 ? INFINITY : -INFINITY);
}
// Exact (as round-to-odd doubles) results of operations on 16-bit values held in doubles.
inline double add(double a, double b) {  // two-sum: the rounding error of a + b, exactly
  const double s = a + b;
  if (!std::isfinite(s)) return s;
  const double bb = s - a, err = (a - (s - bb)) + (b - bb);
  return odd(s, err);
}
inline double mul(double a, double b) { return a * b; }  // at most 2 * 11 bits: exact
inline double div(double a, double b) {
  const double q = a / b;
  if (!std::isfinite(q) || q == 0) return q;
  return odd(q, std::fma(-q, b, a) * (b < 0 ? -1 : 1));  // remainder's sign: direction
}
inline double sqrt(double a) {
  const double r = std::sqrt(a);
  if (!std::isfinite(r) || r == 0) return r;
  return odd(r, std::fma(-r, r, a));
}
inline double fma(double a, double b, double c) {
  const double p = a * b;  // exact
  return add(p, c);
}

}  // namespace f16
}  // namespace cudafuse_emu
