/* cudafuse stand-in for cublasLt.h: cuBLASLt's types and host API, declared for the front
   end (the emulator's emu/include/cublasLt.h defines them). */
#pragma once
#include "cublas_api.h"
#include <cstdint>
#include <cstring>

// The types: one definition for the front end and the emulator.
#include "../../../cuda_api/cudafuse_cublaslt_types.h"

cublasStatus_t cublasLtCreate(cublasLtHandle_t *h);
cublasStatus_t cublasLtDestroy(cublasLtHandle_t h);
size_t cublasLtGetVersion();
cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *d, cublasComputeType_t c,
                                               cudaDataType scale);
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d);
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t d,
                                                     cublasLtMatmulDescAttributes_t a,
                                                     const void *buf, size_t size);
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *l, cudaDataType t,
                                                 uint64_t rows, uint64_t cols, int64_t ld);
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l);
cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t l,
                                                       cublasLtMatrixLayoutAttribute_t a,
                                                       const void *buf, size_t size);
cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *p);
cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t p);
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(
    cublasLtMatmulPreference_t p, cublasLtMatmulPreferenceAttributes_t a, const void *buf,
    size_t size);
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t h, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
    cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatmulPreference_t, int requested,
    cublasLtMatmulHeuristicResult_t *results, int *found);
cublasStatus_t cublasLtMatmul(cublasLtHandle_t h, cublasLtMatmulDesc_t d,
                                     const void *alpha, const void *A, cublasLtMatrixLayout_t la,
                                     const void *B, cublasLtMatrixLayout_t lb, const void *beta,
                                     const void *C, cublasLtMatrixLayout_t lc, void *D,
                                     cublasLtMatrixLayout_t ld, const cublasLtMatmulAlgo_t *,
                                     void *, size_t, cudaStream_t stream);
