// cudafuse_emu_runtime.h: the CUDA runtime API of the emulator (see docs/emulation.md).
//
// Included by cudafuse_emu.h right after dim3. Work runs at once, in program order, on the
// calling thread: a stream is an identity with flags and a priority, an event records the
// host clock when it is recorded, callbacks and host functions run when they are enqueued.
// The device is one H100-like sm_90 GPU (132 SMs, 80 GiB); memory is host memory.
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <mutex>

#include "cudafuse_emu_device.h"   // the device: properties, memory, errors
#include "cudafuse_emu_capture.h"  // stream capture: work on a capturing stream becomes a node
#include "cudafuse_emu_texture.h"  // CUDA arrays, texture and surface objects


namespace cudafuse_emu {
// What the handles point to. CUstream_st, CUevent_st and CUmemPoolHandle_st stay incomplete
// types, as in CUDA (the runtime passes a cudaStream_t argument as an opaque pointer).
struct Stream {
  unsigned flags;
  int priority;
  cudaLaunchAttributeValue policy;
};
struct Event {
  unsigned flags;
  bool recorded;
  double ms;
};
struct Pool {
  unsigned long long attrs[9];
};
// The default stream (0), cudaStreamLegacy, cudaStreamPerThread and the device runtime's
// tail-launch and fire-and-forget streams are not objects.
inline Stream *stream_of(cudaStream_t s) {
  static Stream null_stream{0, 0, {}};
  return reinterpret_cast<uintptr_t>(s) <= 4 ? &null_stream : reinterpret_cast<Stream *>(s);
}
inline Event *event_of(cudaEvent_t e) { return reinterpret_cast<Event *>(e); }
#define CF_CAPTURED(st, type, ...) \
  if (::cudafuse_emu::stream_capturing(st)) \
    return ::cudafuse_emu::capture_op(st, type, [=]() { (void)(__VA_ARGS__); })
inline Pool *pool_of(cudaMemPool_t p) { return reinterpret_cast<Pool *>(p); }
inline cudaMemPool_t default_pool() {
  static Pool pool{};
  return reinterpret_cast<cudaMemPool_t>(&pool);
}
// A kernel's maximum threads a block: its __launch_bounds__, else the device's
// (cudafuse_emu_launch.h).
inline int max_threads_of(const void *f);
template <class F> inline const void *func_address(F f) {
  if constexpr (std::is_pointer_v<F>) return reinterpret_cast<const void *>(f);
  else return nullptr;
}
inline int occupancy(int block, size_t smem) {
  const cudaDeviceProp &p = device_props();
  if (block <= 0 || block > p.maxThreadsPerBlock) return 0;
  if (smem > p.sharedMemPerBlockOptin) return 0;
  int warps = (block + 31) / 32;
  int n = std::min(p.maxBlocksPerMultiProcessor, p.maxThreadsPerMultiProcessor / (warps * 32));
  n = std::min(n, p.regsPerMultiprocessor / (warps * 32 * 32));  // 32 registers a thread
  if (smem)
    n = std::min(n, int(p.sharedMemPerMultiprocessor / (smem + p.reservedSharedMemPerBlock)));
  return n;
}
}  // namespace cudafuse_emu

// ---- device management ------------------------------------------------------------------
inline cudaError_t cudaGetDeviceCount(int *n) {
  if (!n) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  *n = 1;
  return cudaSuccess;
}
inline cudaError_t cudaGetDevice(int *d) {
  if (!d) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  *d = 0;
  return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int d) {
  return d == 0 ? cudaSuccess : ::cudafuse_emu::rt_error(cudaErrorInvalidDevice);
}
inline cudaError_t cudaInitDevice(int d, unsigned = 0, unsigned = 0) { return cudaSetDevice(d); }
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaDeviceReset() { return cudaSuccess; }
inline cudaError_t cudaSetDeviceFlags(unsigned f) {
  ::cudafuse_emu::g_device_flags = f;
  return cudaSuccess;
}
inline cudaError_t cudaGetDeviceFlags(unsigned *f) {
  *f = ::cudafuse_emu::g_device_flags | cudaDeviceMapHost;
  return cudaSuccess;
}
inline cudaError_t cudaChooseDevice(int *d, const cudaDeviceProp *) {
  *d = 0;
  return cudaSuccess;
}
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int d) {
  if (!p) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  if (d != 0) return ::cudafuse_emu::rt_error(cudaErrorInvalidDevice);
  *p = ::cudafuse_emu::device_props();
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int d) {
  if (!v) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  if (d != 0) return ::cudafuse_emu::rt_error(cudaErrorInvalidDevice);
  const cudaDeviceProp &p = ::cudafuse_emu::device_props();
  switch (a) {
    case cudaDevAttrMaxThreadsPerBlock: *v = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *v = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *v = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *v = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *v = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *v = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *v = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *v = (int)p.sharedMemPerBlock; break;
    case cudaDevAttrTotalConstantMemory: *v = (int)p.totalConstMem; break;
    case cudaDevAttrWarpSize: *v = p.warpSize; break;
    case cudaDevAttrMaxPitch: *v = (int)p.memPitch; break;
    case cudaDevAttrMaxRegistersPerBlock: *v = p.regsPerBlock; break;
    case cudaDevAttrClockRate: *v = p.clockRate; break;
    case cudaDevAttrTextureAlignment: *v = (int)p.textureAlignment; break;
    case cudaDevAttrGpuOverlap: *v = p.deviceOverlap; break;
    case cudaDevAttrMultiProcessorCount: *v = p.multiProcessorCount; break;
    case cudaDevAttrKernelExecTimeout: *v = p.kernelExecTimeoutEnabled; break;
    case cudaDevAttrIntegrated: *v = p.integrated; break;
    case cudaDevAttrCanMapHostMemory: *v = p.canMapHostMemory; break;
    case cudaDevAttrComputeMode: *v = p.computeMode; break;
    case cudaDevAttrMaxTexture1DWidth: *v = p.maxTexture1D; break;
    case cudaDevAttrMaxTexture2DWidth: *v = p.maxTexture2D[0]; break;
    case cudaDevAttrMaxTexture2DHeight: *v = p.maxTexture2D[1]; break;
    case cudaDevAttrMaxTexture3DWidth: *v = p.maxTexture3D[0]; break;
    case cudaDevAttrMaxTexture3DHeight: *v = p.maxTexture3D[1]; break;
    case cudaDevAttrMaxTexture3DDepth: *v = p.maxTexture3D[2]; break;
    case cudaDevAttrSurfaceAlignment: *v = (int)p.surfaceAlignment; break;
    case cudaDevAttrConcurrentKernels: *v = p.concurrentKernels; break;
    case cudaDevAttrEccEnabled: *v = p.ECCEnabled; break;
    case cudaDevAttrPciBusId: *v = p.pciBusID; break;
    case cudaDevAttrPciDeviceId: *v = p.pciDeviceID; break;
    case cudaDevAttrTccDriver: *v = p.tccDriver; break;
    case cudaDevAttrMemoryClockRate: *v = p.memoryClockRate; break;
    case cudaDevAttrGlobalMemoryBusWidth: *v = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: *v = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *v = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrAsyncEngineCount: *v = p.asyncEngineCount; break;
    case cudaDevAttrUnifiedAddressing: *v = p.unifiedAddressing; break;
    case cudaDevAttrPciDomainId: *v = p.pciDomainID; break;
    case cudaDevAttrTexturePitchAlignment: *v = (int)p.texturePitchAlignment; break;
    case cudaDevAttrComputeCapabilityMajor: *v = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *v = p.minor; break;
    case cudaDevAttrStreamPrioritiesSupported: *v = p.streamPrioritiesSupported; break;
    case cudaDevAttrGlobalL1CacheSupported: *v = p.globalL1CacheSupported; break;
    case cudaDevAttrLocalL1CacheSupported: *v = p.localL1CacheSupported; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
      *v = (int)p.sharedMemPerMultiprocessor; break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *v = p.regsPerMultiprocessor; break;
    case cudaDevAttrManagedMemory: *v = p.managedMemory; break;
    case cudaDevAttrIsMultiGpuBoard: *v = p.isMultiGpuBoard; break;
    case cudaDevAttrMultiGpuBoardGroupID: *v = p.multiGpuBoardGroupID; break;
    case cudaDevAttrHostNativeAtomicSupported: *v = p.hostNativeAtomicSupported; break;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio:
      *v = p.singleToDoublePrecisionPerfRatio; break;
    case cudaDevAttrPageableMemoryAccess: *v = p.pageableMemoryAccess; break;
    case cudaDevAttrConcurrentManagedAccess: *v = p.concurrentManagedAccess; break;
    case cudaDevAttrComputePreemptionSupported: *v = p.computePreemptionSupported; break;
    case cudaDevAttrCanUseHostPointerForRegisteredMem:
      *v = p.canUseHostPointerForRegisteredMem; break;
    case cudaDevAttrCooperativeLaunch: *v = p.cooperativeLaunch; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = (int)p.sharedMemPerBlockOptin; break;
    case cudaDevAttrHostRegisterSupported: *v = p.hostRegisterSupported; break;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables:
      *v = p.pageableMemoryAccessUsesHostPageTables; break;
    case cudaDevAttrDirectManagedMemAccessFromHost: *v = p.directManagedMemAccessFromHost; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *v = p.maxBlocksPerMultiProcessor; break;
    case cudaDevAttrMaxPersistingL2CacheSize: *v = p.persistingL2CacheMaxSize; break;
    case cudaDevAttrMaxAccessPolicyWindowSize: *v = p.accessPolicyMaxWindowSize; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: *v = (int)p.reservedSharedMemPerBlock; break;
    case cudaDevAttrSparseCudaArraySupported: *v = p.sparseCudaArraySupported; break;
    case cudaDevAttrHostRegisterReadOnlySupported: *v = p.hostRegisterReadOnlySupported; break;
    case cudaDevAttrTimelineSemaphoreInteropSupported:
      *v = p.timelineSemaphoreInteropSupported; break;
    case cudaDevAttrMemoryPoolsSupported: *v = p.memoryPoolsSupported; break;
    case cudaDevAttrGPUDirectRDMASupported: *v = p.gpuDirectRDMASupported; break;
    case cudaDevAttrMemoryPoolSupportedHandleTypes:
      *v = (int)p.memoryPoolSupportedHandleTypes; break;
    case cudaDevAttrClusterLaunch: *v = p.clusterLaunch; break;
    case cudaDevAttrDeferredMappingCudaArraySupported:
      *v = p.deferredMappingCudaArraySupported; break;
    case cudaDevAttrIpcEventSupport: *v = p.ipcEventSupported; break;
    case cudaDevAttrMemSyncDomainCount: *v = 4; break;
    case cudaDevAttrNumaId: *v = p.deviceNumaId; break;
    case cudaDevAttrHostNumaId: *v = p.hostNumaId; break;
    case cudaDevAttrGpuPciDeviceId: *v = (int)p.gpuPciDeviceID; break;
    case cudaDevAttrGpuPciSubsystemId: *v = (int)p.gpuPciSubsystemID; break;
    default:
      if ((int)a <= 0 || a >= cudaDevAttrMax) {
        return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
      }
      *v = 0;  // another texture/surface limit or a feature the emulator does not have
  }
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGetP2PAttribute(int *v, cudaDeviceP2PAttr, int, int) {
  *v = 0;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceCanAccessPeer(int *can, int, int) {
  *can = 0;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceEnablePeerAccess(int, unsigned = 0) {
  return ::cudafuse_emu::rt_error(cudaErrorInvalidDevice);
}
inline cudaError_t cudaDeviceDisablePeerAccess(int) {
  return ::cudafuse_emu::rt_error(cudaErrorInvalidDevice);
}
inline cudaError_t cudaDeviceGetPCIBusId(char *id, int len, int d) {
  if (d != 0) return ::cudafuse_emu::rt_error(cudaErrorInvalidDevice);
  snprintf(id, len, "0000:00:00.0");
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGetByPCIBusId(int *d, const char *) {
  *d = 0;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSetLimit(cudaLimit l, size_t v) {
  if ((unsigned)l >= 7) return ::cudafuse_emu::rt_error(cudaErrorUnsupportedLimit);
  ::cudafuse_emu::g_limits[l] = v;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGetLimit(size_t *v, cudaLimit l) {
  if ((unsigned)l >= 7) return ::cudafuse_emu::rt_error(cudaErrorUnsupportedLimit);
  *v = ::cudafuse_emu::g_limits[l];
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache c) {
  ::cudafuse_emu::g_cache_config = c;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache *c) {
  *c = ::cudafuse_emu::g_cache_config;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig c) {
  ::cudafuse_emu::g_smem_config = c;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGetSharedMemConfig(cudaSharedMemConfig *c) {
  *c = ::cudafuse_emu::g_smem_config;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = -5;
  return cudaSuccess;
}
inline cudaError_t cudaDriverGetVersion(int *v) {
  *v = 13000;
  return cudaSuccess;
}
inline cudaError_t cudaRuntimeGetVersion(int *v) {
  *v = 13000;
  return cudaSuccess;
}
inline cudaError_t cudaProfilerStart() { return cudaSuccess; }
inline cudaError_t cudaProfilerStop() { return cudaSuccess; }
inline cudaError_t cudaCtxResetPersistingL2Cache() { return cudaSuccess; }
inline cudaError_t cudaDeviceFlushGPUDirectRDMAWrites(int, int) { return cudaSuccess; }
// Removed in CUDA 13 (the front end warns at a use); they behave as their replacements.
inline cudaError_t cudaThreadSynchronize() { return cudaSuccess; }
inline cudaError_t cudaThreadExit() { return cudaDeviceReset(); }
inline cudaError_t cudaThreadSetCacheConfig(cudaFuncCache c) { return cudaDeviceSetCacheConfig(c); }
inline cudaError_t cudaThreadGetCacheConfig(cudaFuncCache *c) { return cudaDeviceGetCacheConfig(c); }
inline cudaError_t cudaThreadSetLimit(cudaLimit l, size_t v) { return cudaDeviceSetLimit(l, v); }
inline cudaError_t cudaThreadGetLimit(size_t *v, cudaLimit l) { return cudaDeviceGetLimit(v, l); }

// ---- errors -----------------------------------------------------------------------------
inline cudaError_t cudaGetLastError() {
  cudaError_t e = ::cudafuse_emu::g_last_error;
  ::cudafuse_emu::g_last_error = cudaSuccess;
  return e;
}
inline cudaError_t cudaPeekAtLastError() { return ::cudafuse_emu::g_last_error; }
inline const char *cudaGetErrorName(cudaError_t e) {
  switch (e) {
#define CF_ERR_NAME(name, value, text) case cuda##name: return "cuda" #name;
    __CUDAFUSE_ERRORS(CF_ERR_NAME)
#undef CF_ERR_NAME
    default: return "cudaErrorUnknown";
  }
}
inline const char *cudaGetErrorString(cudaError_t e) {
  switch (e) {
#define CF_ERR_TEXT(name, value, text) case cuda##name: return text;
    __CUDAFUSE_ERRORS(CF_ERR_TEXT)
#undef CF_ERR_TEXT
    default: return "unrecognised error code";
  }
}
#undef __CUDAFUSE_ERRORS

// ---- memory -----------------------------------------------------------------------------
// The caller's place is recorded (default arguments are evaluated where the call is) for
// the report of bytes that nothing wrote.
inline cudaError_t cudaMalloc(void **p, size_t n, const char *file,
                              int line) {
  return ::cudafuse_emu::rt_alloc(p, n, cudaMemoryTypeDevice, file, line);
}
template <class T>
inline cudaError_t cudaMalloc(T **p, size_t n, const char *file,
                              int line) {
  return cudaMalloc(reinterpret_cast<void **>(p), n, file, line);
}
inline cudaError_t cudaMallocManaged(void **p, size_t n, unsigned,
                                     const char *file,
                                     int line) {
  return ::cudafuse_emu::rt_alloc(p, n, cudaMemoryTypeManaged, file, line);
}
template <class T>
inline cudaError_t cudaMallocManaged(T **p, size_t n, unsigned f,
                                     const char *file,
                                     int line) {
  return cudaMallocManaged(reinterpret_cast<void **>(p), n, f, file, line);
}
inline cudaError_t cudaMallocHost(void **p, size_t n) {
  return ::cudafuse_emu::rt_alloc(p, n, cudaMemoryTypeHost);
}
inline cudaError_t cudaMallocHost(void **p, size_t n, unsigned) { return cudaMallocHost(p, n); }
template <class T> inline cudaError_t cudaMallocHost(T **p, size_t n, unsigned) {
  return cudaMallocHost(reinterpret_cast<void **>(p), n);
}
inline cudaError_t cudaHostAlloc(void **p, size_t n, unsigned) { return cudaMallocHost(p, n); }
template <class T> inline cudaError_t cudaHostAlloc(T **p, size_t n, unsigned) {
  return cudaMallocHost(reinterpret_cast<void **>(p), n);
}
inline cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t w, size_t h) {
  *pitch = (w + 511) & ~size_t(511);
  return cudaMalloc(p, *pitch * h, nullptr, 0);  // no site: its padding is never written
}
template <class T> inline cudaError_t cudaMallocPitch(T **p, size_t *pitch, size_t w, size_t h) {
  return cudaMallocPitch(reinterpret_cast<void **>(p), pitch, w, h);
}
inline cudaError_t cudaMalloc3D(cudaPitchedPtr *p, cudaExtent e) {
  size_t pitch = 0;
  void *mem = nullptr;
  cudaError_t r = cudaMallocPitch(&mem, &pitch, e.width, e.height * e.depth);
  *p = make_cudaPitchedPtr(mem, pitch, e.width, e.height);
  return r;
}
inline cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s,
                                   const char *file,
                                   int line) {
  if (::cudafuse_emu::stream_capturing(s)) return ::cudafuse_emu::capture_malloc(p, n, s);
  return cudaMalloc(p, n, file, line);
}
template <class T>
inline cudaError_t cudaMallocAsync(T **p, size_t n, cudaStream_t s,
                                   const char *file,
                                   int line) {
  return cudaMallocAsync(reinterpret_cast<void **>(p), n, s, file, line);
}
inline cudaError_t cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t, cudaStream_t,
                                           const char *file,
                                           int line) {
  return cudaMalloc(p, n, file, line);
}
template <class T>
inline cudaError_t cudaMallocAsync(T **p, size_t n, cudaMemPool_t pool, cudaStream_t s) {
  return cudaMallocFromPoolAsync(reinterpret_cast<void **>(p), n, pool, s);
}
inline cudaError_t cudaFree(void *p) {
  if (::cudafuse_emu::graph_owned(p)) return cudaSuccess;  // a graph allocation stays valid
  return ::cudafuse_emu::rt_free(p);
}
inline cudaError_t cudaFreeHost(void *p) { return ::cudafuse_emu::rt_free(p); }
inline cudaError_t cudaFreeAsync(void *p, cudaStream_t s) {
  if (::cudafuse_emu::stream_capturing(s)) return ::cudafuse_emu::capture_free(p, s);
  return cudaFree(p);
}
inline cudaError_t cudaHostRegister(void *, size_t, unsigned) { return cudaSuccess; }
inline cudaError_t cudaHostUnregister(void *) { return cudaSuccess; }
inline cudaError_t cudaHostGetDevicePointer(void **d, void *h, unsigned) {
  *d = h;  // host memory is device memory
  return cudaSuccess;
}
template <class T> inline cudaError_t cudaHostGetDevicePointer(T **d, void *h, unsigned f) {
  return cudaHostGetDevicePointer(reinterpret_cast<void **>(d), h, f);
}
inline cudaError_t cudaHostGetFlags(unsigned *f, void *) {
  *f = cudaHostAllocMapped;
  return cudaSuccess;
}
inline cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *a, const void *p) {
  memset(a, 0, sizeof *a);
  a->type = ::cudafuse_emu::rt_kind(p);
  a->devicePointer = a->hostPointer = const_cast<void *>(p);
  return cudaSuccess;
}
inline cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total) {
  size_t all = ::cudafuse_emu::device_props().totalGlobalMem;
  size_t used = ::cudafuse_emu::allocations().device_bytes;
  if (free_bytes) *free_bytes = used < all ? all - used : 0;
  if (total) *total = all;
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind k) {
  if ((unsigned)k > cudaMemcpyDefault) return ::cudafuse_emu::rt_error(cudaErrorInvalidMemcpyDirection);
  if (n) memmove(d, s, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind k,
                                   cudaStream_t st) {
  CF_CAPTURED(st, 1, cudaMemcpy(d, s, n, k));
  return cudaMemcpy(d, s, n, k);
}
inline cudaError_t cudaMemcpyPeer(void *d, int, const void *s, int, size_t n) {
  return cudaMemcpy(d, s, n, cudaMemcpyDefault);
}
inline cudaError_t cudaMemcpyPeerAsync(void *d, int dd, const void *s, int sd, size_t n,
                                       cudaStream_t) {
  return cudaMemcpyPeer(d, dd, s, sd, n);
}
inline cudaError_t cudaMemcpy2D(void *d, size_t dp, const void *s, size_t sp, size_t w,
                                size_t h, cudaMemcpyKind k) {
  if (w > dp || w > sp) return ::cudafuse_emu::rt_error(cudaErrorInvalidPitchValue);
  if ((unsigned)k > cudaMemcpyDefault) return ::cudafuse_emu::rt_error(cudaErrorInvalidMemcpyDirection);
  for (size_t r = 0; r < h; ++r)
    memmove(static_cast<char *>(d) + r * dp, static_cast<const char *>(s) + r * sp, w);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy2DAsync(void *d, size_t dp, const void *s, size_t sp, size_t w,
                                     size_t h, cudaMemcpyKind k, cudaStream_t st) {
  CF_CAPTURED(st, 1, cudaMemcpy2D(d, dp, s, sp, w, h, k));
  return cudaMemcpy2D(d, dp, s, sp, w, h, k);
}
inline cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *p) {
  if (p->srcArray || p->dstArray) return ::cudafuse_emu::array_copy3d(p);
  const cudaPitchedPtr &s = p->srcPtr, &d = p->dstPtr;
  const cudaExtent &e = p->extent;
  for (size_t z = 0; z < e.depth; ++z)
    for (size_t y = 0; y < e.height; ++y)
      memmove(static_cast<char *>(d.ptr) + ((p->dstPos.z + z) * d.ysize + p->dstPos.y + y) * d.pitch +
                  p->dstPos.x,
              static_cast<const char *>(s.ptr) +
                  ((p->srcPos.z + z) * s.ysize + p->srcPos.y + y) * s.pitch + p->srcPos.x,
              e.width);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms *p, cudaStream_t st) {
  cudaMemcpy3DParms c = *p;
  CF_CAPTURED(st, 1, cudaMemcpy3D(&c));
  return cudaMemcpy3D(p);
}
inline cudaError_t cudaMemset(void *p, int v, size_t n) {
  if (n) memset(p, v, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t st) {
  CF_CAPTURED(st, 2, cudaMemset(p, v, n));
  return cudaMemset(p, v, n);
}
inline cudaError_t cudaMemset2D(void *p, size_t pitch, int v, size_t w, size_t h) {
  for (size_t r = 0; r < h; ++r) memset(static_cast<char *>(p) + r * pitch, v, w);
  return cudaSuccess;
}
inline cudaError_t cudaMemset2DAsync(void *p, size_t pitch, int v, size_t w, size_t h,
                                     cudaStream_t st) {
  CF_CAPTURED(st, 2, cudaMemset2D(p, pitch, v, w, h));
  return cudaMemset2D(p, pitch, v, w, h);
}
inline cudaError_t cudaMemset3D(cudaPitchedPtr p, int v, cudaExtent e) {
  for (size_t z = 0; z < e.depth; ++z)
    cudaMemset2D(static_cast<char *>(p.ptr) + z * p.ysize * p.pitch, p.pitch, v, e.width,
                 e.height);
  return cudaSuccess;
}
inline cudaError_t cudaMemset3DAsync(cudaPitchedPtr p, int v, cudaExtent e,
                                     cudaStream_t = nullptr) {
  return cudaMemset3D(p, v, e);
}
// Symbols: a __device__/__constant__ variable is an ordinary global here. The C API form
// takes the symbol's address (`const void *`); the C++ form takes the variable itself.
inline cudaError_t cudaMemcpyToSymbol(const void *sym, const void *src, size_t n,
                                      size_t off = 0, cudaMemcpyKind = cudaMemcpyHostToDevice) {
  if (n) memmove(static_cast<char *>(const_cast<void *>(sym)) + off, src, n);
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaMemcpyToSymbol(const T &sym, const void *src, size_t n, size_t off,
                                      cudaMemcpyKind) {
  if (off + n > sizeof(T)) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  if (n) memmove(reinterpret_cast<char *>(const_cast<T *>(&sym)) + off, src, n);
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaMemcpyToSymbolAsync(const T &sym, const void *src, size_t n,
                                           size_t off,
                                           cudaMemcpyKind k,
                                           cudaStream_t) {
  return cudaMemcpyToSymbol(sym, src, n, off, k);
}
inline cudaError_t cudaMemcpyFromSymbol(void *dst, const void *sym, size_t n, size_t off = 0,
                                        cudaMemcpyKind = cudaMemcpyDeviceToHost) {
  if (n) memmove(dst, static_cast<const char *>(sym) + off, n);
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &sym, size_t n, size_t off,
                                        cudaMemcpyKind) {
  if (off + n > sizeof(T)) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  if (n) memmove(dst, reinterpret_cast<const char *>(&sym) + off, n);
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &sym, size_t n, size_t off,
                                             cudaMemcpyKind k,
                                             cudaStream_t) {
  return cudaMemcpyFromSymbol(dst, sym, n, off, k);
}
inline cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *sym, size_t n, size_t off,
                                             cudaMemcpyKind k, cudaStream_t) {
  return cudaMemcpyFromSymbol(dst, sym, n, off, k);
}
template <class T> inline cudaError_t cudaGetSymbolAddress(void **p, const T &sym) {
  *p = const_cast<T *>(&sym);
  return cudaSuccess;
}
template <class T> inline cudaError_t cudaGetSymbolSize(size_t *n, const T &) {
  *n = sizeof(T);
  return cudaSuccess;
}
// Unified memory hints: no-ops (all memory is the host's). CUDA 13's forms and the older ones.
inline cudaError_t cudaMemPrefetchAsync(const void *, size_t, cudaMemLocation, unsigned,
                                        cudaStream_t) {
  return cudaSuccess;
}
inline cudaError_t cudaMemPrefetchAsync(const void *, size_t, int, cudaStream_t = nullptr) {
  return cudaSuccess;
}
inline cudaError_t cudaMemAdvise(const void *, size_t, cudaMemoryAdvise, cudaMemLocation) {
  return cudaSuccess;
}
inline cudaError_t cudaMemAdvise(const void *, size_t, cudaMemoryAdvise, int) {
  return cudaSuccess;
}
// Memory pools: allocations from any pool are plain allocations; attributes are stored.
inline cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int) {
  *pool = ::cudafuse_emu::default_pool();
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *pool, int d) {
  return cudaDeviceGetDefaultMemPool(pool, d);
}
inline cudaError_t cudaDeviceSetMemPool(int, cudaMemPool_t) { return cudaSuccess; }
inline cudaError_t cudaMemPoolCreate(cudaMemPool_t *pool, const cudaMemPoolProps *) {
  *pool = reinterpret_cast<cudaMemPool_t>(new ::cudafuse_emu::Pool{});
  return cudaSuccess;
}
inline cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool) {
  if (pool != ::cudafuse_emu::default_pool()) delete ::cudafuse_emu::pool_of(pool);
  return cudaSuccess;
}
inline cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr a, void *v) {
  if ((unsigned)a > 8) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  if (a <= cudaMemPoolReuseAllowInternalDependencies)
    ::cudafuse_emu::pool_of(pool)->attrs[a] = (unsigned long long)*static_cast<int *>(v);
  else
    ::cudafuse_emu::pool_of(pool)->attrs[a] = *static_cast<unsigned long long *>(v);
  return cudaSuccess;
}
inline cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr a, void *v) {
  if ((unsigned)a > 8) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  if (a <= cudaMemPoolReuseAllowInternalDependencies)
    *static_cast<int *>(v) = (int)::cudafuse_emu::pool_of(pool)->attrs[a];
  else
    *static_cast<unsigned long long *>(v) = ::cudafuse_emu::pool_of(pool)->attrs[a];
  return cudaSuccess;
}
inline cudaError_t cudaMemPoolSetAccess(cudaMemPool_t, const cudaMemAccessDesc *, size_t) {
  return cudaSuccess;
}
inline cudaError_t cudaMemPoolGetAccess(cudaMemAccessFlags *f, cudaMemPool_t, cudaMemLocation *) {
  *f = cudaMemAccessFlagsProtReadWrite;
  return cudaSuccess;
}
inline cudaError_t cudaMemPoolTrimTo(cudaMemPool_t, size_t) { return cudaSuccess; }
// Inter-process sharing needs a driver: these fail as on a device without the feature.
inline cudaError_t cudaMemPoolExportToShareableHandle(void *, cudaMemPool_t,
                                                      cudaMemAllocationHandleType, unsigned) {
  return ::cudafuse_emu::rt_error(cudaErrorNotSupported);
}
inline cudaError_t cudaMemPoolImportFromShareableHandle(cudaMemPool_t *, void *,
                                                        cudaMemAllocationHandleType, unsigned) {
  return ::cudafuse_emu::rt_error(cudaErrorNotSupported);
}
inline cudaError_t cudaMemPoolExportPointer(cudaMemPoolPtrExportData *, void *) {
  return ::cudafuse_emu::rt_error(cudaErrorNotSupported);
}
inline cudaError_t cudaMemPoolImportPointer(void **, cudaMemPool_t, cudaMemPoolPtrExportData *) {
  return ::cudafuse_emu::rt_error(cudaErrorNotSupported);
}
inline cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *, void *) {
  return ::cudafuse_emu::rt_error(cudaErrorNotSupported);
}
inline cudaError_t cudaIpcOpenMemHandle(void **, cudaIpcMemHandle_t, unsigned) {
  return ::cudafuse_emu::rt_error(cudaErrorNotSupported);
}
inline cudaError_t cudaIpcCloseMemHandle(void *) {
  return ::cudafuse_emu::rt_error(cudaErrorNotSupported);
}
inline cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *, cudaEvent_t) {
  return ::cudafuse_emu::rt_error(cudaErrorNotSupported);
}
inline cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *, cudaIpcEventHandle_t) {
  return ::cudafuse_emu::rt_error(cudaErrorNotSupported);
}

// ---- streams ----------------------------------------------------------------------------
inline cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned flags, int priority) {
  if (!s) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  priority = std::max(-5, std::min(0, priority));  // clamped to the device's range
  *s = reinterpret_cast<cudaStream_t>(new ::cudafuse_emu::Stream{flags, priority, {}});
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags) {
  return cudaStreamCreateWithPriority(s, flags, 0);
}
inline cudaError_t cudaStreamCreate(cudaStream_t *s) { return cudaStreamCreateWithFlags(s, 0); }
inline cudaError_t cudaStreamDestroy(cudaStream_t s) {
  if (reinterpret_cast<uintptr_t>(s) <= 2) return ::cudafuse_emu::rt_error(cudaErrorInvalidResourceHandle);
  delete ::cudafuse_emu::stream_of(s);
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaStreamQuery(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaStreamGetFlags(cudaStream_t s, unsigned *f) {
  *f = ::cudafuse_emu::stream_of(s)->flags;
  return cudaSuccess;
}
inline cudaError_t cudaStreamGetPriority(cudaStream_t s, int *p) {
  *p = ::cudafuse_emu::stream_of(s)->priority;
  return cudaSuccess;
}
inline cudaError_t cudaStreamGetDevice(cudaStream_t, int *d) {
  *d = 0;
  return cudaSuccess;
}
inline cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned) {
  ::cudafuse_emu::capture_wait_event(s, e);  // joins a capture the event was recorded in
  return cudaSuccess;
}
inline cudaError_t cudaStreamAttachMemAsync(cudaStream_t, void *, size_t,
                                            unsigned) {
  return cudaSuccess;
}
// Everything enqueued before has completed, so a callback runs at once, in program order.
inline cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb, void *data,
                                         unsigned) {
  CF_CAPTURED(s, 3, cb(s, cudaSuccess, data));
  cb(s, cudaSuccess, data);
  return cudaSuccess;
}
inline cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *data) {
  CF_CAPTURED(s, 3, fn(data));
  fn(data);
  return cudaSuccess;
}
inline cudaError_t cudaStreamSetAttribute(cudaStream_t s, cudaStreamAttrID a,
                                          const cudaStreamAttrValue *v) {
  if (a == cudaLaunchAttributePriority)
    ::cudafuse_emu::stream_of(s)->priority = std::max(-5, std::min(0, v->priority));
  else if (a == cudaLaunchAttributeAccessPolicyWindow)
    ::cudafuse_emu::stream_of(s)->policy = *v;
  return cudaSuccess;
}
inline cudaError_t cudaStreamGetAttribute(cudaStream_t s, cudaStreamAttrID a,
                                          cudaStreamAttrValue *v) {
  memset(v, 0, sizeof *v);
  if (a == cudaLaunchAttributePriority)
    v->priority = ::cudafuse_emu::stream_of(s)->priority;
  else if (a == cudaLaunchAttributeAccessPolicyWindow)
    *v = ::cudafuse_emu::stream_of(s)->policy;
  return cudaSuccess;
}

// ---- events: the host clock when recorded (the work before them has completed) ----------
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags) {
  if (!e) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  *e = reinterpret_cast<cudaEvent_t>(new ::cudafuse_emu::Event{flags, false, 0.0});
  return cudaSuccess;
}
inline cudaError_t cudaEventCreate(cudaEvent_t *e) { return cudaEventCreateWithFlags(e, 0); }
inline cudaError_t cudaEventCreate(cudaEvent_t *e, unsigned flags) {
  return cudaEventCreateWithFlags(e, flags);
}
inline cudaError_t cudaEventDestroy(cudaEvent_t e) {
  if (!e) return ::cudafuse_emu::rt_error(cudaErrorInvalidResourceHandle);
  delete ::cudafuse_emu::event_of(e);
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  if (!e) return ::cudafuse_emu::rt_error(cudaErrorInvalidResourceHandle);
  if (::cudafuse_emu::stream_capturing(s)) return ::cudafuse_emu::capture_event_record(e, s);
  ::cudafuse_emu::event_of(e)->recorded = true;
  ::cudafuse_emu::event_of(e)->ms = ::cudafuse_emu::host_ms();
  return cudaSuccess;
}
inline cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s,
                                            unsigned) {
  return cudaEventRecord(e, s);
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  return e ? cudaSuccess : ::cudafuse_emu::rt_error(cudaErrorInvalidResourceHandle);
}
inline cudaError_t cudaEventQuery(cudaEvent_t e) { return cudaEventSynchronize(e); }
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t ea, cudaEvent_t eb) {
  if (!ms) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  ::cudafuse_emu::Event *a = ::cudafuse_emu::event_of(ea), *b = ::cudafuse_emu::event_of(eb);
  if (!a || !b || (a->flags & cudaEventDisableTiming) || (b->flags & cudaEventDisableTiming))
    return ::cudafuse_emu::rt_error(cudaErrorInvalidResourceHandle);
  if (!a->recorded || !b->recorded) return ::cudafuse_emu::rt_error(cudaErrorInvalidResourceHandle);
  *ms = (float)(b->ms - a->ms);
  return cudaSuccess;
}

// ---- functions and occupancy ------------------------------------------------------------
template <class T> inline cudaError_t cudaFuncSetAttribute(T *, cudaFuncAttribute a, int v) {
  if (a == cudaFuncAttributeMaxDynamicSharedMemorySize &&
      (v < 0 || size_t(v) > ::cudafuse_emu::device_props().sharedMemPerBlockOptin))
    return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  return cudaSuccess;
}
template <class T> inline cudaError_t cudaFuncSetCacheConfig(T *, cudaFuncCache) {
  return cudaSuccess;
}
template <class T> inline cudaError_t cudaFuncSetSharedMemConfig(T *, cudaSharedMemConfig) {
  return cudaSuccess;
}
template <class T> inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, T *f) {
  memset(a, 0, sizeof *a);
  a->maxThreadsPerBlock = ::cudafuse_emu::max_threads_of(reinterpret_cast<const void *>(f));
  a->numRegs = 32;
  a->ptxVersion = a->binaryVersion = 90;
  a->maxDynamicSharedSizeBytes = 48 << 10;
  a->preferredShmemCarveout = -1;
  return cudaSuccess;
}
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, const void *f) {
  return cudaFuncGetAttributes<const void>(a, f);
}
template <class F>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, F f, int block,
                                                                 size_t smem) {
  // A block over the kernel's __launch_bounds__ cannot launch: no block is resident.
  const bool fits = block <= ::cudafuse_emu::max_threads_of(::cudafuse_emu::func_address(f));
  *n = fits ? ::cudafuse_emu::occupancy(block, smem) : 0;
  return cudaSuccess;
}
template <class F>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *n, F f, int block,
                                                                          size_t smem, unsigned) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, f, block, smem);
}
// The block size (a multiple of 32, at most `limit`) with the most resident threads per SM,
// the largest such; the grid that fills every SM with it.
template <class S, class F>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(int *grid, int *block, F f,
                                                                  S smem, int limit) {
  if (!grid || !block) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  // At most the kernel's __launch_bounds__, as the runtime's own search is.
  const int most = ::cudafuse_emu::max_threads_of(::cudafuse_emu::func_address(f));
  int top = limit > 0 && limit < most ? limit : most;
  int best = 0, best_threads = 0, best_blocks = 0;
  for (int b = (top + 31) / 32 * 32; b >= 32; b -= 32) {
    int size = std::min(b, top);
    int blocks = ::cudafuse_emu::occupancy(size, size_t(smem(size)));
    if (blocks * size > best_threads) best = size, best_threads = blocks * size, best_blocks = blocks;
  }
  *block = best;
  *grid = best_blocks * ::cudafuse_emu::device_props().multiProcessorCount;
  return cudaSuccess;
}
template <class S, class F>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(int *grid, int *block,
                                                                           F f, S smem, int limit,
                                                                           unsigned) {
  return cudaOccupancyMaxPotentialBlockSizeVariableSMem(grid, block, f, smem, limit);
}
template <class F>
inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *grid, int *block, F f, size_t smem,
                                                      int limit) {
  return cudaOccupancyMaxPotentialBlockSizeVariableSMem(grid, block, f,
                                                        [smem](int) { return smem; }, limit);
}
template <class F>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(int *grid, int *block, F f,
                                                               size_t smem, int limit,
                                                               unsigned) {
  return cudaOccupancyMaxPotentialBlockSize(grid, block, f, smem, limit);
}
template <class F>
inline cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *smem, F, int blocks,
                                                             int block) {
  const cudaDeviceProp &p = ::cudafuse_emu::device_props();
  if (blocks <= 0 || ::cudafuse_emu::occupancy(block, 0) < blocks) {
    *smem = 0;
    return cudaSuccess;
  }
  size_t per = p.sharedMemPerMultiprocessor / blocks;
  per = per > p.reservedSharedMemPerBlock ? per - p.reservedSharedMemPerBlock : 0;
  *smem = std::min(per, p.sharedMemPerBlockOptin);
  return cudaSuccess;
}
