// The DPX intrinsics of sm_90 (CUDA 12: __vimax3_s32, __viaddmax_s16x2_relu, __vibmax_u32,
// ...), as the CUDA Math API documents them: on 32-bit integers or on the two 16-bit halves
// of an unsigned (s16x2 signed, u16x2 unsigned), a maximum or minimum of two or three values,
// of a sum (wrapping) and a value, optionally clamped below at 0 (_relu), or with the
// comparison's result stored (__vib*: a >= b for max, a <= b for min). Included at the end of
// cudafuse_emu_ptx.h. Checked against the toolkit's own host versions (tests/emu/test_emu_dpx.py).
#pragma once
#include <stdint.h>

namespace cudafuse_emu {
namespace dpx {
// The halves of x as signed (S = true) or unsigned 16-bit values, and back.
template <bool S> inline int32_t half(uint32_t x, int i) {
  const uint16_t h = (uint16_t)(x >> (16 * i));
  return S ? (int32_t)(int16_t)h : (int32_t)h;
}
inline uint32_t pack(int32_t lo, int32_t hi) {
  return (uint32_t)(uint16_t)lo | (uint32_t)(uint16_t)hi << 16;
}
inline int32_t mx(int32_t a, int32_t b) { return a > b ? a : b; }
inline int32_t mn(int32_t a, int32_t b) { return a < b ? a : b; }
inline int32_t relu(int32_t a) { return a > 0 ? a : 0; }
inline int32_t wrap16(int32_t v, bool s) { return s ? (int32_t)(int16_t)v : (int32_t)(uint16_t)v; }
// Apply f to each half: f(a_i, b_i, c_i) over values of the halves' sign.
template <bool S, class F> inline uint32_t halves(uint32_t a, uint32_t b, uint32_t c, F f) {
  return pack(f(half<S>(a, 0), half<S>(b, 0), half<S>(c, 0)),
              f(half<S>(a, 1), half<S>(b, 1), half<S>(c, 1)));
}
}  // namespace dpx
}  // namespace cudafuse_emu

#define CF_DPX_FN inline
CF_DPX_FN int __vimax_s32_relu(int a, int b) { using namespace cudafuse_emu::dpx; return relu(mx(a, b)); }
CF_DPX_FN int __vimin_s32_relu(int a, int b) { using namespace cudafuse_emu::dpx; return relu(mn(a, b)); }
CF_DPX_FN unsigned __vimax_s16x2_relu(unsigned a, unsigned b) {
  using namespace cudafuse_emu::dpx;
  return halves<true>(a, b, 0, [](int32_t x, int32_t y, int32_t) { return relu(mx(x, y)); });
}
CF_DPX_FN unsigned __vimin_s16x2_relu(unsigned a, unsigned b) {
  using namespace cudafuse_emu::dpx;
  return halves<true>(a, b, 0, [](int32_t x, int32_t y, int32_t) { return relu(mn(x, y)); });
}
CF_DPX_FN int __vimax3_s32(int a, int b, int c) { using namespace cudafuse_emu::dpx; return mx(mx(a, b), c); }
CF_DPX_FN int __vimin3_s32(int a, int b, int c) { using namespace cudafuse_emu::dpx; return mn(mn(a, b), c); }
CF_DPX_FN int __vimax3_s32_relu(int a, int b, int c) {
  using namespace cudafuse_emu::dpx;
  return relu(mx(mx(a, b), c));
}
CF_DPX_FN int __vimin3_s32_relu(int a, int b, int c) {
  using namespace cudafuse_emu::dpx;
  return relu(mn(mn(a, b), c));
}
CF_DPX_FN unsigned __vimax3_u32(unsigned a, unsigned b, unsigned c) {
  const unsigned m = a > b ? a : b;
  return m > c ? m : c;
}
CF_DPX_FN unsigned __vimin3_u32(unsigned a, unsigned b, unsigned c) {
  const unsigned m = a < b ? a : b;
  return m < c ? m : c;
}
#define CF_DPX_HALVES3(name, S, expr)                                                       \
  CF_DPX_FN unsigned name(unsigned a, unsigned b, unsigned c) {                             \
    using namespace cudafuse_emu::dpx;                                                      \
    return halves<S>(a, b, c, [](int32_t x, int32_t y, int32_t z) { return (expr); });       \
  }
CF_DPX_HALVES3(__vimax3_s16x2, true, mx(mx(x, y), z))
CF_DPX_HALVES3(__vimin3_s16x2, true, mn(mn(x, y), z))
CF_DPX_HALVES3(__vimax3_u16x2, false, mx(mx(x, y), z))
CF_DPX_HALVES3(__vimin3_u16x2, false, mn(mn(x, y), z))
CF_DPX_HALVES3(__vimax3_s16x2_relu, true, relu(mx(mx(x, y), z)))
CF_DPX_HALVES3(__vimin3_s16x2_relu, true, relu(mn(mn(x, y), z)))
// __viadd*: the sum wraps in its width (32 bits, or each half)
CF_DPX_HALVES3(__viaddmax_s16x2, true, mx(wrap16(x + y, true), z))
CF_DPX_HALVES3(__viaddmin_s16x2, true, mn(wrap16(x + y, true), z))
CF_DPX_HALVES3(__viaddmax_u16x2, false, mx(wrap16(x + y, false), z))
CF_DPX_HALVES3(__viaddmin_u16x2, false, mn(wrap16(x + y, false), z))
CF_DPX_HALVES3(__viaddmax_s16x2_relu, true, relu(mx(wrap16(x + y, true), z)))
CF_DPX_HALVES3(__viaddmin_s16x2_relu, true, relu(mn(wrap16(x + y, true), z)))
#undef CF_DPX_HALVES3
CF_DPX_FN int __viaddmax_s32(int a, int b, int c) {
  using namespace cudafuse_emu::dpx;
  return mx((int32_t)((uint32_t)a + (uint32_t)b), c);
}
CF_DPX_FN int __viaddmin_s32(int a, int b, int c) {
  using namespace cudafuse_emu::dpx;
  return mn((int32_t)((uint32_t)a + (uint32_t)b), c);
}
CF_DPX_FN int __viaddmax_s32_relu(int a, int b, int c) {
  using namespace cudafuse_emu::dpx;
  return relu(mx((int32_t)((uint32_t)a + (uint32_t)b), c));
}
CF_DPX_FN int __viaddmin_s32_relu(int a, int b, int c) {
  using namespace cudafuse_emu::dpx;
  return relu(mn((int32_t)((uint32_t)a + (uint32_t)b), c));
}
CF_DPX_FN unsigned __viaddmax_u32(unsigned a, unsigned b, unsigned c) {
  const unsigned s = a + b;
  return s > c ? s : c;
}
CF_DPX_FN unsigned __viaddmin_u32(unsigned a, unsigned b, unsigned c) {
  const unsigned s = a + b;
  return s < c ? s : c;
}
CF_DPX_FN int __vibmax_s32(int a, int b, bool *pred) { *pred = a >= b; return a >= b ? a : b; }
CF_DPX_FN int __vibmin_s32(int a, int b, bool *pred) { *pred = a <= b; return a <= b ? a : b; }
CF_DPX_FN unsigned __vibmax_u32(unsigned a, unsigned b, bool *pred) {
  *pred = a >= b;
  return a >= b ? a : b;
}
CF_DPX_FN unsigned __vibmin_u32(unsigned a, unsigned b, bool *pred) {
  *pred = a <= b;
  return a <= b ? a : b;
}
#define CF_DPX_IB(name, S, cmp)                                                             \
  CF_DPX_FN unsigned name(unsigned a, unsigned b, bool *pred_hi, bool *pred_lo) {           \
    using namespace cudafuse_emu::dpx;                                                      \
    const int32_t al = half<S>(a, 0), bl = half<S>(b, 0), ah = half<S>(a, 1),              \
                  bh = half<S>(b, 1);                                                       \
    *pred_lo = al cmp bl;                                                                   \
    *pred_hi = ah cmp bh;                                                                   \
    return pack(al cmp bl ? al : bl, ah cmp bh ? ah : bh);                                  \
  }
CF_DPX_IB(__vibmax_s16x2, true, >=)
CF_DPX_IB(__vibmax_u16x2, false, >=)
CF_DPX_IB(__vibmin_s16x2, true, <=)
CF_DPX_IB(__vibmin_u16x2, false, <=)
#undef CF_DPX_IB
#undef CF_DPX_FN
