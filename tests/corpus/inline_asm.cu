// Inline PTX: reading %laneid and a fused multiply-add written in asm.
// EXPECT-KERNEL: lane_ids 2
// EXPECT-KERNEL: asm_fma 4
// EXPECT-LAUNCH: run_asm -> lane_ids 2
// EXPECT-LAUNCH: run_asm -> asm_fma 4
#include <cuda_runtime.h>

__device__ __forceinline__ unsigned lane_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
  return id;
}

__global__ void lane_ids(unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = lane_id();
}

__global__ void asm_fma(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float r;
  asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(a[i]), "f"(b[i]), "f"(c[i]));
  c[i] = r;
}

extern "C" void run_asm(unsigned *ids, const float *a, const float *b, float *c, int n) {
  lane_ids<<<(n + 127) / 128, 128>>>(ids, n);
  asm_fma<<<(n + 127) / 128, 128>>>(a, b, c, n);
}
