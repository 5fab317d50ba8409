// 2D max pooling over NCHW float input (HFuse benchmark "Maxpool", after PyTorch's
// max_pool2d forward): kernel k x k, stride s, no padding; one thread per output element,
// 1D blocks of 256 (__launch_bounds__) with a grid-stride loop. No shared memory, no barriers.
// Memory-bound (k*k loads per output, one store).
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define MAXPOOL_BLOCK 256

__global__ void __launch_bounds__(MAXPOOL_BLOCK)
maxpool2d_kernel(const float *__restrict__ in, float *__restrict__ out, int nc, int h, int w,
                 int k, int s)
{
    int oh = (h - k) / s + 1, ow = (w - k) / s + 1;
    int total = nc * oh * ow;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
        int x = i % ow, y = (i / ow) % oh, c = i / (ow * oh);
        const float *p = in + (size_t)c * h * w + (size_t)(y * s) * w + x * s;
        float m = p[0];
        for (int dy = 0; dy < k; ++dy)
            for (int dx = 0; dx < k; ++dx) {
                float v = p[dy * w + dx];
                if (v > m || v != v) m = v;   // NaN propagates, as in PyTorch
            }
        out[i] = m;
    }
}

extern "C" void maxpool2d_run(const float *in, float *out, int nc, int h, int w, int k, int s)
{
    int total = nc * ((h - k) / s + 1) * ((w - k) / s + 1);
    int grid = (total + MAXPOOL_BLOCK - 1) / MAXPOOL_BLOCK;
    if (grid > 1024) grid = 1024;
    maxpool2d_kernel<<<grid, MAXPOOL_BLOCK>>>(in, out, nc, h, w, k, s);
}

#ifndef CUDAFUSE_NO_MAIN
int main()
{
    const int nc = 64, h = 112, w = 112, k = 3, s = 2;
    const int oh = (h - k) / s + 1, ow = (w - k) / s + 1;
    size_t nin = (size_t)nc * h * w, nout = (size_t)nc * oh * ow;
    float *hi = (float *)malloc(nin * 4), *ho = (float *)malloc(nout * 4);
    unsigned int x = 7u;
    for (size_t i = 0; i < nin; ++i) { x = x * 1664525u + 1013904223u; hi[i] = (x >> 8) * (1.0f / 16777216.0f); }
    float *di, *dout;
    cudaMalloc(&di, nin * 4);
    cudaMalloc(&dout, nout * 4);
    cudaMemcpy(di, hi, nin * 4, cudaMemcpyHostToDevice);
    maxpool2d_run(di, dout, nc, h, w, k, s);
    cudaMemcpy(ho, dout, nout * 4, cudaMemcpyDeviceToHost);
    double sum = 0;
    for (size_t i = 0; i < nout; ++i) sum += ho[i];
    printf("checksum %.6f\n", sum);
    cudaFree(di); cudaFree(dout); free(hi); free(ho);
    return 0;
}
#endif
