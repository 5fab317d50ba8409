// RUN: hfuse %S/../programs/miner/round_a.cu %s --kernels round_a,round_h --block1 64 --block2 64 -o -
// ccminer's way of writing hash kernels (this file and round_a.cu, both written for
// cudafuse's tests): a helper G both files define, called through ROUND macros both define
// the same way, is renamed apart in this file's macro bodies and the macros with it; a
// per-GPU array both define is renamed inside a checking macro's argument; a rotation in
// inline PTX stays in the fused kernel as written.
// CODE: #define ROUND(r)
// CODE-NEXT: G(v[0], v[1], r);
// CODE: static uint32_t *cf_in2_d_found[4];
// CODE: static void cf_in2_G(uint32_t &a, uint32_t &b, const int r)
// CODE: #define cf_in2_ROUND(r)
// CODE-NEXT: cf_in2_G(v[0], v[1], r);
// CODE-NEXT: cf_in2_G(v[2], v[3], r);
// CODE: CHECKED(cudaMalloc(&cf_in2_d_found[gpu], 8));
// CODE: __global__ void __launch_bounds__(128) round_a_round_h_hfused(
// CODE: ROUND(0);
// CODE: cf_in2_ROUND(0);
// CODE: v[1] = rotr_ptx(v[1], 9);
// DIAG: note: 'ROUND' is a macro whose body names this file's 'G': in the output, this file's is 'cf_in2_ROUND'
// DIAG: note: 'G' is defined in both inputs: in the output, this file's is 'cf_in2_G'
// DIAG: note: 'd_found' is defined in both inputs: in the output, this file's is 'cf_in2_d_found'
#include <cuda_runtime.h>
#include <stdint.h>

#define CHECKED(call) \
  do {                \
    (void)(call);     \
  } while (0)

static uint32_t *d_found[4];

__device__ __forceinline__ static void G(uint32_t &a, uint32_t &b, const int r) {
  a ^= b + (uint32_t)r;
  b += a;
}

#define ROUND(r)      \
  G(v[0], v[1], r);   \
  G(v[2], v[3], r);

__device__ __forceinline__ uint32_t rotr_ptx(uint32_t x, uint32_t n) {
  uint32_t r;
  asm("shf.r.wrap.b32 %0, %1, %1, %2;" : "=r"(r) : "r"(x), "r"(n));
  return r;
}

__global__ void round_h(const uint32_t threads, const uint32_t start, uint32_t *out) {
  const uint32_t t = blockDim.x * blockIdx.x + threadIdx.x;
  if (t < threads) {
    uint32_t v[4] = {start, t, 7u, 9u};
    ROUND(0);
    v[1] = rotr_ptx(v[1], 9);
    out[t] = v[0] + v[1] + v[2] + v[3];
  }
}

void round_h_init(int gpu) { CHECKED(cudaMalloc(&d_found[gpu], 8)); }
