/* cudafuse stand-in for cublas_api.h: cuBLAS's types and host API, declared for the front end. */
#pragma once
#define CUBLAS_API_H_ 1  /* the real header's guard, which users test (helper_cuda.h) */
#include <library_types.h>
#include <cuda_fp16.h>  // the real header includes both
#include <cuda_bf16.h>
typedef enum { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3, CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_ARCH_MISMATCH = 8, CUBLAS_STATUS_MAPPING_ERROR = 11,
  CUBLAS_STATUS_EXECUTION_FAILED = 13, CUBLAS_STATUS_INTERNAL_ERROR = 14,
  CUBLAS_STATUS_NOT_SUPPORTED = 15, CUBLAS_STATUS_LICENSE_ERROR = 16 } cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 } cublasOperation_t;
typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;
typedef enum { CUBLAS_DEFAULT_MATH = 0, CUBLAS_TENSOR_OP_MATH = 1, CUBLAS_PEDANTIC_MATH = 2,
  CUBLAS_TF32_TENSOR_OP_MATH = 3 } cublasMath_t;
typedef enum { CUBLAS_COMPUTE_16F = 64, CUBLAS_COMPUTE_16F_PEDANTIC = 65,
  CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_32F_PEDANTIC = 69, CUBLAS_COMPUTE_32F_FAST_16F = 74,
  CUBLAS_COMPUTE_32F_FAST_16BF = 75, CUBLAS_COMPUTE_32F_FAST_TF32 = 77, CUBLAS_COMPUTE_64F = 70,
  CUBLAS_COMPUTE_64F_PEDANTIC = 71, CUBLAS_COMPUTE_32I = 72,
  CUBLAS_COMPUTE_32I_PEDANTIC = 73 } cublasComputeType_t;
typedef cudaDataType cublasDataType_t;
typedef enum { CUBLAS_GEMM_DFALT = -1, CUBLAS_GEMM_DEFAULT = -1, CUBLAS_GEMM_ALGO0 = 0,
  CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99, CUBLAS_GEMM_DFALT_TENSOR_OP = 99 } cublasGemmAlgo_t;
struct cublasContext;
typedef struct cublasContext *cublasHandle_t;
cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
  int n, int k, const void *alpha, const void *A, cudaDataType at, int lda, const void *B,
  cudaDataType bt, int ldb, const void *beta, void *C, cudaDataType ct, int ldc,
  cublasComputeType_t comp, cublasGemmAlgo_t algo);
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t ta,
  cublasOperation_t tb, int m, int n, int k, const void *alpha, const void *A, cudaDataType at,
  int lda, long long sa, const void *B, cudaDataType bt, int ldb, long long sb,
  const void *beta, void *C, cudaDataType ct, int ldc, long long sc, int batch,
  cublasComputeType_t comp, cublasGemmAlgo_t algo);
cublasStatus_t cublasCreate(cublasHandle_t *h);
cublasStatus_t cublasDestroy(cublasHandle_t h);
cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s);
cublasStatus_t cublasGetStream(cublasHandle_t h, cudaStream_t *s);
cublasStatus_t cublasSetPointerMode(cublasHandle_t h, cublasPointerMode_t m);
cublasStatus_t cublasGetPointerMode(cublasHandle_t h, cublasPointerMode_t *m);
cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t m);
cublasStatus_t cublasGetMathMode(cublasHandle_t h, cublasMath_t *m);
const char *cublasGetStatusString(cublasStatus_t s);
const char *cublasGetStatusName(cublasStatus_t s);
cublasStatus_t cublasSetVector(int n, int elem, const void *x, int incx, void *y, int incy);
cublasStatus_t cublasGetVector(int n, int elem, const void *x, int incx, void *y, int incy);
cublasStatus_t cublasSetMatrix(int r, int c, int elem, const void *a, int lda, void *b, int ldb);
cublasStatus_t cublasGetMatrix(int r, int c, int elem, const void *a, int lda, void *b, int ldb);
#define CF_BLAS_DECL(P, p, T) \
  cublasStatus_t cublas##P##axpy(cublasHandle_t, int, const T *, const T *, int, T *, int); \
  cublasStatus_t cublas##P##dot(cublasHandle_t, int, const T *, int, const T *, int, T *); \
  cublasStatus_t cublas##P##nrm2(cublasHandle_t, int, const T *, int, T *); \
  cublasStatus_t cublas##P##asum(cublasHandle_t, int, const T *, int, T *); \
  cublasStatus_t cublasI##p##amax(cublasHandle_t, int, const T *, int, int *); \
  cublasStatus_t cublas##P##scal(cublasHandle_t, int, const T *, T *, int); \
  cublasStatus_t cublas##P##copy(cublasHandle_t, int, const T *, int, T *, int); \
  cublasStatus_t cublas##P##swap(cublasHandle_t, int, T *, int, T *, int); \
  cublasStatus_t cublas##P##gemv(cublasHandle_t, cublasOperation_t, int, int, const T *, \
                                 const T *, int, const T *, int, const T *, T *, int); \
  cublasStatus_t cublas##P##gemm(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, \
                                 int, int, const T *, const T *, int, const T *, int, \
                                 const T *, T *, int); \
  cublasStatus_t cublas##P##gemmStridedBatched(cublasHandle_t, cublasOperation_t, \
      cublasOperation_t, int, int, int, const T *, const T *, int, long long, const T *, int, \
      long long, const T *, T *, int, long long, int); \
  cublasStatus_t cublas##P##gemmBatched(cublasHandle_t, cublasOperation_t, cublasOperation_t, \
      int, int, int, const T *, const T *const[], int, const T *const[], int, const T *, \
      T *const[], int, int);
CF_BLAS_DECL(S, s, float)
CF_BLAS_DECL(D, d, double)
#undef CF_BLAS_DECL
