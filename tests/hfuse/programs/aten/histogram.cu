// A 1-D histogram in the style of PyTorch ATen's SummaryOps.cu (written for cudafuse's
// tests): a kernel in at::cuda, an enum template parameter with a default, dynamic shared
// memory.
#include "aten_common.cuh"

namespace at {
namespace cuda {

enum class CUDAHistogramMemoryType { SHARED, GLOBAL };

template <typename input_t, typename IndexType>
__device__ static IndexType getBin(input_t bVal, input_t minvalue, input_t maxvalue,
                                   int64_t nbins) {
  IndexType bin = (int)((bVal - minvalue) * nbins / (maxvalue - minvalue));
  if (bin == nbins) bin -= 1;
  return bin;
}

template <typename output_t, typename input_t, typename IndexType,
          CUDAHistogramMemoryType MemoryType = CUDAHistogramMemoryType::SHARED>
__global__ void kernelHistogram1D(output_t* a, const input_t* b, int64_t nbins,
                                  input_t minvalue, input_t maxvalue,
                                  IndexType totalElements) {
  extern __shared__ unsigned char my_smem[];
  output_t* smem = nullptr;
  if (MemoryType == CUDAHistogramMemoryType::SHARED) {
    smem = reinterpret_cast<output_t*>(my_smem);
    for (IndexType i = threadIdx.x; i < nbins; i += blockDim.x) smem[i] = 0;
    __syncthreads();
  }
  for (IndexType linearIndex = blockIdx.x * blockDim.x + threadIdx.x;
       linearIndex < totalElements; linearIndex += gridDim.x * blockDim.x) {
    const input_t bVal = b[linearIndex];
    if (bVal >= minvalue && bVal <= maxvalue) {
      const IndexType bin = getBin<input_t, IndexType>(bVal, minvalue, maxvalue, nbins);
      if (MemoryType == CUDAHistogramMemoryType::SHARED)
        atomicAdd(&smem[bin], 1);
      else
        atomicAdd(&a[bin], 1);
    }
  }
  if (MemoryType == CUDAHistogramMemoryType::SHARED) {
    __syncthreads();
    for (IndexType i = threadIdx.x; i < nbins; i += blockDim.x) atomicAdd(&a[i], smem[i]);
  }
}

}  // namespace cuda

namespace native {

void histc_float(const float* self, int64_t n, int64_t nbins, float minv, float maxv,
                 int* hist) {
  cuda::kernelHistogram1D<int, float, int>
      <<<cuda::detail::GET_BLOCKS(n, 256), 256, nbins * sizeof(int)>>>(
          hist, self, nbins, minv, maxv, static_cast<int>(n));
}

}  // namespace native
}  // namespace at
