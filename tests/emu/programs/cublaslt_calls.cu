// cuBLASLt and the cuBLAS *Ex routines as a transformer's linear layers call them: a
// row-major activation times a transposed weight plus bias, with and without GELU, and a
// strided-batched half-precision product accumulated in float.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_fp16.h>

static cublasLtHandle_t lt;

// out[B][OC] = inp[B][C] @ weight[OC][C]^T + bias[OC] (row-major), through column-major Lt.
extern "C" int linear(float *out, const float *inp, const float *weight, const float *bias,
                      int B, int C, int OC, int gelu) {
  if (cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS) return 1;
  cublasLtMatmulDesc_t desc;
  cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof(t));
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof(n));
  cublasLtEpilogue_t epi = gelu ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi));
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias));
  cublasLtMatrixLayout_t w, x, y;
  cublasLtMatrixLayoutCreate(&w, CUDA_R_32F, C, OC, C);
  cublasLtMatrixLayoutCreate(&x, CUDA_R_32F, C, B, C);
  cublasLtMatrixLayoutCreate(&y, CUDA_R_32F, OC, B, OC);
  cublasLtMatmulPreference_t pref;
  cublasLtMatmulPreferenceCreate(&pref);
  size_t ws = 1 << 20;
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                       sizeof(ws));
  cublasLtMatmulHeuristicResult_t heur;
  int found = 0;
  cublasLtMatmulAlgoGetHeuristic(lt, desc, w, x, y, y, pref, 1, &heur, &found);
  if (found != 1) return 2;
  const float alpha = 1.0f, beta = 0.0f;
  cublasStatus_t s = cublasLtMatmul(lt, desc, &alpha, weight, w, inp, x, &beta, out, y, out, y,
                                    &heur.algo, nullptr, 0, 0);
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(w);
  cublasLtMatrixLayoutDestroy(x);
  cublasLtMatrixLayoutDestroy(y);
  cublasLtMatmulDescDestroy(desc);
  cublasLtDestroy(lt);
  return s == CUBLAS_STATUS_SUCCESS ? 0 : 3;
}

// C_i = A_i (m x k) B_i (k x n), column-major half inputs, float output, `batch` products.
extern "C" int gemm_ex_half(const __half *A, const __half *B, float *C, int m, int n, int k,
                            int batch) {
  cublasHandle_t h;
  cublasCreate(&h);
  const float alpha = 2.0f, beta = 1.0f;
  cublasStatus_t s = cublasGemmStridedBatchedEx(
      h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, A, CUDA_R_16F, m, (long long)m * k, B,
      CUDA_R_16F, k, (long long)k * n, &beta, C, CUDA_R_32F, m, (long long)m * n, batch,
      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP);
  cublasDestroy(h);
  return s == CUBLAS_STATUS_SUCCESS ? 0 : 1;
}

// A row-major layout order is not computed by the stand-in: its status says so.
extern "C" int row_major_is_not_supported(float *d) {
  cublasLtCreate(&lt);
  cublasLtMatmulDesc_t desc;
  cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasLtMatrixLayout_t l;
  cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, 2, 2, 2);
  cublasLtOrder_t row = CUBLASLT_ORDER_ROW;
  cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &row, sizeof(row));
  const float one = 1.0f, zero = 0.0f;
  cublasStatus_t s = cublasLtMatmul(lt, desc, &one, d, l, d, l, &zero, d, l, d, l, nullptr,
                                    nullptr, 0, 0);
  return s == CUBLAS_STATUS_NOT_SUPPORTED ? 0 : 1;
}
