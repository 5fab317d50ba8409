// Helper __device__ functions, including ones that read threadIdx themselves.
// EXPECT-KERNEL: scale_rows 4
// EXPECT-LAUNCH: launch_scale -> scale_rows 4
#include <cuda_runtime.h>

__device__ __forceinline__ int global_x() { return blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ int global_y() { return blockIdx.y * blockDim.y + threadIdx.y; }

__device__ inline float lerp(float a, float b, float t) { return a + t * (b - a); }

static __device__ float load(const float *p, int x, int y, int pitch) { return p[y * pitch + x]; }

__global__ void scale_rows(const float *src, float *dst, int w, int h) {
  int x = global_x();
  int y = global_y();
  if (x >= w || y >= h) return;
  float t = (float)y / (float)(h - 1);
  dst[y * w + x] = lerp(0.5f, 2.0f, t) * load(src, x, y, w);
}

extern "C" void launch_scale(const float *src, float *dst, int w, int h) {
  dim3 b(32, 8);
  dim3 g((w + 31) / 32, (h + 7) / 8);
  scale_rows<<<g, b>>>(src, dst, w, h);
}
