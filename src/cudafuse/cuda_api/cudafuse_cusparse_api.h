// cudafuse_cusparse_api.h: cuSPARSE (<cusparse.h>) as cudafuse declares it, the part the
// generic API needs for a CSR matrix times a dense vector: the types and the host API, once,
// for the front end's stand-in (frontend/include/stubs/cusparse.h) and the emulator's
// (emu/include/cusparse.h), which defines the descriptors and every function declared here.
// Needs the runtime API (cudaStream_t) and library_types.h (cudaDataType).
#pragma once
#include <stdint.h>
#define CUSPARSEAPI  // the real header's marker, which helper_cuda.h tests

typedef enum {
  CUSPARSE_STATUS_SUCCESS = 0, CUSPARSE_STATUS_NOT_INITIALIZED = 1,
  CUSPARSE_STATUS_ALLOC_FAILED = 2, CUSPARSE_STATUS_INVALID_VALUE = 3,
  CUSPARSE_STATUS_ARCH_MISMATCH = 4, CUSPARSE_STATUS_MAPPING_ERROR = 5,
  CUSPARSE_STATUS_EXECUTION_FAILED = 6, CUSPARSE_STATUS_INTERNAL_ERROR = 7,
  CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED = 8, CUSPARSE_STATUS_ZERO_PIVOT = 9,
  CUSPARSE_STATUS_NOT_SUPPORTED = 10, CUSPARSE_STATUS_INSUFFICIENT_RESOURCES = 11
} cusparseStatus_t;
typedef enum { CUSPARSE_POINTER_MODE_HOST = 0, CUSPARSE_POINTER_MODE_DEVICE = 1 } cusparsePointerMode_t;
typedef enum {
  CUSPARSE_OPERATION_NON_TRANSPOSE = 0, CUSPARSE_OPERATION_TRANSPOSE = 1,
  CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE = 2
} cusparseOperation_t;
typedef enum { CUSPARSE_INDEX_BASE_ZERO = 0, CUSPARSE_INDEX_BASE_ONE = 1 } cusparseIndexBase_t;
typedef enum { CUSPARSE_INDEX_16U = 1, CUSPARSE_INDEX_32I = 2, CUSPARSE_INDEX_64I = 3 } cusparseIndexType_t;
typedef enum {
  CUSPARSE_MATRIX_TYPE_GENERAL = 0, CUSPARSE_MATRIX_TYPE_SYMMETRIC = 1,
  CUSPARSE_MATRIX_TYPE_HERMITIAN = 2, CUSPARSE_MATRIX_TYPE_TRIANGULAR = 3
} cusparseMatrixType_t;
typedef enum {
  CUSPARSE_SPMV_ALG_DEFAULT = 0, CUSPARSE_SPMV_CSR_ALG1 = 2, CUSPARSE_SPMV_CSR_ALG2 = 3,
  CUSPARSE_SPMV_COO_ALG1 = 1, CUSPARSE_SPMV_COO_ALG2 = 4
} cusparseSpMVAlg_t;

// The handle and descriptors: opaque here, as in cuSPARSE (the emulator defines them).
struct cusparseContext;
typedef struct cusparseContext *cusparseHandle_t;
struct cusparseMatDescr;
typedef struct cusparseMatDescr *cusparseMatDescr_t;
struct cusparseSpMatDescr;
typedef struct cusparseSpMatDescr *cusparseSpMatDescr_t;
typedef const struct cusparseSpMatDescr *cusparseConstSpMatDescr_t;
struct cusparseDnVecDescr;
typedef struct cusparseDnVecDescr *cusparseDnVecDescr_t;
typedef const struct cusparseDnVecDescr *cusparseConstDnVecDescr_t;

cusparseStatus_t cusparseCreate(cusparseHandle_t *h);
cusparseStatus_t cusparseDestroy(cusparseHandle_t h);
cusparseStatus_t cusparseSetStream(cusparseHandle_t h, cudaStream_t s);
cusparseStatus_t cusparseGetStream(cusparseHandle_t h, cudaStream_t *s);
cusparseStatus_t cusparseSetPointerMode(cusparseHandle_t h, cusparsePointerMode_t m);
cusparseStatus_t cusparseCreateMatDescr(cusparseMatDescr_t *d);
cusparseStatus_t cusparseDestroyMatDescr(cusparseMatDescr_t d);
cusparseStatus_t cusparseSetMatType(cusparseMatDescr_t d, cusparseMatrixType_t t);
cusparseStatus_t cusparseSetMatIndexBase(cusparseMatDescr_t d, cusparseIndexBase_t b);
cusparseStatus_t cusparseCreateCsr(cusparseSpMatDescr_t *m, int64_t rows, int64_t cols,
                                   int64_t nnz, void *offsets, void *columns, void *values,
                                   cusparseIndexType_t offset_type,
                                   cusparseIndexType_t column_type, cusparseIndexBase_t base,
                                   cudaDataType value_type);
cusparseStatus_t cusparseDestroySpMat(cusparseConstSpMatDescr_t m);
cusparseStatus_t cusparseCreateDnVec(cusparseDnVecDescr_t *v, int64_t size, void *values,
                                     cudaDataType value_type);
cusparseStatus_t cusparseDestroyDnVec(cusparseConstDnVecDescr_t v);
cusparseStatus_t cusparseSpMV_bufferSize(cusparseHandle_t h, cusparseOperation_t op,
                                         const void *alpha, cusparseConstSpMatDescr_t __cf_A,
                                         cusparseConstDnVecDescr_t x, const void *beta,
                                         cusparseDnVecDescr_t y, cudaDataType compute,
                                         cusparseSpMVAlg_t alg, size_t *size);
cusparseStatus_t cusparseSpMV(cusparseHandle_t h, cusparseOperation_t op, const void *alpha,
                              cusparseConstSpMatDescr_t __cf_A, cusparseConstDnVecDescr_t x,
                              const void *beta, cusparseDnVecDescr_t y, cudaDataType compute,
                              cusparseSpMVAlg_t alg, void *buffer);
const char *cusparseGetErrorString(cusparseStatus_t s);
