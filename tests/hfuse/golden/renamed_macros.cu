// RUN: hfuse %S/../programs/rename/f.cu %s --kernels grow,shrink --block1 64 --block2 64 -o -
// Macros this file defines differently from the first input are renamed apart at every
// token (#define, #if, uses): the fused kernel's second part expands this file's.
// CODE: #define SCALE 2.0f
// CODE: #define APPLY(v) ((v) * SCALE)
// CODE: #define cf_in2_SCALE (-0.5f)
// CODE-NEXT: #define cf_in2_APPLY(v) (cf_in2_SCALE * (v) - 3.0f)
// CODE-NEXT: #define cf_in2_USE_BIAS 0
// CODE: #if defined(cf_in2_USE_BIAS) && cf_in2_USE_BIAS
// CODE: __global__ void __launch_bounds__(128) grow_shrink_hfused(
// CODE: out[i] = APPLY(in[i]) + 1.0f;
// CODE: #if defined(cf_in2_USE_BIAS) && cf_in2_USE_BIAS
// CODE: out[i] = cf_in2_APPLY(in[i]) + 1.0f;
// CODE: out[i] = cf_in2_APPLY(in[i]);
// DIAG: note: 'APPLY' is defined in both inputs: in the output, this file's is 'cf_in2_APPLY'
// DIAG: note: 'SCALE' is defined in both inputs: in the output, this file's is 'cf_in2_SCALE'
// DIAG: note: 'USE_BIAS' is defined in both inputs: in the output, this file's is 'cf_in2_USE_BIAS'
#include <cuda_runtime.h>

#define SCALE (-0.5f)
#define APPLY(v) (SCALE * (v) - 3.0f)
#define USE_BIAS 0

__global__ void shrink(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#if defined(USE_BIAS) && USE_BIAS
  if (i < n) out[i] = APPLY(in[i]) + 1.0f;
#else
  if (i < n) out[i] = APPLY(in[i]);
#endif
}
