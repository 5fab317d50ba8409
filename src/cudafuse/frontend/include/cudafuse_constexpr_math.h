// Constant folding that nvcc's front end does and clang 18's does not (read by the front end
// only; the emulator's build is g++'s, which folds these itself).
//
// nvcc (and g++) evaluate __builtin_ceil, __builtin_ceilf and __builtin_ceill in constant
// expressions, so `constexpr size_t threads = std::ceil(N / 2);` compiles there: libstdc++'s
// <cmath> defines std::ceil (its float, long double and integer overloads, all constexpr) as
// these builtins. clang refuses it ("must be initialized by a constant expression"), which
// stopped the parse of programs nvcc builds. The macros route <cmath>'s calls (and the
// program's own) to a constexpr ceiling; libclang's view only, since cudafuse's output is
// the program's own text. nvcc folds no other rounding builtin (floor, trunc, round are
// refused there as here); fabs clang folds already.
#pragma once

template <class T> constexpr T __cudafuse_ceil(T x) {
  // NaN (both tests fail), the infinities and every magnitude past 9.2e18 are already
  // integers or not numbers: as they are. Zero keeps its sign.
  if (!(x > T(-9.2e18) && x < T(9.2e18)) || x == T(0)) return x;
  T t = static_cast<T>(static_cast<long long>(x));  // toward zero
  if (t < x) return t + T(1);
  return (t == T(0) && x < T(0)) ? -T(0) : t;  // ceil(-0.5) is -0.0
}

#define __builtin_ceil(x) __cudafuse_ceil<double>(x)
#define __builtin_ceilf(x) __cudafuse_ceil<float>(x)
#define __builtin_ceill(x) __cudafuse_ceil<long double>(x)
