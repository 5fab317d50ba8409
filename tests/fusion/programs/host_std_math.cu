#include <math.h>
#include <cmath>
#include <cuda_runtime.h>
__global__ void polar(const double *re, const double *im, double *mag, double *ang, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  mag[i] = std::sqrt(re[i] * re[i] + im[i] * im[i]);
  ang[i] = std::atan2(im[i], re[i]);
}
__global__ void mix(const double *mag, const double *ang, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = std::pow(std::fabs(mag[i]), 0.5) + std::exp(-std::fabs(ang[i])) + std::fmax(std::floor(ang[i]), std::hypot(mag[i], 1.0));
}
__global__ void mixf(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = std::sqrt(a[i] * a[i] + 1.0f) + std::atan2(a[i], 2.0f) + std::fma(a[i], 2.0f, 1.0f);
}
void pipe(const double *re, const double *im, double *mag, double *ang, double *out, const float *a, float *b, int n) {
  polar<<<(n + 63) / 64, 64>>>(re, im, mag, ang, n);
  mix<<<(n + 63) / 64, 64>>>(mag, ang, out, n);
  mixf<<<(n + 63) / 64, 64>>>(a, b, n);
}
