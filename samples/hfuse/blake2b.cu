// BLAKE2b-512 (RFC 7693, unkeyed) of many independent 128-byte messages (HFuse benchmark
// "Blake2B"): one thread per message, state and message words in registers, the message
// schedule sigma[10][16] and the IV in __constant__. Each message is 16 little-endian 64-bit
// words, exactly one block, so the digest (8 words, little-endian) is one compression with
// counter 128 and the final-block flag: 12 rounds of 8 G mixes on 64-bit words.
// Block: 128 threads (__launch_bounds__), no shared memory, no barriers. Compute-bound.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define BLAKE2B_BLOCK 128
#define BLAKE2B_ROUNDS 12

__constant__ unsigned long long blake2b_iv[8] = {
    0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull, 0xa54ff53a5f1d36f1ull,
    0x510e527fade682d1ull, 0x9b05688c2b3e6c1full, 0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull};

// Message word permutation of round r (mod 10), row-major: blake2b_sigma[r * 16 + j].
__constant__ unsigned char blake2b_sigma[160] = {
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

__device__ __forceinline__ unsigned long long blake2b_rotr(unsigned long long x, int n)
{
    return (x >> n) | (x << (64 - n));
}

// The mixing function G on v[a], v[b], v[c], v[d] with message words x and y.
__device__ __forceinline__ void blake2b_g(unsigned long long v[16], int a, int b, int c, int d,
                                          unsigned long long x, unsigned long long y)
{
    v[a] = v[a] + v[b] + x;
    v[d] = blake2b_rotr(v[d] ^ v[a], 32);
    v[c] = v[c] + v[d];
    v[b] = blake2b_rotr(v[b] ^ v[c], 24);
    v[a] = v[a] + v[b] + y;
    v[d] = blake2b_rotr(v[d] ^ v[a], 16);
    v[c] = v[c] + v[d];
    v[b] = blake2b_rotr(v[b] ^ v[c], 63);
}

// Compression F: h is updated in place; t is the byte counter (< 2^64), last the final flag.
__device__ __forceinline__ void blake2b_compress(unsigned long long h[8], const unsigned long long m[16],
                                                 unsigned long long t, bool last)
{
    unsigned long long v[16];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        v[i] = h[i];
        v[i + 8] = blake2b_iv[i];
    }
    v[12] ^= t;  // low word of the 128-bit counter; the high word is 0
    if (last) v[14] = ~v[14];
#pragma unroll
    for (int r = 0; r < BLAKE2B_ROUNDS; ++r) {
        const unsigned char *s = &blake2b_sigma[(r % 10) * 16];
        blake2b_g(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
        blake2b_g(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
        blake2b_g(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
        blake2b_g(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
        blake2b_g(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
        blake2b_g(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
        blake2b_g(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
        blake2b_g(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) h[i] ^= v[i] ^ v[i + 8];
}

__global__ void __launch_bounds__(BLAKE2B_BLOCK)
blake2b_kernel(const unsigned long long *__restrict__ msgs, unsigned long long *__restrict__ digests, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned long long m[16];
#pragma unroll
    for (int i = 0; i < 16; ++i) m[i] = msgs[(size_t)t * 16 + i];
    unsigned long long h[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) h[i] = blake2b_iv[i];
    h[0] ^= 0x01010040ull;  // parameter block: digest length 64, no key, fanout 1, depth 1
    blake2b_compress(h, m, 128ull, true);
#pragma unroll
    for (int i = 0; i < 8; ++i) digests[(size_t)t * 8 + i] = h[i];
}

extern "C" void blake2b_run(const unsigned long long *msgs, unsigned long long *digests, int n)
{
    blake2b_kernel<<<(n + BLAKE2B_BLOCK - 1) / BLAKE2B_BLOCK, BLAKE2B_BLOCK>>>(msgs, digests, n);
}

#ifndef CUDAFUSE_NO_MAIN
int main()
{
    const int n = 1 << 16;
    unsigned long long *h = (unsigned long long *)malloc((size_t)n * 16 * 8);
    unsigned long long *hd = (unsigned long long *)malloc((size_t)n * 8 * 8);
    unsigned int x = 3u;
    for (size_t i = 0; i < (size_t)n * 16; ++i) {
        x = x * 1664525u + 1013904223u;
        unsigned long long hi = x;
        x = x * 1664525u + 1013904223u;
        h[i] = (hi << 32) | x;
    }
    unsigned long long *dm, *dd;
    cudaMalloc(&dm, (size_t)n * 16 * 8);
    cudaMalloc(&dd, (size_t)n * 8 * 8);
    cudaMemcpy(dm, h, (size_t)n * 16 * 8, cudaMemcpyHostToDevice);
    blake2b_run(dm, dd, n);
    cudaMemcpy(hd, dd, (size_t)n * 8 * 8, cudaMemcpyDeviceToHost);
    unsigned long long sum = 0;
    for (size_t i = 0; i < (size_t)n * 8; ++i) sum = sum * 31ull + hd[i];
    printf("checksum %llu\n", sum);
    cudaFree(dm); cudaFree(dd); free(h); free(hd);
    return 0;
}
#endif
