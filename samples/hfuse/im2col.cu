// im2col of a CHW float image (HFuse benchmark "Im2Col", after Caffe's / PyTorch's im2col
// forward): kernel kh x kw, zero padding ph/pw, stride sh/sw, dilation 1. Output: a
// (c*kh*kw) x (oh*ow) row-major matrix, row (ch*kh + dy)*kw + dx, column oy*ow + ox;
// taps outside the image are 0. One thread per (channel, oy, ox), writing its kh*kw column
// entries; 1D blocks of 256 (__launch_bounds__) with a grid-stride loop. No shared memory,
// no barriers. Memory-bound (kh*kw loads and strided stores per thread).
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define IM2COL_BLOCK 256

__global__ void __launch_bounds__(IM2COL_BLOCK)
im2col_kernel(const float *__restrict__ im, float *__restrict__ col, int c, int h, int w,
              int kh, int kw, int ph, int pw, int sh, int sw)
{
    int oh = (h + 2 * ph - kh) / sh + 1, ow = (w + 2 * pw - kw) / sw + 1;
    int total = c * oh * ow;
    size_t plane = (size_t)oh * ow;               // distance between consecutive rows of col
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
        int ox = i % ow, oy = (i / ow) % oh, ch = i / (ow * oh);
        int y0 = oy * sh - ph, x0 = ox * sw - pw;
        const float *src = im + (size_t)ch * h * w;
        float *dst = col + (size_t)ch * kh * kw * plane + (size_t)oy * ow + ox;
        for (int dy = 0; dy < kh; ++dy) {
            int y = y0 + dy;
            for (int dx = 0; dx < kw; ++dx) {
                int x = x0 + dx;
                float v = 0.0f;
                if (y >= 0 && y < h && x >= 0 && x < w)
                    v = src[y * w + x];
                *dst = v;
                dst += plane;
            }
        }
    }
}

extern "C" void im2col_run(const float *im, float *col, int c, int h, int w, int kh, int kw,
                           int ph, int pw, int sh, int sw)
{
    int total = c * ((h + 2 * ph - kh) / sh + 1) * ((w + 2 * pw - kw) / sw + 1);
    int grid = (total + IM2COL_BLOCK - 1) / IM2COL_BLOCK;
    if (grid > 1024) grid = 1024;
    im2col_kernel<<<grid, IM2COL_BLOCK>>>(im, col, c, h, w, kh, kw, ph, pw, sh, sw);
}

#ifndef CUDAFUSE_NO_MAIN
int main()
{
    const int c = 64, h = 56, w = 56, kh = 3, kw = 3, ph = 1, pw = 1, sh = 1, sw = 1;
    const int oh = (h + 2 * ph - kh) / sh + 1, ow = (w + 2 * pw - kw) / sw + 1;
    size_t nin = (size_t)c * h * w, nout = (size_t)c * kh * kw * oh * ow;
    float *hi = (float *)malloc(nin * 4), *ho = (float *)malloc(nout * 4);
    unsigned int x = 3u;
    for (size_t i = 0; i < nin; ++i) { x = x * 1664525u + 1013904223u; hi[i] = (x >> 8) * (1.0f / 16777216.0f); }
    float *di, *dout;
    cudaMalloc(&di, nin * 4);
    cudaMalloc(&dout, nout * 4);
    cudaMemcpy(di, hi, nin * 4, cudaMemcpyHostToDevice);
    im2col_run(di, dout, c, h, w, kh, kw, ph, pw, sh, sw);
    cudaMemcpy(ho, dout, nout * 4, cudaMemcpyDeviceToHost);
    double sum = 0;
    for (size_t i = 0; i < nout; ++i) sum += (double)ho[i] * (double)(i % 7 + 1);
    printf("checksum %.6f\n", sum);
    cudaFree(di); cudaFree(dout); free(hi); free(ho);
    return 0;
}
#endif
