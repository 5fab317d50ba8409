// Red-team program for issue 25's session-10 helper copies (our own): a helper of two
// launches with a default argument, called with every argument in a loop.
#include <cuda_runtime.h>

__global__ void rd_scale(const float *in, float *out, float s, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = in[y * w + x] * s + 0.25f;
}

__global__ void rd_left(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = in[y * w + max(x - 1, 0)] - in[y * w + x];
}

void rd_two(const float *in, float *tmp, float *out, int w, int h, float s = 3.0f) {
  dim3 b(8, 4), g((w + 7) / 8, (h + 3) / 4);
  rd_scale<<<g, b>>>(in, tmp, s, w, h);
  rd_left<<<g, b>>>(tmp, out, w, h);
}

void rd_pair(const float *in, float *t, float *a, float *out, int w, int h) {
  rd_two(in, t, a, w, h, 0.5f);
  rd_two(a, t, out, w, h);
}
