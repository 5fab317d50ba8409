// cuBLAS stand-in checks: each host function makes one kind of call on arrays that the test
// compares against numpy (column-major, as cuBLAS is).
#include <cublas_v2.h>

extern "C" int gemm_d(int ta, int tb, int m, int n, int k, double alpha, const double *A,
                      int lda, const double *B, int ldb, double beta, double *C, int ldc) {
  cublasHandle_t h;
  cublasCreate(&h);
  int s = cublasDgemm(h, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N, m, n,
                      k, &alpha, A, lda, B, ldb, &beta, C, ldc);
  cublasDestroy(h);
  return s;
}

// alpha and beta read from "device" memory in device pointer mode, on a stream.
extern "C" int gemm_s_device_scalars(int m, int n, int k, const float *ab, const float *A,
                                     const float *B, float *C) {
  cublasHandle_t h;
  cudaStream_t st;
  cublasCreate(&h);
  cudaStreamCreate(&st);
  cublasSetStream(h, st);
  cudaStream_t got;
  cublasGetStream(h, &got);
  cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE);
  cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH);
  int s = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, ab, A, m, B, k, ab + 1, C, m);
  cudaStreamSynchronize(st);
  cublasDestroy(h);
  cudaStreamDestroy(st);
  return got == st ? s : -1;
}

extern "C" int gemv_s(int trans, int m, int n, float alpha, const float *A, int lda,
                      const float *x, int incx, float beta, float *y, int incy) {
  cublasHandle_t h;
  cublasCreate(&h);
  int s = cublasSgemv(h, trans ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, &alpha, A, lda, x, incx,
                      &beta, y, incy);
  cublasDestroy(h);
  return s;
}

// out: dot, nrm2, asum, iamax (as a double), then y = y + alpha x, x scaled by 2, z = copy of x
extern "C" int level1_d(int n, double alpha, double *x, double *y, double *z, double *out) {
  cublasHandle_t h;
  cublasCreate(&h);
  int imax = 0, s = 0;
  s |= cublasDdot(h, n, x, 1, y, 1, &out[0]);
  s |= cublasDnrm2(h, n, x, 1, &out[1]);
  s |= cublasDasum(h, n, x, 1, &out[2]);
  s |= cublasIdamax(h, n, x, 1, &imax);
  out[3] = imax;
  s |= cublasDaxpy(h, n, &alpha, x, 1, y, 1);
  double two = 2;
  s |= cublasDscal(h, n, &two, x, 1);
  s |= cublasDcopy(h, n, x, 1, z, 1);
  cublasDestroy(h);
  return s;
}

// Strided float level 1: dot over every second element, result in device memory.
extern "C" int dot_s_strided(int n, const float *x, const float *y, float *out) {
  cublasHandle_t h;
  cublasCreate(&h);
  cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE);
  int s = cublasSdot(h, n, x, 2, y, 2, out);
  cublasDestroy(h);
  return s;
}

extern "C" int bad_gemm() {  // lda smaller than m: CUBLAS_STATUS_INVALID_VALUE
  cublasHandle_t h;
  cublasCreate(&h);
  float one = 1, a = 0;
  int s = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, &a, 2, &a, 4, &one, &a, 4);
  cublasDestroy(h);
  return s;
}

#include <cstring>
extern "C" int status_texts_ok() {
  return !strcmp(cublasGetStatusString(CUBLAS_STATUS_SUCCESS), "success") &&
         !strcmp(cublasGetStatusName(CUBLAS_STATUS_INVALID_VALUE), "CUBLAS_STATUS_INVALID_VALUE");
}
