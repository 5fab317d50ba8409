// Structs and classes used in kernels: a params struct by value and an image view class.
// EXPECT-KERNEL: tone_map 3
// EXPECT-LAUNCH: run_tone_map -> tone_map 3
#include <cuda_runtime.h>

struct ToneParams {
  float exposure;
  float gamma;
  int width, height;
};

class ImageView {
 public:
  __host__ __device__ ImageView(float *data, int pitch) : data_(data), pitch_(pitch) {}
  __device__ float &at(int x, int y) { return data_[y * pitch_ + x]; }
  __device__ float get(int x, int y) const { return data_[y * pitch_ + x]; }

 private:
  float *data_;
  int pitch_;
};

__global__ void tone_map(ImageView src, ImageView dst, ToneParams p) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= p.width || y >= p.height) return;
  float v = src.get(x, y) * p.exposure;
  dst.at(x, y) = powf(v / (1.0f + v), 1.0f / p.gamma);
}

extern "C" void run_tone_map(float *in, float *out, int w, int h) {
  ToneParams p{1.5f, 2.2f, w, h};
  dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
  tone_map<<<g, b>>>(ImageView(in, w), ImageView(out, w), p);
}
