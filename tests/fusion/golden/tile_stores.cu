// A 1-D window in dynamic shared memory whose blocks overlap (patches blockDim.x - 2r
// wide, each thread loading its clamped position); y is the caller's, so the fused kernel
// stores it where the window loads it, in each block's first blockDim.x - 2r threads (whose
// positions partition the line), under a check at the launch that those reach every
// element of [0, n) (kernel/tile_stores.py).
// RUN: fuse %s --fuse-all -o -
// CODE: __global__ void cf_window_fused0(float *__restrict z, int n, int r, const float *__restrict cf_p3, float *__restrict cf_p4, float cf_p5)
// CODE: { const long long cf_ti = max(0, min(g, n - 1)); if ((int)threadIdx.x < {{.*}}blockDim.x - (2 * r){{.*}}) { cf_p4[cf_ti] = y[cf_ti]; } } win[threadIdx.x] = y[max(0, min(g, n - 1))];
// CODE-NEXT: __syncthreads();
// CODE: if ((((long long)(
// CODE-SAME: <= 0LL) &&
// CODE-SAME: >= 1LL &&
// CODE-SAME: >= (long long)((((int)(n)) - 1)))
// CODE-SAME: { cf_window_fused0<<<(n + span - 1) / span, 64, 64 * sizeof(float)>>>(z, n, r, x, y, 1.5f); }
// CODE-SAME: else { /* cudafuse: the original launches */ level<<<
// DIAG-NOT: error
__global__ void level(const float *__restrict__ x, float *__restrict__ y, float gain, int n)
{
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i < n)
    y[i] = gain * x[i] - 0.5f;
}

__global__ void smooth(const float *__restrict__ y, float *__restrict__ z, int n, int r)
{
  extern __shared__ float win[];
  const int span = blockDim.x - 2 * r;
  const int g = blockIdx.x * span + threadIdx.x - r;
  win[threadIdx.x] = y[max(0, min(g, n - 1))];
  __syncthreads();
  if (threadIdx.x < r || threadIdx.x >= blockDim.x - r || g >= n)
    return;
  float acc = 0.0f;
  for (int k = -r; k <= r; ++k)
    acc += win[threadIdx.x + k];
  z[g] = acc / (2 * r + 1);
}

extern "C" void window(const float *x, float *y, float *z, int n, int r)
{
  const int span = 64 - 2 * r;
  level<<<(n + 127) / 128, 128>>>(x, y, 1.5f, n);
  smooth<<<(n + span - 1) / span, 64, 64 * sizeof(float)>>>(y, z, n, r);
}
