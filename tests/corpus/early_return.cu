// Early returns in several places: guard, data-dependent exit, and a void helper.
// EXPECT-KERNEL: threshold 5
// EXPECT-LAUNCH: binarize -> threshold 5
#include <cuda_runtime.h>

__device__ void write_if(float *p, int i, float v) {
  if (v < 0.0f) return;
  p[i] = v;
}

__global__ void threshold(const float *in, float *out, int w, int h, float t) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= w) return;
  int y = blockIdx.y;
  if (y >= h) {
    return;
  }
  float v = in[y * w + x];
  if (v != v) return;  // NaN: leave the output untouched
  write_if(out, y * w + x, v > t ? 1.0f : 0.0f);
}

extern "C" void binarize(const float *in, float *out, int w, int h) {
  dim3 grid((w + 127) / 128, h);
  threshold<<<grid, 128>>>(in, out, w, h, 0.5f);
}
