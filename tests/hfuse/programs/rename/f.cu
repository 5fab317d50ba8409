// First input of the macro renaming test: SCALE, APPLY and USE_BIAS mean one thing here...
#include <cuda_runtime.h>

#define SCALE 2.0f
#define APPLY(v) ((v) * SCALE)
#define USE_BIAS 1

__global__ void grow(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#if USE_BIAS
  if (i < n) out[i] = APPLY(in[i]) + 1.0f;
#else
  if (i < n) out[i] = APPLY(in[i]);
#endif
}
