// BLAKE2b's compression of an 80-byte block header, one nonce per thread, in the style of
// ccminer's blake2b kernels (written for cudafuse's tests from the RFC 7693 description):
// two nonces per thread, each with sixteen 64-bit words of state, all rounds unrolled, so
// ptxas gives it over 100 registers (the register-heavy half of the HFuse paper's crypto
// pairs).
#include <stdint.h>

#define ROTR64(x, n) (((x) >> (n)) | ((x) << (64 - (n))))
#define G(a, b, c, d, x, y)                 \
  do {                                      \
    for (int l = 0; l < 2; l++) {           \
      v[l][a] = v[l][a] + v[l][b] + (x[l]);  \
      v[l][d] = ROTR64(v[l][d] ^ v[l][a], 32); \
      v[l][c] = v[l][c] + v[l][d];           \
      v[l][b] = ROTR64(v[l][b] ^ v[l][c], 24); \
      v[l][a] = v[l][a] + v[l][b] + (y[l]);  \
      v[l][d] = ROTR64(v[l][d] ^ v[l][a], 16); \
      v[l][c] = v[l][c] + v[l][d];           \
      v[l][b] = ROTR64(v[l][b] ^ v[l][c], 63); \
    }                                        \
  } while (0)

__constant__ uint64_t c_IV[8] = {
    0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull, 0xa54ff53a5f1d36f1ull,
    0x510e527fade682d1ull, 0x9b05688c2b3e6c1full, 0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull};

__device__ __forceinline__ void blake2b_round(uint64_t (*v)[16], const uint64_t (*m)[2], int r) {
  // sigma[r % 10] written out through constant indices once the loop is unrolled
  const uint8_t s[10][16] = {
      {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
      {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
      {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
      {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
      {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
      {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
      {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
      {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
      {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
      {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0}};
  const uint8_t *p = s[r % 10];
  G(0, 4, 8, 12, m[p[0]], m[p[1]]);
  G(1, 5, 9, 13, m[p[2]], m[p[3]]);
  G(2, 6, 10, 14, m[p[4]], m[p[5]]);
  G(3, 7, 11, 15, m[p[6]], m[p[7]]);
  G(0, 5, 10, 15, m[p[8]], m[p[9]]);
  G(1, 6, 11, 12, m[p[10]], m[p[11]]);
  G(2, 7, 8, 13, m[p[12]], m[p[13]]);
  G(3, 4, 9, 14, m[p[14]], m[p[15]]);
}

__global__ void blake2b_gpu_hash(uint32_t threads, uint32_t startNonce, const uint64_t *header,
                                 uint64_t *resHash) {
  const uint32_t thread = blockDim.x * blockIdx.x + threadIdx.x;
  if (thread >= threads) return;
  uint64_t m[16][2];  // nonces 2 * thread and 2 * thread + 1
#pragma unroll
  for (int i = 0; i < 16; i++) m[i][0] = m[i][1] = i < 10 ? header[i] : 0;
#pragma unroll
  for (int l = 0; l < 2; l++)
    m[9][l] = (m[9][l] & 0xffffffffull) | ((uint64_t)(startNonce + 2 * thread + l) << 32);
  uint64_t v[2][16];
#pragma unroll
  for (int l = 0; l < 2; l++) {
#pragma unroll
    for (int i = 0; i < 8; i++) {
      v[l][i] = c_IV[i];
      v[l][i + 8] = c_IV[i];
    }
    v[l][0] ^= 0x01010040ull;  // digest length 64, no key, fanout and depth 1
    v[l][12] ^= 80;  // bytes compressed
    v[l][14] = ~v[l][14];  // the last block
  }
#pragma unroll
  for (int r = 0; r < 12; r++) blake2b_round(v, m, r);
  // the whole digests: every word of both states stays live to the end
#pragma unroll
  for (int l = 0; l < 2; l++)
#pragma unroll
    for (int i = 0; i < 8; i++)
      resHash[16 * thread + 8 * l + i] =
          c_IV[i] ^ (i == 0 ? 0x01010040ull : 0) ^ v[l][i] ^ v[l][i + 8];
}

void blake2b_run(uint32_t threads, uint32_t startNonce, const uint64_t *header, uint64_t *out) {
  blake2b_gpu_hash<<<(threads + 127) / 128, 128>>>(threads, startNonce, header, out);
}
