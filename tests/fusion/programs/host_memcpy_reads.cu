// A device-to-device copy between two launches (host/hoststmts.py memory_reason): one that
// only reads a buffer the earlier launch only reads does not split them; one that reads a
// buffer the earlier launch writes, or writes a buffer it reads, does
// (test_fuse_host_memcpy_reads.py).
#include <cuda_runtime.h>

__global__ void mr_scale(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = in[y * w + x] * 2.0f;
}
__global__ void mr_offset(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = in[y * w + x] + 1.0f;
}

// Copies the input both kernels' first one reads: read against read.
extern "C" void mr_read_read(const float *in, float *tmp, float *out, float *copy, int w,
                             int h) {
  dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
  mr_scale<<<grid, block>>>(in, tmp, w, h);
  cudaMemcpy(copy, in, sizeof(float) * w * h, cudaMemcpyDeviceToDevice);
  mr_offset<<<grid, block>>>(tmp, out, w, h);
}

// Copies the intermediate the first launch writes: the copy must see it.
extern "C" void mr_reads_written(const float *in, float *tmp, float *out, float *copy, int w,
                                 int h) {
  dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
  mr_scale<<<grid, block>>>(in, tmp, w, h);
  cudaMemcpy(copy, tmp, sizeof(float) * w * h, cudaMemcpyDeviceToDevice);
  mr_offset<<<grid, block>>>(tmp, out, w, h);
}

// Overwrites the input the first launch reads: the launch must read it first.
extern "C" void mr_overwrites_read(const float *in, float *src, float *tmp, float *out, int w,
                                   int h) {
  dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
  mr_scale<<<grid, block>>>(src, tmp, w, h);
  cudaMemcpy(src, in, sizeof(float) * w * h, cudaMemcpyDeviceToDevice);
  mr_offset<<<grid, block>>>(tmp, out, w, h);
}
