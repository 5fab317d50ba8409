// Inline PTX barriers (issue 31; as in a third-party course's bar.sync demo): two halves
// of a block meet at their own named barriers; the whole block at barrier 0.
__global__ void halves(int *out) {
  __shared__ int s[256], u[128];
  int t = threadIdx.x, half = blockDim.x / 2;
  s[t] = t;
  asm volatile("bar.sync 0;");
  if (t < half) {
    s[t] += s[t + half];
    asm volatile("bar.sync 1, %0;" :: "r"(half));
    out[t] = s[half - 1 - t];
  } else {
    u[t - half] = 2 * s[t];
    asm volatile("barrier.sync.aligned 2, %0;" :: "r"(half));
    out[t] = u[blockDim.x - 1 - t];
  }
  asm volatile("bar.sync %0;" :: "r"(3));
}
void run_halves(int *out) { halves<<<1, 256>>>(out); }

// A block-wide vote and count through bar.red, with a predicate set by setp and read by
// selp (a course's bar.red.or demo in this style).
__global__ void votes(const int *flags, int *out) {
  int t = threadIdx.x, any, count;
  asm volatile(
      "{\n"
      "  .reg .pred %%p, %%q;\n"
      "  setp.ne.s32 %%p, %2, 0;\n"
      "  bar.red.or.pred %%q, 5, %%p;\n"
      "  selp.s32 %0, 1, 0, %%q;\n"
      "  bar.red.popc.u32 %1, 6, 64, !%%p;\n"
      "}\n"
      : "=r"(any), "=r"(count) : "r"(flags[t]));
  out[t] = any * 1000 + count;
}
void run_votes(const int *flags, int *out) { votes<<<1, 64>>>(flags, out); }
