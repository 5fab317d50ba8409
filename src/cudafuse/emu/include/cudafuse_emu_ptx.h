// What the inline PTX the emulator translates (emu/inline_asm.py) calls: special registers
// and the few instructions with no CUDA intrinsic of their own (see docs/emulation.md,
// "Inline PTX"). Included at the end of cudafuse_emu.h, whose names it uses.
#pragma once
#include <stdint.h>

#include <chrono>
#include <type_traits>

namespace cudafuse_emu {
namespace __cf_ptx {  // reserved names: the rewrite splices them into the program
template <class T, class V>
inline void __cf_set(T &out, V v) {
  out = (T)v;
}
inline unsigned __cf_thread_linear() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
inline unsigned __cf_laneid() { return __cf_thread_linear() & 31u; }
inline unsigned __cf_warpid() { return __cf_thread_linear() >> 5; }
inline unsigned __cf_nwarpid() { return 64; }  // sm_90's warps per SM
// Blocks are spread over the device's 132 SMs in launch order.
inline unsigned __cf_smid() {
  return (blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)) % 132u;
}
inline unsigned __cf_nsmid() { return 132; }
inline unsigned __cf_lanemask_eq() { return 1u << __cf_laneid(); }
inline unsigned __cf_lanemask_lt() { return (1u << __cf_laneid()) - 1u; }
inline unsigned __cf_lanemask_le() { return __cf_lanemask_lt() | __cf_lanemask_eq(); }
inline unsigned __cf_lanemask_gt() { return ~__cf_lanemask_le(); }
inline unsigned __cf_lanemask_ge() { return ~__cf_lanemask_lt(); }
// %globaltimer: nanoseconds of the host's steady clock.
inline unsigned long long __cf_globaltimer() {
  return (unsigned long long)std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}
// bfind: the position of the most significant non-sign bit, 0xffffffff when there is none.
inline unsigned __cf_bfind_u32(unsigned x) { return x ? 31u - (unsigned)__builtin_clz(x) : ~0u; }
inline unsigned __cf_bfind_s32(int x) { return __cf_bfind_u32(x < 0 ? ~(unsigned)x : (unsigned)x); }
// prmt.b32 (default mode): result byte i is byte (s >> 4i) & 7 of y:x, or, when bit 3 of
// that nibble is set, that byte's sign bit replicated over all eight bits (PTX ISA, prmt).
inline unsigned __cf_prmt(unsigned x, unsigned y, unsigned s) {
  const uint64_t v = ((uint64_t)y << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) {
    const unsigned sel = (s >> (4 * i)) & 15u;
    unsigned byte = (unsigned)(v >> (8 * (sel & 7u))) & 0xffu;
    if (sel & 8u) byte = byte & 0x80u ? 0xffu : 0u;
    r |= byte << (8 * i);
  }
  return r;
}
// Arithmetic of translated PTX sequences (emu/ptx_block.py), with the PTX ISA's semantics.
// add.cc/addc/mad.cc/madc: d = a + b (+ the carry flag with carry_in), the carry out kept in
// cc when set_cc; sub.cc/subc: d = a - b (- the borrow flag), the borrow out kept.
template <class U>
inline U __cf_add_cc(U a, U b, unsigned &cc, bool carry_in, bool set_cc) {
  const U in = carry_in ? (U)cc : (U)0;
  const U s = (U)(a + b), t = (U)(s + in);
  if (set_cc) cc = (unsigned)(s < a) | (unsigned)(t < s);
  return t;
}
template <class U>
inline U __cf_sub_cc(U a, U b, unsigned &cc, bool borrow_in, bool set_cc) {
  const U in = borrow_in ? (U)cc : (U)0;
  const U d = (U)(a - b), t = (U)(d - in);
  if (set_cc) cc = (unsigned)(a < b) | (unsigned)(d < in);
  return t;
}
// mul.lo / mul.hi of the type's width (signed or not).
template <class T>
inline T __cf_mul_lo(T a, T b) {
  typedef typename std::make_unsigned<T>::type U;
  return (T)(U)((unsigned __int128)(U)a * (U)b);
}
template <class T>
inline T __cf_mul_hi(T a, T b) {
  if (std::is_signed<T>::value) return (T)(((__int128)a * (__int128)b) >> (8 * sizeof(T)));
  return (T)(((unsigned __int128)a * (unsigned __int128)b) >> (8 * sizeof(T)));
}
// shl / shr: amounts past the width are clamped to it (0, or the sign for shr.s).
template <class T>
inline T __cf_shl(T a, uint32_t n) {
  typedef typename std::make_unsigned<T>::type U;
  return n >= 8 * sizeof(T) ? (T)0 : (T)(U)((U)a << n);
}
template <class T>
inline T __cf_shr(T a, uint32_t n) {
  if (n >= 8 * sizeof(T)) n = 8 * sizeof(T) - 1 + !std::is_signed<T>::value;
  if (n >= 8 * sizeof(T)) return (T)0;
  return (T)(a >> n);
}
// lop3.b32: bit i of the result is bit (a_i << 2 | b_i << 1 | c_i) of the table.
inline uint32_t __cf_lop3(uint32_t a, uint32_t b, uint32_t c, uint32_t lut) {
  uint32_t r = 0;
  for (int i = 0; i < 8; ++i)
    if (lut >> i & 1u) r |= (i & 4 ? a : ~a) & (i & 2 ? b : ~b) & (i & 1 ? c : ~c);
  return r;
}
// vabsdiff4 .add: the sum of the four bytes' absolute differences, plus c.
inline unsigned __cf_vabsdiff4_add(unsigned a, unsigned b, unsigned c) {
  for (int i = 0; i < 32; i += 8) {
    int x = (int)(a >> i & 0xffu), y = (int)(b >> i & 0xffu);
    c += (unsigned)(x > y ? x - y : y - x);
  }
  return c;
}
// ld/st with a memory order (.acquire, .release, .relaxed, .volatile) on global memory:
// atomic accesses of the PTX type's width; the address may come as a pointer or an integer.
typedef unsigned char __cf_u8_t;
typedef unsigned short __cf_u16_t;
typedef unsigned int __cf_u32_t;
typedef unsigned long long __cf_u64_t;
typedef signed char __cf_s8_t;
typedef short __cf_s16_t;
typedef int __cf_s32_t;
typedef long long __cf_s64_t;
typedef unsigned char __cf_b8_t;
typedef unsigned short __cf_b16_t;
typedef unsigned int __cf_b32_t;
typedef unsigned long long __cf_b64_t;
template <typename T, typename A>
inline T __cf_load(A address, int order) {
  return __atomic_load_n((T *)(uintptr_t)address, order);
}
template <typename T, typename A, typename V>
inline void __cf_store(A address, V value, int order) {
  __atomic_store_n((T *)(uintptr_t)address, (T)value, order);
}
}  // namespace __cf_ptx
}  // namespace cudafuse_emu
#include "cudafuse_emu_dpx.h"
