// Written for cudafuse's tests in the style of ccminer's cuda_helper.h (not copied).
#ifndef CUDA_HELPER_H
#define CUDA_HELPER_H
#include <stdint.h>
#define ROTR32(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
#define ROTL32(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
__device__ __forceinline__ uint32_t cuda_swab32(uint32_t x) {
  return ((x << 24) & 0xff000000u) | ((x << 8) & 0x00ff0000u) | ((x >> 8) & 0x0000ff00u) |
         ((x >> 24) & 0x000000ffu);
}
#endif
