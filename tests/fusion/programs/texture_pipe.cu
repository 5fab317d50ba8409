// A consumer reading a texture object: never fused (which buffer a texture reads is unknown).
#include <cuda_runtime.h>
__global__ void produce(const float *in, float *tmp, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) tmp[y * w + x] = 2.0f * in[y * w + x];
}
__global__ void sample(cudaTextureObject_t tex, const float *tmp, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = tmp[y * w + x] + tex2D<float>(tex, x + 0.5f, y + 0.5f);
}
void pipeline(cudaTextureObject_t tex, const float *in, float *tmp, float *out, int w, int h) {
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  produce<<<g, b>>>(in, tmp, w, h);
  sample<<<g, b>>>(tex, tmp, out, w, h);
}
