// Warp matrix multiply-accumulate (mma.h) on the emulator: one warp per output tile, D =
// alpha * A B + beta * C over k tiles, for each input type. test_emu_wmma.py computes the same
// sums in numpy, in the emulator's documented order, and compares every element.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

// A is m x kk row-major, B is kk x n column-major, C and D are m x n row-major (D may be C).
// Blocks of 64 threads: warp w of block b computes output tile (b, w) of a grid of tiles.
template <class In, class Acc, class Frag, int M, int N, int K>
__device__ void gemm_tile(const In *a, const In *b, const Acc *c, Acc *d, int m, int n,
                          int kk, Acc alpha, Acc beta) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int tiles_n = n / N;
  int row = warp / tiles_n * M, col = warp % tiles_n * N;
  if (row >= m) return;
  wmma::fragment<wmma::matrix_a, M, N, K, Frag, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, Frag, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, M, N, K, Acc> acc, fc;
  wmma::fill_fragment(acc, 0);
  for (int k = 0; k < kk; k += K) {
    wmma::load_matrix_sync(fa, a + row * kk + k, kk);
    wmma::load_matrix_sync(fb, b + col * kk + k, kk);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::load_matrix_sync(fc, c + row * n + col, n, wmma::mem_row_major);
  for (int i = 0; i < fc.num_elements; ++i) fc.x[i] = alpha * acc.x[i] + beta * fc.x[i];
  wmma::store_matrix_sync(d + row * n + col, fc, n, wmma::mem_row_major);
}

__global__ void gemm_half(const half *a, const half *b, const float *c, float *d, int m, int n,
                          int k, float alpha, float beta) {
  gemm_tile<half, float, half, 16, 16, 16>(a, b, c, d, m, n, k, alpha, beta);
}
__global__ void gemm_bf16(const __nv_bfloat16 *a, const __nv_bfloat16 *b, const float *c,
                          float *d, int m, int n, int k, float alpha, float beta) {
  gemm_tile<__nv_bfloat16, float, __nv_bfloat16, 16, 16, 16>(a, b, c, d, m, n, k, alpha, beta);
}
__global__ void gemm_double(const double *a, const double *b, const double *c, double *d, int m,
                            int n, int k, double alpha, double beta) {
  gemm_tile<double, double, double, 8, 8, 4>(a, b, c, d, m, n, k, alpha, beta);
}
__global__ void gemm_int8(const signed char *a, const signed char *b, const int *c, int *d,
                          int m, int n, int k, int alpha, int beta) {
  gemm_tile<signed char, int, signed char, 16, 16, 16>(a, b, c, d, m, n, k, alpha, beta);
}

// tf32: the fragments hold floats, rounded with __float_to_tf32 after loading.
__global__ void gemm_tf32(const float *a, const float *b, float *d, int m, int n, int kk) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int row = warp / (n / 16) * 16, col = warp % (n / 16) * 16;
  if (row >= m) return;
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < kk; k += 8) {
    wmma::load_matrix_sync(fa, a + row * kk + k, kk);
    wmma::load_matrix_sync(fb, b + col * kk + k, kk);
    for (int i = 0; i < fa.num_elements; ++i) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
    for (int i = 0; i < fb.num_elements; ++i) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(d + col * m + row, acc, m, wmma::mem_col_major);
}
