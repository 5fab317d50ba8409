// RUN: hfuse %s --kernels 'tile_sum<float, 32>,shift<int>' -o -
// Template kernels named with their arguments: namespace-scope aliases bind the parameters
// (the default of U names T), the fused signature uses them, each part's scope declares the
// original names again; block sizes default to the launch bounds (a template argument).
#include <cuda_runtime.h>

template <typename T, int BS>
__global__ void __launch_bounds__(BS) tile_sum(const T *in, T *out, int n) {
  __shared__ T tile[BS];
  int i = blockIdx.x * BS + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : T(0);
  __syncthreads();
  if (threadIdx.x == 0) {
    T s = T(0);
    for (int k = 0; k < BS; ++k) s += tile[k];
    out[blockIdx.x] = s;
  }
}

template <typename T, typename U = T>
__global__ void __launch_bounds__(64) shift(T *x, U by, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += by;
}

// CODE: // Horizontally fused by cudafuse hfuse from template_kernels.cu: kernels 'tile_sum<float, 32>' (block 32) and 'shift<int, int>' (block 64),
// CODE-NEXT: // mode thread, split 32+64 threads, regcap none.
// CODE: // The template arguments of the two kernels.
// CODE-NEXT: using cf_tp1_T = float;
// CODE-NEXT: constexpr int cf_tp1_BS = 32;
// CODE-NEXT: using cf_tp2_T = int;
// CODE-NEXT: using cf_tp2_U = cf_tp2_T;
// CODE: __global__ void __launch_bounds__(96) tile_sum_shift_hfused(const cf_tp1_T *cf_p1_in,
// CODE-NEXT: cf_tp1_T *cf_p1_out,
// CODE: cf_tp2_T *cf_p2_x,
// CODE-NEXT: cf_tp2_U cf_p2_by,
// CODE: // part 1: kernel 'tile_sum<float, 32>'
// CODE-NEXT: using T = cf_tp1_T;
// CODE-NEXT: {{\[\[maybe_unused\]\]}} constexpr decltype(cf_tp1_BS) BS = cf_tp1_BS;
// CODE: __shared__ T tile[BS];
// CODE: CUDAFUSE_BAR_SYNC(1, 32);
// CODE: // part 2: kernel 'shift<int, int>'
// CODE-NEXT: using T = cf_tp2_T;
// CODE-NEXT: using U = cf_tp2_U;
// CODE: void tile_sum_shift_hfused_launch(const cf_tp1_T *cf_p1_in,
