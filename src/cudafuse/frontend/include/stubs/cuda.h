/* cudafuse stand-in for cuda.h (the driver API): the common handles, enums and calls, for host
   code to parse. The runtime's declarations come from the force-included shim. */
#pragma once
#define __cuda_cuda_h__
#define CUDA_VERSION 13000
#define CUDAAPI
#include <stddef.h>
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUlib_st *CUlibrary;
typedef struct CUkern_st *CUkernel;
typedef struct CUarray_st *CUarray;
typedef struct CUmipmappedArray_st *CUmipmappedArray;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphNode_st *CUgraphNode;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUmemPoolHandle_st *CUmemoryPool;
typedef struct CUlinkState_st *CUlinkState;
typedef unsigned long long CUtexObject;
typedef unsigned long long CUsurfObject;
typedef unsigned long long CUmemGenericAllocationHandle;
typedef enum cudaError_enum {
  CUDA_SUCCESS = 0, CUDA_ERROR_INVALID_VALUE = 1, CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3, CUDA_ERROR_DEINITIALIZED = 4, CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101, CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201, CUDA_ERROR_NOT_SUPPORTED = 801,
  CUDA_ERROR_NOT_FOUND = 500, CUDA_ERROR_NOT_READY = 600, CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_FAILED = 719, CUDA_ERROR_INVALID_HANDLE = 400, CUDA_ERROR_UNKNOWN = 999
} CUresult;
typedef enum CUdevice_attribute_enum {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10, CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16, CU_DEVICE_ATTRIBUTE_INTEGRATED = 18,
  CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY = 19, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE = 20,
  CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY = 83,
  CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 95,
  CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED = 102,
  CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115,
  CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED = 105
} CUdevice_attribute;
typedef enum CUjit_option_enum { CU_JIT_MAX_REGISTERS = 0, CU_JIT_THREADS_PER_BLOCK = 1,
                                 CU_JIT_WALL_TIME = 2, CU_JIT_INFO_LOG_BUFFER = 3,
                                 CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
                                 CU_JIT_ERROR_LOG_BUFFER = 5,
                                 CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
                                 CU_JIT_OPTIMIZATION_LEVEL = 7, CU_JIT_LOG_VERBOSE = 12 }
    CUjit_option;
typedef enum CUjitInputType_enum { CU_JIT_INPUT_CUBIN = 0, CU_JIT_INPUT_PTX = 1,
                                   CU_JIT_INPUT_FATBINARY = 2, CU_JIT_INPUT_OBJECT = 3,
                                   CU_JIT_INPUT_LIBRARY = 4 } CUjitInputType;
typedef enum CUmemorytype_enum { CU_MEMORYTYPE_HOST = 1, CU_MEMORYTYPE_DEVICE = 2,
                                 CU_MEMORYTYPE_ARRAY = 3, CU_MEMORYTYPE_UNIFIED = 4 }
    CUmemorytype;
typedef enum CUpointer_attribute_enum { CU_POINTER_ATTRIBUTE_CONTEXT = 1,
                                        CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
                                        CU_POINTER_ATTRIBUTE_DEVICE_POINTER = 3,
                                        CU_POINTER_ATTRIBUTE_HOST_POINTER = 4 }
    CUpointer_attribute;
typedef enum CUfunction_attribute_enum {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
} CUfunction_attribute;
enum { CU_CTX_SCHED_AUTO = 0, CU_CTX_SCHED_SPIN = 1, CU_CTX_SCHED_YIELD = 2,
       CU_CTX_SCHED_BLOCKING_SYNC = 4, CU_CTX_MAP_HOST = 8, CU_STREAM_DEFAULT = 0,
       CU_STREAM_NON_BLOCKING = 1, CU_EVENT_DEFAULT = 0, CU_EVENT_DISABLE_TIMING = 2,
       CU_MEMHOSTALLOC_PORTABLE = 1, CU_MEMHOSTALLOC_DEVICEMAP = 2 };
#define CU_LAUNCH_PARAM_END ((void *)0x00)
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void *)0x01)
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void *)0x02)
typedef struct CUuuid_st { char bytes[16]; } CUuuid;
CUresult cuInit(unsigned flags);
CUresult cuDriverGetVersion(int *v);
CUresult cuDeviceGet(CUdevice *d, int ordinal);
CUresult cuDeviceGetCount(int *n);
CUresult cuDeviceGetName(char *name, int len, CUdevice d);
CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice d);
CUresult cuDeviceTotalMem(size_t *bytes, CUdevice d);
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d);
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d);
CUresult cuDevicePrimaryCtxRelease(CUdevice d);
CUresult cuCtxCreate(CUcontext *c, void *params, unsigned flags, CUdevice d);
CUresult cuCtxDestroy(CUcontext c);
CUresult cuCtxSetCurrent(CUcontext c);
CUresult cuCtxGetCurrent(CUcontext *c);
CUresult cuCtxPushCurrent(CUcontext c);
CUresult cuCtxPopCurrent(CUcontext *c);
CUresult cuCtxSynchronize(void);
CUresult cuCtxGetDevice(CUdevice *d);
CUresult cuModuleLoad(CUmodule *m, const char *fname);
CUresult cuModuleLoadData(CUmodule *m, const void *image);
CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned n, CUjit_option *opts,
                            void **values);
CUresult cuModuleUnload(CUmodule m);
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name);
CUresult cuModuleGetGlobal(CUdeviceptr *p, size_t *bytes, CUmodule m, const char *name);
CUresult cuLinkCreate(unsigned n, CUjit_option *opts, void **values, CUlinkState *s);
CUresult cuLinkAddData(CUlinkState s, CUjitInputType t, void *data, size_t size,
                       const char *name, unsigned n, CUjit_option *opts, void **values);
CUresult cuLinkAddFile(CUlinkState s, CUjitInputType t, const char *path, unsigned n,
                       CUjit_option *opts, void **values);
CUresult cuLinkComplete(CUlinkState s, void **cubin, size_t *size);
CUresult cuLinkDestroy(CUlinkState s);
CUresult cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction f);
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned smem, CUstream s, void **params,
                        void **extra);
CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                   unsigned bx, unsigned by, unsigned bz, unsigned smem,
                                   CUstream s, void **params);
CUresult cuMemAlloc(CUdeviceptr *p, size_t n);
CUresult cuMemAllocPitch(CUdeviceptr *p, size_t *pitch, size_t w, size_t h, unsigned elem);
CUresult cuMemFree(CUdeviceptr p);
CUresult cuMemAllocHost(void **p, size_t n);
CUresult cuMemFreeHost(void *p);
CUresult cuMemHostAlloc(void **p, size_t n, unsigned flags);
CUresult cuMemAllocManaged(CUdeviceptr *p, size_t n, unsigned flags);
CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n);
CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n);
CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t n);
CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t n, CUstream s);
CUresult cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t n, CUstream s);
CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n);
CUresult cuMemsetD8(CUdeviceptr p, unsigned char v, size_t n);
CUresult cuMemsetD32(CUdeviceptr p, unsigned v, size_t n);
CUresult cuMemGetInfo(size_t *free_, size_t *total);
CUresult cuPointerGetAttribute(void *data, CUpointer_attribute a, CUdeviceptr p);
CUresult cuStreamCreate(CUstream *s, unsigned flags);
CUresult cuStreamDestroy(CUstream s);
CUresult cuStreamSynchronize(CUstream s);
CUresult cuEventCreate(CUevent *e, unsigned flags);
CUresult cuEventDestroy(CUevent e);
CUresult cuEventRecord(CUevent e, CUstream s);
CUresult cuEventSynchronize(CUevent e);
CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b);
CUresult cuTexObjectDestroy(CUtexObject t);
CUresult cuSurfObjectDestroy(CUsurfObject s);
CUresult cuGetErrorName(CUresult e, const char **s);
CUresult cuGetErrorString(CUresult e, const char **s);
CUresult cuGetProcAddress(const char *symbol, void **fn, int version, unsigned long long flags,
                          void *status);
