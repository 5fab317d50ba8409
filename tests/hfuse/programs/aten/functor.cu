// A histogram in the style of PyTorch ATen's SummaryOps.cu (written for cudafuse's tests): the
// kernel takes the weight as a functor whose type its launch deduces from a lambda, loops
// through a macro that the file #undefs at its end, and a template host function that nothing
// instantiates launches it through a macro.
#include "aten_common.cuh"

namespace at {
namespace cuda {
#define BINS_LOOP(i, lim)                                              \
  for (IndexType i = blockIdx.x * blockDim.x + threadIdx.x; i < lim; \
       i += blockDim.x * gridDim.x)

template <typename output_t, typename IndexType, typename Op>
__global__ void count_bins(output_t *bins, const int *in, IndexType n, Op getOp) {
  BINS_LOOP(i, n) {
    atomicAdd(&bins[in[i]], getOp(i));
  }
}

inline void count_ones(int *bins, const int *in, int n) {
  auto one = [] __device__(int) { return 1; };
  count_bins<int, int><<<detail::GET_BLOCKS(n), 128>>>(bins, in, n, one);
}

#define LAUNCH_BINS(OP)                                \
  count_bins<output_t, int>                            \
      <<<detail::GET_BLOCKS(n),                        \
         128>>>(bins, in, n, OP);

template <typename output_t>
void sum_weights(output_t *bins, const int *in, int n, const output_t *w) {
  const auto weight = [w] __device__(int i) { return w[i]; };
  LAUNCH_BINS(weight)
}
#undef LAUNCH_BINS
#undef BINS_LOOP
}  // namespace cuda
}  // namespace at
