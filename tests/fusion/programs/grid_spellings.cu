// Grid sizes spelled the ways real code spells them (PolyBench, cuda-samples, Rodinia...),
// one launch per host function, for unit tests of coverage.covers (tests/fusion/
// test_grid_forms.py). `k` is guarded by i < n, `k2` by j < nx and i < ny. Host functions
// named a_* cover their iteration space provably; r_* do not (or cudafuse cannot show it).
#include <cmath>
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define NX 4096
#define NY 1000
constexpr int kThreads = 128;
const int T = 256;
// cuda-samples' helper_functions.h
inline int iDivUp(int a, int b) { return (a % b != 0) ? (a / b + 1) : (a / b); }
static inline unsigned div_up(unsigned a, unsigned b) { return (a + b - 1) / b; }
inline int div_down(int a, int b) { return a / b; }  // named like a helper, rounds down
inline int ceil_div_f(float a, float b) { return ceilf(a / b); }
int opaque_blocks(int n, int b);

__global__ void k(int n, float *a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = 1.0f;
}
__global__ void k2(int nx, int ny, float *a) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < ny && j < nx) a[i * nx + j] = 1.0f;
}

void a_const_int(int n, float *a) { k<<<(n + T - 1) / T, T>>>(n, a); }
void a_constexpr(int n, float *a) { k<<<(n + kThreads - 1) / kThreads, kThreads>>>(n, a); }
void a_macro(int n, float *a) { k<<<DIV_ROUND_UP(n, 64), 64>>>(n, a); }
void a_minus_one(int n, float *a) { k<<<(n - 1) / T + 1, T>>>(n, a); }
void a_plus_test(int n, float *a) { k<<<n / T + (n % T != 0), T>>>(n, a); }
void a_plus_cond(int n, float *a) { k<<<n / T + (n % T ? 1 : 0), T>>>(n, a); }
void a_plus_greater(int n, float *a) { k<<<n / T + (n % T > 0), T>>>(n, a); }
void a_cond_eq(int n, float *a) { k<<<n % T == 0 ? n / T : n / T + 1, T>>>(n, a); }
void a_plus_one(int n, float *a) { k<<<n / T + 1, T>>>(n, a); }
void a_idivup(int n, float *a) { k<<<iDivUp(n, T), T>>>(n, a); }
void a_div_up_member(int n, float *a) {
  dim3 block(T);
  dim3 grid(div_up(n, block.x));
  k<<<grid, block>>>(n, a);
}
void a_ceil_double(int n, float *a) {
  dim3 block(T);
  dim3 grid((unsigned int)ceil((double)n / block.x));
  k<<<grid, block>>>(n, a);
}
void a_std_ceil(int n, float *a) { k<<<(int)std::ceil((double)n / (double)T), T>>>(n, a); }
void a_ceilf_short(short s, float *a) { k<<<(int)ceilf(s / (float)T), T>>>(s, a); }
void a_ceil_float_const(float *a) {
  dim3 block(32, 8);
  dim3 grid((size_t)ceil(((float)NX) / ((float)block.x)), (size_t)ceil(((float)NY) / ((float)block.y)));
  k2<<<grid, block>>>(NX, NY, a);
}
void a_local_blocks(int n, float *a) {
  int threads = 256;
  int blocks = (n + threads - 1) / threads;
  k<<<blocks, threads>>>(n, a);
}
void a_blockdim_name(int n, float *a) {
  dim3 blockDim(128);
  dim3 gridDim((n + blockDim.x - 1) / blockDim.x);
  k<<<gridDim, blockDim>>>(n, a);
}
void a_symbolic_block(int n, int threads, float *a) {
  k<<<(n - 1) / threads + 1, threads>>>(n, a);
}
void a_symbolic_idivup(int n, int threads, float *a) { k<<<iDivUp(n, threads), threads>>>(n, a); }
void a_float_helper_const(float *a) { k<<<ceil_div_f(NY, 32), 32>>>(NY, a); }
void a_exact_const(float *a) { k<<<NX / 256, 256>>>(NX, a); }

void r_ceil_float(int n, float *a) {
  dim3 block(32, 8);
  dim3 grid((size_t)ceil(((float)n) / ((float)block.x)), (size_t)ceil(((float)n) / ((float)block.y)));
  k2<<<grid, block>>>(n, n, a);
}
void r_ceilf(int n, float *a) { k<<<(int)ceilf(n / (float)T), T>>>(n, a); }
void r_float_helper(int n, float *a) { k<<<ceil_div_f(n, 32), 32>>>(n, a); }
void r_ceil_double_long(long big, float *a) { k<<<(int)ceil((double)big / T), T>>>(big, a); }
void r_floor(int rows, int cols, float *a) { k<<<(rows * cols) / 1024, 1024>>>(rows * cols, a); }
void r_gemver(int n, float *a) {
  dim3 block(256);
  dim3 grid((size_t)(ceil((float)n) / ((float)block.x)));
  k<<<grid, block>>>(n, a);
}
void r_ceil_int_division(int n, float *a) { k<<<(int)ceil(n / T), T>>>(n, a); }
void r_div_down(int n, float *a) { k<<<div_down(n, T), T>>>(n, a); }
void r_one_short(int n, float *a) { k<<<(n + T - 2) / T, T>>>(n, a); }
void r_cond_swapped(int n, float *a) { k<<<n % T ? n / T : n / T + 1, T>>>(n, a); }
void r_other_block(int n, float *a) { k<<<(n + 255) / 256, 128>>>(n, a); }
void r_opaque(int n, float *a) { k<<<opaque_blocks(n, T), T>>>(n, a); }
void r_local_floor(int n, float *a) {
  int blocks = n / T;
  k<<<blocks, T>>>(n, a);
}
void r_const_grid(int n, float *a) { k<<<NX / 256, 256>>>(n, a); }
void r_not_exact_const(float *a) { k<<<NY / 256, 256>>>(NY, a); }
