// cudafuse_cuda_shim.h: just enough of CUDA for libclang to parse .cu files without a toolkit.
// Force-included by the front end (-include). Declarations only: nothing here is ever compiled
// into a program. The attributes are clang's own CUDA attributes, so cursors keep their kinds.
#pragma once
#define __CUDAFUSE_SHIM__ 1
#define __CUDACC__ 1
#define __NVCC__ 1
#define __CUDA_ARCH_LIST__ 900
// What nvcc 13.0 and the real headers define: code tests these (cuda-samples' helper_cuda.h
// declares its CUDA helpers under #ifdef __CUDA_RUNTIME_H__ / __DRIVER_TYPES_H__).
#define __CUDACC_VER_MAJOR__ 13
#define __CUDACC_VER_MINOR__ 0
#define __CUDACC_VER_BUILD__ 88
#define __CUDA_API_VER_MAJOR__ 13
#define __CUDA_API_VER_MINOR__ 0
#define __CUDART_API_VERSION 13000
#define CUDART_VERSION 13000
#define __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_API_H__
#define __DRIVER_TYPES_H__
#define __VECTOR_TYPES_H__
#define __VECTOR_FUNCTIONS_H__
#define __HOST_DEFINES_H__
#define __DEVICE_TYPES_H__
#define __TEXTURE_TYPES_H__
#define __SURFACE_TYPES_H__
#define __CHANNEL_DESCRIPTOR_H__
#define __DEVICE_FUNCTIONS_H__
#define __CUDA_DEVICE_RUNTIME_API_H__
#define __device_builtin__
#define __cudart_builtin__
#define CUDARTAPI
#define CUDART_CB
#define __CUDA_ALIGN__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __attribute__((aligned(n)))

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
// __noinline__ is not a macro: clang (15+) takes it as a CUDA keyword attribute, and a macro
// would break libstdc++'s own __attribute__((__noinline__)) (<memory>, since GCC 12).
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __maxnreg__(n)
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__

typedef __SIZE_TYPE__ size_t;
typedef unsigned long long cudaStream_t_base;
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
enum cudaError {
  cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3, cudaErrorCudartUnloading = 4,
  cudaErrorInvalidConfiguration = 9, cudaErrorInvalidPitchValue = 12,
  cudaErrorInvalidSymbol = 13, cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidChannelDescriptor = 20, cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorMemoryValueTooLarge = 32, cudaErrorInsufficientDriver = 35,
  cudaErrorCallRequiresNewerDriver = 36, cudaErrorMissingConfiguration = 52,
  cudaErrorInvalidDeviceFunction = 98, cudaErrorNoDevice = 100, cudaErrorInvalidDevice = 101,
  cudaErrorDeviceNotLicensed = 102, cudaErrorStartupFailure = 127,
  cudaErrorInvalidKernelImage = 200, cudaErrorDeviceUninitialized = 201,
  cudaErrorMapBufferObjectFailed = 205, cudaErrorAlreadyMapped = 208,
  cudaErrorNoKernelImageForDevice = 209, cudaErrorNotMapped = 211,
  cudaErrorNotMappedAsPointer = 213, cudaErrorECCUncorrectable = 214,
  cudaErrorUnsupportedLimit = 215, cudaErrorPeerAccessUnsupported = 217,
  cudaErrorInvalidPtx = 218, cudaErrorInvalidSource = 300, cudaErrorFileNotFound = 301,
  cudaErrorOperatingSystem = 304, cudaErrorInvalidResourceHandle = 400,
  cudaErrorIllegalState = 401, cudaErrorSymbolNotFound = 500, cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700, cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchTimeout = 702, cudaErrorLaunchIncompatibleTexturing = 703,
  cudaErrorPeerAccessAlreadyEnabled = 704, cudaErrorPeerAccessNotEnabled = 705,
  cudaErrorSetOnActiveProcess = 708, cudaErrorContextIsDestroyed = 709, cudaErrorAssert = 710,
  cudaErrorTooManyPeers = 711, cudaErrorHostMemoryAlreadyRegistered = 712,
  cudaErrorHostMemoryNotRegistered = 713, cudaErrorHardwareStackError = 714,
  cudaErrorIllegalInstruction = 715, cudaErrorMisalignedAddress = 716,
  cudaErrorInvalidAddressSpace = 717, cudaErrorInvalidPc = 718, cudaErrorLaunchFailure = 719,
  cudaErrorCooperativeLaunchTooLarge = 720, cudaErrorNotPermitted = 800,
  cudaErrorNotSupported = 801, cudaErrorSystemNotReady = 802,
  cudaErrorStreamCaptureUnsupported = 900, cudaErrorStreamCaptureInvalidated = 901,
  cudaErrorTimeout = 909, cudaErrorGraphExecUpdateFailure = 910,
  cudaErrorExternalDevice = 911, cudaErrorUnknown = 999
};
typedef enum cudaError cudaError_t;
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4
};

// Vector types (vector_types.h): every base type with 1-4 components, CUDA's alignments.
#define __CUDAFUSE_VEC1(T, N, A) struct __align__(A) N##1 { T x; };
#define __CUDAFUSE_VEC2(T, N, A) struct __align__(A) N##2 { T x, y; };
#define __CUDAFUSE_VEC3(T, N) struct N##3 { T x, y, z; };
#define __CUDAFUSE_VEC4(T, N, A) struct __align__(A) N##4 { T x, y, z, w; };
#define __CUDAFUSE_VEC(T, N, A1, A2, A4) __CUDAFUSE_VEC1(T, N, A1) __CUDAFUSE_VEC2(T, N, A2) \
  __CUDAFUSE_VEC3(T, N) __CUDAFUSE_VEC4(T, N, A4)
__CUDAFUSE_VEC(signed char, char, 1, 2, 4)
__CUDAFUSE_VEC(unsigned char, uchar, 1, 2, 4)
__CUDAFUSE_VEC(short, short, 2, 4, 8)
__CUDAFUSE_VEC(unsigned short, ushort, 2, 4, 8)
__CUDAFUSE_VEC(int, int, 4, 8, 16)
__CUDAFUSE_VEC(unsigned int, uint, 4, 8, 16)
__CUDAFUSE_VEC(long, long, 8, 16, 16)
__CUDAFUSE_VEC(unsigned long, ulong, 8, 16, 16)
__CUDAFUSE_VEC(long long, longlong, 8, 16, 16)
__CUDAFUSE_VEC(unsigned long long, ulonglong, 8, 16, 16)
__CUDAFUSE_VEC(float, float, 4, 8, 16)
__CUDAFUSE_VEC(double, double, 8, 16, 16)
#undef __CUDAFUSE_VEC
// make_<type><n> (vector_functions.h).
#define __CUDAFUSE_MK(T, N) \
  __host__ __device__ N##1 make_##N##1(T x); \
  __host__ __device__ N##2 make_##N##2(T x, T y); \
  __host__ __device__ N##3 make_##N##3(T x, T y, T z); \
  __host__ __device__ N##4 make_##N##4(T x, T y, T z, T w);
__CUDAFUSE_MK(signed char, char) __CUDAFUSE_MK(unsigned char, uchar)
__CUDAFUSE_MK(short, short) __CUDAFUSE_MK(unsigned short, ushort)
__CUDAFUSE_MK(int, int) __CUDAFUSE_MK(unsigned int, uint)
__CUDAFUSE_MK(long, long) __CUDAFUSE_MK(unsigned long, ulong)
__CUDAFUSE_MK(long long, longlong) __CUDAFUSE_MK(unsigned long long, ulonglong)
__CUDAFUSE_MK(float, float) __CUDAFUSE_MK(double, double)
#undef __CUDAFUSE_MK
#undef __CUDAFUSE_VEC1
#undef __CUDAFUSE_VEC2
#undef __CUDAFUSE_VEC3
#undef __CUDAFUSE_VEC4
struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(struct uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};
// The types CUDA gives them, so that code redeclaring them for a host compiler
// (`extern const dim3 blockDim;`, as some projects' helper headers do) agrees.
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;


// Kernel launches: clang lowers k<<<g, b, s, st>>>(...) into a call of this.
int __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared = 0, cudaStream_t stream = 0);

// Runtime API (host).
cudaError_t cudaMalloc(void **p, size_t n);
template <class T> cudaError_t cudaMalloc(T **p, size_t n);
cudaError_t cudaMallocManaged(void **p, size_t n, unsigned flags = 1);
template <class T> cudaError_t cudaMallocManaged(T **p, size_t n, unsigned flags = 1);
cudaError_t cudaMallocHost(void **p, size_t n);
cudaError_t cudaFree(void *p);
cudaError_t cudaFreeHost(void *p);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, cudaMemcpyKind kind,
                            cudaStream_t s = 0);
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t w,
                         size_t h, cudaMemcpyKind kind);
cudaError_t cudaMemset(void *p, int v, size_t n);
cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s = 0);
template <class T>
cudaError_t cudaMemcpyToSymbol(const T &sym, const void *src, size_t n, size_t off = 0,
                               cudaMemcpyKind kind = cudaMemcpyHostToDevice);
template <class T>
cudaError_t cudaMemcpyFromSymbol(void *dst, const T &sym, size_t n, size_t off = 0,
                                 cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t e);
cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b);
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags = 0);

// Less common runtime calls found in real host code (samples, benchmarks): declared so that
// such files parse; the analyses treat them as opaque calls.
enum { cudaStreamDefault = 0, cudaStreamNonBlocking = 1, cudaEventDefault = 0,
       cudaEventDisableTiming = 2, cudaHostAllocDefault = 0, cudaDeviceScheduleAuto = 0 };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
                         cudaFuncAttributePreferredSharedMemoryCarveout = 9 };
enum cudaFuncCache { cudaFuncCachePreferNone = 0, cudaFuncCachePreferShared = 1,
                     cudaFuncCachePreferL1 = 2, cudaFuncCachePreferEqual = 3 };
enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMaxBlockDimX = 2, cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4, cudaDevAttrMaxGridDimX = 5, cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7, cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrTotalConstantMemory = 9, cudaDevAttrWarpSize = 10, cudaDevAttrMaxPitch = 11,
  cudaDevAttrMaxRegistersPerBlock = 12, cudaDevAttrClockRate = 13,
  cudaDevAttrTextureAlignment = 14, cudaDevAttrGpuOverlap = 15,
  cudaDevAttrMultiProcessorCount = 16, cudaDevAttrKernelExecTimeout = 17,
  cudaDevAttrIntegrated = 18, cudaDevAttrCanMapHostMemory = 19, cudaDevAttrComputeMode = 20,
  cudaDevAttrConcurrentKernels = 31, cudaDevAttrEccEnabled = 32, cudaDevAttrPciBusId = 33,
  cudaDevAttrPciDeviceId = 34, cudaDevAttrTccDriver = 35, cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37, cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39, cudaDevAttrAsyncEngineCount = 40,
  cudaDevAttrUnifiedAddressing = 41, cudaDevAttrPciDomainId = 50,
  cudaDevAttrComputeCapabilityMajor = 75, cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrStreamPrioritiesSupported = 78, cudaDevAttrGlobalL1CacheSupported = 79,
  cudaDevAttrLocalL1CacheSupported = 80, cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxRegistersPerMultiprocessor = 82, cudaDevAttrManagedMemory = 83,
  cudaDevAttrIsMultiGpuBoard = 84, cudaDevAttrMultiGpuBoardGroupID = 85,
  cudaDevAttrHostNativeAtomicSupported = 86, cudaDevAttrSingleToDoublePrecisionPerfRatio = 87,
  cudaDevAttrPageableMemoryAccess = 88, cudaDevAttrConcurrentManagedAccess = 89,
  cudaDevAttrComputePreemptionSupported = 90, cudaDevAttrCanUseHostPointerForRegisteredMem = 91,
  cudaDevAttrCooperativeLaunch = 95, cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
  cudaDevAttrCanFlushRemoteWrites = 98, cudaDevAttrHostRegisterSupported = 99,
  cudaDevAttrPageableMemoryAccessUsesHostPageTables = 100,
  cudaDevAttrDirectManagedMemAccessFromHost = 101, cudaDevAttrMaxBlocksPerMultiprocessor = 106,
  cudaDevAttrMaxPersistingL2CacheSize = 108, cudaDevAttrMaxAccessPolicyWindowSize = 109,
  cudaDevAttrReservedSharedMemoryPerBlock = 111, cudaDevAttrSparseCudaArraySupported = 112,
  cudaDevAttrHostRegisterReadOnlySupported = 113,
  cudaDevAttrTimelineSemaphoreInteropSupported = 114, cudaDevAttrMemoryPoolsSupported = 115,
  cudaDevAttrGPUDirectRDMASupported = 116, cudaDevAttrGPUDirectRDMAFlushWritesOptions = 117,
  cudaDevAttrGPUDirectRDMAWritesOrdering = 118, cudaDevAttrMemoryPoolSupportedHandleTypes = 119,
  cudaDevAttrClusterLaunch = 120, cudaDevAttrDeferredMappingCudaArraySupported = 121,
  cudaDevAttrIpcEventSupport = 125, cudaDevAttrMemSyncDomainCount = 126,
  cudaDevAttrNumaConfig = 130, cudaDevAttrNumaId = 131, cudaDevAttrMpsEnabled = 133,
  cudaDevAttrHostNumaId = 134
};
enum cudaComputeMode { cudaComputeModeDefault = 0, cudaComputeModeExclusive = 1,
                       cudaComputeModeProhibited = 2, cudaComputeModeExclusiveProcess = 3 };
struct cudaUUID_t { char bytes[16]; };
#define __CUDAFUSE_GONE(what) \
  __attribute__((deprecated(what " was removed in CUDA 13: use cudaDeviceGetAttribute")))
// CUDA 13's fields, plus the ones it removed (which older code still reads), marked deprecated.
struct cudaDeviceProp {
  char name[256];
  cudaUUID_t uuid;
  char luid[8];
  unsigned int luidDeviceNodeMask;
  size_t totalGlobalMem, sharedMemPerBlock;
  int regsPerBlock, warpSize;
  size_t memPitch;
  int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3];
  size_t totalConstMem;
  int major, minor;
  size_t textureAlignment, texturePitchAlignment;
  int multiProcessorCount, integrated, canMapHostMemory;
  int maxTexture1D, maxTexture1DMipmap, maxTexture2D[2], maxTexture2DMipmap[2];
  int maxTexture2DLinear[3], maxTexture2DGather[2], maxTexture3D[3], maxTexture3DAlt[3];
  int maxTextureCubemap, maxTexture1DLayered[2], maxTexture2DLayered[3];
  int maxTextureCubemapLayered[2], maxSurface1D, maxSurface2D[2], maxSurface3D[3];
  int maxSurface1DLayered[2], maxSurface2DLayered[3], maxSurfaceCubemap;
  int maxSurfaceCubemapLayered[2];
  size_t surfaceAlignment;
  int concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, pciDomainID, tccDriver;
  int asyncEngineCount, unifiedAddressing, memoryBusWidth, l2CacheSize;
  int persistingL2CacheMaxSize, maxThreadsPerMultiProcessor, streamPrioritiesSupported;
  int globalL1CacheSupported, localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor, managedMemory, isMultiGpuBoard, multiGpuBoardGroupID;
  int hostNativeAtomicSupported, pageableMemoryAccess, concurrentManagedAccess;
  int computePreemptionSupported, canUseHostPointerForRegisteredMem, cooperativeLaunch;
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables, directManagedMemAccessFromHost;
  int maxBlocksPerMultiProcessor, accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;
  int hostRegisterSupported, sparseCudaArraySupported, hostRegisterReadOnlySupported;
  int timelineSemaphoreInteropSupported, memoryPoolsSupported, gpuDirectRDMASupported;
  unsigned int gpuDirectRDMAFlushWritesOptions;
  int gpuDirectRDMAWritesOrdering;
  unsigned int memoryPoolSupportedHandleTypes;
  int deferredMappingCudaArraySupported, ipcEventSupported, clusterLaunch;
  int unifiedFunctionPointers, deviceNumaConfig, deviceNumaId, mpsEnabled, hostNumaId;
  unsigned int gpuPciDeviceID, gpuPciSubsystemID;
  int hostNumaMultinodeIpcSupported;
  int reserved[56];
  int clockRate __CUDAFUSE_GONE("cudaDeviceProp::clockRate");
  int memoryClockRate __CUDAFUSE_GONE("cudaDeviceProp::memoryClockRate");
  int deviceOverlap __CUDAFUSE_GONE("cudaDeviceProp::deviceOverlap");
  int kernelExecTimeoutEnabled __CUDAFUSE_GONE("cudaDeviceProp::kernelExecTimeoutEnabled");
  int computeMode __CUDAFUSE_GONE("cudaDeviceProp::computeMode");
  int singleToDoublePrecisionPerfRatio
      __CUDAFUSE_GONE("cudaDeviceProp::singleToDoublePrecisionPerfRatio");
  int cooperativeMultiDeviceLaunch __CUDAFUSE_GONE("cudaDeviceProp::cooperativeMultiDeviceLaunch");
  int maxTexture1DLinear __CUDAFUSE_GONE("cudaDeviceProp::maxTexture1DLinear");
};
#undef __CUDAFUSE_GONE
cudaError_t cudaGetDeviceCount(int *n);
cudaError_t cudaGetDevice(int *d);
cudaError_t cudaSetDevice(int d);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int d);
cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int d);
cudaError_t cudaMemGetInfo(size_t *free_, size_t *total);
cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t w, size_t h);
template <class T> cudaError_t cudaMallocPitch(T **p, size_t *pitch, size_t w, size_t h);
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned flags);
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t w,
                              size_t h, cudaMemcpyKind kind, cudaStream_t s = 0);
template <class T>
cudaError_t cudaMemcpyToSymbolAsync(const T &sym, const void *src, size_t n, size_t off = 0,
                                    cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                                    cudaStream_t s = 0);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags);
cudaError_t cudaStreamQuery(cudaStream_t s);
cudaError_t cudaEventQuery(cudaEvent_t e);
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache c);
template <class T> cudaError_t cudaFuncSetAttribute(T *f, cudaFuncAttribute a, int v);
template <class T> cudaError_t cudaFuncSetCacheConfig(T *f, cudaFuncCache c);
template <class T>
cudaError_t cudaOccupancyMaxPotentialBlockSize(int *grid, int *block, T f, size_t smem = 0,
                                               int limit = 0);
template <class T>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, T f, int block, size_t smem);
const char *cudaGetErrorName(cudaError_t e);

// ---- More of the runtime API (cuda_runtime_api.h, driver_types.h, texture_types.h,
// surface_types.h, channel_descriptor.h): declared so that real host code parses; the
// analyses treat these as opaque calls.
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
enum { cudaHostAllocPortable = 1, cudaHostAllocMapped = 2, cudaHostAllocWriteCombined = 4,
       cudaHostRegisterDefault = 0, cudaHostRegisterPortable = 1, cudaHostRegisterMapped = 2,
       cudaHostRegisterIoMemory = 4, cudaHostRegisterReadOnly = 8,
       cudaDeviceScheduleSpin = 1, cudaDeviceScheduleYield = 2,
       cudaDeviceScheduleBlockingSync = 4, cudaDeviceBlockingSync = 4,
       cudaDeviceScheduleMask = 7, cudaDeviceMapHost = 8, cudaDeviceLmemResizeToMax = 16,
       cudaEventBlockingSync = 1, cudaEventInterprocess = 4, cudaEventRecordDefault = 0,
       cudaEventRecordExternal = 1, cudaMemAttachGlobal = 1, cudaMemAttachHost = 2,
       cudaMemAttachSingle = 4, cudaArrayDefault = 0, cudaArrayLayered = 1,
       cudaArraySurfaceLoadStore = 2, cudaArrayCubemap = 4, cudaArrayTextureGather = 8,
       cudaIpcMemLazyEnablePeerAccess = 1, cudaCpuDeviceId = -1, cudaInvalidDeviceId = -2,
       cudaOccupancyDefault = 0, cudaOccupancyDisableCachingOverride = 1,
       cudaPeerAccessDefault = 0, cudaStreamAttachMemAsyncDefault = 0,
       cudaGraphCondAssignDefault = 1, cudaInitDeviceFlagsAreValid = 1 };
enum cudaLimit { cudaLimitStackSize = 0, cudaLimitPrintfFifoSize = 1,
                 cudaLimitMallocHeapSize = 2, cudaLimitDevRuntimeSyncDepth = 3,
                 cudaLimitDevRuntimePendingLaunchCount = 4, cudaLimitMaxL2FetchGranularity = 5,
                 cudaLimitPersistingL2CacheSize = 6 };
enum cudaSharedMemConfig { cudaSharedMemBankSizeDefault = 0, cudaSharedMemBankSizeFourByte = 1,
                           cudaSharedMemBankSizeEightByte = 2 };
enum cudaMemoryType { cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1,
                      cudaMemoryTypeDevice = 2, cudaMemoryTypeManaged = 3 };
struct cudaPointerAttributes { cudaMemoryType type; int device; void *devicePointer;
                               void *hostPointer; long reserved[8]; };
struct cudaFuncAttributes {
  size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
  int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, cacheModeCA;
  int maxDynamicSharedSizeBytes, preferredShmemCarveout, clusterDimMustBeSet;
  int requiredClusterWidth, requiredClusterHeight, requiredClusterDepth;
  int clusterSchedulingPolicyPreference, nonPortableClusterSizeAllowed, reserved[16];
};
enum cudaDeviceP2PAttr { cudaDevP2PAttrPerformanceRank = 1, cudaDevP2PAttrAccessSupported = 2,
                         cudaDevP2PAttrNativeAtomicSupported = 3,
                         cudaDevP2PAttrCudaArrayAccessSupported = 4 };
typedef void (*cudaHostFn_t)(void *userData);
typedef void (*cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void *userData);

cudaError_t cudaSetDeviceFlags(unsigned flags);
cudaError_t cudaGetDeviceFlags(unsigned *flags);
cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value);
cudaError_t cudaDeviceGetLimit(size_t *value, cudaLimit limit);
cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache *c);
cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest);
cudaError_t cudaDeviceGetP2PAttribute(int *value, cudaDeviceP2PAttr attr, int src, int dst);
cudaError_t cudaDeviceCanAccessPeer(int *can, int device, int peer);
cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned flags);
cudaError_t cudaDeviceDisablePeerAccess(int peer);
cudaError_t cudaDeviceGetPCIBusId(char *id, int len, int device);
cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *id);
cudaError_t cudaChooseDevice(int *device, const cudaDeviceProp *prop);
cudaError_t cudaInitDevice(int device, unsigned deviceFlags, unsigned flags);
cudaError_t cudaDriverGetVersion(int *v);
cudaError_t cudaRuntimeGetVersion(int *v);
cudaError_t cudaCtxResetPersistingL2Cache(void);
cudaError_t cudaDeviceFlushGPUDirectRDMAWrites(int target, int scope);
cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t n);
cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice,
                                size_t n, cudaStream_t s = 0);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned flags, int priority);
cudaError_t cudaStreamGetPriority(cudaStream_t s, int *priority);
cudaError_t cudaStreamGetFlags(cudaStream_t s, unsigned *flags);
cudaError_t cudaStreamGetDevice(cudaStream_t s, int *device);
cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb, void *userData,
                                  unsigned flags);
cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *userData);
cudaError_t cudaStreamAttachMemAsync(cudaStream_t s, void *p, size_t length = 0,
                                     unsigned flags = cudaMemAttachSingle);
cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s = 0, unsigned flags = 0);
cudaError_t cudaHostRegister(void *p, size_t n, unsigned flags);
cudaError_t cudaHostUnregister(void *p);
cudaError_t cudaHostGetDevicePointer(void **dev, void *host, unsigned flags);
template <class T> cudaError_t cudaHostGetDevicePointer(T **dev, void *host, unsigned flags);
cudaError_t cudaHostGetFlags(unsigned *flags, void *host);
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *a, const void *p);
template <class T> cudaError_t cudaMallocHost(T **p, size_t n, unsigned flags = 0);
template <class T> cudaError_t cudaHostAlloc(T **p, size_t n, unsigned flags);
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *sym, size_t n, size_t off,
                                      cudaMemcpyKind kind, cudaStream_t s = 0);
template <class T>
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &sym, size_t n, size_t off = 0,
                                      cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
                                      cudaStream_t s = 0);
template <class T> cudaError_t cudaGetSymbolAddress(void **p, const T &sym);
template <class T> cudaError_t cudaGetSymbolSize(size_t *n, const T &sym);
template <class T> cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, T *f);
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, const void *f);
template <class T>
cudaError_t cudaLaunchKernel(T *f, dim3 grid, dim3 block, void **args, size_t smem = 0,
                             cudaStream_t s = 0);
cudaError_t cudaLaunchKernel(const void *f, dim3 grid, dim3 block, void **args,
                             size_t smem = 0, cudaStream_t s = 0);
template <class T>
cudaError_t cudaLaunchCooperativeKernel(T *f, dim3 grid, dim3 block, void **args,
                                        size_t smem = 0, cudaStream_t s = 0);
cudaError_t cudaLaunchCooperativeKernel(const void *f, dim3 grid, dim3 block, void **args,
                                        size_t smem = 0, cudaStream_t s = 0);
template <class T>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *n, T f, int block,
                                                                   size_t smem, unsigned flags);
template <class T, class F>
cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(int *grid, int *block, T f,
                                                           F smemOfBlock, int limit = 0,
                                                           unsigned flags = 0);
template <class T>
cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *smem, T f, int blocks, int block);
cudaError_t cudaMemset2D(void *p, size_t pitch, int v, size_t w, size_t h);
cudaError_t cudaMemset2DAsync(void *p, size_t pitch, int v, size_t w, size_t h,
                              cudaStream_t s = 0);

// 3D copies and pitched memory.
struct cudaExtent { size_t width, height, depth; };
struct cudaPos { size_t x, y, z; };
struct cudaPitchedPtr { void *ptr; size_t pitch, xsize, ysize; };
__host__ cudaExtent make_cudaExtent(size_t w, size_t h, size_t d);
__host__ cudaPos make_cudaPos(size_t x, size_t y, size_t z);
__host__ cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz);

// Arrays and channel formats.
enum cudaChannelFormatKind { cudaChannelFormatKindSigned = 0, cudaChannelFormatKindUnsigned = 1,
                             cudaChannelFormatKindFloat = 2, cudaChannelFormatKindNone = 3,
                             cudaChannelFormatKindNV12 = 4 };
struct cudaChannelFormatDesc { int x, y, z, w; cudaChannelFormatKind f; };
struct cudaArray;
typedef struct cudaArray *cudaArray_t;
typedef const struct cudaArray *cudaArray_const_t;
struct cudaMipmappedArray;
typedef struct cudaMipmappedArray *cudaMipmappedArray_t;
typedef const struct cudaMipmappedArray *cudaMipmappedArray_const_t;
cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f);
template <class T> cudaChannelFormatDesc cudaCreateChannelDesc(void);
struct cudaMemcpy3DParms {
  cudaArray_t srcArray; cudaPos srcPos; cudaPitchedPtr srcPtr;
  cudaArray_t dstArray; cudaPos dstPos; cudaPitchedPtr dstPtr;
  cudaExtent extent; cudaMemcpyKind kind;
};
cudaError_t cudaMalloc3D(cudaPitchedPtr *p, cudaExtent e);
cudaError_t cudaMalloc3DArray(cudaArray_t *a, const cudaChannelFormatDesc *d, cudaExtent e,
                              unsigned flags = 0);
cudaError_t cudaMallocArray(cudaArray_t *a, const cudaChannelFormatDesc *d, size_t w,
                            size_t h = 0, unsigned flags = 0);
cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *a, const cudaChannelFormatDesc *d,
                                     cudaExtent e, unsigned levels, unsigned flags = 0);
cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t *level, cudaMipmappedArray_const_t a,
                                       unsigned n);
cudaError_t cudaFreeArray(cudaArray_t a);
cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t a);
cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc *d, cudaExtent *e, unsigned *flags,
                             cudaArray_t a);
cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc *d, cudaArray_const_t a);
cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *p);
cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms *p, cudaStream_t s = 0);
cudaError_t cudaMemset3D(cudaPitchedPtr p, int v, cudaExtent e);
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOff, size_t hOff, const void *src,
                                size_t spitch, size_t w, size_t h, cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOff, size_t hOff,
                                     const void *src, size_t spitch, size_t w, size_t h,
                                     cudaMemcpyKind kind, cudaStream_t s = 0);
cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOff,
                                  size_t hOff, size_t w, size_t h, cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffDst, size_t hOffDst,
                                     cudaArray_const_t src, size_t wOffSrc, size_t hOffSrc,
                                     size_t w, size_t h,
                                     cudaMemcpyKind kind = cudaMemcpyDeviceToDevice);
__attribute__((deprecated("cudaMemcpyToArray is deprecated: use cudaMemcpy2DToArray")))
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOff, size_t hOff, const void *src,
                              size_t n, cudaMemcpyKind kind);
__attribute__((deprecated("cudaMemcpyFromArray is deprecated: use cudaMemcpy2DFromArray")))
cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOff, size_t hOff,
                                size_t n, cudaMemcpyKind kind);

// Texture and surface objects.
enum cudaTextureAddressMode { cudaAddressModeWrap = 0, cudaAddressModeClamp = 1,
                              cudaAddressModeMirror = 2, cudaAddressModeBorder = 3 };
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
enum cudaSurfaceBoundaryMode { cudaBoundaryModeZero = 0, cudaBoundaryModeClamp = 1,
                               cudaBoundaryModeTrap = 2 };
enum cudaSurfaceFormatMode { cudaFormatModeForced = 0, cudaFormatModeAuto = 1 };
enum cudaResourceType { cudaResourceTypeArray = 0, cudaResourceTypeMipmappedArray = 1,
                        cudaResourceTypeLinear = 2, cudaResourceTypePitch2D = 3 };
enum cudaResourceViewFormat { cudaResViewFormatNone = 0 };
struct cudaResourceDesc {
  cudaResourceType resType;
  union {
    struct { cudaArray_t array; } array;
    struct { cudaMipmappedArray_t mipmap; } mipmap;
    struct { void *devPtr; cudaChannelFormatDesc desc; size_t sizeInBytes; } linear;
    struct {
      void *devPtr; cudaChannelFormatDesc desc; size_t width, height, pitchInBytes;
    } pitch2D;
  } res;
  unsigned int flags;
};
struct cudaTextureDesc {
  cudaTextureAddressMode addressMode[3];
  cudaTextureFilterMode filterMode;
  cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
  int disableTrilinearOptimization, seamlessCubemap;
};
struct cudaResourceViewDesc {
  cudaResourceViewFormat format;
  size_t width, height, depth;
  unsigned int firstMipmapLevel, lastMipmapLevel, firstLayer, lastLayer;
};
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
cudaError_t cudaCreateTextureObject(cudaTextureObject_t *t, const cudaResourceDesc *r,
                                    const cudaTextureDesc *d, const cudaResourceViewDesc *v);
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t t);
cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc *r, cudaTextureObject_t t);
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *s, const cudaResourceDesc *r);
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t s);
// Fetches (texture_indirect_functions.h, surface_indirect_functions.h): the value-returning
// templates and the out-parameter overloads.
template <class T> __device__ T tex1Dfetch(cudaTextureObject_t t, int x);
template <class T> __device__ void tex1Dfetch(T *r, cudaTextureObject_t t, int x);
template <class T> __device__ T tex1D(cudaTextureObject_t t, float x);
template <class T> __device__ void tex1D(T *r, cudaTextureObject_t t, float x);
template <class T> __device__ T tex2D(cudaTextureObject_t t, float x, float y);
template <class T> __device__ void tex2D(T *r, cudaTextureObject_t t, float x, float y);
template <class T> __device__ T tex3D(cudaTextureObject_t t, float x, float y, float z);
template <class T> __device__ void tex3D(T *r, cudaTextureObject_t t, float x, float y, float z);
template <class T> __device__ T tex1DLayered(cudaTextureObject_t t, float x, int layer);
template <class T>
__device__ T tex2DLayered(cudaTextureObject_t t, float x, float y, int layer);
template <class T>
__device__ void tex2DLayered(T *r, cudaTextureObject_t t, float x, float y, int layer);
template <class T> __device__ T texCubemap(cudaTextureObject_t t, float x, float y, float z);
template <class T>
__device__ T texCubemapLayered(cudaTextureObject_t t, float x, float y, float z, int layer);
template <class T> __device__ T tex1DLod(cudaTextureObject_t t, float x, float level);
template <class T> __device__ T tex2DLod(cudaTextureObject_t t, float x, float y, float level);
template <class T>
__device__ T tex3DLod(cudaTextureObject_t t, float x, float y, float z, float level);
template <class T>
__device__ T tex2DGrad(cudaTextureObject_t t, float x, float y, float2 dx, float2 dy);
template <class T> __device__ T tex2Dgather(cudaTextureObject_t t, float x, float y, int comp = 0);
template <class T>
__device__ void surf1Dread(T *r, cudaSurfaceObject_t s, int x,
                           cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap);
template <class T>
__device__ T surf1Dread(cudaSurfaceObject_t s, int x,
                        cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap);
template <class T>
__device__ void surf1Dwrite(T v, cudaSurfaceObject_t s, int x,
                            cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap);
template <class T>
__device__ void surf2Dread(T *r, cudaSurfaceObject_t s, int x, int y,
                           cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap);
template <class T>
__device__ T surf2Dread(cudaSurfaceObject_t s, int x, int y,
                        cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap);
template <class T>
__device__ void surf2Dwrite(T v, cudaSurfaceObject_t s, int x, int y,
                            cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap);
template <class T>
__device__ void surf3Dread(T *r, cudaSurfaceObject_t s, int x, int y, int z,
                           cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap);
template <class T>
__device__ T surf3Dread(cudaSurfaceObject_t s, int x, int y, int z,
                        cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap);
template <class T>
__device__ void surf3Dwrite(T v, cudaSurfaceObject_t s, int x, int y, int z,
                            cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap);
template <class T>
__device__ void surf2DLayeredread(T *r, cudaSurfaceObject_t s, int x, int y, int layer,
                                  cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap);
template <class T>
__device__ T surf2DLayeredread(cudaSurfaceObject_t s, int x, int y, int layer,
                               cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap);
template <class T>
__device__ void surf2DLayeredwrite(T v, cudaSurfaceObject_t s, int x, int y, int layer,
                                   cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap);

// Inter-process handles.
struct cudaIpcMemHandle_t { char reserved[64]; };
struct cudaIpcEventHandle_t { char reserved[64]; };
cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *h, void *p);
cudaError_t cudaIpcOpenMemHandle(void **p, cudaIpcMemHandle_t h, unsigned flags);
cudaError_t cudaIpcCloseMemHandle(void *p);
cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *h, cudaEvent_t e);
cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *e, cudaIpcEventHandle_t h);

// Stream-ordered allocation and memory pools; managed memory hints (CUDA 13 signatures).
typedef struct CUmemPoolHandle_st *cudaMemPool_t;
enum cudaMemPoolAttr { cudaMemPoolReuseFollowEventDependencies = 1,
                       cudaMemPoolReuseAllowOpportunistic = 2,
                       cudaMemPoolReuseAllowInternalDependencies = 3,
                       cudaMemPoolAttrReleaseThreshold = 4, cudaMemPoolAttrReservedMemCurrent = 5,
                       cudaMemPoolAttrReservedMemHigh = 6, cudaMemPoolAttrUsedMemCurrent = 7,
                       cudaMemPoolAttrUsedMemHigh = 8 };
enum cudaMemLocationType { cudaMemLocationTypeInvalid = 0, cudaMemLocationTypeDevice = 1,
                           cudaMemLocationTypeHost = 2, cudaMemLocationTypeHostNuma = 3,
                           cudaMemLocationTypeHostNumaCurrent = 4 };
struct cudaMemLocation { cudaMemLocationType type; int id; };
enum cudaMemAccessFlags { cudaMemAccessFlagsProtNone = 0, cudaMemAccessFlagsProtRead = 1,
                          cudaMemAccessFlagsProtReadWrite = 3 };
struct cudaMemAccessDesc { cudaMemLocation location; cudaMemAccessFlags flags; };
enum cudaMemAllocationType { cudaMemAllocationTypeInvalid = 0, cudaMemAllocationTypePinned = 1 };
enum cudaMemAllocationHandleType { cudaMemHandleTypeNone = 0,
                                   cudaMemHandleTypePosixFileDescriptor = 1,
                                   cudaMemHandleTypeWin32 = 2, cudaMemHandleTypeWin32Kmt = 4,
                                   cudaMemHandleTypeFabric = 8 };
struct cudaMemPoolProps {
  cudaMemAllocationType allocType;
  cudaMemAllocationHandleType handleTypes;
  cudaMemLocation location;
  void *win32SecurityAttributes;
  size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
};
struct cudaMemPoolPtrExportData { unsigned char reserved[64]; };
enum cudaMemoryAdvise { cudaMemAdviseSetReadMostly = 1, cudaMemAdviseUnsetReadMostly = 2,
                        cudaMemAdviseSetPreferredLocation = 3,
                        cudaMemAdviseUnsetPreferredLocation = 4, cudaMemAdviseSetAccessedBy = 5,
                        cudaMemAdviseUnsetAccessedBy = 6 };
cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s);
template <class T> cudaError_t cudaMallocAsync(T **p, size_t n, cudaStream_t s);
cudaError_t cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t pool, cudaStream_t s);
template <class T>
cudaError_t cudaMallocAsync(T **p, size_t n, cudaMemPool_t pool, cudaStream_t s);
cudaError_t cudaFreeAsync(void *p, cudaStream_t s);
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int device);
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *pool, int device);
cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool);
cudaError_t cudaMemPoolCreate(cudaMemPool_t *pool, const cudaMemPoolProps *props);
cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool);
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr a, void *v);
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr a, void *v);
cudaError_t cudaMemPoolSetAccess(cudaMemPool_t pool, const cudaMemAccessDesc *d, size_t n);
cudaError_t cudaMemPoolGetAccess(cudaMemAccessFlags *f, cudaMemPool_t pool, cudaMemLocation *l);
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t keep);
cudaError_t cudaMemPoolExportToShareableHandle(void *h, cudaMemPool_t pool,
                                               cudaMemAllocationHandleType t, unsigned flags);
cudaError_t cudaMemPoolImportFromShareableHandle(cudaMemPool_t *pool, void *h,
                                                 cudaMemAllocationHandleType t, unsigned flags);
cudaError_t cudaMemPoolExportPointer(cudaMemPoolPtrExportData *d, void *p);
cudaError_t cudaMemPoolImportPointer(void **p, cudaMemPool_t pool, cudaMemPoolPtrExportData *d);
cudaError_t cudaMemPrefetchAsync(const void *p, size_t n, cudaMemLocation loc, unsigned flags,
                                 cudaStream_t s = 0);
cudaError_t cudaMemAdvise(const void *p, size_t n, cudaMemoryAdvise advice, cudaMemLocation loc);

// Launch and stream attributes (L2 access policy windows, clusters).
enum cudaAccessProperty { cudaAccessPropertyNormal = 0, cudaAccessPropertyStreaming = 1,
                          cudaAccessPropertyPersisting = 2 };
struct cudaAccessPolicyWindow {
  void *base_ptr;
  size_t num_bytes;
  float hitRatio;
  cudaAccessProperty hitProp, missProp;
};
enum cudaSynchronizationPolicy { cudaSyncPolicyAuto = 1, cudaSyncPolicySpin = 2,
                                 cudaSyncPolicyYield = 3, cudaSyncPolicyBlockingSync = 4 };
enum cudaLaunchAttributeID {
  cudaLaunchAttributeIgnore = 0, cudaLaunchAttributeAccessPolicyWindow = 1,
  cudaLaunchAttributeCooperative = 2, cudaLaunchAttributeSynchronizationPolicy = 3,
  cudaLaunchAttributeClusterDimension = 4,
  cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
  cudaLaunchAttributeProgrammaticStreamSerialization = 6,
  cudaLaunchAttributeProgrammaticEvent = 7, cudaLaunchAttributePriority = 8
};
union cudaLaunchAttributeValue {
  char pad[64];
  cudaAccessPolicyWindow accessPolicyWindow;
  int cooperative;
  cudaSynchronizationPolicy syncPolicy;
  struct { unsigned int x, y, z; } clusterDim;
  int clusterSchedulingPolicyPreference;
  int programmaticStreamSerializationAllowed;
  int priority;
};
struct cudaLaunchAttribute { cudaLaunchAttributeID id; char pad[4]; cudaLaunchAttributeValue val; };
typedef cudaLaunchAttributeID cudaStreamAttrID;
typedef cudaLaunchAttributeID cudaKernelNodeAttrID;
typedef cudaLaunchAttributeValue cudaStreamAttrValue;
typedef cudaLaunchAttributeValue cudaKernelNodeAttrValue;
#define cudaStreamAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow
#define cudaStreamAttributeSynchronizationPolicy cudaLaunchAttributeSynchronizationPolicy
#define cudaStreamAttributePriority cudaLaunchAttributePriority
#define cudaKernelNodeAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow
#define cudaKernelNodeAttributeCooperative cudaLaunchAttributeCooperative
#define cudaKernelNodeAttributePriority cudaLaunchAttributePriority
cudaError_t cudaStreamSetAttribute(cudaStream_t s, cudaStreamAttrID a, const cudaStreamAttrValue *v);
cudaError_t cudaStreamGetAttribute(cudaStream_t s, cudaStreamAttrID a, cudaStreamAttrValue *v);
struct cudaLaunchConfig_t {
  dim3 gridDim, blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute *attrs;
  unsigned int numAttrs;
};
template <class... P, class... A>
cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(P...),
                               A &&...args);
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *f, void **args);

// Graphs and stream capture.
typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphNode_st *cudaGraphNode_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
typedef unsigned long long cudaGraphConditionalHandle;
enum cudaStreamCaptureMode { cudaStreamCaptureModeGlobal = 0,
                             cudaStreamCaptureModeThreadLocal = 1,
                             cudaStreamCaptureModeRelaxed = 2 };
enum cudaStreamCaptureStatus { cudaStreamCaptureStatusNone = 0,
                               cudaStreamCaptureStatusActive = 1,
                               cudaStreamCaptureStatusInvalidated = 2 };
enum cudaGraphNodeType {
  cudaGraphNodeTypeKernel = 0, cudaGraphNodeTypeMemcpy = 1, cudaGraphNodeTypeMemset = 2,
  cudaGraphNodeTypeHost = 3, cudaGraphNodeTypeGraph = 4, cudaGraphNodeTypeEmpty = 5,
  cudaGraphNodeTypeWaitEvent = 6, cudaGraphNodeTypeEventRecord = 7,
  cudaGraphNodeTypeExtSemaphoreSignal = 8, cudaGraphNodeTypeExtSemaphoreWait = 9,
  cudaGraphNodeTypeMemAlloc = 10, cudaGraphNodeTypeMemFree = 11,
  cudaGraphNodeTypeConditional = 13
};
enum cudaGraphCondType { cudaGraphCondTypeIf = 0, cudaGraphCondTypeWhile = 1,
                         cudaGraphCondTypeSwitch = 2 };
enum cudaGraphExecUpdateResult {
  cudaGraphExecUpdateSuccess = 0, cudaGraphExecUpdateError = 1,
  cudaGraphExecUpdateErrorTopologyChanged = 2, cudaGraphExecUpdateErrorNodeTypeChanged = 3,
  cudaGraphExecUpdateErrorFunctionChanged = 4, cudaGraphExecUpdateErrorParametersChanged = 5,
  cudaGraphExecUpdateErrorNotSupported = 6, cudaGraphExecUpdateErrorUnsupportedFunctionChange = 7,
  cudaGraphExecUpdateErrorAttributesChanged = 8
};
struct cudaGraphExecUpdateResultInfo {
  cudaGraphExecUpdateResult result;
  cudaGraphNode_t errorNode, errorFromNode;
};
enum cudaGraphMemAttributeType { cudaGraphMemAttrUsedMemCurrent = 0,
                                 cudaGraphMemAttrUsedMemHigh = 1,
                                 cudaGraphMemAttrReservedMemCurrent = 2,
                                 cudaGraphMemAttrReservedMemHigh = 3 };
enum { cudaGraphInstantiateFlagAutoFreeOnLaunch = 1, cudaGraphInstantiateFlagUpload = 2,
       cudaGraphInstantiateFlagDeviceLaunch = 4, cudaGraphInstantiateFlagUseNodePriority = 8 };
struct cudaGraphEdgeData {
  unsigned char from_port, to_port, type, reserved[5];
};
struct cudaKernelNodeParams {
  void *func;
  dim3 gridDim, blockDim;
  unsigned int sharedMemBytes;
  void **kernelParams, **extra;
};
struct cudaMemsetParams {
  void *dst;
  size_t pitch;
  unsigned int value, elementSize;
  size_t width, height;
};
struct cudaHostNodeParams { cudaHostFn_t fn; void *userData; };
struct cudaMemAllocNodeParams {
  cudaMemPoolProps poolProps;
  const cudaMemAccessDesc *accessDescs;
  size_t accessDescCount, bytesize;
  void *dptr;
};
struct cudaMemFreeNodeParams { void *dptr; };
struct cudaChildGraphNodeParams { cudaGraph_t graph; };
struct cudaConditionalNodeParams {
  cudaGraphConditionalHandle handle;
  cudaGraphCondType type;
  unsigned int size;
  cudaGraph_t *phGraph_out;
};
struct cudaGraphNodeParams {
  cudaGraphNodeType type;
  int reserved0[3];
  union {
    long long reserved1[29];
    cudaKernelNodeParams kernel;
    cudaMemsetParams memset;
    cudaHostNodeParams host;
    cudaChildGraphNodeParams graph;
    cudaMemAllocNodeParams alloc;
    cudaMemFreeNodeParams free;
    cudaConditionalNodeParams conditional;
  };
  long long reserved2;
};
cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode mode);
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t s, cudaGraph_t g,
                                          const cudaGraphNode_t *deps,
                                          const cudaGraphEdgeData *edges, size_t n,
                                          cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g);
cudaError_t cudaStreamIsCapturing(cudaStream_t s, cudaStreamCaptureStatus *status);
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t s, cudaStreamCaptureStatus *status,
                                     unsigned long long *id = 0, cudaGraph_t *g = 0,
                                     const cudaGraphNode_t **deps = 0,
                                     const cudaGraphEdgeData **edges = 0, size_t *n = 0);
enum cudaStreamUpdateCaptureDependenciesFlags { cudaStreamAddCaptureDependencies = 0x0,
                                                cudaStreamSetCaptureDependencies = 0x1 };
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t s, cudaGraphNode_t *deps,
                                                const cudaGraphEdgeData *edges, size_t n,
                                                unsigned flags = 0);
cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode *mode);
cudaError_t cudaGraphCreate(cudaGraph_t *g, unsigned flags);
cudaError_t cudaGraphDestroy(cudaGraph_t g);
cudaError_t cudaGraphClone(cudaGraph_t *clone, cudaGraph_t g);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *e, cudaGraph_t g, unsigned long long flags = 0);
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *e, cudaGraph_t g,
                                          unsigned long long flags = 0);
cudaError_t cudaGraphLaunch(cudaGraphExec_t e, cudaStream_t s);
cudaError_t cudaGraphUpload(cudaGraphExec_t e, cudaStream_t s);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t e);
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g,
                                cudaGraphExecUpdateResultInfo *info);
cudaError_t cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *n);
cudaError_t cudaGraphGetRootNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *n);
cudaError_t cudaGraphGetEdges(cudaGraph_t g, cudaGraphNode_t *from, cudaGraphNode_t *to,
                              cudaGraphEdgeData *edges, size_t *n);
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType *t);
cudaError_t cudaGraphAddDependencies(cudaGraph_t g, const cudaGraphNode_t *from,
                                     const cudaGraphNode_t *to, const cudaGraphEdgeData *edges,
                                     size_t n);
cudaError_t cudaGraphAddNode(cudaGraphNode_t *node, cudaGraph_t g, const cudaGraphNode_t *deps,
                             const cudaGraphEdgeData *edges, size_t n,
                             cudaGraphNodeParams *params);
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *node, cudaGraph_t g,
                                   const cudaGraphNode_t *deps, size_t n,
                                   const cudaKernelNodeParams *params);
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *node, cudaGraph_t g,
                                   const cudaGraphNode_t *deps, size_t n,
                                   const cudaMemcpy3DParms *params);
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *node, cudaGraph_t g,
                                     const cudaGraphNode_t *deps, size_t n, void *dst,
                                     const void *src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *node, cudaGraph_t g,
                                   const cudaGraphNode_t *deps, size_t n,
                                   const cudaMemsetParams *params);
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *node, cudaGraph_t g,
                                 const cudaGraphNode_t *deps, size_t n,
                                 const cudaHostNodeParams *params);
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *node, cudaGraph_t g,
                                       const cudaGraphNode_t *deps, size_t n, cudaGraph_t child);
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *node, cudaGraph_t g,
                                  const cudaGraphNode_t *deps, size_t n);
cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *node, cudaGraph_t g,
                                        const cudaGraphNode_t *deps, size_t n, cudaEvent_t e);
cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *node, cudaGraph_t g,
                                      const cudaGraphNode_t *deps, size_t n, cudaEvent_t e);
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *node, cudaGraph_t g,
                                     const cudaGraphNode_t *deps, size_t n,
                                     cudaMemAllocNodeParams *params);
cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *node, cudaGraph_t g,
                                    const cudaGraphNode_t *deps, size_t n, void *dptr);
cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams *params);
cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
                                         const cudaKernelNodeParams *params);
cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t node,
                                             const cudaKernelNodeParams *params);
cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const cudaMemsetParams *params);
cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t node,
                                             const cudaMemsetParams *params);
cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const cudaHostNodeParams *params);
cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t node,
                                           const cudaHostNodeParams *params);
cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *h, cudaGraph_t g,
                                             unsigned defaultLaunchValue = 0,
                                             unsigned flags = 0);
__device__ void cudaGraphSetConditional(cudaGraphConditionalHandle h, unsigned value);
cudaError_t cudaGraphDebugDotPrint(cudaGraph_t g, const char *path, unsigned flags);
cudaError_t cudaDeviceGraphMemTrim(int device);
cudaError_t cudaDeviceGetGraphMemAttribute(int device, cudaGraphMemAttributeType a, void *v);
cudaError_t cudaDeviceSetGraphMemAttribute(int device, cudaGraphMemAttributeType a, void *v);

// Graphics interop handles (the calls live in cuda_gl_interop.h & co.).
typedef struct cudaGraphicsResource *cudaGraphicsResource_t;
enum cudaGraphicsRegisterFlags { cudaGraphicsRegisterFlagsNone = 0,
                                 cudaGraphicsRegisterFlagsReadOnly = 1,
                                 cudaGraphicsRegisterFlagsWriteDiscard = 2,
                                 cudaGraphicsRegisterFlagsSurfaceLoadStore = 4,
                                 cudaGraphicsRegisterFlagsTextureGather = 8 };
enum cudaGraphicsMapFlags { cudaGraphicsMapFlagsNone = 0, cudaGraphicsMapFlagsReadOnly = 1,
                            cudaGraphicsMapFlagsWriteDiscard = 2 };
cudaError_t cudaGraphicsMapResources(int n, cudaGraphicsResource_t *r, cudaStream_t s = 0);
cudaError_t cudaGraphicsUnmapResources(int n, cudaGraphicsResource_t *r, cudaStream_t s = 0);
cudaError_t cudaGraphicsUnregisterResource(cudaGraphicsResource_t r);
cudaError_t cudaGraphicsResourceSetMapFlags(cudaGraphicsResource_t r, unsigned flags);
cudaError_t cudaGraphicsResourceGetMappedPointer(void **p, size_t *n, cudaGraphicsResource_t r);
cudaError_t cudaGraphicsSubResourceGetMappedArray(cudaArray_t *a, cudaGraphicsResource_t r,
                                                  unsigned index, unsigned level);

// Profiler control (cuda_profiler_api.h).
cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);

// Calls removed from CUDA (nvcc 13 no longer declares them) that older code still makes:
// accepted, with a deprecation warning at the call.
#define __CUDAFUSE_REMOVED(old, repl) \
  __attribute__((deprecated(old " was removed in CUDA 13 (deprecated since CUDA 4.0): use " \
                            repl)))
__CUDAFUSE_REMOVED("cudaThreadSynchronize", "cudaDeviceSynchronize")
cudaError_t cudaThreadSynchronize(void);
__CUDAFUSE_REMOVED("cudaThreadExit", "cudaDeviceReset") cudaError_t cudaThreadExit(void);
__CUDAFUSE_REMOVED("cudaThreadSetCacheConfig", "cudaDeviceSetCacheConfig")
cudaError_t cudaThreadSetCacheConfig(cudaFuncCache c);
__CUDAFUSE_REMOVED("cudaThreadGetCacheConfig", "cudaDeviceGetCacheConfig")
cudaError_t cudaThreadGetCacheConfig(cudaFuncCache *c);
__CUDAFUSE_REMOVED("cudaThreadSetLimit", "cudaDeviceSetLimit")
cudaError_t cudaThreadSetLimit(cudaLimit limit, size_t value);
__CUDAFUSE_REMOVED("cudaThreadGetLimit", "cudaDeviceGetLimit")
cudaError_t cudaThreadGetLimit(size_t *value, cudaLimit limit);
#undef __CUDAFUSE_REMOVED
// cuda_runtime.h's C++ overloads (CUDA 13 keeps the pre-12 graph signatures there as inline
// wrappers of the new ones: not deprecated).
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *e, cudaGraph_t g, cudaGraphNode_t *errorNode,
                                 char *log, size_t logSize);
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g, cudaGraphNode_t *errorNode,
                                cudaGraphExecUpdateResult *result);
cudaError_t cudaEventCreate(cudaEvent_t *e, unsigned flags);
cudaError_t cudaMallocHost(void **p, size_t n, unsigned flags);
// The device runtime (dynamic parallelism, cuda_device_runtime_api.h): device overloads.
__device__ cudaError_t cudaMalloc(void **p, size_t n);
__device__ cudaError_t cudaFree(void *p);
__device__ cudaError_t cudaDeviceSynchronize(void);
__device__ cudaError_t cudaGetLastError(void);
__device__ cudaError_t cudaPeekAtLastError(void);
__device__ const char *cudaGetErrorString(cudaError_t e);
__device__ const char *cudaGetErrorName(cudaError_t e);
__device__ cudaError_t cudaGetDevice(int *d);
__device__ cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int d);
__device__ cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
__device__ cudaError_t cudaStreamDestroy(cudaStream_t s);
__device__ cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags);
__device__ cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0);
__device__ cudaError_t cudaEventDestroy(cudaEvent_t e);
__device__ cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags);
__device__ cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, cudaMemcpyKind k,
                                       cudaStream_t s = 0);
__device__ cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s = 0);
#define cudaStreamFireAndForget ((cudaStream_t)0x4)
#define cudaStreamTailLaunch ((cudaStream_t)0x3)
__attribute__((deprecated("cudaDeviceSetSharedMemConfig is deprecated: shared memory bank size "
                          "is fixed since Hopper")))
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig c);
__attribute__((deprecated("cudaDeviceGetSharedMemConfig is deprecated")))
cudaError_t cudaDeviceGetSharedMemConfig(cudaSharedMemConfig *c);
template <class T>
__attribute__((deprecated("cudaFuncSetSharedMemConfig is deprecated")))
cudaError_t cudaFuncSetSharedMemConfig(T *f, cudaSharedMemConfig c);

// Device-side builtins and intrinsics the analyses recognise by name.
__device__ void __syncthreads(void);
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __syncwarp(unsigned mask = 0xffffffffu);
__device__ void __threadfence(void);
__device__ void __threadfence_block(void);
template <class T> __device__ T __shfl_sync(unsigned m, T v, int l, int w = 32);
template <class T> __device__ T __shfl_up_sync(unsigned m, T v, unsigned d, int w = 32);
template <class T> __device__ T __shfl_down_sync(unsigned m, T v, unsigned d, int w = 32);
template <class T> __device__ T __shfl_xor_sync(unsigned m, T v, int l, int w = 32);
__device__ unsigned __ballot_sync(unsigned m, int p);
__device__ int __any_sync(unsigned m, int p);
__device__ int __all_sync(unsigned m, int p);
__device__ unsigned __activemask(void);
// Atomics: CUDA 13's overload set for sm_90 (device_atomic_functions.h, sm_20/32/60_atomic_functions.h,
// crt/sm_70_rt.h, crt/sm_90_rt.h; __half's in cuda_fp16.h), one non-template declaration per
// type, so arguments convert as with nvcc (atomicAdd(float *, double), atomicMax(int *, 0u))
// and what nvcc rejects (atomicAdd(long long *, ...), atomicMax(float *, ...)) fails here too.
// Every name has the same types in its _block and _system variants, except atomicCAS on
// unsigned short (unscoped only).
#define __CUDAFUSE_AT(T, N) \
  __device__ T N(T *a, T v); __device__ T N##_block(T *a, T v); __device__ T N##_system(T *a, T v);
#define __CUDAFUSE_AT_CAS(T) __device__ T atomicCAS(T *a, T c, T v); \
  __device__ T atomicCAS_block(T *a, T c, T v); __device__ T atomicCAS_system(T *a, T c, T v);
#define __CUDAFUSE_AT_INT32(N) __CUDAFUSE_AT(int, N) __CUDAFUSE_AT(unsigned int, N)
#define __CUDAFUSE_AT_INT(N) __CUDAFUSE_AT_INT32(N) __CUDAFUSE_AT(long long, N) \
  __CUDAFUSE_AT(unsigned long long, N)
__CUDAFUSE_AT_INT32(atomicAdd) __CUDAFUSE_AT(unsigned long long, atomicAdd)
__CUDAFUSE_AT(float, atomicAdd) __CUDAFUSE_AT(double, atomicAdd)
__CUDAFUSE_AT(float2, atomicAdd) __CUDAFUSE_AT(float4, atomicAdd)
__CUDAFUSE_AT_INT32(atomicSub)
__CUDAFUSE_AT_INT32(atomicExch) __CUDAFUSE_AT(unsigned long long, atomicExch)
__CUDAFUSE_AT(float, atomicExch)
__CUDAFUSE_AT_INT(atomicMin) __CUDAFUSE_AT_INT(atomicMax)
__CUDAFUSE_AT_INT(atomicAnd) __CUDAFUSE_AT_INT(atomicOr) __CUDAFUSE_AT_INT(atomicXor)
__CUDAFUSE_AT(unsigned int, atomicInc) __CUDAFUSE_AT(unsigned int, atomicDec)
__CUDAFUSE_AT_CAS(int) __CUDAFUSE_AT_CAS(unsigned int) __CUDAFUSE_AT_CAS(unsigned long long)
__device__ unsigned short atomicCAS(unsigned short *a, unsigned short c, unsigned short v);
#undef __CUDAFUSE_AT
#undef __CUDAFUSE_AT_CAS
#undef __CUDAFUSE_AT_INT32
#undef __CUDAFUSE_AT_INT
// 128-bit atomicExch/atomicCAS (sm_90) on any 16-byte, 16-aligned, trivially copyable type;
// as in crt/sm_90_rt.h before C++20, other types drop out by SFINAE on the return type.
template <bool B, class T> struct __cudafuse_atomic_if {};
template <class T> struct __cudafuse_atomic_if<true, T> { typedef T type; };
#define __CUDAFUSE_AT128(T) typename __cudafuse_atomic_if<sizeof(T) == 16 && \
  __alignof__(T) >= 16 && __is_trivially_copyable(T), T>::type
template <class T> __device__ __CUDAFUSE_AT128(T) atomicExch(T *a, T v);
template <class T> __device__ __CUDAFUSE_AT128(T) atomicExch_block(T *a, T v);
template <class T> __device__ __CUDAFUSE_AT128(T) atomicExch_system(T *a, T v);
template <class T> __device__ __CUDAFUSE_AT128(T) atomicCAS(T *a, T c, T v);
template <class T> __device__ __CUDAFUSE_AT128(T) atomicCAS_block(T *a, T c, T v);
template <class T> __device__ __CUDAFUSE_AT128(T) atomicCAS_system(T *a, T c, T v);
#undef __CUDAFUSE_AT128
// The bit casts that atomicCAS loops on floating point use (the emulator has them too).
__device__ int __float_as_int(float);
__device__ unsigned __float_as_uint(float);
__device__ float __int_as_float(int);
__device__ float __uint_as_float(unsigned);
__device__ long long __double_as_longlong(double);
__device__ double __longlong_as_double(long long);
template <class T> __device__ T __ldg(const T *p);

// Math. The C library's declarations (when there is one) are the host versions; the shim adds
// __device__ overloads, which CUDA lets coexist with __host__ ones, as clang's own wrapper does.
#if __has_include(<math.h>) && __has_include(<stdlib.h>)
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <assert.h>
#include <time.h>
#include <limits.h>
#include <new>
#else
extern "C" {
int printf(const char *, ...);
void *malloc(size_t);
void free(void *);
void *memcpy(void *, const void *, size_t);
void *memset(void *, int, size_t);
void exit(int);
}
#endif
// Each is also brought into std (as clang's __clang_cuda_cmath.h does): <cmath>'s `using
// ::sqrt;` ran before these existed, so std::sqrt(double) in device code would otherwise see
// only the constexpr (host and device) float and long double overloads: "ambiguous".
#define __CUDAFUSE_F1(n) __device__ float n##f(float); __device__ double n(double); \
  namespace std { using ::n; using ::n##f; }
#define __CUDAFUSE_F2(n) __device__ float n##f(float, float); \
  __device__ double n(double, double); namespace std { using ::n; using ::n##f; }
__CUDAFUSE_F1(sqrt) __CUDAFUSE_F1(rsqrt) __CUDAFUSE_F1(cbrt) __CUDAFUSE_F1(exp) __CUDAFUSE_F1(exp2)
__CUDAFUSE_F1(exp10) __CUDAFUSE_F1(expm1) __CUDAFUSE_F1(log) __CUDAFUSE_F1(log2)
__CUDAFUSE_F1(log10) __CUDAFUSE_F1(log1p) __CUDAFUSE_F1(sin) __CUDAFUSE_F1(cos) __CUDAFUSE_F1(tan)
__CUDAFUSE_F1(asin) __CUDAFUSE_F1(acos) __CUDAFUSE_F1(atan) __CUDAFUSE_F1(sinh) __CUDAFUSE_F1(cosh)
__CUDAFUSE_F1(tanh) __CUDAFUSE_F1(fabs) __CUDAFUSE_F1(floor) __CUDAFUSE_F1(ceil)
__CUDAFUSE_F1(round) __CUDAFUSE_F1(trunc) __CUDAFUSE_F1(rint) __CUDAFUSE_F1(erf) __CUDAFUSE_F1(erfc)
__CUDAFUSE_F1(normcdf) __CUDAFUSE_F1(lgamma) __CUDAFUSE_F1(tgamma)
__CUDAFUSE_F2(pow) __CUDAFUSE_F2(atan2) __CUDAFUSE_F2(fmin) __CUDAFUSE_F2(fmax) __CUDAFUSE_F2(fmod)
__CUDAFUSE_F2(hypot) __CUDAFUSE_F2(copysign) __CUDAFUSE_F2(fdim) __CUDAFUSE_F2(remainder)
#undef __CUDAFUSE_F1
#undef __CUDAFUSE_F2
__device__ float fmaf(float, float, float);
__device__ double fma(double, double, double);
namespace std { using ::fma; using ::fmaf; }
__device__ void sincosf(float, float *, float *);
__device__ void sincos(double, double *, double *);
__device__ int abs(int);
__device__ long long llabs(long long);
__device__ int printf(const char *, ...);
__device__ void *memcpy(void *, const void *, size_t);
__device__ void *memset(void *, int, size_t);
__device__ void *malloc(size_t);
__device__ void free(void *);
__device__ float __expf(float);
__device__ float __logf(float);
__device__ float __log2f(float);
__device__ float __log10f(float);
__device__ float __powf(float, float);
__device__ float __sinf(float);
__device__ float __cosf(float);
__device__ float __tanf(float);
__device__ void __sincosf(float, float *, float *);
__device__ float __exp10f(float);
__device__ float __fdividef(float, float);
__device__ float __saturatef(float);
__device__ float __fsqrt_rn(float);
__device__ float __frcp_rn(float);
__device__ float __fmul_rn(float, float);
__device__ float __fadd_rn(float, float);
__device__ float __fmaf_rn(float, float, float);
__device__ int __float2int_rn(float);
__device__ int __float2int_rz(float);
__device__ float __int2float_rn(int);
__device__ int __popc(unsigned);
__device__ int __popcll(unsigned long long);
__device__ int __clz(int);
__device__ int __clzll(long long);
__device__ int __ffs(int);
__device__ int __ffsll(long long);
__device__ unsigned __brev(unsigned);
__device__ unsigned __byte_perm(unsigned, unsigned, unsigned);
__device__ unsigned __funnelshift_l(unsigned, unsigned, unsigned);
__device__ unsigned __funnelshift_r(unsigned, unsigned, unsigned);
__device__ unsigned __umulhi(unsigned, unsigned);
__device__ int __mulhi(int, int);
__device__ unsigned long long __umul64hi(unsigned long long, unsigned long long);
__device__ unsigned __usad(unsigned, unsigned, unsigned);
__host__ __device__ int min(int, int);
__host__ __device__ unsigned min(unsigned, unsigned);
__host__ __device__ long long min(long long, long long);
__host__ __device__ unsigned long long min(unsigned long long, unsigned long long);
__host__ __device__ float min(float, float);
__host__ __device__ double min(double, double);
__host__ __device__ int max(int, int);
__host__ __device__ unsigned max(unsigned, unsigned);
__host__ __device__ long long max(long long, long long);
__host__ __device__ unsigned long long max(unsigned long long, unsigned long long);
__host__ __device__ float max(float, float);
__host__ __device__ double max(double, double);
// math_functions.hpp's mixed-type overloads.
#define __CUDAFUSE_MM(A, B, R) __host__ __device__ R min(A, B); __host__ __device__ R max(A, B);
__CUDAFUSE_MM(int, unsigned, unsigned) __CUDAFUSE_MM(unsigned, int, unsigned)
__CUDAFUSE_MM(long, long, long) __CUDAFUSE_MM(unsigned long, unsigned long, unsigned long)
__CUDAFUSE_MM(long, unsigned long, unsigned long) __CUDAFUSE_MM(unsigned long, long, unsigned long)
__CUDAFUSE_MM(long long, unsigned long long, unsigned long long)
__CUDAFUSE_MM(unsigned long long, long long, unsigned long long)
__CUDAFUSE_MM(float, double, double) __CUDAFUSE_MM(double, float, double)
#undef __CUDAFUSE_MM
__device__ long long clock64(void);
__device__ int clock(void);

// ---- More device intrinsics (device_functions.h, sm_20/32/61/70/80_intrinsics.h) ----------
// Integer arithmetic.
__device__ int __mul24(int, int);
__device__ unsigned __umul24(unsigned, unsigned);
__device__ long long __mul64hi(long long, long long);
__device__ unsigned __sad(int, int, unsigned);
__device__ unsigned long long __brevll(unsigned long long);
__device__ int __hadd(int, int);
__device__ int __rhadd(int, int);
__device__ unsigned __uhadd(unsigned, unsigned);
__device__ unsigned __urhadd(unsigned, unsigned);
__device__ unsigned __funnelshift_lc(unsigned, unsigned, unsigned);
__device__ unsigned __funnelshift_rc(unsigned, unsigned, unsigned);
__device__ unsigned __fns(unsigned mask, unsigned base, int offset);
__device__ int __dp4a(int, int, int);
__device__ unsigned __dp4a(unsigned, unsigned, unsigned);
__device__ int __dp4a(char4, char4, int);
__device__ unsigned __dp4a(uchar4, uchar4, unsigned);
__device__ int __dp2a_lo(int, int, int);
__device__ unsigned __dp2a_lo(unsigned, unsigned, unsigned);
__device__ int __dp2a_lo(short2, char4, int);
__device__ unsigned __dp2a_lo(ushort2, uchar4, unsigned);
__device__ int __dp2a_hi(int, int, int);
__device__ unsigned __dp2a_hi(unsigned, unsigned, unsigned);
__device__ int __dp2a_hi(short2, char4, int);
__device__ unsigned __dp2a_hi(ushort2, uchar4, unsigned);
// SIMD video instructions on 2 x 16-bit and 4 x 8-bit lanes.
#define __CUDAFUSE_V1(n) __device__ unsigned n##2(unsigned); __device__ unsigned n##4(unsigned);
#define __CUDAFUSE_V2(n) __device__ unsigned n##2(unsigned, unsigned); \
  __device__ unsigned n##4(unsigned, unsigned);
__CUDAFUSE_V1(__vabs) __CUDAFUSE_V1(__vabsss) __CUDAFUSE_V1(__vneg) __CUDAFUSE_V1(__vnegss)
__CUDAFUSE_V2(__vabsdiffs) __CUDAFUSE_V2(__vabsdiffu) __CUDAFUSE_V2(__vadd)
__CUDAFUSE_V2(__vaddss) __CUDAFUSE_V2(__vaddus) __CUDAFUSE_V2(__vavgs) __CUDAFUSE_V2(__vavgu)
__CUDAFUSE_V2(__vhaddu) __CUDAFUSE_V2(__vcmpeq) __CUDAFUSE_V2(__vcmpges)
__CUDAFUSE_V2(__vcmpgeu) __CUDAFUSE_V2(__vcmpgts) __CUDAFUSE_V2(__vcmpgtu)
__CUDAFUSE_V2(__vcmples) __CUDAFUSE_V2(__vcmpleu) __CUDAFUSE_V2(__vcmplts)
__CUDAFUSE_V2(__vcmpltu) __CUDAFUSE_V2(__vcmpne) __CUDAFUSE_V2(__vmaxs) __CUDAFUSE_V2(__vmaxu)
__CUDAFUSE_V2(__vmins) __CUDAFUSE_V2(__vminu) __CUDAFUSE_V2(__vsads) __CUDAFUSE_V2(__vsadu)
__CUDAFUSE_V2(__vseteq) __CUDAFUSE_V2(__vsetges) __CUDAFUSE_V2(__vsetgeu)
__CUDAFUSE_V2(__vsetgts) __CUDAFUSE_V2(__vsetgtu) __CUDAFUSE_V2(__vsetles)
__CUDAFUSE_V2(__vsetleu) __CUDAFUSE_V2(__vsetlts) __CUDAFUSE_V2(__vsetltu)
__CUDAFUSE_V2(__vsetne) __CUDAFUSE_V2(__vsub) __CUDAFUSE_V2(__vsubss) __CUDAFUSE_V2(__vsubus)
#undef __CUDAFUSE_V1
#undef __CUDAFUSE_V2
// Arithmetic with an explicit rounding mode (_rn nearest even, _rz toward zero, _ru up, _rd down).
#define __CUDAFUSE_R(decl) decl(rn) decl(rz) decl(ru) decl(rd)
#define __CUDAFUSE_RF(m) \
  __device__ float __fadd_##m(float, float); __device__ float __fsub_##m(float, float); \
  __device__ float __fmul_##m(float, float); __device__ float __fdiv_##m(float, float); \
  __device__ float __fmaf_##m(float, float, float); __device__ float __frcp_##m(float); \
  __device__ float __fsqrt_##m(float); \
  __device__ double __dadd_##m(double, double); __device__ double __dsub_##m(double, double); \
  __device__ double __dmul_##m(double, double); __device__ double __ddiv_##m(double, double); \
  __device__ double __fma_##m(double, double, double); __device__ double __drcp_##m(double); \
  __device__ double __dsqrt_##m(double); \
  __device__ int __float2int_##m(float); __device__ unsigned __float2uint_##m(float); \
  __device__ long long __float2ll_##m(float); \
  __device__ unsigned long long __float2ull_##m(float); \
  __device__ int __double2int_##m(double); __device__ unsigned __double2uint_##m(double); \
  __device__ long long __double2ll_##m(double); \
  __device__ unsigned long long __double2ull_##m(double); \
  __device__ float __double2float_##m(double); __device__ float __int2float_##m(int); \
  __device__ float __uint2float_##m(unsigned); __device__ float __ll2float_##m(long long); \
  __device__ float __ull2float_##m(unsigned long long); \
  __device__ double __ll2double_##m(long long); \
  __device__ double __ull2double_##m(unsigned long long);
__CUDAFUSE_R(__CUDAFUSE_RF)
#undef __CUDAFUSE_RF
#undef __CUDAFUSE_R
__device__ float __frsqrt_rn(float);
__device__ float __fsub_rn(float, float);
__device__ double __int2double_rn(int);
__device__ double __uint2double_rn(unsigned);
__device__ int __double2hiint(double);
__device__ int __double2loint(double);
__device__ double __hiloint2double(int hi, int lo);
// More math (math_functions.h): device overloads next to the C library's host ones.
// Each is also brought into std (as clang's __clang_cuda_cmath.h does): <cmath>'s `using
// ::sqrt;` ran before these existed, so std::sqrt(double) in device code would otherwise see
// only the constexpr (host and device) float and long double overloads: "ambiguous".
#define __CUDAFUSE_F1(n) __device__ float n##f(float); __device__ double n(double); \
  namespace std { using ::n; using ::n##f; }
#define __CUDAFUSE_F2(n) __device__ float n##f(float, float); \
  __device__ double n(double, double); namespace std { using ::n; using ::n##f; }
__CUDAFUSE_F1(rcbrt) __CUDAFUSE_F1(sinpi) __CUDAFUSE_F1(cospi) __CUDAFUSE_F1(asinh)
__CUDAFUSE_F1(acosh) __CUDAFUSE_F1(atanh) __CUDAFUSE_F1(erfinv) __CUDAFUSE_F1(erfcinv)
__CUDAFUSE_F1(erfcx) __CUDAFUSE_F1(normcdfinv) __CUDAFUSE_F1(logb) __CUDAFUSE_F1(nearbyint)
__CUDAFUSE_F1(j0) __CUDAFUSE_F1(j1) __CUDAFUSE_F1(y0) __CUDAFUSE_F1(y1)
__CUDAFUSE_F2(nextafter) __CUDAFUSE_F2(fmod)
#undef __CUDAFUSE_F1
#undef __CUDAFUSE_F2
__device__ float ldexpf(float, int);
__device__ double ldexp(double, int);
__device__ float scalbnf(float, int);
__device__ double scalbn(double, int);
__device__ float frexpf(float, int *);
__device__ double frexp(double, int *);
__device__ float modff(float, float *);
__device__ double modf(double, double *);
__device__ float remquof(float, float, int *);
__device__ double remquo(double, double, int *);
__device__ int ilogbf(float);
__device__ int ilogb(double);
__device__ long lrintf(float);
__device__ long lroundf(float);
__device__ long long llrintf(float);
__device__ long long llroundf(float);
__device__ long long llrint(double);
__device__ long long llround(double);
__device__ void sincospif(float, float *, float *);
__device__ void sincospi(double, double *, double *);
__device__ float norm3df(float, float, float);
__device__ float rnorm3df(float, float, float);
__device__ float rhypotf(float, float);
__device__ float fdividef(float, float);
__device__ float saturate(float);
__device__ unsigned umin(unsigned, unsigned);
__device__ unsigned umax(unsigned, unsigned);
__device__ long long llmin(long long, long long);
__device__ long long llmax(long long, long long);
__device__ unsigned long long ullmin(unsigned long long, unsigned long long);
__device__ unsigned long long ullmax(unsigned long long, unsigned long long);
__device__ float __tanf(float);
// Cache-hinted loads and stores (sm_32_intrinsics.h).
template <class T> __device__ T __ldcg(const T *p);
template <class T> __device__ T __ldca(const T *p);
template <class T> __device__ T __ldcs(const T *p);
template <class T> __device__ T __ldlu(const T *p);
template <class T> __device__ T __ldcv(const T *p);
template <class T> __device__ void __stcg(T *p, T v);
template <class T> __device__ void __stcs(T *p, T v);
template <class T> __device__ void __stwb(T *p, T v);
template <class T> __device__ void __stwt(T *p, T v);
// Warp matching and reductions (sm_70/sm_80).
#define __CUDAFUSE_MATCH(T) __device__ unsigned __match_any_sync(unsigned m, T v); \
  __device__ unsigned __match_all_sync(unsigned m, T v, int *pred);
__CUDAFUSE_MATCH(unsigned) __CUDAFUSE_MATCH(int) __CUDAFUSE_MATCH(unsigned long)
__CUDAFUSE_MATCH(long) __CUDAFUSE_MATCH(unsigned long long) __CUDAFUSE_MATCH(long long)
__CUDAFUSE_MATCH(float) __CUDAFUSE_MATCH(double)
#undef __CUDAFUSE_MATCH
__device__ unsigned __reduce_add_sync(unsigned m, unsigned v);
__device__ int __reduce_add_sync(unsigned m, int v);
__device__ unsigned __reduce_min_sync(unsigned m, unsigned v);
__device__ int __reduce_min_sync(unsigned m, int v);
__device__ unsigned __reduce_max_sync(unsigned m, unsigned v);
__device__ int __reduce_max_sync(unsigned m, int v);
__device__ unsigned __reduce_and_sync(unsigned m, unsigned v);
__device__ unsigned __reduce_or_sync(unsigned m, unsigned v);
__device__ unsigned __reduce_xor_sync(unsigned m, unsigned v);
// Miscellaneous.
__device__ void __threadfence_system(void);
__device__ void __nanosleep(unsigned ns);
__device__ void __trap(void) __attribute__((noreturn));
__device__ void __brkpt(void);
__device__ void __prof_trigger(int);
__device__ unsigned __isGlobal(const void *);
__device__ unsigned __isShared(const void *);
__device__ unsigned __isConstant(const void *);
__device__ unsigned __isLocal(const void *);
__device__ unsigned __isGridConstant(const void *);
__device__ size_t __cvta_generic_to_global(const void *);
__device__ size_t __cvta_generic_to_shared(const void *);
__device__ void *__cvta_global_to_generic(size_t);
__device__ void *__cvta_shared_to_generic(size_t);
// operator new/delete in device code (crt/common_functions.h), placement forms included.
__device__ void *operator new(size_t, void *p) throw();
__device__ void *operator new[](size_t, void *p) throw();
__device__ void *operator new(size_t);
__device__ void *operator new[](size_t);
__device__ void operator delete(void *) throw();
__device__ void operator delete[](void *) throw();
__device__ void operator delete(void *, size_t) throw();
__device__ void operator delete[](void *, size_t) throw();
// assert() in device code (the host's comes from <assert.h>, which cuda_runtime.h includes).
__device__ void __assert_fail(const char *, const char *, unsigned int, const char *) throw();
