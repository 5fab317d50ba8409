// Max pooling in the style of PyTorch ATen's DilatedMaxPool2d.cu (written for cudafuse's
// tests): the file's own min/max, which hide CUDA's ::min/::max inside at::native.
#include "aten_common.cuh"

namespace at {
namespace native {
namespace {

__device__ inline int min(int a, int b) { return a <= b ? a : b; }
__device__ inline int max(int a, int b) { return a >= b ? a : b; }

template <typename scalar_t, typename accscalar_t>
__global__ void max_pool_forward_nchw(
    const int nthreads, const scalar_t* bottom_data, const int64_t channels,
    const int64_t height, const int64_t width, const int pooled_height,
    const int pooled_width, const int kernel_h, const int kernel_w, const int stride_h,
    const int stride_w, const int pad_h, const int pad_w, scalar_t* top_data,
    int64_t* top_mask) {
  CUDA_KERNEL_LOOP(index, nthreads) {
    int pw = index % pooled_width;
    int ph = (index / pooled_width) % pooled_height;
    int c = (index / pooled_width / pooled_height) % channels;
    int n = index / pooled_width / pooled_height / channels;
    int hstart = ph * stride_h - pad_h;
    int wstart = pw * stride_w - pad_w;
    int hend = min(hstart + kernel_h, height);
    int wend = min(wstart + kernel_w, width);
    hstart = max(hstart, 0);
    wstart = max(wstart, 0);
    accscalar_t maxval = -1e30f;
    int maxidx = hstart * width + wstart;
    const scalar_t* btm = bottom_data + (n * channels + c) * height * width;
    for (int h = hstart; h < hend; h++) {
      for (int w = wstart; w < wend; w++) {
        scalar_t val = btm[h * width + w];
        if (static_cast<accscalar_t>(val) > maxval) {
          maxidx = h * width + w;
          maxval = static_cast<accscalar_t>(val);
        }
      }
    }
    top_data[index] = static_cast<scalar_t>(maxval);
    top_mask[index] = maxidx;
  }
}

}  // namespace

void max_pool_float(const float* input, int64_t batch, int64_t channels, int64_t height,
                    int64_t width, int kernel, int stride, int pad, float* output,
                    int64_t* indices) {
  int pooled_h = (height + 2 * pad - kernel) / stride + 1;
  int pooled_w = (width + 2 * pad - kernel) / stride + 1;
  int count = batch * channels * pooled_h * pooled_w;
  max_pool_forward_nchw<float, float>
      <<<cuda::detail::GET_BLOCKS(count, 256), 256>>>(
          count, input, channels, height, width, pooled_h, pooled_w, kernel, kernel, stride,
          stride, pad, pad, output, indices);
}

}  // namespace native
}  // namespace at
