// cudafuse_cufftxt_api.h: cuFFT's extensions (<cufftXt.h>): descriptors, callbacks and the
// Xt calls, once, for the front end's stand-in and the emulator's cufftXt.h, which defines
// every function declared here. Needs cudafuse_cufft_api.h.
#pragma once

#define MAX_CUDA_DESCRIPTOR_GPUS 64
typedef struct cudaXtDesc_t {
  int version, nGPUs, __cf_GPUs[MAX_CUDA_DESCRIPTOR_GPUS];
  void *data[MAX_CUDA_DESCRIPTOR_GPUS];
  size_t size[MAX_CUDA_DESCRIPTOR_GPUS];
  void *cudaXtState;
} cudaXtDesc;
typedef enum libFormat_t { LIB_FORMAT_CUFFT = 0x0, LIB_FORMAT_UNDEFINED = 0x1 } libFormat;
typedef struct cudaLibXtDesc_t {
  int version;
  cudaXtDesc *descriptor;
  libFormat library;
  int subFormat;
  void *libDescriptor;
} cudaLibXtDesc;
typedef enum cufftXtSubFormat_t {
  CUFFT_XT_FORMAT_INPUT = 0x00, CUFFT_XT_FORMAT_OUTPUT = 0x01, CUFFT_XT_FORMAT_INPLACE = 0x02,
  CUFFT_XT_FORMAT_INPLACE_SHUFFLED = 0x03, CUFFT_XT_FORMAT_1D_INPUT_SHUFFLED = 0x04
} cufftXtSubFormat;
typedef enum cufftXtCopyType_t {
  CUFFT_COPY_HOST_TO_DEVICE = 0x00, CUFFT_COPY_DEVICE_TO_HOST = 0x01,
  CUFFT_COPY_DEVICE_TO_DEVICE = 0x02
} cufftXtCopyType;
typedef enum cufftXtCallbackType_t {
  CUFFT_CB_LD_COMPLEX = 0x0, CUFFT_CB_LD_COMPLEX_DOUBLE = 0x1, CUFFT_CB_LD_REAL = 0x2,
  CUFFT_CB_LD_REAL_DOUBLE = 0x3, CUFFT_CB_ST_COMPLEX = 0x4, CUFFT_CB_ST_COMPLEX_DOUBLE = 0x5,
  CUFFT_CB_ST_REAL = 0x6, CUFFT_CB_ST_REAL_DOUBLE = 0x7, CUFFT_CB_UNDEFINED = 0x8
} cufftXtCallbackType;
typedef cufftComplex (*cufftCallbackLoadC)(void *, size_t, void *, void *);
typedef cufftDoubleComplex (*cufftCallbackLoadZ)(void *, size_t, void *, void *);
typedef cufftReal (*cufftCallbackLoadR)(void *, size_t, void *, void *);
typedef cufftDoubleReal (*cufftCallbackLoadD)(void *, size_t, void *, void *);
typedef void (*cufftCallbackStoreC)(void *, size_t, cufftComplex, void *, void *);
typedef void (*cufftCallbackStoreZ)(void *, size_t, cufftDoubleComplex, void *, void *);
typedef void (*cufftCallbackStoreR)(void *, size_t, cufftReal, void *, void *);
typedef void (*cufftCallbackStoreD)(void *, size_t, cufftDoubleReal, void *, void *);

cufftResult cufftXtMakePlanMany(cufftHandle h, int rank, long long *n,
                                long long *inembed, long long istride, long long idist,
                                cudaDataType, long long *onembed, long long ostride,
                                long long odist, cudaDataType, long long batch,
                                size_t *work, cudaDataType exec);
cufftResult cufftXtSetCallback(cufftHandle h, void **callbacks, cufftXtCallbackType type,
                               void **info);
cufftResult cufftXtClearCallback(cufftHandle h, cufftXtCallbackType type);
cufftResult cufftXtSetCallbackSharedSize(cufftHandle h, cufftXtCallbackType, size_t);
cufftResult cufftXtSetGPUs(cufftHandle h, int nGPUs, int *which);
cufftResult cufftXtMalloc(cufftHandle h, cudaLibXtDesc **desc, cufftXtSubFormat format);
cufftResult cufftXtFree(cudaLibXtDesc *d);
cufftResult cufftXtMemcpy(cufftHandle h, void *dst, void *src, cufftXtCopyType type);
cufftResult cufftXtExecDescriptorC2C(cufftHandle h, cudaLibXtDesc *in, cudaLibXtDesc *out,
                                     int dir);
cufftResult cufftXtExecDescriptorZ2Z(cufftHandle h, cudaLibXtDesc *in, cudaLibXtDesc *out,
                                     int dir);
