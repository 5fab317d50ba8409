// im2col in the style of PyTorch ATen's im2col.cuh (written for cudafuse's tests).
#include "aten_common.cuh"

namespace at {
namespace native {

using namespace at::cuda::detail;

template <typename dt>
C10_LAUNCH_BOUNDS_1(1024)
__global__ void im2col_kernel(
    const int64_t n, const dt* data_im, const int64_t height, const int64_t width,
    const int64_t kernel_height, const int64_t kernel_width, const int64_t pad_height,
    const int64_t pad_width, const int64_t stride_height, const int64_t stride_width,
    const int64_t height_col, const int64_t width_col, dt* data_col) {
  CUDA_KERNEL_LOOP(index, n) {
    int64_t w_out = index % width_col;
    int64_t idx = index / width_col;
    int64_t h_out = idx % height_col;
    int64_t channel_in = idx / height_col;
    int64_t channel_out = channel_in * kernel_height * kernel_width;
    int64_t h_in = h_out * stride_height - pad_height;
    int64_t w_in = w_out * stride_width - pad_width;
    dt* col = data_col + (channel_out * height_col + h_out) * width_col + w_out;
    const dt* im = data_im + (channel_in * height + h_in) * width + w_in;
    for (int64_t i = 0; i < kernel_height; ++i) {
      for (int64_t j = 0; j < kernel_width; ++j) {
        int64_t h = h_in + i;
        int64_t w = w_in + j;
        *col = (h >= 0 && w >= 0 && h < height && w < width) ? im[i * width + j] : dt(0);
        col += height_col * width_col;
      }
    }
  }
}

// The host side, as ATen's im2col() launches it (tensors replaced by pointers).
void im2col_float(const float* data_im, int64_t channels, int64_t height, int64_t width,
                  int64_t kh, int64_t kw, int64_t pad, int64_t stride, float* data_col) {
  int64_t height_col = (height + 2 * pad - kh) / stride + 1;
  int64_t width_col = (width + 2 * pad - kw) / stride + 1;
  int64_t num_kernels = channels * height_col * width_col;
  im2col_kernel<float><<<GET_BLOCKS(num_kernels), CUDA_NUM_THREADS>>>(
      num_kernels, data_im, height, width, kh, kw, pad, pad, stride, stride, height_col,
      width_col, data_col);
}

}  // namespace native
}  // namespace at
