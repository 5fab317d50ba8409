// Stand-in for cuSPARSE (<cusparse.h>) in cudafuse emulation builds, the little the generic
// API needs for a CSR matrix times a dense vector: handles, descriptors and cusparseSpMV
// (float or double values, 32- or 64-bit indices, either base), on the host in double.
// Work on a captured stream becomes a graph node. docs/emulation.md, "Libraries".
#pragma once
#include "library_types.h"
#include <cstdint>
#include <vector>

// The types and declarations, shared with the front end: this header defines the
// descriptors and the functions.
#include "../../cuda_api/cudafuse_cusparse_api.h"

struct cusparseContext {
  cudaStream_t stream = 0;
  cusparsePointerMode_t pointer_mode = CUSPARSE_POINTER_MODE_HOST;
};
struct cusparseMatDescr {
  cusparseMatrixType_t type = CUSPARSE_MATRIX_TYPE_GENERAL;
  cusparseIndexBase_t base = CUSPARSE_INDEX_BASE_ZERO;
};
struct cusparseSpMatDescr {
  int64_t rows, cols, nnz;
  void *offsets, *columns, *values;
  cusparseIndexType_t offset_type, column_type;
  cusparseIndexBase_t base;
  cudaDataType value_type;
};
struct cusparseDnVecDescr {
  int64_t size;
  void *values;
  cudaDataType value_type;
};

inline cusparseStatus_t cusparseCreate(cusparseHandle_t *h) { *h = new cusparseContext(); return CUSPARSE_STATUS_SUCCESS; }
inline cusparseStatus_t cusparseDestroy(cusparseHandle_t h) { delete h; return CUSPARSE_STATUS_SUCCESS; }
inline cusparseStatus_t cusparseSetStream(cusparseHandle_t h, cudaStream_t s) {
  if (!h) return CUSPARSE_STATUS_NOT_INITIALIZED;
  h->stream = s;
  return CUSPARSE_STATUS_SUCCESS;
}
inline cusparseStatus_t cusparseGetStream(cusparseHandle_t h, cudaStream_t *s) {
  if (!h) return CUSPARSE_STATUS_NOT_INITIALIZED;
  *s = h->stream;
  return CUSPARSE_STATUS_SUCCESS;
}
inline cusparseStatus_t cusparseSetPointerMode(cusparseHandle_t h, cusparsePointerMode_t m) {
  if (!h) return CUSPARSE_STATUS_NOT_INITIALIZED;
  h->pointer_mode = m;
  return CUSPARSE_STATUS_SUCCESS;
}
inline cusparseStatus_t cusparseCreateMatDescr(cusparseMatDescr_t *d) { *d = new cusparseMatDescr(); return CUSPARSE_STATUS_SUCCESS; }
inline cusparseStatus_t cusparseDestroyMatDescr(cusparseMatDescr_t d) { delete d; return CUSPARSE_STATUS_SUCCESS; }
inline cusparseStatus_t cusparseSetMatType(cusparseMatDescr_t d, cusparseMatrixType_t t) { d->type = t; return CUSPARSE_STATUS_SUCCESS; }
inline cusparseStatus_t cusparseSetMatIndexBase(cusparseMatDescr_t d, cusparseIndexBase_t b) { d->base = b; return CUSPARSE_STATUS_SUCCESS; }
inline cusparseStatus_t cusparseCreateCsr(cusparseSpMatDescr_t *m, int64_t rows, int64_t cols,
                                          int64_t nnz, void *offsets, void *columns, void *values,
                                          cusparseIndexType_t offset_type,
                                          cusparseIndexType_t column_type,
                                          cusparseIndexBase_t base, cudaDataType value_type) {
  if ((offset_type != CUSPARSE_INDEX_32I && offset_type != CUSPARSE_INDEX_64I) ||
      (column_type != CUSPARSE_INDEX_32I && column_type != CUSPARSE_INDEX_64I) ||
      (value_type != CUDA_R_32F && value_type != CUDA_R_64F))
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  *m = new cusparseSpMatDescr{rows, cols, nnz, offsets, columns, values, offset_type,
                              column_type, base, value_type};
  return CUSPARSE_STATUS_SUCCESS;
}
inline cusparseStatus_t cusparseDestroySpMat(cusparseConstSpMatDescr_t m) { delete m; return CUSPARSE_STATUS_SUCCESS; }
inline cusparseStatus_t cusparseCreateDnVec(cusparseDnVecDescr_t *v, int64_t size, void *values,
                                            cudaDataType value_type) {
  if (value_type != CUDA_R_32F && value_type != CUDA_R_64F) return CUSPARSE_STATUS_NOT_SUPPORTED;
  *v = new cusparseDnVecDescr{size, values, value_type};
  return CUSPARSE_STATUS_SUCCESS;
}
inline cusparseStatus_t cusparseDestroyDnVec(cusparseConstDnVecDescr_t v) { delete v; return CUSPARSE_STATUS_SUCCESS; }
inline cusparseStatus_t cusparseSpMV_bufferSize(cusparseHandle_t, cusparseOperation_t, const void *,
                                                cusparseConstSpMatDescr_t, cusparseConstDnVecDescr_t,
                                                const void *, cusparseDnVecDescr_t, cudaDataType,
                                                cusparseSpMVAlg_t, size_t *size) {
  *size = 0;  // no work area
  return CUSPARSE_STATUS_SUCCESS;
}

namespace cudafuse_emu {
namespace sparse {
inline double value(const void *p, cudaDataType t, int64_t i) {
  return t == CUDA_R_64F ? static_cast<const double *>(p)[i] : static_cast<const float *>(p)[i];
}
inline int64_t index(const void *p, cusparseIndexType_t t, int64_t i) {
  return t == CUSPARSE_INDEX_64I ? static_cast<const int64_t *>(p)[i] : static_cast<const int *>(p)[i];
}
inline void set(void *p, cudaDataType t, int64_t i, double v) {
  if (t == CUDA_R_64F) static_cast<double *>(p)[i] = v;
  else static_cast<float *>(p)[i] = (float)v;
}
// y = alpha op(A) x + beta y, A in CSR; beta 0 does not read y.
inline void spmv(bool trans, double a, cusparseSpMatDescr __cf_A, cusparseDnVecDescr x, double b,
                 cusparseDnVecDescr y) {
  int64_t base = __cf_A.base == CUSPARSE_INDEX_BASE_ONE ? 1 : 0;
  std::vector<double> acc(y.size, 0.0);
  for (int64_t r = 0; r < __cf_A.rows; r++)
    for (int64_t e = index(__cf_A.offsets, __cf_A.offset_type, r) - base;
         e < index(__cf_A.offsets, __cf_A.offset_type, r + 1) - base; e++) {
      int64_t c = index(__cf_A.columns, __cf_A.column_type, e) - base;
      double v = value(__cf_A.values, __cf_A.value_type, e);
      if (trans) acc[c] += v * value(x.values, x.value_type, r);
      else acc[r] += v * value(x.values, x.value_type, c);
    }
  for (int64_t i = 0; i < y.size; i++)
    set(y.values, y.value_type, i,
        a * acc[i] + (b == 0 ? 0 : b * value(y.values, y.value_type, i)));
}
}  // namespace sparse
}  // namespace cudafuse_emu

inline cusparseStatus_t cusparseSpMV(cusparseHandle_t h, cusparseOperation_t op, const void *alpha,
                                     cusparseConstSpMatDescr_t __cf_A, cusparseConstDnVecDescr_t x,
                                     const void *beta, cusparseDnVecDescr_t y,
                                     cudaDataType compute, cusparseSpMVAlg_t, void *) {
  if (!h) return CUSPARSE_STATUS_NOT_INITIALIZED;
  if (compute != CUDA_R_32F && compute != CUDA_R_64F) return CUSPARSE_STATUS_NOT_SUPPORTED;
  if (y->size != (op == CUSPARSE_OPERATION_NON_TRANSPOSE ? __cf_A->rows : __cf_A->cols))
    return CUSPARSE_STATUS_INVALID_VALUE;
  bool host = h->pointer_mode == CUSPARSE_POINTER_MODE_HOST;  // host scalars are read now
  double a = host ? ::cudafuse_emu::sparse::value(alpha, compute, 0) : 0;
  double b = host ? ::cudafuse_emu::sparse::value(beta, compute, 0) : 0;
  cusparseSpMatDescr __cf_Am = *__cf_A;
  cusparseDnVecDescr xv = *x, yv = *y;
  bool trans = op != CUSPARSE_OPERATION_NON_TRANSPOSE;
  ::cudafuse_emu::library_run(h->stream, [=] {
    double av = host ? a : ::cudafuse_emu::sparse::value(alpha, compute, 0);
    double bv = host ? b : ::cudafuse_emu::sparse::value(beta, compute, 0);
    ::cudafuse_emu::sparse::spmv(trans, av, __cf_Am, xv, bv, yv);
  });
  return CUSPARSE_STATUS_SUCCESS;
}
inline const char *cusparseGetErrorString(cusparseStatus_t s) {
  return s == CUSPARSE_STATUS_SUCCESS ? "success" : "cuSPARSE error";
}
