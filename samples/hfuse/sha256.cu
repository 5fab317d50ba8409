// SHA-256 of many independent 64-byte messages (HFuse benchmark "SHA256"): one thread per
// message, message schedule and rounds in registers, round constants in __constant__.
// Each message is 16 big-endian 32-bit words; the digest (8 words) is SHA-256 of the
// 64 bytes, i.e. two compressions (the message block, then the padding block).
// Block: 128 threads (__launch_bounds__), no shared memory, no barriers. Compute-bound.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define SHA256_BLOCK 128

__constant__ unsigned int sha256_k[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
    0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
    0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
    0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u};

__device__ __forceinline__ unsigned int rotr32(unsigned int x, int n) { return (x >> n) | (x << (32 - n)); }

__device__ __forceinline__ void sha256_compress(unsigned int st[8], const unsigned int blk[16])
{
    unsigned int w[16];
#pragma unroll
    for (int i = 0; i < 16; ++i) w[i] = blk[i];
    unsigned int a = st[0], b = st[1], c = st[2], d = st[3], e = st[4], f = st[5], g = st[6], h = st[7];
#pragma unroll
    for (int i = 0; i < 64; ++i) {
        unsigned int wi;
        if (i < 16) {
            wi = w[i];
        } else {
            unsigned int w15 = w[(i + 1) & 15], w2 = w[(i + 14) & 15];
            unsigned int s0 = rotr32(w15, 7) ^ rotr32(w15, 18) ^ (w15 >> 3);
            unsigned int s1 = rotr32(w2, 17) ^ rotr32(w2, 19) ^ (w2 >> 10);
            wi = w[i & 15] + s0 + w[(i + 9) & 15] + s1;
            w[i & 15] = wi;
        }
        unsigned int S1 = rotr32(e, 6) ^ rotr32(e, 11) ^ rotr32(e, 25);
        unsigned int ch = (e & f) ^ (~e & g);
        unsigned int t1 = h + S1 + ch + sha256_k[i] + wi;
        unsigned int S0 = rotr32(a, 2) ^ rotr32(a, 13) ^ rotr32(a, 22);
        unsigned int mj = (a & b) ^ (a & c) ^ (b & c);
        unsigned int t2 = S0 + mj;
        h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    st[0] += a; st[1] += b; st[2] += c; st[3] += d; st[4] += e; st[5] += f; st[6] += g; st[7] += h;
}

__global__ void __launch_bounds__(SHA256_BLOCK)
sha256_kernel(const unsigned int *__restrict__ msgs, unsigned int *__restrict__ digests, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned int st[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
                          0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};
    unsigned int blk[16];
#pragma unroll
    for (int i = 0; i < 16; ++i) blk[i] = msgs[(size_t)t * 16 + i];
    sha256_compress(st, blk);
#pragma unroll
    for (int i = 0; i < 16; ++i) blk[i] = 0;
    blk[0] = 0x80000000u;
    blk[15] = 512;
    sha256_compress(st, blk);
#pragma unroll
    for (int i = 0; i < 8; ++i) digests[(size_t)t * 8 + i] = st[i];
}

extern "C" void sha256_run(const unsigned int *msgs, unsigned int *digests, int n)
{
    sha256_kernel<<<(n + SHA256_BLOCK - 1) / SHA256_BLOCK, SHA256_BLOCK>>>(msgs, digests, n);
}

#ifndef CUDAFUSE_NO_MAIN
int main()
{
    const int n = 1 << 16;
    unsigned int *h = (unsigned int *)malloc((size_t)n * 16 * 4), *hd = (unsigned int *)malloc((size_t)n * 8 * 4);
    unsigned int x = 1u;
    for (size_t i = 0; i < (size_t)n * 16; ++i) { x = x * 1664525u + 1013904223u; h[i] = x; }
    unsigned int *dm, *dd;
    cudaMalloc(&dm, (size_t)n * 16 * 4);
    cudaMalloc(&dd, (size_t)n * 8 * 4);
    cudaMemcpy(dm, h, (size_t)n * 16 * 4, cudaMemcpyHostToDevice);
    sha256_run(dm, dd, n);
    cudaMemcpy(hd, dd, (size_t)n * 8 * 4, cudaMemcpyDeviceToHost);
    unsigned int sum = 0;
    for (size_t i = 0; i < (size_t)n * 8; ++i) sum = sum * 31u + hd[i];
    printf("checksum %u\n", sum);
    cudaFree(dm); cudaFree(dd); free(h); free(hd);
    return 0;
}
#endif
