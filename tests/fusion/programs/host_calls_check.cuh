// Error-check helpers in the styles of cuda-samples' helper_cuda.h and Udacity's utils.h, in
// a header of their own (host_calls.cu's pipelines call them between launches).
#pragma once
#include <cstdio>
#include <cstdlib>

template <typename T>
void check(T result, const char *const func, const char *const file, const int line) {
  if (result) {
    fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\"\n", file, line,
            static_cast<unsigned int>(result), cudaGetErrorName(result), func);
    exit(EXIT_FAILURE);
  }
}
#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)

inline void __getLastCudaError(const char *errorMessage, const char *file, const int line) {
  cudaError_t err = cudaGetLastError();
  if (cudaSuccess != err) {
    fprintf(stderr, "%s(%i) : getLastCudaError() CUDA error : %s : (%d) %s.\n", file, line,
            errorMessage, static_cast<int>(err), cudaGetErrorString(err));
    exit(EXIT_FAILURE);
  }
}
#define getLastCudaError(msg) __getLastCudaError(msg, __FILE__, __LINE__)

// Counts the checks: a helper that writes a global is not harmless.
static int hc_checks_done = 0;
inline void counted_check(cudaError_t e) {
  hc_checks_done += 1;
  if (e != cudaSuccess) exit(1);
}
