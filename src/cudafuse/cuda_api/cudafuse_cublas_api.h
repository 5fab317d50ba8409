// cudafuse_cublas_api.h: cuBLAS (<cublas_api.h>, <cublas_v2.h>) as cudafuse declares it: the
// types and the host API, once, for the front end's stand-in (frontend/include/stubs/
// cublas_api.h) and the emulator's (emu/include/cublas_api.h), which defines every function
// declared here. Adding a cuBLAS routine is one edit here, then its definition in the
// emulator (tests/emu/test_cuda_api_decls.py calls every declaration on both sides).
// Needs the runtime API (cudaStream_t) and library_types.h (cudaDataType).
#pragma once

typedef enum {
  CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_INITIALIZED = 1, CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7, CUBLAS_STATUS_ARCH_MISMATCH = 8,
  CUBLAS_STATUS_MAPPING_ERROR = 11, CUBLAS_STATUS_EXECUTION_FAILED = 13,
  CUBLAS_STATUS_INTERNAL_ERROR = 14, CUBLAS_STATUS_NOT_SUPPORTED = 15,
  CUBLAS_STATUS_LICENSE_ERROR = 16
} cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 } cublasOperation_t;
typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;
typedef enum {
  CUBLAS_DEFAULT_MATH = 0, CUBLAS_TENSOR_OP_MATH = 1, CUBLAS_PEDANTIC_MATH = 2,
  CUBLAS_TF32_TENSOR_OP_MATH = 3, CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16
} cublasMath_t;
typedef enum { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1 } cublasFillMode_t;
typedef enum { CUBLAS_DIAG_NON_UNIT = 0, CUBLAS_DIAG_UNIT = 1 } cublasDiagType_t;
typedef enum { CUBLAS_SIDE_LEFT = 0, CUBLAS_SIDE_RIGHT = 1 } cublasSideMode_t;

// The compute types and algorithms of the *Ex routines (their values as cuBLAS 12 has them).
typedef enum {
  CUBLAS_COMPUTE_16F = 64, CUBLAS_COMPUTE_16F_PEDANTIC = 65, CUBLAS_COMPUTE_32F = 68,
  CUBLAS_COMPUTE_32F_PEDANTIC = 69, CUBLAS_COMPUTE_32F_FAST_16F = 74,
  CUBLAS_COMPUTE_32F_FAST_16BF = 75, CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
  CUBLAS_COMPUTE_64F = 70, CUBLAS_COMPUTE_64F_PEDANTIC = 71, CUBLAS_COMPUTE_32I = 72,
  CUBLAS_COMPUTE_32I_PEDANTIC = 73
} cublasComputeType_t;
typedef cudaDataType cublasDataType_t;
typedef enum {
  CUBLAS_GEMM_DFALT = -1, CUBLAS_GEMM_DEFAULT = -1, CUBLAS_GEMM_ALGO0 = 0,
  CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99, CUBLAS_GEMM_DFALT_TENSOR_OP = 99
} cublasGemmAlgo_t;

// The handle: what it holds is the emulator's (emu/include/cublas_api.h).
struct cublasContext;
typedef struct cublasContext *cublasHandle_t;

cublasStatus_t cublasCreate(cublasHandle_t *h);
cublasStatus_t cublasDestroy(cublasHandle_t h);
#define cublasCreate_v2 cublasCreate
#define cublasDestroy_v2 cublasDestroy
cublasStatus_t cublasGetVersion(cublasHandle_t h, int *version);
cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s);
cublasStatus_t cublasGetStream(cublasHandle_t h, cudaStream_t *s);
cublasStatus_t cublasSetPointerMode(cublasHandle_t h, cublasPointerMode_t m);
cublasStatus_t cublasGetPointerMode(cublasHandle_t h, cublasPointerMode_t *m);
cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t m);
cublasStatus_t cublasGetMathMode(cublasHandle_t h, cublasMath_t *m);
const char *cublasGetStatusName(cublasStatus_t s);
const char *cublasGetStatusString(cublasStatus_t s);

// Host <-> device copies of vectors and column-major matrices.
cublasStatus_t cublasSetMatrix(int rows, int cols, int elem, const void *a, int lda, void *b,
                               int ldb);
cublasStatus_t cublasGetMatrix(int rows, int cols, int elem, const void *a, int lda, void *b,
                               int ldb);
cublasStatus_t cublasSetVector(int n, int elem, const void *x, int incx, void *y, int incy);
cublasStatus_t cublasGetVector(int n, int elem, const void *x, int incx, void *y, int incy);
cublasStatus_t cublasSetMatrixAsync(int rows, int cols, int elem, const void *a, int lda,
                                    void *b, int ldb, cudaStream_t s);
cublasStatus_t cublasGetMatrixAsync(int rows, int cols, int elem, const void *a, int lda,
                                    void *b, int ldb, cudaStream_t s);
cublasStatus_t cublasSetVectorAsync(int n, int elem, const void *x, int incx, void *y, int incy,
                                    cudaStream_t s);
cublasStatus_t cublasGetVectorAsync(int n, int elem, const void *x, int incx, void *y, int incy,
                                    cudaStream_t s);

// Mixed-precision GEMMs (the *Ex routines).
cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                            int n, int k, const void *alpha, const void *__cf_A, cudaDataType at,
                            int lda, const void *__cf_B, cudaDataType bt, int ldb, const void *beta,
                            void *__cf_C, cudaDataType ct, int ldc, cublasComputeType_t comp,
                            cublasGemmAlgo_t algo);
cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
    const void *alpha, const void *__cf_A, cudaDataType at, int lda, long long sa, const void *__cf_B,
    cudaDataType bt, int ldb, long long sb, const void *beta, void *__cf_C, cudaDataType ct, int ldc,
    long long sc, int batch, cublasComputeType_t comp, cublasGemmAlgo_t algo);

// The typed routines, S (float) and D (double).
#define CUDAFUSE_BLAS_TYPED(P, p, T)                                                         \
  cublasStatus_t P##axpy(cublasHandle_t h, int n, const T *alpha, const T *x,       \
                                 int incx, T *y, int incy);                                 \
  cublasStatus_t P##dot(cublasHandle_t h, int n, const T *x, int incx, const T *y,  \
                                int incy, T *result);                                       \
  cublasStatus_t P##nrm2(cublasHandle_t h, int n, const T *x, int incx, T *result); \
  cublasStatus_t P##asum(cublasHandle_t h, int n, const T *x, int incx, T *result); \
  cublasStatus_t cublasI##p##amax(cublasHandle_t h, int n, const T *x, int incx,            \
                                  int *result);                                             \
  cublasStatus_t P##scal(cublasHandle_t h, int n, const T *alpha, T *x, int incx);  \
  cublasStatus_t P##copy(cublasHandle_t h, int n, const T *x, int incx, T *y,       \
                                 int incy);                                                 \
  cublasStatus_t P##swap(cublasHandle_t h, int n, T *x, int incx, T *y, int incy);  \
  cublasStatus_t P##gemv(cublasHandle_t h, cublasOperation_t op, int m, int n,      \
                                 const T *alpha, const T *__cf_A, int lda, const T *x, int incx, \
                                 const T *beta, T *y, int incy);                            \
  cublasStatus_t P##gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, \
                                 int m, int n, int k, const T *alpha, const T *__cf_A, int lda,  \
                                 const T *__cf_B, int ldb, const T *beta, T *__cf_C, int ldc);        \
  cublasStatus_t P##gemmStridedBatched(                                             \
      cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,    \
      const T *alpha, const T *__cf_A, int lda, long long sa, const T *__cf_B, int ldb, long long sb, \
      const T *beta, T *__cf_C, int ldc, long long sc, int batch);                               \
  cublasStatus_t P##gemmBatched(                                                    \
      cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,    \
      const T *alpha, const T *const __cf_A[], int lda, const T *const __cf_B[], int ldb,             \
      const T *beta, T *const __cf_C[], int ldc, int batch);
CUDAFUSE_BLAS_TYPED(cublasS, s, float)
CUDAFUSE_BLAS_TYPED(cublasD, d, double)
#undef CUDAFUSE_BLAS_TYPED
