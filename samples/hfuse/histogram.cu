// 1D histogram (HFuse benchmark "Hist"): per-block bins in dynamic shared memory,
// atomicAdd on shared, then one atomicAdd per bin to global. Two barriers.
// Block: 256 threads (__launch_bounds__), grid-stride loop, shared = nbins * 4 bytes.
// Memory-bound (one read per element) with contended shared atomics.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define HIST_BLOCK 256

__global__ void __launch_bounds__(HIST_BLOCK)
histogram_kernel(const unsigned int *__restrict__ data, unsigned int *__restrict__ hist,
                 int n, int nbins)
{
    extern __shared__ unsigned int bins[];
    for (int i = threadIdx.x; i < nbins; i += blockDim.x)
        bins[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&bins[data[i] % nbins], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < nbins; i += blockDim.x)
        if (bins[i] != 0)
            atomicAdd(&hist[i], bins[i]);
}

extern "C" void histogram_run(const unsigned int *data, unsigned int *hist, int n, int nbins)
{
    int grid = (n + HIST_BLOCK - 1) / HIST_BLOCK;
    if (grid > 64) grid = 64;
    cudaMemset(hist, 0, nbins * sizeof(unsigned int));
    histogram_kernel<<<grid, HIST_BLOCK, nbins * sizeof(unsigned int)>>>(data, hist, n, nbins);
}

#ifndef CUDAFUSE_NO_MAIN
int main()
{
    const int n = 1 << 20, nbins = 256;
    unsigned int *h = (unsigned int *)malloc(n * sizeof(unsigned int));
    unsigned int x = 12345u;
    for (int i = 0; i < n; ++i) { x = x * 1664525u + 1013904223u; h[i] = x >> 8; }
    unsigned int *d_data, *d_hist;
    cudaMalloc(&d_data, n * sizeof(unsigned int));
    cudaMalloc(&d_hist, nbins * sizeof(unsigned int));
    cudaMemcpy(d_data, h, n * sizeof(unsigned int), cudaMemcpyHostToDevice);
    histogram_run(d_data, d_hist, n, nbins);
    unsigned int hh[256];
    cudaMemcpy(hh, d_hist, sizeof(hh), cudaMemcpyDeviceToHost);
    unsigned long long sum = 0;
    for (int i = 0; i < nbins; ++i) sum += (unsigned long long)(i + 1) * hh[i];
    printf("checksum %llu\n", sum);
    cudaFree(d_data); cudaFree(d_hist); free(h);
    return 0;
}
#endif
