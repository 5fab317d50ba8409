// cudafuse_cufft_api.h: cuFFT (<cufft.h>) as cudafuse declares it: the types and the host
// API, once, for the front end's stand-in and the emulator's cufft.h, which defines every
// function declared here. Needs the runtime API (float2, cudaStream_t).
#pragma once

#define CUFFT_VERSION 11000
typedef float cufftReal;
typedef double cufftDoubleReal;
typedef float2 cufftComplex;
typedef double2 cufftDoubleComplex;
typedef int cufftHandle;
typedef enum cufftResult_t {
  CUFFT_SUCCESS = 0, CUFFT_INVALID_PLAN = 1, CUFFT_ALLOC_FAILED = 2, CUFFT_INVALID_TYPE = 3,
  CUFFT_INVALID_VALUE = 4, CUFFT_INTERNAL_ERROR = 5, CUFFT_EXEC_FAILED = 6,
  CUFFT_SETUP_FAILED = 7, CUFFT_INVALID_SIZE = 8, CUFFT_UNALIGNED_DATA = 9,
  CUFFT_INCOMPLETE_PARAMETER_LIST = 10, CUFFT_INVALID_DEVICE = 11, CUFFT_PARSE_ERROR = 12,
  CUFFT_NO_WORKSPACE = 13, CUFFT_NOT_IMPLEMENTED = 14, CUFFT_LICENSE_ERROR = 15,
  CUFFT_NOT_SUPPORTED = 16, CUFFT_MISSING_DEPENDENCY = 17, CUFFT_NVRTC_FAILURE = 18,
  CUFFT_NVJITLINK_FAILURE = 19, CUFFT_NVSHMEM_FAILURE = 20
} cufftResult;
typedef enum cufftType_t {
  CUFFT_R2C = 0x2a, CUFFT_C2R = 0x2c, CUFFT_C2C = 0x29, CUFFT_D2Z = 0x6a, CUFFT_Z2D = 0x6c,
  CUFFT_Z2Z = 0x69
} cufftType;
typedef enum cufftCompatibility_t { CUFFT_COMPATIBILITY_FFTW_PADDING = 0x01 } cufftCompatibility;
#define CUFFT_FORWARD -1
#define CUFFT_INVERSE 1

cufftResult cufftCreate(cufftHandle *h);
cufftResult cufftDestroy(cufftHandle h);
cufftResult cufftMakePlanMany(cufftHandle h, int rank, int *n, int *inembed, int istride,
                              int idist, int *onembed, int ostride, int odist,
                              cufftType type, int batch, size_t *work);
cufftResult cufftMakePlanMany64(cufftHandle h, int rank, long long *n,
                                long long *inembed, long long istride, long long idist,
                                long long *onembed, long long ostride, long long odist,
                                cufftType type, long long batch, size_t *work);
cufftResult cufftMakePlan1d(cufftHandle h, int nx, cufftType type, int batch, size_t *work);
cufftResult cufftMakePlan2d(cufftHandle h, int nx, int ny, cufftType type, size_t *work);
cufftResult cufftMakePlan3d(cufftHandle h, int nx, int ny, int nz, cufftType type,
                            size_t *work);
cufftResult cufftPlan1d(cufftHandle *plan, int nx, cufftType type, int batch);
cufftResult cufftPlan2d(cufftHandle *plan, int nx, int ny, cufftType type);
cufftResult cufftPlan3d(cufftHandle *plan, int nx, int ny, int nz, cufftType type);
cufftResult cufftPlanMany(cufftHandle *plan, int rank, int *n, int *inembed, int istride,
                          int idist, int *onembed, int ostride, int odist, cufftType type,
                          int batch);
cufftResult cufftEstimate1d(int, cufftType, int, size_t *w);
cufftResult cufftEstimate2d(int, int, cufftType, size_t *w);
cufftResult cufftEstimate3d(int, int, int, cufftType, size_t *w);
cufftResult cufftEstimateMany(int, int *, int *, int, int, int *, int, int, cufftType, int,
                              size_t *w);
cufftResult cufftGetSize(cufftHandle h, size_t *w);
cufftResult cufftGetSize1d(cufftHandle h, int, cufftType, int, size_t *w);
cufftResult cufftGetSize2d(cufftHandle h, int, int, cufftType, size_t *w);
cufftResult cufftGetSize3d(cufftHandle h, int, int, int, cufftType, size_t *w);
cufftResult cufftGetSizeMany(cufftHandle h, int, int *, int *, int, int, int *, int, int,
                             cufftType, int, size_t *w);
cufftResult cufftSetAutoAllocation(cufftHandle h, int);
cufftResult cufftSetWorkArea(cufftHandle h, void *);
cufftResult cufftSetStream(cufftHandle h, cudaStream_t s);
cufftResult cufftGetVersion(int *v);
cufftResult cufftExecC2C(cufftHandle h, cufftComplex *in, cufftComplex *out, int dir);
cufftResult cufftExecZ2Z(cufftHandle h, cufftDoubleComplex *in, cufftDoubleComplex *out,
                         int dir);
cufftResult cufftExecR2C(cufftHandle h, cufftReal *in, cufftComplex *out);
cufftResult cufftExecD2Z(cufftHandle h, cufftDoubleReal *in, cufftDoubleComplex *out);
cufftResult cufftExecC2R(cufftHandle h, cufftComplex *in, cufftReal *out);
cufftResult cufftExecZ2D(cufftHandle h, cufftDoubleComplex *in, cufftDoubleReal *out);
