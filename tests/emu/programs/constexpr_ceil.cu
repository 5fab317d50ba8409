// A grid size computed at compile time with std::ceil, as nvcc (and its host compiler g++)
// fold it and clang 18 alone does not (issue 31; third-party reductionSum.cu's style).
#include <cmath>
#include <cstddef>

constexpr size_t kCount = 1000;
constexpr size_t kBlock = 128;
// libstdc++'s integer overload of std::ceil: __builtin_ceil of the converted argument.
constexpr size_t kHalf = std::ceil(kCount / 2);
// std::ceil(double) is the C library's ceil, which clang 18 does not fold: accepted, and
// folded by the emulator's g++ build.
constexpr unsigned kBlocks = std::ceil(kHalf / double(kBlock));

// The values clang now gives: any wrong one stops the parse.
static_assert(kHalf == 500, "ceil of an integer");
static_assert(__builtin_ceil(2.25) == 3.0 && __builtin_ceil(-2.75) == -2.0, "ceil");
static_assert(__builtin_ceilf(7.0f) == 7.0f && __builtin_ceilf(0.001f) == 1.0f, "ceilf");
static_assert(__builtin_ceill(-0.5L) == 0.0L && __builtin_copysign(1.0, __builtin_ceil(-0.5)) < 0, "-0.0");
// g++ (which compiles the host code nvcc hands it) folds these as below; nvcc's own front
// end gets the two past 2^63 wrong.
static_assert(__builtin_ceil(1e300) == 1e300 && __builtin_ceil(-9.3e18) == -9.3e18, "large");
static_assert(__builtin_ceil(4503599627370495.5) == 4503599627370496.0, "2^52 - 0.5");
static_assert(__builtin_ceil(__builtin_nan("")) != __builtin_ceil(__builtin_nan("")), "NaN");

__global__ void halve_pairs(const int *in, int *out, int half) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < half) out[i] = in[2 * i] + in[2 * i + 1];
}

void pair_sums(const int *in, int *out) {
  halve_pairs<<<kBlocks, kBlock>>>(in, out, (int)kHalf);
}
