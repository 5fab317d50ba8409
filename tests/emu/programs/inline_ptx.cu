// Inline PTX the emulator translates (emu/inline_asm.py): special registers and single
// instructions. test_emu_inline_ptx.py checks each kernel against numpy.
#include <cuda_runtime.h>

// %laneid, %warpid and the lane masks, as a 2D block sees them (linear thread ids).
__global__ void lane_registers(unsigned *out) {
  unsigned t = threadIdx.x + blockDim.x * threadIdx.y, lane, warp, lt, le, gt, ge, eq;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(warp));
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
  asm("mov.u32 %0, %%lanemask_le;" : "=r"(le));
  asm("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
  asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
  asm("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
  unsigned *o = out + 7 * t;
  o[0] = lane, o[1] = warp, o[2] = lt, o[3] = le, o[4] = gt, o[5] = ge, o[6] = eq;
}

// Stream compaction within each warp: a ballot and the lanes below (%lanemask_lt).
__global__ void warp_compact(const int *x, int *out, int *counts) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x, below;
  int v = x[t];
  unsigned keep = __ballot_sync(0xffffffffu, v > 0);
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(below));
  if (v > 0) out[(t & ~31u) + __popc(keep & below)] = v;
  if ((t & 31u) == 0) counts[t / 32] = __popc(keep);
}

// Single instructions on each element: bfind (unsigned and signed), brev, popc, clz, prmt,
// vabsdiff4 with its .add, fma, a move, and ordering instructions with no effect.
__global__ void instructions(const unsigned *a, const unsigned *b, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i], r[8];
  int sx = (int)x;
  asm volatile("bfind.u32 %0, %1;" : "=r"(r[0]) : "r"(x));
  asm("bfind.s32 %0, %1;" : "=r"(r[1]) : "r"(sx));
  asm("brev.b32 %0, %1;" : "=r"(r[2]) : "r"(x));
  asm("popc.b32 %0, %1;\n" : "=r"(r[3]) : "r"(x));
  asm("clz.b32 %0, %1;" : "=r"(r[4]) : "r"(x));
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r[5]) : "r"(x), "r"(y), "r"(0x5140u));
  asm("vabsdiff4.u32.u32.u32.add"
      " %0, %1, %2, %3;"
      : "=r"(r[6])
      : "r"(x), "r"(y), "r"(7u));
  asm("mov.b32 %0, %1;" : "=r"(r[7]) : "r"(y));
  asm volatile("membar.gl;" ::: "memory");
  asm volatile("nanosleep.u32 100;");
  for (int k = 0; k < 8; ++k) out[8 * i + k] = r[k];
}

__global__ void fused_multiply_add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float r = c[i];
  asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(a[i]), "f"(b[i]), "f"(r));
  asm volatile("" : "+f"(r));  // a compiler barrier only
  c[i] = r;
}

// %globaltimer (nanoseconds) and %clock64 never go back.
__global__ void timers(unsigned long long *out) {
  unsigned long long t0, t1;
  long long c0, c1;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t0));
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c0));
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t1));
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c1));
  out[0] = t1 >= t0;
  out[1] = c1 > c0;
}
