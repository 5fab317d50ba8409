// cuFFT stand-in checks: plans of each kind run on arrays that the test compares against
// numpy.fft (interleaved complex as float2/double2).
#include <cufft.h>

// 1-D batched or 2-D C2C (ny 0: 1-D of nx, batch), forward into out, inverse back into back.
extern "C" int c2c(int nx, int ny, int batch, cufftComplex *in, cufftComplex *out,
                   cufftComplex *back) {
  cufftHandle p;
  int s = ny ? cufftPlan2d(&p, nx, ny, CUFFT_C2C) : cufftPlan1d(&p, nx, CUFFT_C2C, batch);
  if (s) return s;
  s |= cufftExecC2C(p, in, out, CUFFT_FORWARD);
  s |= cufftExecC2C(p, out, back, CUFFT_INVERSE);
  cufftDestroy(p);
  return s;
}

extern "C" int z2z_inplace(int n, cufftDoubleComplex *data, int dir) {
  cufftHandle p;
  int s = cufftPlan1d(&p, n, CUFFT_Z2Z, 1);
  s |= cufftExecZ2Z(p, data, data, dir);
  cufftDestroy(p);
  return s;
}

// Batched R2C of rows of n, then C2R back (unnormalised).
extern "C" int r2c_c2r(int n, int batch, float *in, cufftComplex *spec, float *back) {
  cufftHandle f, b;
  int s = cufftPlan1d(&f, n, CUFFT_R2C, batch) | cufftPlan1d(&b, n, CUFFT_C2R, batch);
  s |= cufftExecR2C(f, in, spec);
  s |= cufftExecC2R(b, spec, back);
  cufftDestroy(f);
  cufftDestroy(b);
  return s;
}

extern "C" int d2z_2d(int nx, int ny, double *in, cufftDoubleComplex *spec) {
  cufftHandle p;
  int s = cufftPlan2d(&p, nx, ny, CUFFT_D2Z);
  s |= cufftExecD2Z(p, in, spec);
  cufftDestroy(p);
  return s;
}

// cufftPlanMany, advanced layout: batch of n-point transforms over interleaved columns
// (stride batch, distance 1).
extern "C" int many_strided(int n, int batch, cufftComplex *in, cufftComplex *out) {
  cufftHandle p;
  int dims[1] = {n};
  int s = cufftPlanMany(&p, 1, dims, dims, batch, 1, dims, batch, 1, CUFFT_C2C, batch);
  size_t work = 1;
  s |= cufftGetSize(p, &work);
  s |= cufftExecC2C(p, in, out, CUFFT_FORWARD);
  cufftDestroy(p);
  return s ? s : (int)work;
}

extern "C" int bad_plan() {  // a size of 0 is CUFFT_INVALID_SIZE
  cufftHandle p;
  return cufftPlan1d(&p, 0, CUFFT_C2C, 1);
}
