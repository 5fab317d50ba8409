// Written for cudafuse's tests in the style of ccminer's cuda_helper.h (not copied): a
// checking macro for host calls.
#ifndef CUDAFUSE_TEST_CHECK_H
#define CUDAFUSE_TEST_CHECK_H
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SAFE_CALL(call)                                     \
  do {                                                      \
    cudaError_t err_ = call;                                \
    if (err_ != cudaSuccess) {                              \
      fprintf(stderr, "%s\n", cudaGetErrorString(err_));    \
      exit(1);                                              \
    }                                                       \
  } while (0)

#endif
