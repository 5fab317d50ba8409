// Host stand-ins for the libraries the third-party files include but whose kernels do not
// use (cuBLAS, cuRAND): the smallest declarations their host code compiles against, so that
// the files build for the CPU emulator, which has neither; and darknet's host helpers that
// its src/cuda.c defines (only the kernel's own file is built). Written for cudafuse's
// benchmark (benchmarks/hfuse_library_pairs.py); never called by the kernels that are run.
#ifndef CUDAFUSE_STANDINS_H
#define CUDAFUSE_STANDINS_H
#include <cuda_runtime.h>
#include <stddef.h>
typedef struct cudafuse_cublas_context *cublasHandle_t;
typedef struct cudafuse_curand_generator *curandGenerator_t;
typedef enum { CURAND_STATUS_SUCCESS = 0 } curandStatus_t;
typedef enum { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_SUPPORTED = 15 } cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 } cublasOperation_t;
typedef enum { CUBLAS_DEFAULT_MATH = 0, CUBLAS_TF32_TENSOR_OP_MATH = 3 } cublasMath_t;
typedef enum { CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_32F_FAST_TF32 = 77 } cublasComputeType_t;
static inline const char *cublasGetStatusString(cublasStatus_t) { return "cuBLAS stand-in"; }
static inline cublasStatus_t cublasCreate(cublasHandle_t *) { return CUBLAS_STATUS_NOT_SUPPORTED; }
static inline cublasStatus_t cublasDestroy(cublasHandle_t) { return CUBLAS_STATUS_NOT_SUPPORTED; }
static inline cublasStatus_t cublasSetMathMode(cublasHandle_t, cublasMath_t) {
  return CUBLAS_STATUS_NOT_SUPPORTED;
}
static inline cublasStatus_t cublasSgemm(cublasHandle_t, cublasOperation_t, cublasOperation_t,
                                         int, int, int, const float *, const float *, int,
                                         const float *, int, const float *, float *, int) {
  return CUBLAS_STATUS_NOT_SUPPORTED;
}
static inline cublasStatus_t cublasSgemmStridedBatched(
    cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const float *,
    const float *, int, long long, const float *, int, long long, const float *, float *, int,
    long long, int) {
  return CUBLAS_STATUS_NOT_SUPPORTED;
}
extern "C" {
void check_error(cudaError_t status) { (void)status; }
dim3 cuda_gridsize(size_t n) { return dim3((unsigned)((n + 511) / 512), 1, 1); }
void cuda_free(float *x_gpu) { cudaFree(x_gpu); }
int *cuda_make_int_array(int *x, size_t n) {
  int *d = 0;
  cudaMalloc((void **)&d, n * sizeof(int));
  if (x) cudaMemcpy(d, x, n * sizeof(int), cudaMemcpyHostToDevice);
  return d;
}
}
#endif
