/* cudafuse stand-in for cufft.h: cuFFT's types and host API, declared for the front end. */
#pragma once
#define _CUFFT_H_ 1  /* the real header's guard, which users test (helper_cuda.h) */
typedef float cufftReal;
typedef double cufftDoubleReal;
typedef float2 cufftComplex;
typedef double2 cufftDoubleComplex;
typedef int cufftHandle;
enum cufftResult_t {
  CUFFT_SUCCESS = 0, CUFFT_INVALID_PLAN = 1, CUFFT_ALLOC_FAILED = 2, CUFFT_INVALID_TYPE = 3,
  CUFFT_INVALID_VALUE = 4, CUFFT_INTERNAL_ERROR = 5, CUFFT_EXEC_FAILED = 6,
  CUFFT_SETUP_FAILED = 7, CUFFT_INVALID_SIZE = 8, CUFFT_UNALIGNED_DATA = 9,
  CUFFT_INVALID_DEVICE = 11, CUFFT_NO_WORKSPACE = 13, CUFFT_NOT_IMPLEMENTED = 14,
  CUFFT_NOT_SUPPORTED = 16 };
typedef enum cufftResult_t cufftResult;
enum cufftType_t { CUFFT_R2C = 0x2a, CUFFT_C2R = 0x2c, CUFFT_C2C = 0x29, CUFFT_D2Z = 0x6a,
                   CUFFT_Z2D = 0x6c, CUFFT_Z2Z = 0x69 };
typedef enum cufftType_t cufftType;
#define CUFFT_FORWARD -1
#define CUFFT_INVERSE 1
cufftResult cufftPlan1d(cufftHandle *plan, int nx, cufftType type, int batch);
cufftResult cufftPlan2d(cufftHandle *plan, int nx, int ny, cufftType type);
cufftResult cufftPlan3d(cufftHandle *plan, int nx, int ny, int nz, cufftType type);
cufftResult cufftPlanMany(cufftHandle *plan, int rank, int *n, int *inembed, int istride,
                          int idist, int *onembed, int ostride, int odist, cufftType type,
                          int batch);
cufftResult cufftCreate(cufftHandle *plan);
cufftResult cufftMakePlan1d(cufftHandle plan, int nx, cufftType type, int batch,
                            size_t *work);
cufftResult cufftMakePlan2d(cufftHandle plan, int nx, int ny, cufftType type, size_t *work);
cufftResult cufftSetStream(cufftHandle plan, cudaStream_t stream);
cufftResult cufftDestroy(cufftHandle plan);
cufftResult cufftExecC2C(cufftHandle plan, cufftComplex *in, cufftComplex *out, int dir);
cufftResult cufftExecR2C(cufftHandle plan, cufftReal *in, cufftComplex *out);
cufftResult cufftExecC2R(cufftHandle plan, cufftComplex *in, cufftReal *out);
cufftResult cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex *in, cufftDoubleComplex *out,
                         int dir);
cufftResult cufftExecD2Z(cufftHandle plan, cufftDoubleReal *in, cufftDoubleComplex *out);
cufftResult cufftExecZ2D(cufftHandle plan, cufftDoubleComplex *in, cufftDoubleReal *out);
cufftResult cufftGetVersion(int *version);
cufftResult cufftMakePlan3d(cufftHandle plan, int nx, int ny, int nz, cufftType type,
                            size_t *work);
cufftResult cufftMakePlanMany(cufftHandle plan, int rank, int *n, int *inembed, int istride,
                              int idist, int *onembed, int ostride, int odist, cufftType type,
                              int batch, size_t *work);
cufftResult cufftGetSize(cufftHandle plan, size_t *work);
cufftResult cufftEstimate1d(int nx, cufftType type, int batch, size_t *work);
cufftResult cufftSetAutoAllocation(cufftHandle plan, int autoAllocate);
cufftResult cufftSetWorkArea(cufftHandle plan, void *work);
