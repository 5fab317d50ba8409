// A launcher in a header (Rodinia's scan.cu shape): literal 0 and NULL passed to pointer and
// integer parameters of a template kernel, the rewrite reading the header's text only.
#pragma once

template <bool WithSums>
__global__ void add_offset(float *out, const float *in, float *sums, int n, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = in[i] + (float)base;
  if (WithSums && sums != 0 && i == 0) sums[0] = out[0];
}

static void add_all(float *out, const float *in, float *sums, int n) {
  add_offset<false><<<(n + 31) / 32, 32>>>(out, in, 0, n, 0);
  add_offset<true><<<(n + 31) / 32, 32>>>(out, out, sums, n, NULL);
  add_offset<true><<<(n + 31) / 32, 32>>>(out, out, NULL, n, 1);
}
