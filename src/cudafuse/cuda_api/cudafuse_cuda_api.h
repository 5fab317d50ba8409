// cudafuse_cuda_api.h: the CUDA runtime API (cuda_runtime_api.h, driver_types.h,
// texture_types.h, surface_types.h, channel_descriptor.h, cuda_profiler_api.h) as the one
// place cudafuse declares it. The front end's shim (frontend/include/cudafuse_cuda_shim.h)
// includes it, so libclang parses user code against these declarations; the emulator
// (emu/include/cudafuse_emu_runtime.h) includes it, then defines the functions.
//
// Adding a runtime type or function is one edit here (docs/architecture.md): the emulator
// defines the function, or the declaration says CUDAFUSE_NOT_EMULATED("why").
// tests/emu/test_cuda_api_decls.py checks that both sides accept every declaration here.
// Device-side builtins stay with each side: clang needs its own CUDA attributes and
// host/device overloads, the emulator its fibers.
//
// Before including: dim3 and size_t are defined, and __host__ is a macro.
#pragma once

// The emulator passes an allocation's caller (file, line) by default arguments, for its
// unwritten-memory report; the front end declares no such parameters.
#ifndef CUDAFUSE_CALL_SITE
#define CUDAFUSE_CALL_SITE
#endif
// A function the emulator does not implement: the front end reads the reason as an annotation,
// the emulator refuses a call with it (g++'s error attribute, at the call).
// A template whose argument may be a lambda (a type without linkage) needs a definition in the
// unit that calls it, or clang stops: "used but not defined in this translation unit, and
// cannot be defined in any other". The front end gets an empty one; the emulator defines it.
#ifndef CUDAFUSE_FRONT_END_BODY
#define CUDAFUSE_FRONT_END_BODY { return cudaSuccess; }
#endif
#ifndef CUDAFUSE_NOT_EMULATED
#define CUDAFUSE_NOT_EMULATED(why) __attribute__((annotate("cudafuse-not-emulated: " why)))
#endif

// The guard and version macros of the real headers, so that user headers (cuda-samples'
// helper_cuda.h: `#ifdef __CUDA_RUNTIME_H__`) take their CUDA branches.
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
#define __DEVICE_FUNCTIONS_H__
#define __device_builtin__
#define __cudart_builtin__
#define CUDARTAPI
#define CUDART_CB
#define __CUDA_ALIGN__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __attribute__((aligned(n)))
#define __TEXTURE_TYPES_H__
#define __SURFACE_TYPES_H__
#define __CHANNEL_DESCRIPTOR_H__
#define __TEXTURE_INDIRECT_FUNCTIONS_H__
#define __SURFACE_INDIRECT_FUNCTIONS_H__
#define __CUDA_DEVICE_RUNTIME_API_H__
#define __CUDA_PROFILER_API_H__
// ---- errors (driver_types.h's values) ---------------------------------------------------
#define __CUDAFUSE_ERRORS(X)                                                                 \
  X(Success, 0, "no error")                                                                  \
  X(ErrorInvalidValue, 1, "an argument is out of range")                                     \
  X(ErrorMemoryAllocation, 2, "cannot allocate the memory asked for")                       \
  X(ErrorInitializationError, 3, "the runtime could not be initialised")                    \
  X(ErrorCudartUnloading, 4, "the runtime is shutting down")                                 \
  X(ErrorProfilerDisabled, 5, "profiler disabled")                                           \
  X(ErrorProfilerNotInitialized, 6, "profiler not initialised")                              \
  X(ErrorProfilerAlreadyStarted, 7, "profiler already started")                              \
  X(ErrorProfilerAlreadyStopped, 8, "profiler already stopped")                              \
  X(ErrorInvalidConfiguration, 9, "the launch configuration is not valid for this device")  \
  X(ErrorInvalidPitchValue, 12, "a pitch is out of range")                                   \
  X(ErrorInvalidSymbol, 13, "not a device symbol")                                           \
  X(ErrorInvalidHostPointer, 16, "not a host pointer")                                       \
  X(ErrorInvalidDevicePointer, 17, "not a device pointer")                                   \
  X(ErrorInvalidTexture, 18, "invalid texture")                                              \
  X(ErrorInvalidTextureBinding, 19, "invalid texture binding")                               \
  X(ErrorInvalidChannelDescriptor, 20, "invalid channel descriptor")                         \
  X(ErrorInvalidMemcpyDirection, 21, "the copy direction is not valid")                      \
  X(ErrorAddressOfConstant, 22, "address of a constant taken")                               \
  X(ErrorTextureFetchFailed, 23, "texture fetch failed")                                     \
  X(ErrorTextureNotBound, 24, "texture not bound")                                           \
  X(ErrorSynchronizationError, 25, "synchronisation failed")                                 \
  X(ErrorInvalidFilterSetting, 26, "invalid filter setting")                                 \
  X(ErrorInvalidNormSetting, 27, "invalid normalisation setting")                            \
  X(ErrorMixedDeviceExecution, 28, "mixed device execution")                                 \
  X(ErrorNotYetImplemented, 31, "not implemented")                                           \
  X(ErrorMemoryValueTooLarge, 32, "memory value too large")                                  \
  X(ErrorStubLibrary, 34, "a stub library was loaded")                                       \
  X(ErrorInsufficientDriver, 35, "the driver is older than the runtime")                    \
  X(ErrorCallRequiresNewerDriver, 36, "the call needs a newer driver")                      \
  X(ErrorInvalidSurface, 37, "invalid surface")                                              \
  X(ErrorDuplicateVariableName, 43, "duplicate variable name")                               \
  X(ErrorDuplicateTextureName, 44, "duplicate texture name")                                 \
  X(ErrorDuplicateSurfaceName, 45, "duplicate surface name")                                 \
  X(ErrorDevicesUnavailable, 46, "all devices are busy or unavailable")                     \
  X(ErrorIncompatibleDriverContext, 49, "incompatible driver context")                       \
  X(ErrorMissingConfiguration, 52, "launch without a configuration")                         \
  X(ErrorPriorLaunchFailure, 53, "an earlier launch failed")                                 \
  X(ErrorLaunchMaxDepthExceeded, 65, "launch nesting too deep")                              \
  X(ErrorLaunchFileScopedTex, 66, "file-scoped texture in a device launch")                  \
  X(ErrorLaunchFileScopedSurf, 67, "file-scoped surface in a device launch")                 \
  X(ErrorSyncDepthExceeded, 68, "device synchronisation nesting too deep")                   \
  X(ErrorLaunchPendingCountExceeded, 69, "too many pending device launches")                 \
  X(ErrorInvalidDeviceFunction, 98, "not a kernel of this program")                          \
  X(ErrorNoDevice, 100, "no CUDA device")                                                    \
  X(ErrorInvalidDevice, 101, "no such device")                                               \
  X(ErrorDeviceNotLicensed, 102, "device not licensed")                                      \
  X(ErrorSoftwareValidityNotEstablished, 103, "software validity not established")          \
  X(ErrorStartupFailure, 127, "runtime start-up failed")                                     \
  X(ErrorInvalidKernelImage, 200, "invalid kernel image")                                    \
  X(ErrorDeviceUninitialized, 201, "no context for the device")                             \
  X(ErrorMapBufferObjectFailed, 205, "buffer object mapping failed")                         \
  X(ErrorUnmapBufferObjectFailed, 206, "buffer object unmapping failed")                     \
  X(ErrorArrayIsMapped, 207, "array is mapped")                                              \
  X(ErrorAlreadyMapped, 208, "resource already mapped")                                      \
  X(ErrorNoKernelImageForDevice, 209, "no kernel image for this device")                     \
  X(ErrorAlreadyAcquired, 210, "resource already acquired")                                  \
  X(ErrorNotMapped, 211, "resource not mapped")                                              \
  X(ErrorNotMappedAsArray, 212, "resource not mapped as an array")                           \
  X(ErrorNotMappedAsPointer, 213, "resource not mapped as a pointer")                        \
  X(ErrorECCUncorrectable, 214, "uncorrectable ECC error")                                   \
  X(ErrorUnsupportedLimit, 215, "limit not supported")                                       \
  X(ErrorDeviceAlreadyInUse, 216, "device already in use")                                   \
  X(ErrorPeerAccessUnsupported, 217, "peer access not supported")                            \
  X(ErrorInvalidPtx, 218, "invalid PTX")                                                     \
  X(ErrorInvalidGraphicsContext, 219, "invalid graphics context")                            \
  X(ErrorNvlinkUncorrectable, 220, "uncorrectable NVLink error")                             \
  X(ErrorJitCompilerNotFound, 221, "no PTX JIT compiler")                                    \
  X(ErrorUnsupportedPtxVersion, 222, "PTX version not supported")                            \
  X(ErrorJitCompilationDisabled, 223, "JIT compilation disabled")                            \
  X(ErrorUnsupportedExecAffinity, 224, "execution affinity not supported")                   \
  X(ErrorUnsupportedDevSideSync, 225, "device-side synchronisation not supported")           \
  X(ErrorContained, 226, "contained error")                                                  \
  X(ErrorInvalidSource, 300, "invalid source")                                               \
  X(ErrorFileNotFound, 301, "file not found")                                                \
  X(ErrorSharedObjectSymbolNotFound, 302, "shared object symbol not found")                  \
  X(ErrorSharedObjectInitFailed, 303, "shared object initialisation failed")                 \
  X(ErrorOperatingSystem, 304, "an operating system call failed")                            \
  X(ErrorInvalidResourceHandle, 400, "invalid handle")                                       \
  X(ErrorIllegalState, 401, "operation not allowed in this state")                           \
  X(ErrorLossyQuery, 402, "lossy query")                                                     \
  X(ErrorSymbolNotFound, 500, "symbol not found")                                            \
  X(ErrorNotReady, 600, "work not completed yet")                                            \
  X(ErrorIllegalAddress, 700, "illegal memory access")                                       \
  X(ErrorLaunchOutOfResources, 701, "too many resources asked for by the launch")            \
  X(ErrorLaunchTimeout, 702, "the launch timed out")                                         \
  X(ErrorLaunchIncompatibleTexturing, 703, "incompatible texturing")                         \
  X(ErrorPeerAccessAlreadyEnabled, 704, "peer access already enabled")                       \
  X(ErrorPeerAccessNotEnabled, 705, "peer access not enabled")                               \
  X(ErrorSetOnActiveProcess, 708, "the device is already in use")                            \
  X(ErrorContextIsDestroyed, 709, "context destroyed")                                       \
  X(ErrorAssert, 710, "device-side assertion failed")                                        \
  X(ErrorTooManyPeers, 711, "too many peers")                                                \
  X(ErrorHostMemoryAlreadyRegistered, 712, "host memory already registered")                 \
  X(ErrorHostMemoryNotRegistered, 713, "host memory not registered")                         \
  X(ErrorHardwareStackError, 714, "hardware stack error")                                    \
  X(ErrorIllegalInstruction, 715, "illegal instruction")                                     \
  X(ErrorMisalignedAddress, 716, "misaligned address")                                       \
  X(ErrorInvalidAddressSpace, 717, "invalid address space")                                  \
  X(ErrorInvalidPc, 718, "invalid program counter")                                          \
  X(ErrorLaunchFailure, 719, "the launch failed")                                            \
  X(ErrorCooperativeLaunchTooLarge, 720, "cooperative launch too large")                     \
  X(ErrorTensorMemoryLeak, 721, "tensor memory leak")                                        \
  X(ErrorNotPermitted, 800, "operation not permitted")                                       \
  X(ErrorNotSupported, 801, "operation not supported (by the cudafuse emulator)")            \
  X(ErrorSystemNotReady, 802, "system not ready")                                            \
  X(ErrorSystemDriverMismatch, 803, "driver mismatch")                                       \
  X(ErrorCompatNotSupportedOnDevice, 804, "compatibility mode not supported")                \
  X(ErrorMpsConnectionFailed, 805, "MPS connection failed")                                  \
  X(ErrorMpsRpcFailure, 806, "MPS RPC failure")                                              \
  X(ErrorMpsServerNotReady, 807, "MPS server not ready")                                     \
  X(ErrorMpsMaxClientsReached, 808, "MPS client limit reached")                              \
  X(ErrorMpsMaxConnectionsReached, 809, "MPS connection limit reached")                      \
  X(ErrorMpsClientTerminated, 810, "MPS client terminated")                                  \
  X(ErrorCdpNotSupported, 811, "dynamic parallelism not supported")                          \
  X(ErrorCdpVersionMismatch, 812, "dynamic parallelism version mismatch")                    \
  X(ErrorStreamCaptureUnsupported, 900, "not allowed while capturing")                       \
  X(ErrorStreamCaptureInvalidated, 901, "capture invalidated")                               \
  X(ErrorStreamCaptureMerge, 902, "capture merge")                                           \
  X(ErrorStreamCaptureUnmatched, 903, "capture unmatched")                                   \
  X(ErrorStreamCaptureUnjoined, 904, "capture unjoined")                                     \
  X(ErrorStreamCaptureIsolation, 905, "capture isolation")                                   \
  X(ErrorStreamCaptureImplicit, 906, "implicit capture")                                     \
  X(ErrorCapturedEvent, 907, "captured event")                                               \
  X(ErrorStreamCaptureWrongThread, 908, "capture on the wrong thread")                       \
  X(ErrorTimeout, 909, "timed out")                                                          \
  X(ErrorGraphExecUpdateFailure, 910, "graph update failed")                                 \
  X(ErrorExternalDevice, 911, "external device error")                                       \
  X(ErrorInvalidClusterSize, 912, "invalid cluster size")                                    \
  X(ErrorFunctionNotLoaded, 913, "function not loaded")                                      \
  X(ErrorInvalidResourceType, 914, "invalid resource type")                                  \
  X(ErrorInvalidResourceConfiguration, 915, "invalid resource configuration")                \
  X(ErrorUnknown, 999, "unknown error")

#define CF_ERR_ENUM(name, value, text) cuda##name = value,
enum cudaError { __CUDAFUSE_ERRORS(CF_ERR_ENUM) cudaErrorApiFailureBase = 10000 };
#undef CF_ERR_ENUM
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4
};
enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
  cudaFuncAttributeClusterDimMustBeSet = 10, cudaFuncAttributeRequiredClusterWidth = 11,
  cudaFuncAttributeRequiredClusterHeight = 12, cudaFuncAttributeRequiredClusterDepth = 13,
  cudaFuncAttributeNonPortableClusterSizeAllowed = 14,
  cudaFuncAttributeClusterSchedulingPolicyPreference = 15, cudaFuncAttributeMax
};
enum cudaFuncCache {
  cudaFuncCachePreferNone = 0, cudaFuncCachePreferShared = 1, cudaFuncCachePreferL1 = 2,
  cudaFuncCachePreferEqual = 3
};
enum cudaSharedMemConfig {
  cudaSharedMemBankSizeDefault = 0, cudaSharedMemBankSizeFourByte = 1,
  cudaSharedMemBankSizeEightByte = 2
};
enum cudaSharedCarveout {
  cudaSharedmemCarveoutDefault = -1, cudaSharedmemCarveoutMaxShared = 100,
  cudaSharedmemCarveoutMaxL1 = 0
};
enum cudaLimit {
  cudaLimitStackSize = 0, cudaLimitPrintfFifoSize = 1, cudaLimitMallocHeapSize = 2,
  cudaLimitDevRuntimeSyncDepth = 3, cudaLimitDevRuntimePendingLaunchCount = 4,
  cudaLimitMaxL2FetchGranularity = 5, cudaLimitPersistingL2CacheSize = 6
};
enum cudaComputeMode {
  cudaComputeModeDefault = 0, cudaComputeModeExclusive = 1, cudaComputeModeProhibited = 2,
  cudaComputeModeExclusiveProcess = 3
};
enum cudaMemoryType {
  cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1, cudaMemoryTypeDevice = 2,
  cudaMemoryTypeManaged = 3
};
enum cudaDeviceP2PAttr {
  cudaDevP2PAttrPerformanceRank = 1, cudaDevP2PAttrAccessSupported = 2,
  cudaDevP2PAttrNativeAtomicSupported = 3, cudaDevP2PAttrCudaArrayAccessSupported = 4,
  cudaDevP2PAttrOnlyPartialNativeAtomicSupported = 5
};
enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMaxBlockDimX = 2, cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4, cudaDevAttrMaxGridDimX = 5, cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7, cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrTotalConstantMemory = 9, cudaDevAttrWarpSize = 10, cudaDevAttrMaxPitch = 11,
  cudaDevAttrMaxRegistersPerBlock = 12, cudaDevAttrClockRate = 13,
  cudaDevAttrTextureAlignment = 14, cudaDevAttrGpuOverlap = 15,
  cudaDevAttrMultiProcessorCount = 16, cudaDevAttrKernelExecTimeout = 17,
  cudaDevAttrIntegrated = 18, cudaDevAttrCanMapHostMemory = 19, cudaDevAttrComputeMode = 20,
  cudaDevAttrMaxTexture1DWidth = 21, cudaDevAttrMaxTexture2DWidth = 22,
  cudaDevAttrMaxTexture2DHeight = 23, cudaDevAttrMaxTexture3DWidth = 24,
  cudaDevAttrMaxTexture3DHeight = 25, cudaDevAttrMaxTexture3DDepth = 26,
  cudaDevAttrMaxTexture2DLayeredWidth = 27, cudaDevAttrMaxTexture2DLayeredHeight = 28,
  cudaDevAttrMaxTexture2DLayeredLayers = 29, cudaDevAttrSurfaceAlignment = 30,
  cudaDevAttrConcurrentKernels = 31, cudaDevAttrEccEnabled = 32, cudaDevAttrPciBusId = 33,
  cudaDevAttrPciDeviceId = 34, cudaDevAttrTccDriver = 35, cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37, cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39, cudaDevAttrAsyncEngineCount = 40,
  cudaDevAttrUnifiedAddressing = 41, cudaDevAttrMaxTexture1DLayeredWidth = 42,
  cudaDevAttrMaxTexture1DLayeredLayers = 43, cudaDevAttrMaxTexture2DGatherWidth = 45,
  cudaDevAttrMaxTexture2DGatherHeight = 46, cudaDevAttrMaxTexture3DWidthAlt = 47,
  cudaDevAttrMaxTexture3DHeightAlt = 48, cudaDevAttrMaxTexture3DDepthAlt = 49,
  cudaDevAttrPciDomainId = 50, cudaDevAttrTexturePitchAlignment = 51,
  cudaDevAttrMaxTextureCubemapWidth = 52, cudaDevAttrMaxTextureCubemapLayeredWidth = 53,
  cudaDevAttrMaxTextureCubemapLayeredLayers = 54, cudaDevAttrMaxSurface1DWidth = 55,
  cudaDevAttrMaxSurface2DWidth = 56, cudaDevAttrMaxSurface2DHeight = 57,
  cudaDevAttrMaxSurface3DWidth = 58, cudaDevAttrMaxSurface3DHeight = 59,
  cudaDevAttrMaxSurface3DDepth = 60, cudaDevAttrMaxSurface1DLayeredWidth = 61,
  cudaDevAttrMaxSurface1DLayeredLayers = 62, cudaDevAttrMaxSurface2DLayeredWidth = 63,
  cudaDevAttrMaxSurface2DLayeredHeight = 64, cudaDevAttrMaxSurface2DLayeredLayers = 65,
  cudaDevAttrMaxSurfaceCubemapWidth = 66, cudaDevAttrMaxSurfaceCubemapLayeredWidth = 67,
  cudaDevAttrMaxSurfaceCubemapLayeredLayers = 68, cudaDevAttrMaxTexture1DLinearWidth = 69,
  cudaDevAttrMaxTexture2DLinearWidth = 70, cudaDevAttrMaxTexture2DLinearHeight = 71,
  cudaDevAttrMaxTexture2DLinearPitch = 72, cudaDevAttrMaxTexture2DMipmappedWidth = 73,
  cudaDevAttrMaxTexture2DMipmappedHeight = 74, cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76, cudaDevAttrMaxTexture1DMipmappedWidth = 77,
  cudaDevAttrStreamPrioritiesSupported = 78, cudaDevAttrGlobalL1CacheSupported = 79,
  cudaDevAttrLocalL1CacheSupported = 80, cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxRegistersPerMultiprocessor = 82, cudaDevAttrManagedMemory = 83,
  cudaDevAttrIsMultiGpuBoard = 84, cudaDevAttrMultiGpuBoardGroupID = 85,
  cudaDevAttrHostNativeAtomicSupported = 86, cudaDevAttrSingleToDoublePrecisionPerfRatio = 87,
  cudaDevAttrPageableMemoryAccess = 88, cudaDevAttrConcurrentManagedAccess = 89,
  cudaDevAttrComputePreemptionSupported = 90, cudaDevAttrCanUseHostPointerForRegisteredMem = 91,
  cudaDevAttrReserved92 = 92, cudaDevAttrReserved93 = 93, cudaDevAttrReserved94 = 94,
  cudaDevAttrCooperativeLaunch = 95, cudaDevAttrReserved96 = 96,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97, cudaDevAttrCanFlushRemoteWrites = 98,
  cudaDevAttrHostRegisterSupported = 99, cudaDevAttrPageableMemoryAccessUsesHostPageTables = 100,
  cudaDevAttrDirectManagedMemAccessFromHost = 101, cudaDevAttrMaxBlocksPerMultiprocessor = 106,
  cudaDevAttrMaxPersistingL2CacheSize = 108, cudaDevAttrMaxAccessPolicyWindowSize = 109,
  cudaDevAttrReservedSharedMemoryPerBlock = 111, cudaDevAttrSparseCudaArraySupported = 112,
  cudaDevAttrHostRegisterReadOnlySupported = 113,
  cudaDevAttrTimelineSemaphoreInteropSupported = 114, cudaDevAttrMemoryPoolsSupported = 115,
  cudaDevAttrGPUDirectRDMASupported = 116, cudaDevAttrGPUDirectRDMAFlushWritesOptions = 117,
  cudaDevAttrGPUDirectRDMAWritesOrdering = 118, cudaDevAttrMemoryPoolSupportedHandleTypes = 119,
  cudaDevAttrClusterLaunch = 120, cudaDevAttrDeferredMappingCudaArraySupported = 121,
  cudaDevAttrReserved122 = 122, cudaDevAttrReserved123 = 123, cudaDevAttrReserved124 = 124,
  cudaDevAttrIpcEventSupport = 125, cudaDevAttrMemSyncDomainCount = 126,
  cudaDevAttrReserved127 = 127, cudaDevAttrReserved128 = 128, cudaDevAttrReserved129 = 129,
  cudaDevAttrNumaConfig = 130, cudaDevAttrNumaId = 131, cudaDevAttrReserved132 = 132,
  cudaDevAttrMpsEnabled = 133, cudaDevAttrHostNumaId = 134, cudaDevAttrD3D12CigSupported = 135,
  cudaDevAttrVulkanCigSupported = 138, cudaDevAttrGpuPciDeviceId = 139,
  cudaDevAttrGpuPciSubsystemId = 140, cudaDevAttrReserved141 = 141,
  cudaDevAttrHostNumaMemoryPoolsSupported = 142, cudaDevAttrHostNumaMultinodeIpcSupported = 143,
  cudaDevAttrHostMemoryPoolsSupported = 144, cudaDevAttrReserved145 = 145,
  cudaDevAttrOnlyPartialHostNativeAtomicSupported = 147, cudaDevAttrMax
};

struct CUstream_st;
struct CUevent_st;
typedef CUstream_st *cudaStream_t;
typedef CUevent_st *cudaEvent_t;
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
// The device runtime's streams (dynamic parallelism, cudafuse_emu_cdp.h).
#define cudaStreamTailLaunch ((cudaStream_t)0x3)
#define cudaStreamFireAndForget ((cudaStream_t)0x4)

// Flags (driver_types.h defines these as macros too).
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaEventInterprocess 0x04
#define cudaEventRecordDefault 0x00
#define cudaEventRecordExternal 0x01
#define cudaEventWaitDefault 0x00
#define cudaEventWaitExternal 0x01
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceBlockingSync 0x04
#define cudaDeviceScheduleMask 0x07
#define cudaDeviceMapHost 0x08
#define cudaDeviceLmemResizeToMax 0x10
#define cudaDeviceSyncMemops 0x80
#define cudaDeviceMask 0xff
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaHostRegisterIoMemory 0x04
#define cudaHostRegisterReadOnly 0x08
#define cudaPeerAccessDefault 0x00
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaMemAttachSingle 0x04
#define cudaOccupancyDefault 0x00
#define cudaOccupancyDisableCachingOverride 0x01
#define cudaStreamAttachMemAsyncDefault 0x00
#define cudaCpuDeviceId ((int)-1)
#define cudaInvalidDeviceId ((int)-2)
#define cudaInitDeviceFlagsAreValid 0x01
#define cudaIpcMemLazyEnablePeerAccess 0x01

#define cudaArrayDefault 0x00
#define cudaArrayLayered 0x01
#define cudaArraySurfaceLoadStore 0x02
#define cudaArrayCubemap 0x04
#define cudaArrayTextureGather 0x08
#define cudaTextureType1D 0x01
#define cudaTextureType2D 0x02
#define cudaTextureType3D 0x03
#define cudaTextureTypeCubemap 0x0C
#define cudaTextureType1DLayered 0xF1
#define cudaTextureType2DLayered 0xF2
#define cudaTextureTypeCubemapLayered 0xFC
#define cudaSurfaceType1D 0x01
#define cudaSurfaceType2D 0x02
#define cudaSurfaceType3D 0x03
#define cudaSurfaceType1DLayered 0xF1
#define cudaSurfaceType2DLayered 0xF2

struct cudaUUID_t { char bytes[16]; };
typedef struct cudaUUID_t cudaUUID_t;

// CUDA 13's fields in CUDA 13's order, then the fields CUDA 13 removed (older code reads them;
// the front end warns at such a use).
#define __CUDAFUSE_GONE(what) \
  __attribute__((deprecated(what " was removed in CUDA 13: use cudaDeviceGetAttribute")))
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

struct cudaFuncAttributes {
  size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
  int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, cacheModeCA;
  int maxDynamicSharedSizeBytes, preferredShmemCarveout, clusterDimMustBeSet;
  int requiredClusterWidth, requiredClusterHeight, requiredClusterDepth;
  int clusterSchedulingPolicyPreference, nonPortableClusterSizeAllowed, reserved[16];
};
struct cudaPointerAttributes {
  cudaMemoryType type;
  int device;
  void *devicePointer, *hostPointer;
  long reserved[8];
};

typedef void (*cudaHostFn_t)(void *userData);
typedef void (*cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void *userData);

// 3D copies of linear (pitched) memory. CUDA arrays belong with textures: declared only.
struct cudaExtent { size_t width, height, depth; };
struct cudaPos { size_t x, y, z; };
struct cudaPitchedPtr { void *ptr; size_t pitch, xsize, ysize; };
struct cudaArray;
typedef struct cudaArray *cudaArray_t;
typedef const struct cudaArray *cudaArray_const_t;
struct cudaMemcpy3DParms {
  cudaArray_t srcArray;
  cudaPos srcPos;
  cudaPitchedPtr srcPtr;
  cudaArray_t dstArray;
  cudaPos dstPos;
  cudaPitchedPtr dstPtr;
  cudaExtent extent;
  cudaMemcpyKind kind;
};
inline cudaExtent make_cudaExtent(size_t w, size_t h, size_t d) { return cudaExtent{w, h, d}; }
inline cudaPos make_cudaPos(size_t x, size_t y, size_t z) { return cudaPos{x, y, z}; }
inline cudaPitchedPtr make_cudaPitchedPtr(void *p, size_t pitch, size_t xs, size_t ys) {
  return cudaPitchedPtr{p, pitch, xs, ys};
}

// Managed memory hints, memory pools, access policies, IPC.
enum cudaMemoryAdvise {
  cudaMemAdviseSetReadMostly = 1, cudaMemAdviseUnsetReadMostly = 2,
  cudaMemAdviseSetPreferredLocation = 3, cudaMemAdviseUnsetPreferredLocation = 4,
  cudaMemAdviseSetAccessedBy = 5, cudaMemAdviseUnsetAccessedBy = 6
};
enum cudaMemLocationType {
  cudaMemLocationTypeInvalid = 0, cudaMemLocationTypeNone = 0, cudaMemLocationTypeDevice = 1,
  cudaMemLocationTypeHost = 2, cudaMemLocationTypeHostNuma = 3,
  cudaMemLocationTypeHostNumaCurrent = 4
};
struct cudaMemLocation { cudaMemLocationType type; int id; };
enum cudaMemAccessFlags {
  cudaMemAccessFlagsProtNone = 0, cudaMemAccessFlagsProtRead = 1,
  cudaMemAccessFlagsProtReadWrite = 3
};
struct cudaMemAccessDesc { cudaMemLocation location; cudaMemAccessFlags flags; };
enum cudaMemAllocationType {
  cudaMemAllocationTypeInvalid = 0, cudaMemAllocationTypePinned = 1,
  cudaMemAllocationTypeManaged = 2, cudaMemAllocationTypeMax = 0x7FFFFFFF
};
enum cudaMemAllocationHandleType {
  cudaMemHandleTypeNone = 0, cudaMemHandleTypePosixFileDescriptor = 1,
  cudaMemHandleTypeWin32 = 2, cudaMemHandleTypeWin32Kmt = 4, cudaMemHandleTypeFabric = 8
};
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
enum cudaMemPoolAttr {
  cudaMemPoolReuseFollowEventDependencies = 1, cudaMemPoolReuseAllowOpportunistic = 2,
  cudaMemPoolReuseAllowInternalDependencies = 3, cudaMemPoolAttrReleaseThreshold = 4,
  cudaMemPoolAttrReservedMemCurrent = 5, cudaMemPoolAttrReservedMemHigh = 6,
  cudaMemPoolAttrUsedMemCurrent = 7, cudaMemPoolAttrUsedMemHigh = 8
};
struct CUmemPoolHandle_st;
typedef struct CUmemPoolHandle_st *cudaMemPool_t;
enum cudaAccessProperty {
  cudaAccessPropertyNormal = 0, cudaAccessPropertyStreaming = 1,
  cudaAccessPropertyPersisting = 2
};
struct cudaAccessPolicyWindow {
  void *base_ptr;
  size_t num_bytes;
  float hitRatio;
  cudaAccessProperty hitProp, missProp;
};
enum cudaSynchronizationPolicy {
  cudaSyncPolicyAuto = 1, cudaSyncPolicySpin = 2, cudaSyncPolicyYield = 3,
  cudaSyncPolicyBlockingSync = 4
};
enum cudaLaunchAttributeID {
  cudaLaunchAttributeIgnore = 0, cudaLaunchAttributeAccessPolicyWindow = 1,
  cudaLaunchAttributeCooperative = 2, cudaLaunchAttributeSynchronizationPolicy = 3,
  cudaLaunchAttributeClusterDimension = 4,
  cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
  cudaLaunchAttributeProgrammaticStreamSerialization = 6,
  cudaLaunchAttributeProgrammaticEvent = 7, cudaLaunchAttributePriority = 8,
  cudaLaunchAttributeMemSyncDomainMap = 9, cudaLaunchAttributeMemSyncDomain = 10
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
struct cudaLaunchConfig_t {
  dim3 gridDim, blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute *attrs;
  unsigned int numAttrs;
};
struct cudaIpcMemHandle_t { char reserved[64]; };
struct cudaIpcEventHandle_t { char reserved[64]; };
// ---- channel formats (channel_descriptor.h) ---------------------------------------------
enum cudaChannelFormatKind {
  cudaChannelFormatKindSigned = 0,
  cudaChannelFormatKindUnsigned = 1,
  cudaChannelFormatKindFloat = 2,
  cudaChannelFormatKindNone = 3,
  cudaChannelFormatKindNV12 = 4
};
struct cudaChannelFormatDesc {
  int x, y, z, w;
  cudaChannelFormatKind f;
};
struct cudaMipmappedArray;
typedef struct cudaMipmappedArray *cudaMipmappedArray_t;
typedef const struct cudaMipmappedArray *cudaMipmappedArray_const_t;

// ---- texture and surface objects (texture_types.h, surface_types.h) ---------------------
enum cudaTextureAddressMode {
  cudaAddressModeWrap = 0,
  cudaAddressModeClamp = 1,
  cudaAddressModeMirror = 2,
  cudaAddressModeBorder = 3
};
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
enum cudaSurfaceBoundaryMode {
  cudaBoundaryModeZero = 0,
  cudaBoundaryModeClamp = 1,
  cudaBoundaryModeTrap = 2
};
enum cudaSurfaceFormatMode { cudaFormatModeForced = 0, cudaFormatModeAuto = 1 };
enum cudaResourceType {
  cudaResourceTypeArray = 0,
  cudaResourceTypeMipmappedArray = 1,
  cudaResourceTypeLinear = 2,
  cudaResourceTypePitch2D = 3
};
enum cudaResourceViewFormat { cudaResViewFormatNone = 0 };
struct cudaResourceDesc {
  cudaResourceType resType;
  union {
    struct { cudaArray_t array; } array;
    struct { cudaMipmappedArray_t mipmap; } mipmap;
    struct { void *devPtr; cudaChannelFormatDesc desc; size_t sizeInBytes; } linear;
    struct {
      void *devPtr;
      cudaChannelFormatDesc desc;
      size_t width, height, pitchInBytes;
    } pitch2D;
    struct { int reserved[32]; } reserved;
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
  unsigned int reserved[16];
};
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;

// Defined by cudafuse_emu.h after the runtime API (a surface trap names the thread).
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
  cudaGraphNodeTypeConditional = 13, cudaGraphNodeTypeCount
};
enum cudaGraphConditionalNodeType { cudaGraphCondTypeIf = 0, cudaGraphCondTypeWhile = 1,
                                    cudaGraphCondTypeSwitch = 2 };
typedef cudaGraphConditionalNodeType cudaGraphCondType;
enum cudaGraphExecUpdateResult {
  cudaGraphExecUpdateSuccess = 0, cudaGraphExecUpdateError = 1,
  cudaGraphExecUpdateErrorTopologyChanged = 2, cudaGraphExecUpdateErrorNodeTypeChanged = 3,
  cudaGraphExecUpdateErrorFunctionChanged = 4, cudaGraphExecUpdateErrorParametersChanged = 5,
  cudaGraphExecUpdateErrorNotSupported = 6,
  cudaGraphExecUpdateErrorUnsupportedFunctionChange = 7,
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
enum cudaGraphInstantiateFlags { cudaGraphInstantiateFlagAutoFreeOnLaunch = 1,
                                 cudaGraphInstantiateFlagUpload = 2,
                                 cudaGraphInstantiateFlagDeviceLaunch = 4,
                                 cudaGraphInstantiateFlagUseNodePriority = 8 };
#define cudaGraphDebugDotFlagsVerbose 1
enum cudaStreamUpdateCaptureDependenciesFlags { cudaStreamAddCaptureDependencies = 0x0,
                                                cudaStreamSetCaptureDependencies = 0x1 };
struct cudaGraphEdgeData { unsigned char from_port, to_port, type, reserved[5]; };
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
  cudaGraphConditionalNodeType type;
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

// Graphics interop handles (the calls live in cuda_gl_interop.h & co.).
typedef struct cudaGraphicsResource *cudaGraphicsResource_t;
enum cudaGraphicsRegisterFlags { cudaGraphicsRegisterFlagsNone = 0,
                                 cudaGraphicsRegisterFlagsReadOnly = 1,
                                 cudaGraphicsRegisterFlagsWriteDiscard = 2,
                                 cudaGraphicsRegisterFlagsSurfaceLoadStore = 4,
                                 cudaGraphicsRegisterFlagsTextureGather = 8 };
enum cudaGraphicsMapFlags { cudaGraphicsMapFlagsNone = 0, cudaGraphicsMapFlagsReadOnly = 1,
                            cudaGraphicsMapFlagsWriteDiscard = 2 };

// ---- functions ------------------------------------------------------------------------
cudaError_t cudaMalloc(void **p, size_t n CUDAFUSE_CALL_SITE);
template <class T> cudaError_t cudaMalloc(T **p, size_t n CUDAFUSE_CALL_SITE);
cudaError_t cudaMallocManaged(void **p, size_t n, unsigned flags = cudaMemAttachGlobal
                              CUDAFUSE_CALL_SITE);
template <class T>
cudaError_t cudaMallocManaged(T **p, size_t n, unsigned flags = cudaMemAttachGlobal
                              CUDAFUSE_CALL_SITE);
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
// CUDA 13's fields, plus the ones it removed (which older code still reads), marked deprecated.
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
template <class S, class T>
cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(int *grid, int *block, T f,
                                                           S smemOfBlock, int limit = 0)
    CUDAFUSE_FRONT_END_BODY
template <class S, class T>
cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(int *grid, int *block, T f,
                                                                    S smemOfBlock,
                                                                    int limit = 0,
                                                                    unsigned flags = 0)
    CUDAFUSE_FRONT_END_BODY
template <class T>
cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(int *grid, int *block, T f,
                                                        size_t smem = 0, int limit = 0,
                                                        unsigned flags = 0);
template <class T>
cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *smem, T f, int blocks, int block);
cudaError_t cudaMemset2D(void *p, size_t pitch, int v, size_t w, size_t h);
cudaError_t cudaMemset2DAsync(void *p, size_t pitch, int v, size_t w, size_t h,
                              cudaStream_t s = 0);

// 3D copies and pitched memory.
__host__ cudaExtent make_cudaExtent(size_t w, size_t h, size_t d);
__host__ cudaPos make_cudaPos(size_t x, size_t y, size_t z);
__host__ cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz);

// Arrays and channel formats.
cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f);
template <class T> cudaChannelFormatDesc cudaCreateChannelDesc(void);

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
cudaError_t cudaCreateTextureObject(cudaTextureObject_t *t, const cudaResourceDesc *r,
                                    const cudaTextureDesc *d, const cudaResourceViewDesc *v);
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t t);
cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc *r, cudaTextureObject_t t);
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *s, const cudaResourceDesc *r);
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t s);

// Inter-process handles.
cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *h, void *p);
cudaError_t cudaIpcOpenMemHandle(void **p, cudaIpcMemHandle_t h, unsigned flags);
cudaError_t cudaIpcCloseMemHandle(void *p);
cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *h, cudaEvent_t e);
cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *e, cudaIpcEventHandle_t h);

// Stream-ordered allocation and memory pools; managed memory hints (CUDA 13 signatures).
cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s CUDAFUSE_CALL_SITE);
template <class T>
cudaError_t cudaMallocAsync(T **p, size_t n, cudaStream_t s CUDAFUSE_CALL_SITE);
cudaError_t cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t pool,
                                    cudaStream_t s CUDAFUSE_CALL_SITE);
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
cudaError_t cudaStreamSetAttribute(cudaStream_t s, cudaStreamAttrID a,
                                   const cudaStreamAttrValue *v);
cudaError_t cudaStreamGetAttribute(cudaStream_t s, cudaStreamAttrID a, cudaStreamAttrValue *v);

template <class... P, class... A>
cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(P...),
                               A &&...args);
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *f, void **args);

// Graphs and stream capture.
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

cudaError_t cudaGraphDebugDotPrint(cudaGraph_t g, const char *path, unsigned flags);
cudaError_t cudaDeviceGraphMemTrim(int device);
cudaError_t cudaDeviceGetGraphMemAttribute(int device, cudaGraphMemAttributeType a, void *v);
cudaError_t cudaDeviceSetGraphMemAttribute(int device, cudaGraphMemAttributeType a, void *v);

// Graphics interop.
CUDAFUSE_NOT_EMULATED("graphics interop is not supported by the emulator")
cudaError_t cudaGraphicsMapResources(int n, cudaGraphicsResource_t *r, cudaStream_t s = 0);
CUDAFUSE_NOT_EMULATED("graphics interop is not supported by the emulator")
cudaError_t cudaGraphicsUnmapResources(int n, cudaGraphicsResource_t *r, cudaStream_t s = 0);
CUDAFUSE_NOT_EMULATED("graphics interop is not supported by the emulator")
cudaError_t cudaGraphicsUnregisterResource(cudaGraphicsResource_t r);
CUDAFUSE_NOT_EMULATED("graphics interop is not supported by the emulator")
cudaError_t cudaGraphicsResourceSetMapFlags(cudaGraphicsResource_t r, unsigned flags);
CUDAFUSE_NOT_EMULATED("graphics interop is not supported by the emulator")
cudaError_t cudaGraphicsResourceGetMappedPointer(void **p, size_t *n, cudaGraphicsResource_t r);
CUDAFUSE_NOT_EMULATED("graphics interop is not supported by the emulator")
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

__attribute__((deprecated("cudaDeviceSetSharedMemConfig is deprecated: shared memory bank size "
                          "is fixed since Hopper")))
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig c);
__attribute__((deprecated("cudaDeviceGetSharedMemConfig is deprecated")))
cudaError_t cudaDeviceGetSharedMemConfig(cudaSharedMemConfig *c);
template <class T>
__attribute__((deprecated("cudaFuncSetSharedMemConfig is deprecated")))
cudaError_t cudaFuncSetSharedMemConfig(T *f, cudaSharedMemConfig c);
