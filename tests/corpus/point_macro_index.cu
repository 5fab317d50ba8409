// 2D point operator whose index arithmetic hides in (nested) macros.
// EXPECT-KERNEL: brighten 5
// EXPECT-KERNEL: invert 4
// EXPECT-LAUNCH: process -> brighten 5
// EXPECT-LAUNCH: process -> invert 4
#include <cuda_runtime.h>

#define IDX(x, y, w) ((y) * (w) + (x))
#define GX (blockIdx.x * blockDim.x + threadIdx.x)
#define GY (blockIdx.y * blockDim.y + threadIdx.y)
#define AT(p, x, y, w) (p)[IDX(x, y, w)]
#define INSIDE(x, y, w, h) ((x) < (w) && (y) < (h))

__global__ void brighten(const float *in, float *out, int w, int h, float gain) {
  int x = GX, y = GY;
  if (!INSIDE(x, y, w, h)) return;
  AT(out, x, y, w) = AT(in, x, y, w) * gain;
}

__global__ void invert(const float *in, float *out, int w, int h) {
  const int x = GX;
  const int y = GY;
  if (INSIDE(x, y, w, h))
    out[IDX(x, y, w)] = 1.0f - in[IDX(x, y, w)];
}

extern "C" void process(const float *in, float *tmp, float *out, int w, int h) {
  dim3 block(16, 16);
  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  brighten<<<grid, block>>>(in, tmp, w, h, 1.5f);
  invert<<<grid, block>>>(tmp, out, w, h);
}
