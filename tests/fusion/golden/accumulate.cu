// An output accumulated in memory at the own element (m[j] = 0; m[j] += ...; m[j] /= n) is a
// producer: its value-at-element function keeps the element in a local and returns it; the
// last kernel's read of it in its loop is evaluated once (issue 15).
// RUN: fuse %s -o - --scratch mean
// CODE: float cf_stats_fused0_0_col_mean_mean_xy(long long cf_x,
// CODE: int j = (int)(cf_x); float cf_acc0;
// CODE-NEXT: {
// CODE-NEXT: cf_acc0 = 0.0f;
// CODE-NEXT: for (int i = 0; i < n; i++) cf_acc0 += data[i * m + j];
// CODE-NEXT: cf_acc0 /= (float)n;
// CODE-NEXT: }
// CODE-NEXT: return cf_round(cf_acc0);
// CODE: __global__ void cf_stats_fused0(
// CODE: const float cf_e0 = mean[j];
// CODE-NEXT: out[j] = 0.0f;
// CODE-NEXT: for (int i = 0; i < n; i++) out[j] += fabsf(data[i * m + j] - cf_e0);
// CODE: cf_stats_fused0<<<(m + 63) / 64, 64>>>(data, out, m, n);
// DIAG-NOT: note:
#include <cuda_runtime.h>
__global__ void col_mean(const float *data, float *mean, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    mean[j] = 0.0f;
    for (int i = 0; i < n; i++) mean[j] += data[i * m + j];
    mean[j] /= (float)n;
  }
}
__global__ void centre(const float *data, const float *mean, float *out, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    out[j] = 0.0f;
    for (int i = 0; i < n; i++) out[j] += fabsf(data[i * m + j] - mean[j]);
  }
}
extern "C" void stats(const float *data, float *mean, float *out, int m, int n) {
  col_mean<<<(m + 63) / 64, 64>>>(data, mean, m, n);
  centre<<<(m + 63) / 64, 64>>>(data, mean, out, m, n);
}
