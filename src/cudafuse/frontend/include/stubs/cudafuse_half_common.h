/* cudafuse stand-in, shared by cuda_fp16.h and cuda_bf16.h: declares a 16-bit float type H, its
   pair type H2 and their operators and intrinsics (prefix P: __h for __half, __h for bf16 too;
   CUDA gives both types the same intrinsic names, distinguished by overloading).
   Never compiled: declarations only. */
#pragma once
#define __CUDAFUSE_HALF_TYPES(H, H2, RAW, RAW2, N, N2)                                            \
  struct RAW { unsigned short x; };                                                        \
  struct RAW2 { unsigned short x, y; };                                                    \
  struct __align__(2) H {                                                                  \
    H() = default;                                                                         \
    __host__ __device__ H(const RAW &r);                                                   \
    __host__ __device__ H(float f);                                                        \
    __host__ __device__ H(double f);                                                       \
    __host__ __device__ H(int v);                                                          \
    __host__ __device__ H(unsigned int v);                                                 \
    __host__ __device__ H(short v);                                                        \
    __host__ __device__ H(unsigned short v);                                               \
    __host__ __device__ H(long long v);                                                    \
    __host__ __device__ H(unsigned long long v);                                           \
    __host__ __device__ H &operator=(const RAW &r);                                        \
    __host__ __device__ H &operator=(float f);                                             \
    __host__ __device__ H &operator=(double f);                                            \
    __host__ __device__ operator RAW() const;                                              \
    __host__ __device__ operator float() const;                                            \
    __host__ __device__ explicit operator bool() const;                                    \
    __host__ __device__ explicit operator short() const;                                   \
    __host__ __device__ explicit operator unsigned short() const;                          \
    __host__ __device__ explicit operator int() const;                                     \
    __host__ __device__ explicit operator unsigned int() const;                            \
    __host__ __device__ explicit operator long long() const;                               \
    __host__ __device__ explicit operator unsigned long long() const;                      \
    __host__ __device__ explicit operator signed char() const;                             \
    __host__ __device__ explicit operator unsigned char() const;                           \
    __host__ __device__ explicit operator char() const;                                    \
   protected:                                                                              \
    unsigned short __x;                                                                    \
  };                                                                                       \
  struct __align__(4) H2 {                                                                 \
    H x, y;                                                                                \
    H2() = default;                                                                        \
    __host__ __device__ H2(const H &a, const H &b);                                        \
    __host__ __device__ H2(const RAW2 &r);                                                 \
    __host__ __device__ H2 &operator=(const RAW2 &r);                                      \
    __host__ __device__ operator RAW2() const;                                             \
  };                                                                                       \
  __host__ __device__ H operator+(const H &a, const H &b);                                 \
  __host__ __device__ H operator-(const H &a, const H &b);                                 \
  __host__ __device__ H operator*(const H &a, const H &b);                                 \
  __host__ __device__ H operator/(const H &a, const H &b);                                 \
  __host__ __device__ H &operator+=(H &a, const H &b);                                     \
  __host__ __device__ H &operator-=(H &a, const H &b);                                     \
  __host__ __device__ H &operator*=(H &a, const H &b);                                     \
  __host__ __device__ H &operator/=(H &a, const H &b);                                     \
  __host__ __device__ H operator+(const H &a);                                             \
  __host__ __device__ H operator-(const H &a);                                             \
  __host__ __device__ H &operator++(H &a);                                                 \
  __host__ __device__ H &operator--(H &a);                                                 \
  __host__ __device__ H operator++(H &a, int);                                             \
  __host__ __device__ H operator--(H &a, int);                                             \
  __host__ __device__ bool operator==(const H &a, const H &b);                             \
  __host__ __device__ bool operator!=(const H &a, const H &b);                             \
  __host__ __device__ bool operator<(const H &a, const H &b);                              \
  __host__ __device__ bool operator<=(const H &a, const H &b);                             \
  __host__ __device__ bool operator>(const H &a, const H &b);                              \
  __host__ __device__ bool operator>=(const H &a, const H &b);                             \
  __host__ __device__ H2 operator+(const H2 &a, const H2 &b);                              \
  __host__ __device__ H2 operator-(const H2 &a, const H2 &b);                              \
  __host__ __device__ H2 operator*(const H2 &a, const H2 &b);                              \
  __host__ __device__ H2 operator/(const H2 &a, const H2 &b);                              \
  __host__ __device__ H2 &operator+=(H2 &a, const H2 &b);                                  \
  __host__ __device__ H2 &operator-=(H2 &a, const H2 &b);                                  \
  __host__ __device__ H2 &operator*=(H2 &a, const H2 &b);                                  \
  __host__ __device__ H2 &operator/=(H2 &a, const H2 &b);                                  \
  __host__ __device__ H2 operator+(const H2 &a);                                           \
  __host__ __device__ H2 operator-(const H2 &a);                                           \
  __host__ __device__ H2 &operator++(H2 &a);                                               \
  __host__ __device__ H2 &operator--(H2 &a);                                               \
  __host__ __device__ H2 operator++(H2 &a, int);                                           \
  __host__ __device__ H2 operator--(H2 &a, int);                                           \
  __host__ __device__ bool operator==(const H2 &a, const H2 &b);                           \
  __host__ __device__ bool operator!=(const H2 &a, const H2 &b);                           \
  __host__ __device__ bool operator<(const H2 &a, const H2 &b);                            \
  __host__ __device__ bool operator<=(const H2 &a, const H2 &b);                           \
  __host__ __device__ bool operator>(const H2 &a, const H2 &b);                            \
  __host__ __device__ bool operator>=(const H2 &a, const H2 &b);                           \
  /* Arithmetic, comparisons and math shared by both types (overloaded names). */          \
  __host__ __device__ H __hadd(H, H); __host__ __device__ H __hsub(H, H);                  \
  __host__ __device__ H __hmul(H, H); __host__ __device__ H __hdiv(H, H);                  \
  __host__ __device__ H __hadd_sat(H, H); __host__ __device__ H __hsub_sat(H, H);          \
  __host__ __device__ H __hmul_sat(H, H); __host__ __device__ H __hadd_rn(H, H);           \
  __host__ __device__ H __hsub_rn(H, H); __host__ __device__ H __hmul_rn(H, H);            \
  __host__ __device__ H __hfma(H, H, H); __host__ __device__ H __hfma_sat(H, H, H);        \
  __host__ __device__ H __hneg(H); __host__ __device__ H __habs(H);                        \
  __host__ __device__ H __hmax(H, H); __host__ __device__ H __hmin(H, H);                  \
  __host__ __device__ H __hmax_nan(H, H); __host__ __device__ H __hmin_nan(H, H);          \
  __host__ __device__ H __hfma_relu(H, H, H);                                              \
  __host__ __device__ bool __heq(H, H); __host__ __device__ bool __hne(H, H);              \
  __host__ __device__ bool __hlt(H, H); __host__ __device__ bool __hle(H, H);              \
  __host__ __device__ bool __hgt(H, H); __host__ __device__ bool __hge(H, H);              \
  __host__ __device__ bool __hequ(H, H); __host__ __device__ bool __hneu(H, H);            \
  __host__ __device__ bool __hltu(H, H); __host__ __device__ bool __hleu(H, H);            \
  __host__ __device__ bool __hgtu(H, H); __host__ __device__ bool __hgeu(H, H);            \
  __host__ __device__ bool __hisnan(H); __host__ __device__ int __hisinf(H);               \
  __host__ __device__ H2 __hadd2(H2, H2); __host__ __device__ H2 __hsub2(H2, H2);          \
  __host__ __device__ H2 __hmul2(H2, H2); __host__ __device__ H2 __h2div(H2, H2);          \
  __host__ __device__ H2 __hadd2_sat(H2, H2); __host__ __device__ H2 __hsub2_sat(H2, H2);  \
  __host__ __device__ H2 __hmul2_sat(H2, H2); __host__ __device__ H2 __hfma2(H2, H2, H2);  \
  __host__ __device__ H2 __hfma2_sat(H2, H2, H2); __host__ __device__ H2 __hneg2(H2);      \
  __host__ __device__ H2 __habs2(H2); __host__ __device__ H2 __hmax2(H2, H2);              \
  __host__ __device__ H2 __hmin2(H2, H2); __host__ __device__ H2 __hmax2_nan(H2, H2);      \
  __host__ __device__ H2 __hmin2_nan(H2, H2); __host__ __device__ H2 __hcmadd(H2, H2, H2); \
  __host__ __device__ H2 __heq2(H2, H2); __host__ __device__ H2 __hne2(H2, H2);            \
  __host__ __device__ H2 __hlt2(H2, H2); __host__ __device__ H2 __hle2(H2, H2);            \
  __host__ __device__ H2 __hgt2(H2, H2); __host__ __device__ H2 __hge2(H2, H2);            \
  __host__ __device__ bool __hbeq2(H2, H2); __host__ __device__ bool __hbne2(H2, H2);      \
  __host__ __device__ bool __hblt2(H2, H2); __host__ __device__ bool __hble2(H2, H2);      \
  __host__ __device__ bool __hbgt2(H2, H2); __host__ __device__ bool __hbge2(H2, H2);      \
  __host__ __device__ H2 __hisnan2(H2);                                                    \
  __host__ __device__ H2 __halves2##N2(H, H); __host__ __device__ H2 __##N##2##N2(H);         \
  __host__ __device__ H __low2##N(H2); __host__ __device__ H __high2##N(H2);               \
  __host__ __device__ H2 __lows2##N2(H2, H2); __host__ __device__ H2 __highs2##N2(H2, H2); \
  __host__ __device__ H2 __low2##N2(H2); __host__ __device__ H2 __high2##N2(H2);           \
  __host__ __device__ H2 __lowhigh2highlow(H2);                                            \
  __host__ __device__ float __low2float(H2); __host__ __device__ float __high2float(H2);   \
  __device__ H hsqrt(H); __device__ H hrsqrt(H); __device__ H hrcp(H); __device__ H hexp(H); \
  __device__ H hexp2(H); __device__ H hexp10(H); __device__ H hlog(H); __device__ H hlog2(H); \
  __device__ H hlog10(H); __device__ H hsin(H); __device__ H hcos(H); __device__ H htanh(H); \
  __device__ H htrunc(H); __device__ H hceil(H); __device__ H hfloor(H); __device__ H hrint(H); \
  __device__ H2 h2sqrt(H2); __device__ H2 h2rsqrt(H2); __device__ H2 h2rcp(H2);            \
  __device__ H2 h2exp(H2); __device__ H2 h2exp2(H2); __device__ H2 h2exp10(H2);            \
  __device__ H2 h2log(H2); __device__ H2 h2log2(H2); __device__ H2 h2log10(H2);            \
  __device__ H2 h2sin(H2); __device__ H2 h2cos(H2); __device__ H2 h2trunc(H2);             \
  __device__ H2 h2ceil(H2); __device__ H2 h2floor(H2); __device__ H2 h2rint(H2);           \
  __device__ H __ldg(const H *p); __device__ H2 __ldg(const H2 *p);                        \
  __device__ H atomicAdd(H *const address, const H val);                                   \
  __device__ H2 atomicAdd(H2 *const address, const H2 val);
