// What the inline PTX the emulator translates (emu/inline_asm.py) calls: special registers
// and the few instructions with no CUDA intrinsic of their own (see docs/emulation.md,
// "Inline PTX"). Included at the end of cudafuse_emu.h, whose names it uses.
#pragma once
#include <stdint.h>

#include <chrono>

namespace cudafuse_emu {
namespace ptx {
template <class T, class V>
inline void set(T &out, V v) {
  out = (T)v;
}
inline unsigned thread_linear() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
inline unsigned laneid() { return thread_linear() & 31u; }
inline unsigned warpid() { return thread_linear() >> 5; }
inline unsigned nwarpid() { return 64; }  // sm_90's warps per SM
// Blocks are spread over the device's 132 SMs in launch order.
inline unsigned smid() {
  return (blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)) % 132u;
}
inline unsigned nsmid() { return 132; }
inline unsigned lanemask_eq() { return 1u << laneid(); }
inline unsigned lanemask_lt() { return (1u << laneid()) - 1u; }
inline unsigned lanemask_le() { return lanemask_lt() | lanemask_eq(); }
inline unsigned lanemask_gt() { return ~lanemask_le(); }
inline unsigned lanemask_ge() { return ~lanemask_lt(); }
// %globaltimer: nanoseconds of the host's steady clock.
inline unsigned long long globaltimer() {
  return (unsigned long long)std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}
// bfind: the position of the most significant non-sign bit, 0xffffffff when there is none.
inline unsigned bfind_u32(unsigned x) { return x ? 31u - (unsigned)__builtin_clz(x) : ~0u; }
inline unsigned bfind_s32(int x) { return bfind_u32(x < 0 ? ~(unsigned)x : (unsigned)x); }
// vabsdiff4 .add: the sum of the four bytes' absolute differences, plus c.
inline unsigned vabsdiff4_add(unsigned a, unsigned b, unsigned c) {
  for (int i = 0; i < 32; i += 8) {
    int x = (int)(a >> i & 0xffu), y = (int)(b >> i & 0xffu);
    c += (unsigned)(x > y ? x - y : y - x);
  }
  return c;
}
// ld/st with a memory order (.acquire, .release, .relaxed, .volatile) on global memory:
// atomic accesses of the PTX type's width; the address may come as a pointer or an integer.
typedef unsigned char u8_t;
typedef unsigned short u16_t;
typedef unsigned int u32_t;
typedef unsigned long long u64_t;
typedef signed char s8_t;
typedef short s16_t;
typedef int s32_t;
typedef long long s64_t;
typedef unsigned char b8_t;
typedef unsigned short b16_t;
typedef unsigned int b32_t;
typedef unsigned long long b64_t;
template <typename T, typename A>
inline T load(A address, int order) {
  return __atomic_load_n((T *)(uintptr_t)address, order);
}
template <typename T, typename A, typename V>
inline void store(A address, V value, int order) {
  __atomic_store_n((T *)(uintptr_t)address, (T)value, order);
}
}  // namespace ptx
}  // namespace cudafuse_emu
