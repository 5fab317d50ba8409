// Pitched images (rows `pitch` elements apart, as cudaMallocPitch leaves them), kernels
// taking the row width and the pitch separately.
#include <cuda_runtime.h>
__global__ void to_gray(const float *__restrict__ rgb, float *__restrict__ g, int width,
                        int height, size_t pitch) {
    int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < width && row < height) g[row * pitch + col] = 0.5f * rgb[row * pitch + col];
}
__global__ void gain(const float *__restrict__ g, float *__restrict__ o, int width, int height,
                     size_t pitch) {
    int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < width && row < height) o[row * pitch + col] = g[row * pitch + col] * 2.0f + 1.0f;
}
void run(const float *rgb, float *g, float *o, int width, int height, size_t pitch) {
    dim3 block(16, 16), grid((width + 15) / 16, (height + 15) / 16);
    to_gray<<<grid, block>>>(rgb, g, width, height, pitch);
    gain<<<grid, block>>>(g, o, width, height, pitch);
}
