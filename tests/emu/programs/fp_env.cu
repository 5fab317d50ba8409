// Host code that changes the CPU's floating-point environment (the rounding direction, flush
// to zero) around its launches, as a program may for its own CPU reference: its kernels must
// still compute as a GPU does (round to nearest, subnormals kept).
#include <cfenv>
#include <cuda_runtime.h>
#include <xmmintrin.h>

// Barrier-free, grid-stride: its threads run as a plain loop.
__global__ void quotients(const float *a, const float *b, float *q, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    q[i] = a[i] / b[i] * 2e-38f;
}

// A 2-D tile through shared memory with a barrier: its threads run as fibers.
__global__ void tile_quotients(const float *a, const float *b, float *q, int w, int h) {
  __shared__ float t[8][9];
  int x = blockIdx.x * 8 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;
  float v = 0.0f;
  if (x < w && y < h) v = a[y * w + x] / b[y * w + x] * 2e-38f;
  t[threadIdx.x][threadIdx.y] = v;
  __syncthreads();
  if (x < w && y < h) q[y * w + x] = t[threadIdx.x][threadIdx.y];
}

// mode: 1 rounds upward, 2 flushes subnormals (FTZ and DAZ), 3 both; restored after.
void run(const float *a, const float *b, float *q1, float *q2, int w, int h, int mode) {
  const unsigned csr = _mm_getcsr();
  if (mode & 1) std::fesetround(FE_UPWARD);
  if (mode & 2) _mm_setcsr(_mm_getcsr() | 0x8040u);
  quotients<<<1, 64>>>(a, b, q1, w * h);  // one block: on the calling thread
  tile_quotients<<<dim3((w + 7) / 8, (h + 7) / 8), dim3(8, 8)>>>(a, b, q2, w, h);
  cudaDeviceSynchronize();
  _mm_setcsr(csr);
  std::fesetround(FE_TONEAREST);
}

// rsqrtf and rsqrt: 1 / the correctly rounded square root, as CUDA's -prec-sqrt=true path and
// libm give it, special values included.
__global__ void rsqrts(const float *x, float *r, const double *xd, double *rd, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    r[i] = rsqrtf(x[i]);
    rd[i] = rsqrt(xd[i]);
  }
}
