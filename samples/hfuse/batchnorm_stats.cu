// Per-channel batch statistics (HFuse benchmark "Batchnorm", after PyTorch's
// batch_norm_collect_statistics): NCHW float input, one block per channel, 512 threads
// (__launch_bounds__), each thread sums x and x*x over its strided share of N*H*W, then a
// block reduction: warp shuffles, per-warp partials in static __shared__, __syncthreads,
// warp 0 reduces the partials, __syncthreads, thread 0 writes mean and biased variance.
// Sums in double, so the result does not depend on the order much. Memory-bound.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define BN_BLOCK 512

__global__ void __launch_bounds__(BN_BLOCK)
batchnorm_stats_kernel(const float *__restrict__ in, float *__restrict__ mean, float *__restrict__ var,
                       int n, int c, int hw)
{
    __shared__ double s_sum[BN_BLOCK / 32], s_sq[BN_BLOCK / 32];
    int ch = blockIdx.x;
    int count = n * hw;
    double sum = 0.0, sq = 0.0;
    for (int i = threadIdx.x; i < count; i += blockDim.x) {
        int b = i / hw, p = i % hw;
        float v = in[((size_t)b * c + ch) * hw + p];
        sum += v;
        sq += (double)v * v;
    }
    for (int off = 16; off > 0; off >>= 1) {
        sum += __shfl_down_sync(0xffffffffu, sum, off);
        sq += __shfl_down_sync(0xffffffffu, sq, off);
    }
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { s_sum[warp] = sum; s_sq[warp] = sq; }
    __syncthreads();
    if (warp == 0) {
        int nw = blockDim.x >> 5;
        sum = lane < nw ? s_sum[lane] : 0.0;
        sq = lane < nw ? s_sq[lane] : 0.0;
        for (int off = 16; off > 0; off >>= 1) {
            sum += __shfl_down_sync(0xffffffffu, sum, off);
            sq += __shfl_down_sync(0xffffffffu, sq, off);
        }
        if (lane == 0) { s_sum[0] = sum; s_sq[0] = sq; }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        double m = s_sum[0] / count;
        mean[ch] = (float)m;
        var[ch] = (float)(s_sq[0] / count - m * m);
    }
}

extern "C" void batchnorm_stats_run(const float *in, float *mean, float *var, int n, int c, int hw)
{
    batchnorm_stats_kernel<<<c, BN_BLOCK>>>(in, mean, var, n, c, hw);
}

#ifndef CUDAFUSE_NO_MAIN
int main()
{
    const int n = 32, c = 64, hw = 28 * 28;
    size_t nin = (size_t)n * c * hw;
    float *hi = (float *)malloc(nin * 4), hm[64], hv[64];
    unsigned int x = 3u;
    for (size_t i = 0; i < nin; ++i) { x = x * 1664525u + 1013904223u; hi[i] = (x >> 8) * (1.0f / 16777216.0f); }
    float *di, *dm, *dv;
    cudaMalloc(&di, nin * 4); cudaMalloc(&dm, c * 4); cudaMalloc(&dv, c * 4);
    cudaMemcpy(di, hi, nin * 4, cudaMemcpyHostToDevice);
    batchnorm_stats_run(di, dm, dv, n, c, hw);
    cudaMemcpy(hm, dm, c * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(hv, dv, c * 4, cudaMemcpyDeviceToHost);
    double sum = 0;
    for (int i = 0; i < c; ++i) sum += hm[i] + hv[i];
    printf("checksum %.6f\n", sum);
    cudaFree(di); cudaFree(dm); cudaFree(dv); free(hi);
    return 0;
}
#endif
