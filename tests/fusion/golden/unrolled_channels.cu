// A channel loop of constant trip (RGBA written as `for (int c = 0; c < 4; ++c)`) unrolled
// into one block per iteration, its variable a constant in each: the first keeps the loop's
// lines, the others follow on its last line; each block's store is a channel, recomputed
// by the consumer at a constant channel.
// RUN: fuse %s -o -
// CODE: { { const int c = 0; {
// CODE-NEXT: float v = in[i] * (c + 1);
// CODE-NEXT: out[i * 4 + c] = v;
// CODE-NEXT: } } { const int c = 1; { float v = in[i] * (c + 1); out[i * 4 + c] = v; } } { const int c = 2; { float v = in[i] * (c + 1); out[i * 4 + c] = v; } } { const int c = 3; { float v = in[i] * (c + 1); out[i * 4 + c] = v; } } }
// CODE: float cf_rgba_fused0_0_spread_out_c3_xy(
// CODE: } } { const int c = 1; { float v = in[i] * (c + 1); (void)0; } } { const int c = 2; { float v = in[i] * (c + 1); (void)0; } } { const int c = 3; { float v = in[i] * (c + 1); return cf_round(v); } } }
// CODE: __global__ void cf_rgba_fused0(
// CODE: cf_rgba_fused0<<<(n + 127) / 128, 128>>>(
// DIAG: unrolled_channels.cu:19:3: note: kernel 'spread': loop over 'c' (line 19, 4 iterations) unrolled: each iteration stores an element of its own
// DIAG-NOT: not fused
__global__ void spread(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int c = 0; c < 4; ++c) {
    float v = in[i] * (c + 1);
    out[i * 4 + c] = v;
  }
}
__global__ void mix(const float *rgba, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = rgba[4 * i] - rgba[4 * i + 3] + 0.5f * rgba[4 * i + 1];
}
void rgba(const float *in, float *tmp, float *out, int n) {
  spread<<<(n + 127) / 128, 128>>>(in, tmp, n);
  mix<<<(n + 127) / 128, 128>>>(tmp, out, n);
}
