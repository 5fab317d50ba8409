// Stand-in for cuBLASLt (<cublasLt.h>) in cudafuse emulation builds: handles, matmul and
// matrix-layout descriptors with their attributes, preferences and the heuristic query, and
// cublasLtMatmul for column-major real matrices (any of the *Ex types), D = alpha op(A) op(B)
// + beta C with the bias/ReLU/GELU epilogues, computed on the host in double and rounded
// once to D's type. docs/emulation.md, "Libraries".
#pragma once
#include "cublas_api.h"
#include <cstdint>
#include <cstring>

#include "../../cuda_api/cudafuse_cublaslt_api.h"  // the types and declarations: defined below

inline cublasStatus_t cublasLtCreate(cublasLtHandle_t *h) {
  if (!h) return CUBLAS_STATUS_INVALID_VALUE;
  *h = new cublasLtContext();
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasLtDestroy(cublasLtHandle_t h) { delete h; return CUBLAS_STATUS_SUCCESS; }
inline size_t cublasLtGetVersion() { return 120000; }

namespace cudafuse_emu {
namespace blaslt {
// Copies `size` bytes of an attribute value into a field of its size; the wrong size is an
// invalid value, as in cuBLASLt.
template <class __cf_F> cublasStatus_t put(__cf_F &field, const void *buf, size_t size) {
  if (!buf || size != sizeof(__cf_F)) return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(&field, buf, sizeof(__cf_F));
  return CUBLAS_STATUS_SUCCESS;
}
template <class __cf_F> cublasStatus_t get(const __cf_F &field, void *buf, size_t size, size_t *written) {
  if (written) *written = sizeof(__cf_F);
  if (size == 0 && written) return CUBLAS_STATUS_SUCCESS;
  if (!buf || size < sizeof(__cf_F)) return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(buf, &field, sizeof(__cf_F));
  return CUBLAS_STATUS_SUCCESS;
}
}  // namespace blaslt
}  // namespace cudafuse_emu

inline cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *d, cublasComputeType_t c,
                                               cudaDataType scale) {
  if (!d) return CUBLAS_STATUS_INVALID_VALUE;
  *d = new cublasLtMatmulDescOpaque_t();
  (*d)->compute = c;
  (*d)->scale = scale;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d) {
  delete d;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t d,
                                                     cublasLtMatmulDescAttributes_t a,
                                                     const void *buf, size_t size) {
  using ::cudafuse_emu::blaslt::put;
  if (!d) return CUBLAS_STATUS_NOT_INITIALIZED;
  switch (a) {
    case CUBLASLT_MATMUL_DESC_TRANSA: return put(d->trans_a, buf, size);
    case CUBLASLT_MATMUL_DESC_TRANSB: return put(d->trans_b, buf, size);
    case CUBLASLT_MATMUL_DESC_EPILOGUE: return put(d->epilogue, buf, size);
    case CUBLASLT_MATMUL_DESC_BIAS_POINTER: return put(d->bias, buf, size);
    case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE: return put(d->bias_type, buf, size);
    case CUBLASLT_MATMUL_DESC_POINTER_MODE: return put(d->pointer_mode, buf, size);
    default: return CUBLAS_STATUS_NOT_SUPPORTED;
  }
}
inline cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *l, cudaDataType t,
                                                 uint64_t rows, uint64_t cols, int64_t ld) {
  if (!l) return CUBLAS_STATUS_INVALID_VALUE;
  *l = new cublasLtMatrixLayoutOpaque_t{t, rows, cols, ld};
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l) {
  delete l;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t l,
                                                       cublasLtMatrixLayoutAttribute_t a,
                                                       const void *buf, size_t size) {
  using ::cudafuse_emu::blaslt::put;
  if (!l) return CUBLAS_STATUS_NOT_INITIALIZED;
  switch (a) {
    case CUBLASLT_MATRIX_LAYOUT_ORDER: return put(l->order, buf, size);
    case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT: return put(l->batch, buf, size);
    case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET: return put(l->batch_stride, buf, size);
    case CUBLASLT_MATRIX_LAYOUT_LD: return put(l->ld, buf, size);
    default: return CUBLAS_STATUS_NOT_SUPPORTED;
  }
}
inline cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *p) {
  if (!p) return CUBLAS_STATUS_INVALID_VALUE;
  *p = new cublasLtMatmulPreferenceOpaque_t();
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t p) {
  delete p;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasLtMatmulPreferenceSetAttribute(
    cublasLtMatmulPreference_t p, cublasLtMatmulPreferenceAttributes_t a, const void *buf,
    size_t size) {
  if (!p) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (a == CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES)
    return ::cudafuse_emu::blaslt::put(p->workspace, buf, size);
  return CUBLAS_STATUS_SUCCESS;  // search hints: one algorithm here
}
// One algorithm, needing no workspace, for any problem the stand-in computes.
inline cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t h, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
    cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatmulPreference_t, int requested,
    cublasLtMatmulHeuristicResult_t *results, int *found) {
  if (!h || !found) return CUBLAS_STATUS_INVALID_VALUE;
  *found = requested > 0 ? 1 : 0;
  if (requested > 0 && results) {
    std::memset(&results[0], 0, sizeof(results[0]));
    results[0].state = CUBLAS_STATUS_SUCCESS;
    results[0].wavesCount = 1.0f;
  }
  return CUBLAS_STATUS_SUCCESS;
}

inline cublasStatus_t cublasLtMatmul(cublasLtHandle_t h, cublasLtMatmulDesc_t d,
                                     const void *alpha, const void *__cf_A, cublasLtMatrixLayout_t la,
                                     const void *__cf_B, cublasLtMatrixLayout_t lb, const void *beta,
                                     const void *__cf_C, cublasLtMatrixLayout_t lc, void *__cf_D,
                                     cublasLtMatrixLayout_t ld, const cublasLtMatmulAlgo_t *,
                                     void *, size_t, cudaStream_t stream) {
  using namespace ::cudafuse_emu::blas;
  if (!h || !d || !la || !lb || !lc || !ld) return CUBLAS_STATUS_NOT_INITIALIZED;
  for (auto *l : {la, lb, lc, ld})
    if (l->order != CUBLASLT_ORDER_COL || !ex_type(l->type)) return CUBLAS_STATUS_NOT_SUPPORTED;
  const int e = d->epilogue;
  if (e != CUBLASLT_EPILOGUE_DEFAULT && e != CUBLASLT_EPILOGUE_RELU && e != CUBLASLT_EPILOGUE_BIAS &&
      e != CUBLASLT_EPILOGUE_RELU_BIAS && e != CUBLASLT_EPILOGUE_GELU &&
      e != CUBLASLT_EPILOGUE_GELU_BIAS)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  const bool ta = d->trans_a != CUBLAS_OP_N, tb = d->trans_b != CUBLAS_OP_N;
  const long m = (long)ld->rows, n = (long)ld->cols, k = (long)(ta ? la->rows : la->cols);
  if ((long)(ta ? la->cols : la->rows) != m || (long)(tb ? lb->cols : lb->rows) != k ||
      (long)(tb ? lb->rows : lb->cols) != n || (long)lc->rows != m || (long)lc->cols != n)
    return CUBLAS_STATUS_INVALID_VALUE;
  const bool bias = e == CUBLASLT_EPILOGUE_BIAS || e == CUBLASLT_EPILOGUE_RELU_BIAS ||
                    e == CUBLASLT_EPILOGUE_GELU_BIAS;
  if (bias && !d->bias) return CUBLAS_STATUS_INVALID_VALUE;
  const cudaDataType bt = d->bias_type < 0 ? ld->type : (cudaDataType)d->bias_type;
  const cublasComputeType_t comp = d->compute;
  const bool device_scalars = d->pointer_mode != 0;
  const double av = device_scalars ? 0 : ex_scalar(alpha, comp);
  const double bv = device_scalars ? 0 : ex_scalar(beta, comp);
  const int batch = ld->batch;
  // The descriptors by value: work on a captured stream runs after they may be destroyed.
  const cublasLtMatrixLayoutOpaque_t __cf_LA = *la, __cf_LB = *lb, __cf_LC = *lc, __cf_LD = *ld;
  const void *bias_ptr = d->bias;
  cublasContext ctx;
  ctx.stream = stream;
  return run(&ctx, [=] {
    const auto *la = &__cf_LA, *lb = &__cf_LB, *lc = &__cf_LC, *ld = &__cf_LD;
    const double a = device_scalars ? ex_scalar(alpha, comp) : av;
    const double b = device_scalars ? ex_scalar(beta, comp) : bv;
    for (int q = 0; q < batch; q++)
      for (long j = 0; j < n; j++)
        for (long i = 0; i < m; i++) {
          double s = 0;
          for (long p = 0; p < k; p++)
            s += ex_load(__cf_A, q * la->batch_stride + (ta ? i * la->ld + p : p * la->ld + i), la->type) *
                 ex_load(__cf_B, q * lb->batch_stride + (tb ? p * lb->ld + j : j * lb->ld + p), lb->type);
          double v = a * s;
          if (b != 0) v += b * ex_load(__cf_C, q * lc->batch_stride + j * lc->ld + i, lc->type);
          if (bias) v += ex_load(bias_ptr, i, bt);
          if (e == CUBLASLT_EPILOGUE_RELU || e == CUBLASLT_EPILOGUE_RELU_BIAS) v = v > 0 ? v : 0;
          if (e == CUBLASLT_EPILOGUE_GELU || e == CUBLASLT_EPILOGUE_GELU_BIAS)  // tanh form
            v = 0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
          ex_store(__cf_D, q * ld->batch_stride + j * ld->ld + i, ld->type, v);
        }
  });
}
