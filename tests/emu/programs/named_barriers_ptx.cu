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
