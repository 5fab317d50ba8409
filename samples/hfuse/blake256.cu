// BLAKE-256 (the SHA-3 finalist, 14 rounds; not BLAKE2s) of many independent 64-byte
// messages (HFuse benchmark "Blake256"): one thread per message, state and message words in
// registers, the permutations sigma[10][16] and the constants c[16] in __constant__, no salt.
// Each message is 16 big-endian 32-bit words; the digest (8 words) is two compressions: the
// message block with counter 512, then the padding block (0x80000000, ..., the 0x01 bit in
// word 13, the 64-bit length 512 in words 14-15) with counter 0, as it holds no message bits.
// Block: 128 threads (__launch_bounds__), no shared memory, no barriers. Compute-bound.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define BLAKE256_BLOCK 128
#define BLAKE256_ROUNDS 14

// The constants c0..c15 (leading digits of pi).
__constant__ unsigned int blake256_c[16] = {
    0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u, 0x082efa98u, 0xec4e6c89u,
    0x452821e6u, 0x38d01377u, 0xbe5466cfu, 0x34e90c6cu, 0xc0ac29b7u, 0xc97c50ddu, 0x3f84d5b5u, 0xb5470917u};

// Message permutation of round r (mod 10), row-major: blake256_sigma[r * 16 + j].
__constant__ unsigned char blake256_sigma[160] = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3,
    11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4,
    7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8,
    9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13,
    2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9,
    12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11,
    13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10,
    6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5,
    10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0};

__device__ __forceinline__ unsigned int blake256_rotr(unsigned int x, int n)
{
    return (x >> n) | (x << (32 - n));
}

// G_i of round r on v[a], v[b], v[c], v[d]: s points at the round's sigma row, i in 0..7.
__device__ __forceinline__ void blake256_g(unsigned int v[16], const unsigned int m[16],
                                           const unsigned char *s, int i, int a, int b, int c, int d)
{
    int p = s[2 * i], q = s[2 * i + 1];
    v[a] = v[a] + v[b] + (m[p] ^ blake256_c[q]);
    v[d] = blake256_rotr(v[d] ^ v[a], 16);
    v[c] = v[c] + v[d];
    v[b] = blake256_rotr(v[b] ^ v[c], 12);
    v[a] = v[a] + v[b] + (m[q] ^ blake256_c[p]);
    v[d] = blake256_rotr(v[d] ^ v[a], 8);
    v[c] = v[c] + v[d];
    v[b] = blake256_rotr(v[b] ^ v[c], 7);
}

// Compression with zero salt: h is updated in place; t is the bit counter (< 2^32 here, so
// its high word t1 is 0).
__device__ __forceinline__ void blake256_compress(unsigned int h[8], const unsigned int m[16], unsigned int t)
{
    unsigned int v[16];
#pragma unroll
    for (int i = 0; i < 8; ++i) v[i] = h[i];
#pragma unroll
    for (int i = 0; i < 4; ++i) v[i + 8] = blake256_c[i];
    v[12] = t ^ blake256_c[4];
    v[13] = t ^ blake256_c[5];
    v[14] = blake256_c[6];
    v[15] = blake256_c[7];
    // unrolled by 2, not fully: fully unrolled, ptxas hoists the sigma/constant loads of all
    // 14 rounds and needs 255 registers plus spills (sm_90); by 2 it needs 40 and no spills
#pragma unroll 2
    for (int r = 0; r < BLAKE256_ROUNDS; ++r) {
        const unsigned char *s = &blake256_sigma[(r % 10) * 16];
        blake256_g(v, m, s, 0, 0, 4, 8, 12);
        blake256_g(v, m, s, 1, 1, 5, 9, 13);
        blake256_g(v, m, s, 2, 2, 6, 10, 14);
        blake256_g(v, m, s, 3, 3, 7, 11, 15);
        blake256_g(v, m, s, 4, 0, 5, 10, 15);
        blake256_g(v, m, s, 5, 1, 6, 11, 12);
        blake256_g(v, m, s, 6, 2, 7, 8, 13);
        blake256_g(v, m, s, 7, 3, 4, 9, 14);
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) h[i] ^= v[i] ^ v[i + 8];
}

__global__ void __launch_bounds__(BLAKE256_BLOCK)
blake256_kernel(const unsigned int *__restrict__ msgs, unsigned int *__restrict__ digests, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned int h[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
                         0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};
    unsigned int blk[16];
#pragma unroll
    for (int i = 0; i < 16; ++i) blk[i] = msgs[(size_t)t * 16 + i];
    blake256_compress(h, blk, 512u);
#pragma unroll
    for (int i = 0; i < 16; ++i) blk[i] = 0;
    blk[0] = 0x80000000u;
    blk[13] = 1u;
    blk[15] = 512u;
    blake256_compress(h, blk, 0u);
#pragma unroll
    for (int i = 0; i < 8; ++i) digests[(size_t)t * 8 + i] = h[i];
}

extern "C" void blake256_run(const unsigned int *msgs, unsigned int *digests, int n)
{
    blake256_kernel<<<(n + BLAKE256_BLOCK - 1) / BLAKE256_BLOCK, BLAKE256_BLOCK>>>(msgs, digests, n);
}

#ifndef CUDAFUSE_NO_MAIN
int main()
{
    const int n = 1 << 16;
    unsigned int *h = (unsigned int *)malloc((size_t)n * 16 * 4), *hd = (unsigned int *)malloc((size_t)n * 8 * 4);
    unsigned int x = 7u;
    for (size_t i = 0; i < (size_t)n * 16; ++i) { x = x * 1664525u + 1013904223u; h[i] = x; }
    unsigned int *dm, *dd;
    cudaMalloc(&dm, (size_t)n * 16 * 4);
    cudaMalloc(&dd, (size_t)n * 8 * 4);
    cudaMemcpy(dm, h, (size_t)n * 16 * 4, cudaMemcpyHostToDevice);
    blake256_run(dm, dd, n);
    cudaMemcpy(hd, dd, (size_t)n * 8 * 4, cudaMemcpyDeviceToHost);
    unsigned int sum = 0;
    for (size_t i = 0; i < (size_t)n * 8; ++i) sum = sum * 31u + hd[i];
    printf("checksum %u\n", sum);
    cudaFree(dm); cudaFree(dd); free(h); free(hd);
    return 0;
}
#endif
