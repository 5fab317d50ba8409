// A buffer written twice in one sequence: the second writer cannot join a group with the
// first (no two kernels of a group write one buffer), while the first pair still fuses.
// (write_b -> the second write_a alone would be legal: write_b reads t at each thread's own
// element before that thread stores it, legality._read_before_update.) --fuse-all: legality
// alone decides.
// RUN: fuse %s -o - --fuse-all --explain
// DIAG: edge write_b -> write_a [u] in p_twice: not fused: the pair would fuse, but the groups it would join ('write_a', 'write_b', 'write_a') cannot form one kernel: 'write_a' and 'write_a' both write 't'
// CODE: extern "C" void p_twice(
// CODE: /* cudafuse: write_a fused into cf_p_twice_fused0 */;
// CODE-NEXT: cf_p_twice_fused0<<<g, b>>>(u, w, h, in, t);
// CODE-NEXT: write_a<<<g, b>>>(u, t, w, h);
#include <cuda_runtime.h>
__global__ void write_a(const float *in, float *t, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  t[y * w + x] = in[y * w + x] + 1.0f;
}
__global__ void write_b(const float *t, float *t2, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  t2[y * w + x] = t[y * w + x] * 2.0f;
}
extern "C" void p_twice(const float *in, float *t, float *u, int w, int h) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  write_a<<<g, b>>>(in, t, w, h);
  write_b<<<g, b>>>(t, u, w, h);
  write_a<<<g, b>>>(u, t, w, h);
}
