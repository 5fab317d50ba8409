// Producer/consumer pipelines whose producers' grids are spelled the ways real code spells
// them (PolyBench's float ceil, cuda-samples' iDivUp, `n / b + (n % b != 0)`, a grid held in a
// local...): each covers its iteration space provably, so each pipeline fuses. Compared with
// the original under emulation at sizes that are not multiples of the block
// (tests/fusion/test_fuse_grid_forms.py).
#include <cuda_runtime.h>
#include <cmath>

#define DIV_UP(a, b) (((a) + (b) - 1) / (b))
#define NX 37
#define NY 19
constexpr int kThreads = 64;
const int T = 128;

// cuda-samples' helper_functions.h
inline int iDivUp(int a, int b) { return (a % b != 0) ? (a / b + 1) : (a / b); }
static inline unsigned div_up(unsigned a, unsigned b) { return (a + b - 1) / b; }

__global__ void scale2(const float *in, float *a, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  a[y * w + x] = in[y * w + x] * 2.0f + 1.0f;
}

__global__ void blur2(const float *a, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float l = a[y * w + (x > 0 ? x - 1 : 0)];
  float r = a[y * w + (x + 1 < w ? x + 1 : w - 1)];
  float u = a[(y > 0 ? y - 1 : 0) * w + x];
  out[y * w + x] = (l + r + u + a[y * w + x]) * 0.25f;
}

__global__ void scale1(const float *in, float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = in[i] * 3.0f - 0.5f;
}

__global__ void blur1(const float *a, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float l = a[i > 0 ? i - 1 : 0];
  float r = a[i + 1 < n ? i + 1 : n - 1];
  out[i] = l - r + a[i];
}

// PolyBench: a float ceil over compile-time sizes (37 x 19: exact in float).
void gf_polybench(const float *in, float *out, int w, int h) {
  float *a;
  cudaMalloc(&a, NX * NY * sizeof(float));
  dim3 block(32, 8);
  dim3 grid((size_t)ceil(((float)NX) / ((float)block.x)), (size_t)ceil(((float)NY) / ((float)block.y)));
  scale2<<<grid, block>>>(in, a, NX, NY);
  blur2<<<grid, block>>>(a, out, NX, NY);
  cudaFree(a);
}

// ceil in double over int sizes: exact for every int.
void gf_ceil_double(const float *in, float *out, int w, int h) {
  float *a;
  cudaMalloc(&a, w * h * sizeof(float));
  dim3 block(16, 4);
  dim3 grid((unsigned int)ceil((double)w / block.x), (unsigned int)std::ceil((double)h / (double)block.y));
  scale2<<<grid, block>>>(in, a, w, h);
  blur2<<<grid, block>>>(a, out, w, h);
  cudaFree(a);
}

// (n - 1) / b + 1, and cuda-samples' iDivUp, through dim3 members.
void gf_minus_one(const float *in, float *out, int w, int h) {
  float *a;
  cudaMalloc(&a, w * h * sizeof(float));
  dim3 block(8, 8);
  dim3 grid((w - 1) / block.x + 1, iDivUp(h, block.y));
  scale2<<<grid, block>>>(in, a, w, h);
  blur2<<<grid, block>>>(a, out, w, h);
  cudaFree(a);
}

// A helper and a macro, block sizes a constexpr and a const int.
void gf_helpers(const float *in, float *out, int w, int h) {
  float *a;
  cudaMalloc(&a, w * h * sizeof(float));
  dim3 blockDim(kThreads, 2);
  dim3 gridDim(div_up(w, blockDim.x), DIV_UP(h, 2));
  scale2<<<gridDim, blockDim>>>(in, a, w, h);
  blur2<<<gridDim, blockDim>>>(a, out, w, h);
  cudaFree(a);
}

// n / b + (n % b != 0) and n / b + (n % b ? 1 : 0), 1D over w * h.
void gf_remainder(const float *in, float *out, int w, int h) {
  int n = w * h;
  float *a;
  cudaMalloc(&a, n * sizeof(float));
  scale1<<<n / T + (n % T != 0), T>>>(in, a, n);
  blur1<<<n / 32 + (n % 32 ? 1 : 0), 32>>>(a, out, n);
  cudaFree(a);
}

// Grids computed into locals: a ceil in double, a rounded-up division.
void gf_locals(const float *in, float *out, int w, int h) {
  int n = w * h;
  float *a;
  cudaMalloc(&a, n * sizeof(float));
  int threads = 64;
  int blocks = (int)ceil((double)n / threads);
  int blocks2 = (n + threads - 1) / threads;
  scale1<<<blocks, threads>>>(in, a, n);
  blur1<<<blocks2, threads>>>(a, out, n);
  cudaFree(a);
}
