// Ethash-like memory-hard hash (HFuse benchmark "Ethash", shape of ethminer's search
// kernel, simplified): one thread per nonce, a 16-word mix in registers, 64 rounds of one
// pseudo-random 32-bit lookup into a large DAG table each, FNV mixing, then the mix is
// folded to one word. Integer only. Block 128 (__launch_bounds__), no shared memory, no
// barriers. Memory-bound: every lookup is a dependent random global load.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define ETHASH_BLOCK 128
#define ETHASH_ROUNDS 64
#define FNV_PRIME 0x01000193u

__device__ __forceinline__ unsigned int fnv(unsigned int a, unsigned int b) { return (a * FNV_PRIME) ^ b; }

__global__ void __launch_bounds__(ETHASH_BLOCK)
ethash_like_kernel(const unsigned int *__restrict__ dag, unsigned int dag_words,
                   unsigned int *__restrict__ out, int n, unsigned int seed)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned int mix[16];
    unsigned int s = fnv(seed, (unsigned int)t);
#pragma unroll
    for (int j = 0; j < 16; ++j) mix[j] = fnv(s, (unsigned int)j);
#pragma unroll 4
    for (int i = 0; i < ETHASH_ROUNDS; ++i) {
        unsigned int idx = fnv((unsigned int)i ^ s, mix[i & 15]) % dag_words;
        mix[i & 15] = fnv(mix[i & 15], __ldg(&dag[idx]));
    }
    unsigned int h = mix[0];
#pragma unroll
    for (int j = 1; j < 16; ++j) h = fnv(h, mix[j]);
    out[t] = h;
}

extern "C" void ethash_like_run(const unsigned int *dag, unsigned int dag_words, unsigned int *out,
                                int n, unsigned int seed)
{
    ethash_like_kernel<<<(n + ETHASH_BLOCK - 1) / ETHASH_BLOCK, ETHASH_BLOCK>>>(dag, dag_words, out, n, seed);
}

#ifndef CUDAFUSE_NO_MAIN
int main()
{
    const unsigned int dag_words = 1u << 26;   // 256 MiB
    const int n = 1 << 18;
    unsigned int *hd = (unsigned int *)malloc((size_t)dag_words * 4), *ho = (unsigned int *)malloc((size_t)n * 4);
    unsigned int x = 5u;
    for (size_t i = 0; i < dag_words; ++i) { x = x * 1664525u + 1013904223u; hd[i] = x; }
    unsigned int *ddag, *dout;
    cudaMalloc(&ddag, (size_t)dag_words * 4);
    cudaMalloc(&dout, (size_t)n * 4);
    cudaMemcpy(ddag, hd, (size_t)dag_words * 4, cudaMemcpyHostToDevice);
    ethash_like_run(ddag, dag_words, dout, n, 0x1234567u);
    cudaMemcpy(ho, dout, (size_t)n * 4, cudaMemcpyDeviceToHost);
    unsigned int sum = 0;
    for (int i = 0; i < n; ++i) sum = sum * 31u + ho[i];
    printf("checksum %u\n", sum);
    cudaFree(ddag); cudaFree(dout); free(hd); free(ho);
    return 0;
}
#endif
