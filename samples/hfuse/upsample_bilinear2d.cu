// Bilinear 2D upsampling of NCHW float input (HFuse benchmark "Upsample", after PyTorch's
// upsample_bilinear2d forward with align_corners=false): nc planes of ih x iw resized to
// oh x ow; source coordinate max((dst + 0.5) * in/out - 0.5, 0), the lower neighbour its
// integer part, the upper one clamped to the last row/column, weights as PyTorch computes
// them (float). One thread per output element, 1D blocks of 256 (__launch_bounds__) with a
// grid-stride loop. No shared memory, no barriers. Memory-bound (4 loads per output, one store).
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define UPSAMPLE_BLOCK 256

__global__ void __launch_bounds__(UPSAMPLE_BLOCK)
upsample_bilinear2d_kernel(const float *__restrict__ in, float *__restrict__ out, int nc,
                           int ih, int iw, int oh, int ow)
{
    const float rh = (float)ih / (float)oh, rw = (float)iw / (float)ow;
    int total = nc * oh * ow;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
        int x = i % ow, y = (i / ow) % oh, c = i / (ow * oh);
        float sy = rh * ((float)y + 0.5f) - 0.5f;
        if (sy < 0.0f) sy = 0.0f;
        int y1 = (int)sy;                         // sy >= 0: truncation is floor
        int y1p = (y1 < ih - 1) ? 1 : 0;
        float ly1 = sy - (float)y1, ly0 = 1.0f - ly1;
        float sx = rw * ((float)x + 0.5f) - 0.5f;
        if (sx < 0.0f) sx = 0.0f;
        int x1 = (int)sx;
        int x1p = (x1 < iw - 1) ? 1 : 0;
        float lx1 = sx - (float)x1, lx0 = 1.0f - lx1;
        const float *p = in + (size_t)c * ih * iw + (size_t)y1 * iw + x1;
        const float *q = p + y1p * iw;
        out[i] = ly0 * (lx0 * p[0] + lx1 * p[x1p]) + ly1 * (lx0 * q[0] + lx1 * q[x1p]);
    }
}

extern "C" void upsample_bilinear2d_run(const float *in, float *out, int nc, int ih, int iw,
                                        int oh, int ow)
{
    int total = nc * oh * ow;
    int grid = (total + UPSAMPLE_BLOCK - 1) / UPSAMPLE_BLOCK;
    if (grid > 1024) grid = 1024;
    upsample_bilinear2d_kernel<<<grid, UPSAMPLE_BLOCK>>>(in, out, nc, ih, iw, oh, ow);
}

#ifndef CUDAFUSE_NO_MAIN
int main()
{
    const int nc = 64, ih = 56, iw = 56, oh = 112, ow = 112;
    size_t nin = (size_t)nc * ih * iw, nout = (size_t)nc * oh * ow;
    float *hi = (float *)malloc(nin * 4), *ho = (float *)malloc(nout * 4);
    unsigned int x = 11u;
    for (size_t i = 0; i < nin; ++i) { x = x * 1664525u + 1013904223u; hi[i] = (x >> 8) * (1.0f / 16777216.0f); }
    float *di, *dout;
    cudaMalloc(&di, nin * 4);
    cudaMalloc(&dout, nout * 4);
    cudaMemcpy(di, hi, nin * 4, cudaMemcpyHostToDevice);
    upsample_bilinear2d_run(di, dout, nc, ih, iw, oh, ow);
    cudaMemcpy(ho, dout, nout * 4, cudaMemcpyDeviceToHost);
    double sum = 0;
    for (size_t i = 0; i < nout; ++i) sum += ho[i];
    printf("checksum %.6f\n", sum);
    cudaFree(di); cudaFree(dout); free(hi); free(ho);
    return 0;
}
#endif
