// Loops of every shape: for(;;), missing header parts, do-while, while, switch.
// EXPECT-KERNEL: collatz 3
// EXPECT-KERNEL: classify 3
// EXPECT-LAUNCH: run_control -> collatz 3
// EXPECT-LAUNCH: run_control -> classify 3
#include <cuda_runtime.h>

__global__ void collatz(const unsigned *in, unsigned *steps, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = in[i], k = 0;
  for (;;) {
    if (v <= 1) break;
    v = (v & 1) ? 3 * v + 1 : v >> 1;
    ++k;
  }
  int j = 0;
  for (; j < 4;) j++;
  do {
    k += j--;
  } while (j > 0);
  while (k > 1000) k -= 1000;
  steps[i] = k;
}

__global__ void classify(const float *in, int *cls, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int bucket = (int)(in[i] * 4.0f);
  switch (bucket) {
    case 0: cls[i] = -1; break;
    case 1:
    case 2: cls[i] = 0; break;
    default: cls[i] = 1;
  }
}

extern "C" void run_control(const unsigned *in, unsigned *steps, const float *f, int *c, int n) {
  collatz<<<(n + 63) / 64, 64>>>(in, steps, n);
  classify<<<(n + 63) / 64, 64>>>(f, c, n);
}
