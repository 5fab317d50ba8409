/* cudafuse stand-in for cufftXt.h: the multi-GPU descriptors, declared for the front end. */
#pragma once
#include "cufft.h"
#define MAX_CUDA_DESCRIPTOR_GPUS 64
struct cudaXtDesc_t { int version, nGPUs, GPUs[MAX_CUDA_DESCRIPTOR_GPUS];
                      void *data[MAX_CUDA_DESCRIPTOR_GPUS];
                      size_t size[MAX_CUDA_DESCRIPTOR_GPUS]; void *cudaXtState; };
typedef cudaXtDesc_t cudaXtDesc;
enum cudaLibXtDesc_enum_placeholder { LIB_FORMAT_CUFFT = 0x0 };
struct cudaLibXtDesc_t { int version; cudaXtDesc *descriptor; int library, subFormat;
                         void *libDescriptor; };
typedef cudaLibXtDesc_t cudaLibXtDesc;
enum cufftXtSubFormat_t { CUFFT_XT_FORMAT_INPUT = 0x00, CUFFT_XT_FORMAT_OUTPUT = 0x01,
                          CUFFT_XT_FORMAT_INPLACE = 0x02, CUFFT_XT_FORMAT_INPLACE_SHUFFLED = 0x03 };
typedef cufftXtSubFormat_t cufftXtSubFormat;
enum cufftXtCopyType_t { CUFFT_COPY_HOST_TO_DEVICE = 0x00, CUFFT_COPY_DEVICE_TO_HOST = 0x01,
                         CUFFT_COPY_DEVICE_TO_DEVICE = 0x02 };
typedef cufftXtCopyType_t cufftXtCopyType;
cufftResult cufftXtSetGPUs(cufftHandle plan, int nGPUs, int *whichGPUs);
cufftResult cufftXtMalloc(cufftHandle plan, cudaLibXtDesc **desc, cufftXtSubFormat format);
cufftResult cufftXtMemcpy(cufftHandle plan, void *dst, void *src, cufftXtCopyType type);
cufftResult cufftXtFree(cudaLibXtDesc *desc);
cufftResult cufftXtExecDescriptorC2C(cufftHandle plan, cudaLibXtDesc *in, cudaLibXtDesc *out,
                                     int direction);
