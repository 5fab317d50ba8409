// Atomics called with mixed argument types: CUDA declares one overload per type, so each call
// below resolves to one of them after the usual conversions (int * with an unsigned value,
// float * with a double, unsigned long long * with an int literal, ...), as nvcc does. The
// static_asserts pin the overload chosen through its return type. Also: the scoped _block and
// _system variants, 64-bit bitwise atomics, unsigned short and 128-bit atomicCAS, float2/float4
// atomicAdd (sm_90), and a double atomicMax built from an atomicCAS loop.
// EXPECT-KERNEL: mixed_atomics 11
// EXPECT-KERNEL: scoped_atomics 5
// EXPECT-KERNEL: vector_and_wide_atomics 4
// EXPECT-LAUNCH: run_atomics -> mixed_atomics 11
// EXPECT-LAUNCH: run_atomics -> scoped_atomics 5
// EXPECT-LAUNCH: run_atomics -> vector_and_wide_atomics 4
#include <cuda_runtime.h>

template <class A, class B> struct same_type { static const bool value = false; };
template <class A> struct same_type<A, A> { static const bool value = true; };
#define RETURNS(call, T) static_assert(same_type<decltype(call), T>::value, #call)

__device__ int *di;
__device__ unsigned *du;
__device__ unsigned long long *dull;
__device__ long long *dll;
__device__ float *df;
__device__ double *dd;
__device__ unsigned short *dus;
RETURNS(atomicExch(di, 1u), int);
RETURNS(atomicAdd(df, 1.0), float);
RETURNS(atomicAdd(dull, 1), unsigned long long);
RETURNS(atomicCAS(di, 0, 1u), int);
RETURNS(atomicMax(di, 0u), int);
RETURNS(atomicMin(dll, 1u), long long);
RETURNS(atomicAnd(dull, ~0), unsigned long long);
RETURNS(atomicAdd(dd, 1.0f), double);
RETURNS(atomicExch(df, 2), float);
RETURNS(atomicCAS(dus, 0, 1), unsigned short);
RETURNS(atomicInc(du, 7), unsigned);
RETURNS(atomicAdd_block(dd, 1), double);
RETURNS(atomicCAS_system(dull, 0, 1ll), unsigned long long);
RETURNS(atomicXor_block(dll, 1), long long);

// A double atomicMax: CUDA has no atomicMax for floating point.
__device__ double atomic_max_double(double *addr, double v) {
  unsigned long long *p = (unsigned long long *)addr;
  unsigned long long old = *p, seen;
  do {
    seen = old;
    if (__longlong_as_double(seen) >= v) break;
    old = atomicCAS(p, seen, __double_as_longlong(v));
  } while (old != seen);
  return __longlong_as_double(old);
}

__global__ void mixed_atomics(const int *v, int *i, unsigned *u, unsigned long long *ull,
                              long long *ll, float *f, double *d, unsigned short *us,
                              unsigned *hist, int bins, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  int x = v[t];
  unsigned k = threadIdx.x;
  atomicAdd(&hist[(x % bins + bins) % bins], 1);  // unsigned * with an int
  atomicExch(&i[0], k);
  atomicCAS(&i[1], t, t + 1u);
  atomicMax(&i[2], 0u);
  atomicMin(&i[3], x);
  atomicSub(&u[0], 2);
  atomicXor(&u[1], 0x5a5a);
  atomicInc(&u[2], 7);
  atomicDec(&u[3], 5l);
  atomicAdd(&ull[0], 1);
  atomicAnd(&ull[1], ~0ull << (t % 8));
  atomicOr(&ull[2], 1ull << (t % 64));
  atomicExch(&ull[3], t);
  atomicCAS(&ull[4], 0, k + 1);
  atomicMax(&ll[0], x);
  atomicMin(&ll[1], (short)x);
  atomicOr(&ll[2], x & 0xff);
  atomicAdd(&f[0], 0.5);
  atomicExch(&f[1], x);
  atomicAdd(&d[0], x);
  atomic_max_double(&d[1], x * 0.25);
  atomicCAS(&us[0], t, t + 1);
}

__global__ void scoped_atomics(int *i, unsigned *u, unsigned long long *ull, float *f, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  atomicAdd_block(&i[0], 1u);
  atomicAdd_system(&f[0], 0.25);
  atomicSub_block(&i[1], 2u);
  atomicExch_system(&f[1], 1);
  atomicMax_block(&i[2], t);
  atomicMin_system(&u[0], t + 3);
  atomicInc_block(&u[1], 10);
  atomicDec_system(&u[2], 10);
  atomicCAS_block(&u[3], t, t + 1);
  atomicCAS_system(&ull[0], 0, 1);
  atomicAnd_system(&ull[1], ~(1ull << (t % 64)));
  atomicOr_block(&i[3], 1 << (t % 31));
  atomicXor_system(&ull[2], t);
}

struct __align__(16) Pair {
  long long a, b;
};

__global__ void vector_and_wide_atomics(float2 *f2, float4 *f4, Pair *p, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  atomicAdd(f2, make_float2(1.0f, 0.5f));
  atomicAdd_block(f4, make_float4(1.0f, 2.0f, 3.0f, 4.0f));
  Pair want = {t, -t}, next = {t + 1, -t - 1};
  Pair old = atomicCAS(&p[0], want, next);
  (void)old;
  atomicExch_system(&p[1], next);
}

void run_atomics(const int *v, int *i, unsigned *u, unsigned long long *ull, long long *ll,
                 float *f, double *d, unsigned short *us, unsigned *hist, float2 *f2, float4 *f4,
                 Pair *p, int n) {
  mixed_atomics<<<(n + 127) / 128, 128>>>(v, i, u, ull, ll, f, d, us, hist, 16, n);
  scoped_atomics<<<(n + 127) / 128, 128>>>(i + 8, u + 8, ull + 8, f + 8, n);
  vector_and_wide_atomics<<<(n + 127) / 128, 128>>>(f2, f4, p, n);
}
