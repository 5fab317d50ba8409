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

// PTX sequences as ccminer's cuda_helper.h writes them (emu/ptx_block.py): per element, a
// 64-bit byte swap through .reg halves, a 64-bit product through mul/mad.cc/madc on 32-bit
// halves, a 64-bit add and subtract through carries, funnel shifts, prmt's sign mode,
// clamped shifts, lop3, widening and high products.
__global__ void sequences(const unsigned long long *x, const unsigned long long *y,
                          unsigned long long *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long a = x[i], b = y[i], swapped, sum, diff;
  asm("{ .reg .b32 x, y; // swab64\n\t"
      "mov.b64 {x,y}, %1;\n\t"
      "prmt.b32 x, x, 0, 0x0123;\n\t"
      "prmt.b32 y, y, 0, 0x0123;\n\t"
      "mov.b64 %0, {y,x};\n\t"
      "}\n" : "=l"(swapped) : "l"(a));
  unsigned lo, hi;
  asm("{ // uint2 a*b\n\t"
      "mul.lo.u32       %0, %2, %4;  \n\t"
      "mul.hi.u32       %1, %2, %4;  \n\t"
      "mad.lo.cc.u32    %1, %3, %4, %1; \n\t"
      "madc.lo.u32      %1, %3, %5, %1; \n\t"
      "}\n" : "=r"(lo), "=r"(hi)
      : "r"((unsigned)a), "r"((unsigned)(a >> 32)), "r"((unsigned)b), "r"((unsigned)(b >> 32)));
  asm("{ .reg .u32 l, h;\n\t"
      "add.cc.u32 l, %1, %3;\n\t"
      "addc.u32 h, %2, %4;\n\t"
      "mov.b64 %0, {l, h};\n\t}"
      : "=l"(sum) : "r"((unsigned)a), "r"((unsigned)(a >> 32)), "r"((unsigned)b),
        "r"((unsigned)(b >> 32)));
  asm("{ .reg .u32 l, h;\n\t"
      "sub.cc.u32 l, %1, %3;\n\t"
      "subc.u32 h, %2, %4;\n\t"
      "mov.b64 %0, {l, h};\n\t}"
      : "=l"(diff) : "r"((unsigned)a), "r"((unsigned)(a >> 32)), "r"((unsigned)b),
        "r"((unsigned)(b >> 32)));
  unsigned r[8];
  const unsigned s = (unsigned)b & 63u;
  asm("shf.r.wrap.b32 %0, %1, %2, %3;" : "=r"(r[0]) : "r"((unsigned)a), "r"((unsigned)(a >> 32)), "r"(s));
  asm("shf.l.clamp.b32 %0, %1, %2, %3;" : "=r"(r[1]) : "r"((unsigned)a), "r"((unsigned)(a >> 32)), "r"(s));
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r[2]) : "r"((unsigned)a), "r"((unsigned)b), "r"((unsigned)(b >> 32)));
  asm("{ .reg .s32 t;\n\tshr.s32 t, %1, %2;\n\tmov.b32 %0, t;\n\t}" : "=r"(r[3]) : "r"((unsigned)a), "r"(s));
  asm("shl.b32 %0, %1, %2;" : "=r"(r[4]) : "r"((unsigned)a), "r"(s));
  asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(r[5]) : "r"((unsigned)a), "r"((unsigned)b), "r"((unsigned)(a >> 32)));
  asm("mul.hi.s32 %0, %1, %2;" : "=r"(r[6]) : "r"((unsigned)a), "r"((unsigned)b));
  asm("{ .reg .s64 w; .reg .b32 l, h;\n\tmul.wide.s32 w, %1, %2;\n\tshr.s64 w, w, 16;\n\t"
      "mov.b64 {l, h}, w;\n\txor.b32 %0, l, h;\n\t}"
      : "=r"(r[7]) : "r"((unsigned)a), "r"((unsigned)b));
  out[12 * i] = swapped;
  out[12 * i + 1] = (unsigned long long)hi << 32 | lo;
  out[12 * i + 2] = sum;
  out[12 * i + 3] = diff;
  for (int k = 0; k < 8; ++k) out[12 * i + 4 + k] = r[k];
}
