// Batch-norm statistics in the style of PyTorch ATen's Normalization.cuh (written for
// cudafuse's tests): a template template parameter (the variance transform), a non-type
// parameter with a default, a block reduction through shared memory.
#include "aten_common.cuh"

namespace at {
namespace native {

__device__ inline float device_sqrt(float x) { return sqrtf(x); }

template <typename T>
struct InvStd {
  __device__ __forceinline__ T operator()(T var, double epsilon) const {
    T invstd = 0;
    if (var != static_cast<T>(0) || epsilon != static_cast<T>(0)) {
      invstd = static_cast<T>(1) / device_sqrt(var + static_cast<T>(epsilon));
    }
    return invstd;
  }
};

template <typename T>
struct Var {
  __device__ __forceinline__ T operator()(T var, double epsilon) const { return var; }
};

template <template <typename T> class VarTransform, typename input_scalar_t,
          typename stat_accscalar_t, typename index_t, int BLOCK = 128>
__global__ void batch_norm_collect_statistics_kernel(
    const input_scalar_t* input, const index_t batch, const index_t channels,
    const index_t plane, const stat_accscalar_t epsilon, stat_accscalar_t* save_mean,
    stat_accscalar_t* save_transformed_var) {
  __shared__ stat_accscalar_t shared_sum[BLOCK];
  __shared__ stat_accscalar_t shared_sq[BLOCK];
  const index_t c = blockIdx.x;
  const index_t n = batch * plane;
  stat_accscalar_t sum = 0;
  for (index_t i = threadIdx.x; i < n; i += blockDim.x) {
    const index_t b = i / plane, p = i % plane;
    sum += static_cast<stat_accscalar_t>(input[(b * channels + c) * plane + p]);
  }
  shared_sum[threadIdx.x] = sum;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) shared_sum[threadIdx.x] += shared_sum[threadIdx.x + s];
    __syncthreads();
  }
  const stat_accscalar_t mean = shared_sum[0] / n;
  stat_accscalar_t sq = 0;
  for (index_t i = threadIdx.x; i < n; i += blockDim.x) {
    const index_t b = i / plane, p = i % plane;
    const stat_accscalar_t d =
        static_cast<stat_accscalar_t>(input[(b * channels + c) * plane + p]) - mean;
    sq += d * d;
  }
  shared_sq[threadIdx.x] = sq;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) shared_sq[threadIdx.x] += shared_sq[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    save_mean[c] = mean;
    save_transformed_var[c] = VarTransform<stat_accscalar_t>{}(shared_sq[0] / n, epsilon);
  }
}

void batch_norm_stats_float(const float* input, int batch, int channels, int plane,
                            float epsilon, float* mean, float* invstd) {
  batch_norm_collect_statistics_kernel<InvStd, float, float, int>
      <<<channels, 128>>>(input, batch, channels, plane, epsilon, mean, invstd);
}

}  // namespace native
}  // namespace at
