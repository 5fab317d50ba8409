// Kernels with __launch_bounds__ in the forms real code writes them: a #define, a template
// parameter, three arguments, and __maxnreg__ (a register cap, no thread limit). Launched
// over the bound, a GPU refuses the launch (cudaErrorLaunchOutOfResources): so does the
// emulator (tests/emu/test_emu_launch_bounds.py).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define SCALE_THREADS 128
#define SCALE_MIN_BLOCKS 2

__global__ void __launch_bounds__(SCALE_THREADS, SCALE_MIN_BLOCKS) scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

template <int N>
__global__ void __launch_bounds__(N) add_one(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

__global__ void __launch_bounds__(64, 1, 1) sub3(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] -= 3.0f;
}

__global__ void __maxnreg__(32) negate(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = -x[i];
}

// Each launch's own error, as a program checks it: a bit for each launch that failed.
int run(float *x, int n, int threads) {
  int blocks = (n + threads - 1) / threads, failed = 0;
  scale<<<blocks, threads>>>(x, n);
  if (cudaGetLastError() != cudaSuccess) failed |= 1;
  add_one<128><<<blocks, threads>>>(x, n);
  if (cudaGetLastError() != cudaSuccess) failed |= 2;
  add_one<256><<<blocks, threads>>>(x, n);
  if (cudaGetLastError() != cudaSuccess) failed |= 4;
  negate<<<1, 1024>>>(x, n);  // __maxnreg__ only: the whole block is allowed
  if (cudaGetLastError() != cudaSuccess) failed |= 8;
  void *args[] = {&x, &n};
  cudaError_t e = cudaLaunchKernel((const void *)sub3, dim3(blocks), dim3(threads), args, 0,
                                   nullptr);
  if (e == cudaErrorLaunchOutOfResources && cudaGetLastError() == e) failed |= 16;
  else if (e != cudaSuccess) failed |= 32;
  return failed;
}

// What the runtime reports before a launch, which a program tuning its block asks: the
// kernel's maximum threads a block is its bound (1024 without one), and the occupancy API
// stays within it.
void query(int *out) {
  cudaFuncAttributes a;
  cudaFuncGetAttributes(&a, scale);
  out[0] = a.maxThreadsPerBlock;
  int grid = 0;
  cudaOccupancyMaxPotentialBlockSize(&grid, &out[1], scale, 0, 0);
  cudaFuncGetAttributes(&a, (const void *)sub3);
  out[2] = a.maxThreadsPerBlock;
  cudaFuncGetAttributes(&a, negate);
  out[3] = a.maxThreadsPerBlock;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&out[4], scale, 256, 0);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&out[5], scale, 128, 0);
}

// A whole program with a checking macro in cuda-samples' style.
#define CHECK(call)                                                               \
  do {                                                                            \
    cudaError_t err_ = (call);                                                    \
    if (err_ != cudaSuccess) {                                                    \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorName(err_), __FILE__, \
              __LINE__);                                                          \
      exit(EXIT_FAILURE);                                                         \
    }                                                                             \
  } while (0)

int main() {
  const int n = 1000;
  float *d;
  CHECK(cudaMalloc(&d, n * sizeof(float)));
  CHECK(cudaMemset(d, 0, n * sizeof(float)));
  scale<<<(n + 255) / 256, 256>>>(d, n);  // 256 threads, bound 128
  CHECK(cudaGetLastError());
  CHECK(cudaFree(d));
  return 0;
}

// Bounds written through macros (appended last: the lines above are named by the tests).
// BOUNDS_1 is PyTorch's C10_LAUNCH_BOUNDS_1 spelling: its bound is computed from constexpr
// limits; the front end records the expansion (frontend/macro_bounds.py).
constexpr unsigned MAX_BLOCK = 1024;
constexpr unsigned FALLBACK_BLOCK = 256;
#define CAP_THREADS(v) (((v) <= MAX_BLOCK) ? (v) : FALLBACK_BLOCK)
#define BOUNDS_1(t) __launch_bounds__((CAP_THREADS((t))))
#define BOUND(n) __launch_bounds__(n)
#define LB __launch_bounds__(96)
BOUNDS_1(128)
__global__ void capped(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}
__global__ void BOUND(32) counted(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
__global__ void LB plain(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] -= 1.0f;
}
