// Enumerators, constexpr and const locals used as array sizes and in index arithmetic.
// EXPECT-KERNEL: quantize 3
// EXPECT-LAUNCH: run_quantize -> quantize 3
#include <cuda_runtime.h>

enum Levels { kLevels = 16 };
constexpr int kBlock = 128;
static const float kScale = 1.0f / 255.0f;

__global__ void quantize(const unsigned char *in, unsigned char *out, int n) {
  const int lanes = kBlock;
  __shared__ unsigned char tile[kBlock];
  int i = blockIdx.x * lanes + threadIdx.x;
  if (i < n) tile[threadIdx.x] = in[i];
  __syncthreads();
  if (i < n) {
    float v = tile[threadIdx.x] * kScale;
    out[i] = (unsigned char)((int)(v * (kLevels - 1) + 0.5f) * (255 / (kLevels - 1)));
  }
}

extern "C" void run_quantize(const unsigned char *in, unsigned char *out, int n) {
  quantize<<<(n + kBlock - 1) / kBlock, kBlock>>>(in, out, n);
}
