// Overloaded kernels (by element type and by arity), launched from host functions: each
// launch is matched to the overload clang resolved, not to the first of that name.
#include <cuda_runtime.h>

__global__ void scale(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * 2.0f;
}
__global__ void scale(const double *in, double *t, double f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * f - 1.0;
}
__global__ void offset(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] + 1.0f;
}
__global__ void offset(const double *t, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] * t[i] + 0.25;
}
// One name, two arities over the same element type.
__global__ void step(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] - 3.0f;
}
__global__ void step(const float *in, float *out, float k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * k;
}

// The second overloads, declared after the first: matched by what clang resolved.
void ov_double(const double *in, double *t, double *out, int n) {
  scale<<<(n + 127) / 128, 128>>>(in, t, 3.0, n);
  offset<<<(n + 63) / 64, 64>>>(t, out, n);
}
void ov_float(const float *in, float *t, float *out, int n) {
  scale<<<(n + 127) / 128, 128>>>(in, t, n);
  offset<<<(n + 127) / 128, 128>>>(t, out, n);
}
void ov_arity(const float *in, float *t, float *u, float *out, int n) {
  step<<<(n + 127) / 128, 128>>>(in, t, 0.5f, n);
  offset<<<(n + 127) / 128, 128>>>(t, u, n);
  scale<<<(n + 127) / 128, 128>>>(u, out, n);
}
// Two overloads of one name in one chain: code generation keys kernels by name, so the
// pair is left unfused (with a note), the rest of the chain fused.
void ov_same_name(const float *in, float *t, float *out, int n) {
  step<<<(n + 127) / 128, 128>>>(in, t, n);
  step<<<(n + 127) / 128, 128>>>(t, out, 0.25f, n);
}
