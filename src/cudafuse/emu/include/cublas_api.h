// Stand-in for cuBLAS (<cublas_api.h>, <cublas_v2.h>) in cudafuse emulation builds: the handle,
// its stream and pointer mode, and level-1/2/3 routines for float and double, computed on the
// host in column-major order as cuBLAS does, sums accumulated in double. Work on a captured
// stream becomes a graph node. docs/emulation.md, "Libraries".
#pragma once
#define CUBLAS_API_H_ 1  // the real header's guard, which helper_cuda.h tests
#include "library_types.h"
#include <cuda_fp16.h>  // the real header includes both
#include <cuda_bf16.h>
#include <cmath>
#include <cstring>
#include <vector>

// The types and declarations, shared with the front end: this header defines the functions.
#include "../../cuda_api/cudafuse_cublas_api.h"

struct cublasContext {
  cudaStream_t stream = 0;
  cublasPointerMode_t pointer_mode = CUBLAS_POINTER_MODE_HOST;
  cublasMath_t math_mode = CUBLAS_DEFAULT_MATH;
};

namespace cudafuse_emu {
namespace blas {
// A scalar argument: its value now in host pointer mode, its pointer (read when the work
// runs) in device pointer mode, as cuBLAS does.
template <class __cf_T> struct __cf_Scalar {
  __cf_T value; const __cf_T *ptr;
  __cf_Scalar(cublasHandle_t h, const __cf_T *p)
      : value(h->pointer_mode == CUBLAS_POINTER_MODE_HOST ? *p : __cf_T()),
        ptr(h->pointer_mode == CUBLAS_POINTER_MODE_HOST ? nullptr : p) {}
  __cf_T get() const { return ptr ? *ptr : value; }
};
// Element i of a vector of n with increment inc; a negative increment walks it backwards.
inline long at(int i, int inc, int n) { return inc >= 0 ? (long)i * inc : (long)(n - 1 - i) * -inc; }
inline cublasStatus_t run(cublasHandle_t h, std::function<void()> op) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  library_run(h->stream, std::move(op));
  return CUBLAS_STATUS_SUCCESS;
}
template <class __cf_T>
cublasStatus_t axpy(cublasHandle_t h, int n, const __cf_T *alpha, const __cf_T *x, int incx, __cf_T *y,
                    int incy) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (n <= 0) return CUBLAS_STATUS_SUCCESS;
  __cf_Scalar<__cf_T> a(h, alpha);
  return run(h, [=] { __cf_T av = a.get(); for (int i = 0; i < n; i++) y[at(i, incy, n)] += av * x[at(i, incx, n)]; });
}
template <class __cf_T>
cublasStatus_t dot(cublasHandle_t h, int n, const __cf_T *x, int incx, const __cf_T *y, int incy, __cf_T *r) {
  return run(h, [=] {
    double s = 0;
    for (int i = 0; i < n; i++) s += (double)x[at(i, incx, n)] * (double)y[at(i, incy, n)];
    *r = (__cf_T)s;
  });
}
template <class __cf_T> cublasStatus_t nrm2(cublasHandle_t h, int n, const __cf_T *x, int incx, __cf_T *r) {
  return run(h, [=] {
    double s = 0;
    for (int i = 0; incx > 0 && i < n; i++) s += (double)x[(long)i * incx] * x[(long)i * incx];
    *r = (__cf_T)std::sqrt(s);
  });
}
template <class __cf_T> cublasStatus_t asum(cublasHandle_t h, int n, const __cf_T *x, int incx, __cf_T *r) {
  return run(h, [=] {
    double s = 0;
    for (int i = 0; incx > 0 && i < n; i++) s += std::fabs((double)x[(long)i * incx]);
    *r = (__cf_T)s;
  });
}
template <class __cf_T> cublasStatus_t iamax(cublasHandle_t h, int n, const __cf_T *x, int incx, int *r) {
  return run(h, [=] {
    int best = 0;  // 1-based, 0 for an empty vector, the first of equal magnitudes
    for (int i = 0; incx > 0 && i < n; i++)
      if (!best || std::fabs(x[(long)i * incx]) > std::fabs(x[(long)(best - 1) * incx])) best = i + 1;
    *r = best;
  });
}
template <class __cf_T> cublasStatus_t scal(cublasHandle_t h, int n, const __cf_T *alpha, __cf_T *x, int incx) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  __cf_Scalar<__cf_T> a(h, alpha);
  return run(h, [=] { __cf_T av = a.get(); for (int i = 0; incx > 0 && i < n; i++) x[(long)i * incx] *= av; });
}
template <class __cf_T>
cublasStatus_t copy(cublasHandle_t h, int n, const __cf_T *x, int incx, __cf_T *y, int incy) {
  return run(h, [=] { for (int i = 0; i < n; i++) y[at(i, incy, n)] = x[at(i, incx, n)]; });
}
template <class __cf_T> cublasStatus_t swap(cublasHandle_t h, int n, __cf_T *x, int incx, __cf_T *y, int incy) {
  return run(h, [=] { for (int i = 0; i < n; i++) std::swap(y[at(i, incy, n)], x[at(i, incx, n)]); });
}
template <class __cf_T>
cublasStatus_t gemv(cublasHandle_t h, cublasOperation_t op, int m, int n, const __cf_T *alpha,
                    const __cf_T *__cf_A, int lda, const __cf_T *x, int incx, const __cf_T *beta, __cf_T *y, int incy) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || lda < std::max(1, m) || !incx || !incy) return CUBLAS_STATUS_INVALID_VALUE;
  __cf_Scalar<__cf_T> a(h, alpha), b(h, beta);
  return run(h, [=] {
    __cf_T av = a.get(), bv = b.get();
    bool t = op != CUBLAS_OP_N;
    int ny = t ? n : m, nx = t ? m : n;
    for (int i = 0; i < ny; i++) {
      double s = 0;
      for (int j = 0; j < nx; j++)
        s += (double)(t ? __cf_A[(long)i * lda + j] : __cf_A[(long)j * lda + i]) * x[at(j, incx, nx)];
      __cf_T &yi = y[at(i, incy, ny)];
      yi = (__cf_T)(av * s + (bv == __cf_T(0) ? __cf_T(0) : bv * yi));  // beta 0: y is not read (NaN-safe)
    }
  });
}
template <class __cf_T>
void gemm_now(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, __cf_T av,
              const __cf_T *__cf_A, int lda, const __cf_T *__cf_B, int ldb, __cf_T bv, __cf_T *__cf_C, int ldc) {
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      double s = 0;
      for (int p = 0; p < k; p++)
        s += (double)(ta == CUBLAS_OP_N ? __cf_A[(long)p * lda + i] : __cf_A[(long)i * lda + p]) *
             (tb == CUBLAS_OP_N ? __cf_B[(long)j * ldb + p] : __cf_B[(long)p * ldb + j]);
      __cf_T &c = __cf_C[(long)j * ldc + i];
      c = (__cf_T)(av * s + (bv == __cf_T(0) ? __cf_T(0) : bv * c));
    }
}
template <class __cf_T>
cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                    int k, const __cf_T *alpha, const __cf_T *__cf_A, int lda, const __cf_T *__cf_B, int ldb,
                    const __cf_T *beta, __cf_T *__cf_C, int ldc, long sa = 0, long sb = 0, long sc = 0,
                    int batch = 1) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || k < 0 || batch < 0 || ldc < std::max(1, m) ||
      lda < std::max(1, ta == CUBLAS_OP_N ? m : k) || ldb < std::max(1, tb == CUBLAS_OP_N ? k : n))
    return CUBLAS_STATUS_INVALID_VALUE;
  __cf_Scalar<__cf_T> a(h, alpha), b(h, beta);
  return run(h, [=] {
    for (int i = 0; i < batch; i++)
      gemm_now(ta, tb, m, n, k, a.get(), __cf_A + i * sa, lda, __cf_B + i * sb, ldb, b.get(), __cf_C + i * sc, ldc);
  });
}
template <class __cf_T>
cublasStatus_t gemm_batched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                            int n, int k, const __cf_T *alpha, const __cf_T *const __cf_A[], int lda,
                            const __cf_T *const __cf_B[], int ldb, const __cf_T *beta, __cf_T *const __cf_C[], int ldc,
                            int batch) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  __cf_Scalar<__cf_T> a(h, alpha), b(h, beta);
  return run(h, [=] {
    for (int i = 0; i < batch; i++)
      gemm_now(ta, tb, m, n, k, a.get(), __cf_A[i], lda, __cf_B[i], ldb, b.get(), __cf_C[i], ldc);
  });
}
// The *Ex routines: A, B and C of any of the real types, the product accumulated in double
// and rounded once to C's type; alpha and beta are of the compute type (double for 64F,
// half for 16F, float otherwise).
inline bool ex_type(cudaDataType t) {
  return t == CUDA_R_32F || t == CUDA_R_64F || t == CUDA_R_16F || t == CUDA_R_16BF;
}
inline double ex_load(const void *p, long i, cudaDataType t) {
  switch (t) {
    case CUDA_R_64F: return ((const double *)p)[i];
    case CUDA_R_16F: return (double)__half2float(((const __half *)p)[i]);
    case CUDA_R_16BF: return (double)__bfloat162float(((const __nv_bfloat16 *)p)[i]);
    default: return ((const float *)p)[i];
  }
}
inline void ex_store(void *p, long i, cudaDataType t, double v) {
  switch (t) {
    case CUDA_R_64F: ((double *)p)[i] = v; break;
    case CUDA_R_16F: ((__half *)p)[i] = __float2half((float)v); break;
    case CUDA_R_16BF: ((__nv_bfloat16 *)p)[i] = __float2bfloat16((float)v); break;
    default: ((float *)p)[i] = (float)v;
  }
}
inline double ex_scalar(const void *p, cublasComputeType_t c) {
  if (c == CUBLAS_COMPUTE_64F || c == CUBLAS_COMPUTE_64F_PEDANTIC) return *(const double *)p;
  if (c == CUBLAS_COMPUTE_16F || c == CUBLAS_COMPUTE_16F_PEDANTIC)
    return (double)__half2float(*(const __half *)p);
  return *(const float *)p;
}
inline cublasStatus_t gemm_ex(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                              int m, int n, int k, const void *alpha, const void *__cf_A,
                              cudaDataType at, int lda, long long sa, const void *__cf_B,
                              cudaDataType bt, int ldb, long long sb, const void *beta, void *__cf_C,
                              cudaDataType ct, int ldc, long long sc, int batch,
                              cublasComputeType_t comp) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!ex_type(at) || !ex_type(bt) || !ex_type(ct) || comp == CUBLAS_COMPUTE_32I ||
      comp == CUBLAS_COMPUTE_32I_PEDANTIC)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  if (m < 0 || n < 0 || k < 0 || batch < 0 || ldc < std::max(1, m) ||
      lda < std::max(1, ta == CUBLAS_OP_N ? m : k) || ldb < std::max(1, tb == CUBLAS_OP_N ? k : n))
    return CUBLAS_STATUS_INVALID_VALUE;
  const bool host = h->pointer_mode == CUBLAS_POINTER_MODE_HOST;
  const double av = host ? ex_scalar(alpha, comp) : 0, bv = host ? ex_scalar(beta, comp) : 0;
  return run(h, [=] {
    const double a = host ? av : ex_scalar(alpha, comp), b = host ? bv : ex_scalar(beta, comp);
    for (int q = 0; q < batch; q++)
      for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
          double s = 0;
          for (int p = 0; p < k; p++)
            s += ex_load(__cf_A, q * sa + (ta == CUBLAS_OP_N ? (long)p * lda + i : (long)i * lda + p), at) *
                 ex_load(__cf_B, q * sb + (tb == CUBLAS_OP_N ? (long)j * ldb + p : (long)p * ldb + j), bt);
          const long c = q * sc + (long)j * ldc + i;
          ex_store(__cf_C, c, ct, a * s + (b == 0 ? 0 : b * ex_load(__cf_C, c, ct)));
        }
  });
}
}  // namespace blas
}  // namespace cudafuse_emu

inline cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                   int m, int n, int k, const void *alpha, const void *__cf_A,
                                   cudaDataType at, int lda, const void *__cf_B, cudaDataType bt,
                                   int ldb, const void *beta, void *__cf_C, cudaDataType ct, int ldc,
                                   cublasComputeType_t comp, cublasGemmAlgo_t) {
  return ::cudafuse_emu::blas::gemm_ex(h, ta, tb, m, n, k, alpha, __cf_A, at, lda, 0, __cf_B, bt, ldb, 0,
                                       beta, __cf_C, ct, ldc, 0, 1, comp);
}
inline cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
    const void *alpha, const void *__cf_A, cudaDataType at, int lda, long long sa, const void *__cf_B,
    cudaDataType bt, int ldb, long long sb, const void *beta, void *__cf_C, cudaDataType ct, int ldc,
    long long sc, int batch, cublasComputeType_t comp, cublasGemmAlgo_t) {
  return ::cudafuse_emu::blas::gemm_ex(h, ta, tb, m, n, k, alpha, __cf_A, at, lda, sa, __cf_B, bt, ldb,
                                       sb, beta, __cf_C, ct, ldc, sc, batch, comp);
}

inline cublasStatus_t cublasCreate(cublasHandle_t *h) {
  if (!h) return CUBLAS_STATUS_INVALID_VALUE;
  *h = new cublasContext();
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasDestroy(cublasHandle_t h) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  delete h;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasGetVersion(cublasHandle_t, int *v) { *v = 120000; return CUBLAS_STATUS_SUCCESS; }
inline cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  h->stream = s;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasGetStream(cublasHandle_t h, cudaStream_t *s) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  *s = h->stream;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasSetPointerMode(cublasHandle_t h, cublasPointerMode_t m) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  h->pointer_mode = m;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasGetPointerMode(cublasHandle_t h, cublasPointerMode_t *m) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  *m = h->pointer_mode;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t m) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  h->math_mode = m;  // recorded only: the emulator always computes in full precision
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasGetMathMode(cublasHandle_t h, cublasMath_t *m) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  *m = h->math_mode;
  return CUBLAS_STATUS_SUCCESS;
}
inline const char *cublasGetStatusName(cublasStatus_t s) {
  switch (s) {
#define CF_NAME(x) case x: return #x;
    CF_NAME(CUBLAS_STATUS_SUCCESS) CF_NAME(CUBLAS_STATUS_NOT_INITIALIZED)
    CF_NAME(CUBLAS_STATUS_ALLOC_FAILED) CF_NAME(CUBLAS_STATUS_INVALID_VALUE)
    CF_NAME(CUBLAS_STATUS_ARCH_MISMATCH) CF_NAME(CUBLAS_STATUS_MAPPING_ERROR)
    CF_NAME(CUBLAS_STATUS_EXECUTION_FAILED) CF_NAME(CUBLAS_STATUS_INTERNAL_ERROR)
    CF_NAME(CUBLAS_STATUS_NOT_SUPPORTED) CF_NAME(CUBLAS_STATUS_LICENSE_ERROR)
#undef CF_NAME
  }
  return "CUBLAS_STATUS_UNKNOWN";
}
inline const char *cublasGetStatusString(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED: return "the resource allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE: return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "an absent device architectural feature is required";
    case CUBLAS_STATUS_MAPPING_ERROR: return "an access to GPU memory space failed";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "the GPU program failed to execute";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "an internal operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported";
    case CUBLAS_STATUS_LICENSE_ERROR: return "an error was detected when checking the current licensing";
  }
  return "unknown error";
}

// Host <-> device copies of vectors and column-major matrices (one address space here).
inline cublasStatus_t cublasSetMatrix(int rows, int cols, int elem, const void *a, int lda,
                                      void *b, int ldb) {
  if (rows < 0 || cols < 0 || elem <= 0 || lda < rows || ldb < rows) return CUBLAS_STATUS_INVALID_VALUE;
  for (int j = 0; j < cols; j++)
    std::memcpy((char *)b + (size_t)j * ldb * elem, (const char *)a + (size_t)j * lda * elem,
                (size_t)rows * elem);
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasGetMatrix(int rows, int cols, int elem, const void *a, int lda,
                                      void *b, int ldb) {
  return cublasSetMatrix(rows, cols, elem, a, lda, b, ldb);
}
inline cublasStatus_t cublasSetVector(int n, int elem, const void *x, int incx, void *y, int incy) {
  if (n < 0 || elem <= 0 || incx <= 0 || incy <= 0) return CUBLAS_STATUS_INVALID_VALUE;
  for (int i = 0; i < n; i++)
    std::memcpy((char *)y + (size_t)i * incy * elem, (const char *)x + (size_t)i * incx * elem, elem);
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasGetVector(int n, int elem, const void *x, int incx, void *y, int incy) {
  return cublasSetVector(n, elem, x, incx, y, incy);
}
inline cublasStatus_t cublasSetMatrixAsync(int r, int c, int e, const void *a, int lda, void *b,
                                           int ldb, cudaStream_t) { return cublasSetMatrix(r, c, e, a, lda, b, ldb); }
inline cublasStatus_t cublasGetMatrixAsync(int r, int c, int e, const void *a, int lda, void *b,
                                           int ldb, cudaStream_t) { return cublasSetMatrix(r, c, e, a, lda, b, ldb); }
inline cublasStatus_t cublasSetVectorAsync(int n, int e, const void *x, int incx, void *y,
                                           int incy, cudaStream_t) { return cublasSetVector(n, e, x, incx, y, incy); }
inline cublasStatus_t cublasGetVectorAsync(int n, int e, const void *x, int incx, void *y,
                                           int incy, cudaStream_t) { return cublasSetVector(n, e, x, incx, y, incy); }

// The typed entry points, S (float) and D (double), over the templates above.
#define CF_BLAS_L1(P, p, T)                                                                    \
  inline cublasStatus_t P##axpy(cublasHandle_t h, int n, const T *a, const T *x,      \
                                        int incx, T *y, int incy) {                           \
    return ::__cf_emu::blas::axpy(h, n, a, x, incx, y, incy); }                          \
  inline cublasStatus_t P##dot(cublasHandle_t h, int n, const T *x, int incx,         \
                                       const T *y, int incy, T *r) {                          \
    return ::__cf_emu::blas::dot(h, n, x, incx, y, incy, r); }                           \
  inline cublasStatus_t P##nrm2(cublasHandle_t h, int n, const T *x, int incx, T *r) { \
    return ::__cf_emu::blas::nrm2(h, n, x, incx, r); }                                   \
  inline cublasStatus_t P##asum(cublasHandle_t h, int n, const T *x, int incx, T *r) { \
    return ::__cf_emu::blas::asum(h, n, x, incx, r); }                                   \
  inline cublasStatus_t cublasI##p##amax(cublasHandle_t h, int n, const T *x, int incx, int *r) { \
    return ::__cf_emu::blas::iamax(h, n, x, incx, r); }                                  \
  inline cublasStatus_t P##scal(cublasHandle_t h, int n, const T *a, T *x, int incx) { \
    return ::__cf_emu::blas::scal(h, n, a, x, incx); }                                   \
  inline cublasStatus_t P##copy(cublasHandle_t h, int n, const T *x, int incx, T *y,  \
                                        int incy) {                                           \
    return ::__cf_emu::blas::copy(h, n, x, incx, y, incy); }                             \
  inline cublasStatus_t P##swap(cublasHandle_t h, int n, T *x, int incx, T *y,        \
                                        int incy) {                                           \
    return ::__cf_emu::blas::swap(h, n, x, incx, y, incy); }                             \
  inline cublasStatus_t P##gemv(cublasHandle_t h, cublasOperation_t op, int m, int n, \
                                        const T *a, const T *__cf_A, int lda, const T *x, int incx, \
                                        const T *b, T *y, int incy) {                         \
    return ::__cf_emu::blas::gemv(h, op, m, n, a, __cf_A, lda, x, incx, b, y, incy); }        \
  inline cublasStatus_t P##gemm(cublasHandle_t h, cublasOperation_t ta,               \
                                        cublasOperation_t tb, int m, int n, int k, const T *a, \
                                        const T *__cf_A, int lda, const T *__cf_B, int ldb, const T *b,  \
                                        T *__cf_C, int ldc) {                                      \
    return ::__cf_emu::blas::gemm(h, ta, tb, m, n, k, a, __cf_A, lda, __cf_B, ldb, b, __cf_C, ldc); }   \
  inline cublasStatus_t P##gemmStridedBatched(                                        \
      cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,      \
      const T *a, const T *__cf_A, int lda, long long sa, const T *__cf_B, int ldb, long long sb,       \
      const T *b, T *__cf_C, int ldc, long long sc, int batch) {                                   \
    return ::__cf_emu::blas::gemm(h, ta, tb, m, n, k, a, __cf_A, lda, __cf_B, ldb, b, __cf_C, ldc,       \
                                      (long)sa, (long)sb, (long)sc, batch); }                \
  inline cublasStatus_t P##gemmBatched(                                               \
      cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,      \
      const T *a, const T *const __cf_A[], int lda, const T *const __cf_B[], int ldb, const T *b,       \
      T *const __cf_C[], int ldc, int batch) {                                                     \
    return ::__cf_emu::blas::gemm_batched(h, ta, tb, m, n, k, a, __cf_A, lda, __cf_B, ldb, b, __cf_C,    \
                                              ldc, batch); }
CF_BLAS_L1(cublasS, s, float)
CF_BLAS_L1(cublasD, d, double)
#undef CF_BLAS_L1
