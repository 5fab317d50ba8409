// Every DPX intrinsic (sm_90) on each (a, b, c): 44 results a row. A kernel for the
// emulator; with CF_DPX_MAIN, a host program for nvcc that runs the toolkit's own host
// versions of them on the rows read from stdin (tests/emu/test_emu_dpx.py).
#include <cuda_runtime.h>
#include <stdint.h>

#define CF_N 44

__host__ __device__ void dpx_row(unsigned a, unsigned b, unsigned c, unsigned *o) {
  const int x = (int)a, y = (int)b, z = (int)c;
  bool p, q;
  int k = 0;
  o[k++] = (unsigned)__vimax_s32_relu(x, y);
  o[k++] = (unsigned)__vimin_s32_relu(x, y);
  o[k++] = __vimax_s16x2_relu(a, b);
  o[k++] = __vimin_s16x2_relu(a, b);
  o[k++] = (unsigned)__vimax3_s32(x, y, z);
  o[k++] = (unsigned)__vimin3_s32(x, y, z);
  o[k++] = (unsigned)__vimax3_s32_relu(x, y, z);
  o[k++] = (unsigned)__vimin3_s32_relu(x, y, z);
  o[k++] = __vimax3_u32(a, b, c);
  o[k++] = __vimin3_u32(a, b, c);
  o[k++] = __vimax3_s16x2(a, b, c);
  o[k++] = __vimin3_s16x2(a, b, c);
  o[k++] = __vimax3_u16x2(a, b, c);
  o[k++] = __vimin3_u16x2(a, b, c);
  o[k++] = __vimax3_s16x2_relu(a, b, c);
  o[k++] = __vimin3_s16x2_relu(a, b, c);
  o[k++] = (unsigned)__viaddmax_s32(x, y, z);
  o[k++] = (unsigned)__viaddmin_s32(x, y, z);
  o[k++] = (unsigned)__viaddmax_s32_relu(x, y, z);
  o[k++] = (unsigned)__viaddmin_s32_relu(x, y, z);
  o[k++] = __viaddmax_u32(a, b, c);
  o[k++] = __viaddmin_u32(a, b, c);
  o[k++] = __viaddmax_s16x2(a, b, c);
  o[k++] = __viaddmin_s16x2(a, b, c);
  o[k++] = __viaddmax_u16x2(a, b, c);
  o[k++] = __viaddmin_u16x2(a, b, c);
  o[k++] = __viaddmax_s16x2_relu(a, b, c);
  o[k++] = __viaddmin_s16x2_relu(a, b, c);
  o[k++] = (unsigned)__vibmax_s32(x, y, &p); o[k++] = p;
  o[k++] = (unsigned)__vibmin_s32(x, y, &p); o[k++] = p;
  o[k++] = __vibmax_u32(a, b, &p); o[k++] = p;
  o[k++] = __vibmin_u32(a, b, &p); o[k++] = p;
  o[k++] = __vibmax_s16x2(a, b, &p, &q); o[k++] = p * 2 + q;
  o[k++] = __vibmax_u16x2(a, b, &p, &q); o[k++] = p * 2 + q;
  o[k++] = __vibmin_s16x2(a, b, &p, &q); o[k++] = p * 2 + q;
  o[k++] = __vibmin_u16x2(a, b, &p, &q); o[k++] = p * 2 + q;
}

__global__ void dpx_all(const unsigned *abc, unsigned *out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dpx_row(abc[3 * i], abc[3 * i + 1], abc[3 * i + 2], out + CF_N * i);
}

#ifdef CF_DPX_MAIN
#include <stdio.h>
int main() {
  unsigned in[3], out[CF_N];
  while (fread(in, sizeof in, 1, stdin) == 1) {
    dpx_row(in[0], in[1], in[2], out);
    fwrite(out, sizeof out, 1, stdout);
  }
  return 0;
}
#endif
