// Every atomic family through CUDA's per-type overloads, with mixed argument types that convert
// as nvcc converts them. Results are independent of thread order (test_emu_atomics.py checks
// them against numpy, with threads in order and in seeded random orders).
#include <cuda_runtime.h>

// Histogram of int values into unsigned bins: atomicAdd(unsigned *, int), privatised in shared
// memory with the _block variant, merged with the _system one.
__global__ void histogram_mixed(const int *v, unsigned *hist, int n, int bins) {
  extern __shared__ unsigned local[];
  for (int b = threadIdx.x; b < bins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd_block(&local[(v[i] % bins + bins) % bins], 1);
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += blockDim.x)
    if (local[b]) atomicAdd_system(&hist[b], local[b]);
}

// Max of floats and doubles through atomicCAS loops (CUDA has no floating-point atomicMax).
__device__ float atomic_max_float(float *addr, float v) {
  int *p = (int *)addr;
  int old = *p, seen;
  do {
    seen = old;
    if (__int_as_float(seen) >= v) break;
    old = atomicCAS(p, seen, __float_as_int(v));
  } while (old != seen);
  return __int_as_float(old);
}

__device__ double atomic_max_double(double *addr, double v) {
  unsigned long long *p = (unsigned long long *)addr;
  unsigned long long old = *p, seen;
  do {
    seen = old;
    if (__longlong_as_double(seen) >= v) break;
    old = atomicCAS(p, seen, (unsigned long long)__double_as_longlong(v));
  } while (old != seen);
  return __longlong_as_double(old);
}

__global__ void float_max(const float *f, const double *d, float *rf, double *rd, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomic_max_float(rf, f[i]);
  atomic_max_double(rd, d[i]);
}

// atomicInc/atomicDec wrap: r[k] is the counter, old[k * n + i] what thread i got back.
__global__ void inc_dec(unsigned *r, unsigned *old, unsigned limit, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  old[0 * n + i] = atomicInc(&r[0], limit);
  old[1 * n + i] = atomicDec(&r[1], limit);
  old[2 * n + i] = atomicInc_block(&r[2], limit);
  old[3 * n + i] = atomicDec_system(&r[3], limit);
  old[4 * n + i] = atomicInc(&r[4], 0xFFFFFFFFu);  // a plain increment that wraps at 2^32
  old[5 * n + i] = atomicDec(&r[5], 3);             // starts above the limit: reset to 3
}

// atomicCAS: tickets from a CAS-loop counter (a permutation of 0..n-1), and first-come claims
// of slots (exactly one thread per slot sees -1 come back, and owns the slot).
__global__ void cas_tickets(int *counter, int *ticket, int *owner, int *got, int slots, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int seen, old = *counter;
  do {
    seen = old;
    old = atomicCAS(counter, seen, seen + 1u);  // int *, int, unsigned
  } while (old != seen);
  ticket[i] = old;
  got[i] = atomicCAS_block(&owner[i % slots], -1, i);
}

// Integer families with converting arguments.
__global__ void int_families(const int *v, int *ri, unsigned *ru, long long *rl,
                             unsigned long long *rq, int *xi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = v[i];
  unsigned ux = (unsigned)x;
  atomicAdd(&ri[0], x * 65536);            // wraps past 2^31 as on the GPU
  atomicSub(&ri[1], ux);                   // int *, unsigned
  atomicMax(&ri[2], ux);                   // unsigned converted to int: a signed max
  atomicMin(&ri[3], 0u + x);
  atomicAnd(&ri[4], x | 0xF00F);
  atomicOr(&ri[5], x & 0x0FF0);
  atomicXor_block(&ri[6], x);
  atomicMax(&ru[0], x);                    // int converted to unsigned: an unsigned max
  atomicMin_system(&ru[1], x);
  atomicSub_block(&ru[2], x);
  int minus_one = -1;
  atomicAdd(&rq[0], minus_one);            // -1 converts to 2^64 - 1: subtracts one
  atomicAnd(&rq[1], ~(1ull << (i % 64)));
  atomicOr_system(&rq[2], 1ull << (i % 64));
  atomicXor(&rq[3], (unsigned long long)x << 20);
  atomicMax(&rl[0], x);                    // long long *, int
  atomicMin_block(&rl[1], (long long)x * 1000000007ll);
  atomicAnd(&rl[2], ~(long long)(i % 7));
  atomicOr(&rl[3], (long long)(i % 5) << 40);
  atomicXor_system(&rl[4], (long long)x * x);
  xi[i] = atomicExch(&ri[7], ux);          // int *, unsigned; old values returned
  xi[n + i] = (int)atomicExch_block(&rq[4], x);
}

// Floating-point adds: float * with a double value adds the value rounded to float, in float;
// float adds flush subnormals to zero (atom.add.f32), double adds do not.
__global__ void float_adds(float *rf, double *rd, float2 *f2, float4 *f4, float *xf, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(&rf[0], 0.1);
  atomicAdd_block(&rf[1], 0.25f);
  atomicAdd_system(&rf[2], 1e-40f);        // subnormal: flushed, rf[2] stays 0
  atomicAdd(&rf[3], -1e-40f);              // onto a subnormal already there: both flushed
  atomicAdd(&rd[0], 0.1f);                 // double *, float
  atomicAdd_block(&rd[1], 1e-310);         // subnormal doubles are kept
  atomicAdd(&rd[2], i);
  atomicAdd(f2, make_float2(1.0f, 0.5f));
  atomicAdd_system(f4, make_float4(1.0f, 2.0f, -3.0f, 0.25f));
  xf[i] = atomicExch(&rf[4], i);           // float *, int
  xf[n + i] = atomicExch_system(&rf[5], 0.5 * i);
}

// 16-bit CAS leaves its neighbours alone; 128-bit CAS/Exch on a 16-byte aligned struct.
struct __align__(16) Wide {
  long long a, b;
};

__global__ void narrow_and_wide(unsigned short *s, Wide *w, Wide *xw, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned short seen, old = s[1];
  do {
    seen = old;
    old = atomicCAS(&s[1], seen, seen + 3);  // ints converted to unsigned short
  } while (old != seen);
  Wide cur = w[0], seenw;
  do {
    seenw = cur;
    Wide next = {seenw.a + 1, seenw.b - i};
    cur = atomicCAS(&w[0], seenw, next);
  } while (cur.a != seenw.a || cur.b != seenw.b);
  Wide mine = {i, -i};
  xw[i] = atomicExch_block(&w[1], mine);
}

// Float adds on shared memory keep subnormals (atom.add.f32 flushes them on global memory
// only): dynamic and static shared memory, summed by one block, read back by thread 0.
__global__ void shared_float_adds(float *out, float tiny) {
  extern __shared__ float dyn[];
  __shared__ float fixed[2];
  if (threadIdx.x == 0) dyn[0] = fixed[0] = 0.0f;
  __syncthreads();
  atomicAdd(&dyn[0], tiny);
  atomicAdd_block(&fixed[0], tiny);
  __syncthreads();
  if (threadIdx.x == 0) {
    out[0] = dyn[0];
    out[1] = fixed[0];
  }
}
