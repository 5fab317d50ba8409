// Stand-in for the CBLAS declarations caffe's util/mkl_alternate.hpp and math_functions.hpp
// name in host code (no CBLAS routine is called by the kernels the benchmark runs).
#pragma once
enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113 };
inline void cblas_sscal(int, float, float *, int) {}
inline void cblas_dscal(int, double, double *, int) {}
inline void cblas_saxpy(int, float, const float *, int, float *, int) {}
inline void cblas_daxpy(int, double, const double *, int, double *, int) {}
