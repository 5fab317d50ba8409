// Written for cudafuse's tests in the style of PyTorch ATen's CUDA helpers (not copied):
// a grid-stride loop macro, launch-bounds macros and block counts in at::cuda::detail.
#pragma once
#include <cstdint>

#define C10_MAX_THREADS_PER_BLOCK(val) (((val) <= 0) ? 1024 : (val))
#define C10_LAUNCH_BOUNDS_1(max_threads_per_block) \
  __launch_bounds__((C10_MAX_THREADS_PER_BLOCK((max_threads_per_block))))

#define CUDA_KERNEL_LOOP_TYPE(i, n, index_type)                                   \
  int64_t _i_n_d_e_x = blockIdx.x * blockDim.x + threadIdx.x;                     \
  for (index_type i = _i_n_d_e_x; _i_n_d_e_x < (n);                               \
       _i_n_d_e_x += blockDim.x * gridDim.x, i = _i_n_d_e_x)
#define CUDA_KERNEL_LOOP(i, n) CUDA_KERNEL_LOOP_TYPE(i, n, int)

namespace at {
namespace cuda {
namespace detail {
constexpr int CUDA_NUM_THREADS = 128;
inline int GET_BLOCKS(const int64_t N, const int64_t max_threads_per_block = CUDA_NUM_THREADS) {
  return static_cast<int>((N + max_threads_per_block - 1) / max_threads_per_block);
}
}  // namespace detail
}  // namespace cuda
}  // namespace at
