// Templates: type and radius as template parameters, launched with explicit arguments.
// EXPECT-KERNEL: box_blur 4
// EXPECT-KERNEL: convert 3
// EXPECT-LAUNCH: blur_u8 -> convert 3
// EXPECT-LAUNCH: blur_u8 -> box_blur 4
// EXPECT-LAUNCH: blur_u8 -> box_blur 4
#include <cuda_runtime.h>

template <typename T, int R>
__global__ void box_blur(const T *__restrict__ in, T *__restrict__ out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  T acc = T(0);
  for (int dy = -R; dy <= R; ++dy)
    for (int dx = -R; dx <= R; ++dx) {
      int xx = min(max(x + dx, 0), w - 1);
      int yy = min(max(y + dy, 0), h - 1);
      acc += in[yy * w + xx];
    }
  out[y * w + x] = acc / T((2 * R + 1) * (2 * R + 1));
}

template <typename From, typename To>
__global__ void convert(const From *in, To *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<To>(in[i]);
}

extern "C" void blur_u8(const unsigned char *in, float *a, float *b, int w, int h) {
  dim3 blk(16, 16), grd((w + 15) / 16, (h + 15) / 16);
  convert<unsigned char, float><<<(w * h + 255) / 256, 256>>>(in, a, w * h);
  box_blur<float, 1><<<grd, blk>>>(a, b, w, h);
  box_blur<float, 2><<<grd, blk>>>(b, a, w, h);
}
