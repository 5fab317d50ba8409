// Kernels whose inputs must not be called point or stencil.
// RUN: analyze %s

__global__ void gather(const float *in, const int *idx, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[idx[i]];
}

__global__ void rowsum(const float *m, float *out, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.f;
  for (int c = 0; c < n; ++c) s += m[r * n + c];
  out[r] = s;
}

__global__ void smear(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n) a[i] = a[i + 1];
}

__global__ void shift(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n) out[i + 1] = in[i];
}

__global__ void tiled(const float *in, float *out, int n) {
  __shared__ float t[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  t[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = t[127 - threadIdx.x];
}

// CHECK-LABEL: kernel gather
// CHECK-NOT: in: point
// CHECK: in: other: data-dependent index (the index is read from memory)
// CHECK-NEXT: idx: point layout x*1
// CHECK-LABEL: kernel rowsum
// CHECK-NOT: stencil
// CHECK: m: other: index depends on loop variable 'c'
// CHECK-LABEL: kernel smear
// CHECK: a: other: reads neighbours of a buffer it also writes
// CHECK-LABEL: kernel shift
// CHECK: in: point
// CHECK: out: other: writes at an offset (dx=1)
// CHECK-LABEL: kernel tiled
// CHECK: shared: t: float 512 bytes
// CHECK: barriers: __syncthreads (line 30)
// Its own reads of `in` are at its element whoever exchanges what through `t` (the
// exchange makes it no producer a consumer could recompute: the fusion view says so).
// CHECK: in: point layout x*1
