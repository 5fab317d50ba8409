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
  if (::__cf_emu::stream_capturing(st)) \
    return ::__cf_emu::capture_op(st, type, [=]() { (void)(__VA_ARGS__); })
inline Pool *pool_of(cudaMemPool_t p) { return reinterpret_cast<Pool *>(p); }
cudaMemPool_t default_pool();
// A kernel's maximum threads a block: its __launch_bounds__, else the device's
// (cudafuse_emu_launch.h).
inline int max_threads_of(const void *f);
template <class F> inline const void *func_address(F f) {
  if constexpr (std::is_pointer_v<F>) return reinterpret_cast<const void *>(f);
  else return nullptr;
}
int occupancy(int block, size_t smem);
}  // namespace cudafuse_emu

// ---- device management ------------------------------------------------------------------
cudaError_t cudaGetDeviceCount(int *n);
cudaError_t cudaGetDevice(int *d);
cudaError_t cudaSetDevice(int d);
cudaError_t cudaInitDevice(int d, unsigned = 0, unsigned = 0);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceReset();
cudaError_t cudaSetDeviceFlags(unsigned f);
cudaError_t cudaGetDeviceFlags(unsigned *f);
cudaError_t cudaChooseDevice(int *d, const cudaDeviceProp *);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int d);
cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int d);
cudaError_t cudaDeviceGetP2PAttribute(int *v, cudaDeviceP2PAttr, int, int);
cudaError_t cudaDeviceCanAccessPeer(int *can, int, int);
cudaError_t cudaDeviceEnablePeerAccess(int, unsigned = 0);
cudaError_t cudaDeviceDisablePeerAccess(int);
cudaError_t cudaDeviceGetPCIBusId(char *id, int len, int d);
cudaError_t cudaDeviceGetByPCIBusId(int *d, const char *);
cudaError_t cudaDeviceSetLimit(cudaLimit l, size_t v);
cudaError_t cudaDeviceGetLimit(size_t *v, cudaLimit l);
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache c);
cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache *c);
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig c);
cudaError_t cudaDeviceGetSharedMemConfig(cudaSharedMemConfig *c);
cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest);
cudaError_t cudaDriverGetVersion(int *v);
cudaError_t cudaRuntimeGetVersion(int *v);
cudaError_t cudaProfilerStart();
cudaError_t cudaProfilerStop();
cudaError_t cudaCtxResetPersistingL2Cache();
cudaError_t cudaDeviceFlushGPUDirectRDMAWrites(int, int);
// Removed in CUDA 13 (the front end warns at a use); they behave as their replacements.
cudaError_t cudaThreadSynchronize();
cudaError_t cudaThreadExit();
cudaError_t cudaThreadSetCacheConfig(cudaFuncCache c);
cudaError_t cudaThreadGetCacheConfig(cudaFuncCache *c);
cudaError_t cudaThreadSetLimit(cudaLimit l, size_t v);
cudaError_t cudaThreadGetLimit(size_t *v, cudaLimit l);

// ---- errors -----------------------------------------------------------------------------
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char *cudaGetErrorName(cudaError_t e);
const char *cudaGetErrorString(cudaError_t e);

// ---- memory -----------------------------------------------------------------------------
// The caller's place is recorded (default arguments are evaluated where the call is) for
// the report of bytes that nothing wrote.
cudaError_t cudaMalloc(void **p, size_t n, const char *file,
                       int line);
template <class T>
inline cudaError_t cudaMalloc(T **p, size_t n, const char *file,
                              int line) {
  return cudaMalloc(reinterpret_cast<void **>(p), n, file, line);
}
cudaError_t cudaMallocManaged(void **p, size_t n, unsigned,
                              const char *file,
                              int line);
template <class T>
inline cudaError_t cudaMallocManaged(T **p, size_t n, unsigned f,
                                     const char *file,
                                     int line) {
  return cudaMallocManaged(reinterpret_cast<void **>(p), n, f, file, line);
}
cudaError_t cudaMallocHost(void **p, size_t n);
cudaError_t cudaMallocHost(void **p, size_t n, unsigned);
template <class T> inline cudaError_t cudaMallocHost(T **p, size_t n, unsigned) {
  return cudaMallocHost(reinterpret_cast<void **>(p), n);
}
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned);
template <class T> inline cudaError_t cudaHostAlloc(T **p, size_t n, unsigned) {
  return cudaMallocHost(reinterpret_cast<void **>(p), n);
}
cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t w, size_t h);
template <class T> inline cudaError_t cudaMallocPitch(T **p, size_t *pitch, size_t w, size_t h) {
  return cudaMallocPitch(reinterpret_cast<void **>(p), pitch, w, h);
}
cudaError_t cudaMalloc3D(cudaPitchedPtr *p, cudaExtent e);
cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s,
                            const char *file,
                            int line);
template <class T>
inline cudaError_t cudaMallocAsync(T **p, size_t n, cudaStream_t s,
                                   const char *file,
                                   int line) {
  return cudaMallocAsync(reinterpret_cast<void **>(p), n, s, file, line);
}
cudaError_t cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t, cudaStream_t,
                                    const char *file,
                                    int line);
template <class T>
inline cudaError_t cudaMallocAsync(T **p, size_t n, cudaMemPool_t pool, cudaStream_t s) {
  return cudaMallocFromPoolAsync(reinterpret_cast<void **>(p), n, pool, s);
}
cudaError_t cudaFree(void *p);
cudaError_t cudaFreeHost(void *p);
cudaError_t cudaFreeAsync(void *p, cudaStream_t s);
cudaError_t cudaHostRegister(void *, size_t, unsigned);
cudaError_t cudaHostUnregister(void *);
cudaError_t cudaHostGetDevicePointer(void **d, void *h, unsigned);
template <class T> inline cudaError_t cudaHostGetDevicePointer(T **d, void *h, unsigned f) {
  return cudaHostGetDevicePointer(reinterpret_cast<void **>(d), h, f);
}
cudaError_t cudaHostGetFlags(unsigned *f, void *);
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *a, const void *p);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total);
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind k);
cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind k,
                            cudaStream_t st);
cudaError_t cudaMemcpyPeer(void *d, int, const void *s, int, size_t n);
cudaError_t cudaMemcpyPeerAsync(void *d, int dd, const void *s, int sd, size_t n,
                                cudaStream_t);
cudaError_t cudaMemcpy2D(void *d, size_t dp, const void *s, size_t sp, size_t w,
                         size_t h, cudaMemcpyKind k);
cudaError_t cudaMemcpy2DAsync(void *d, size_t dp, const void *s, size_t sp, size_t w,
                              size_t h, cudaMemcpyKind k, cudaStream_t st);
cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *p);
cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms *p, cudaStream_t st);
cudaError_t cudaMemset(void *p, int v, size_t n);
cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t st);
cudaError_t cudaMemset2D(void *p, size_t pitch, int v, size_t w, size_t h);
cudaError_t cudaMemset2DAsync(void *p, size_t pitch, int v, size_t w, size_t h,
                              cudaStream_t st);
cudaError_t cudaMemset3D(cudaPitchedPtr p, int v, cudaExtent e);
cudaError_t cudaMemset3DAsync(cudaPitchedPtr p, int v, cudaExtent e,
                              cudaStream_t = nullptr);
// Symbols: a __device__/__constant__ variable is an ordinary global here. The C API form
// takes the symbol's address (`const void *`); the C++ form takes the variable itself.
cudaError_t cudaMemcpyToSymbol(const void *sym, const void *src, size_t n,
                               size_t off = 0, cudaMemcpyKind = cudaMemcpyHostToDevice);
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
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *sym, size_t n, size_t off = 0,
                                 cudaMemcpyKind = cudaMemcpyDeviceToHost);
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
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *sym, size_t n, size_t off,
                                      cudaMemcpyKind k, cudaStream_t);
template <class T> inline cudaError_t cudaGetSymbolAddress(void **p, const T &sym) {
  *p = const_cast<T *>(&sym);
  return cudaSuccess;
}
template <class T> inline cudaError_t cudaGetSymbolSize(size_t *n, const T &) {
  *n = sizeof(T);
  return cudaSuccess;
}
// Unified memory hints: no-ops (all memory is the host's). CUDA 13's forms and the older ones.
cudaError_t cudaMemPrefetchAsync(const void *, size_t, cudaMemLocation, unsigned,
                                 cudaStream_t);
cudaError_t cudaMemPrefetchAsync(const void *, size_t, int, cudaStream_t = nullptr);
cudaError_t cudaMemAdvise(const void *, size_t, cudaMemoryAdvise, cudaMemLocation);
cudaError_t cudaMemAdvise(const void *, size_t, cudaMemoryAdvise, int);
// Memory pools: allocations from any pool are plain allocations; attributes are stored.
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int);
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *pool, int d);
cudaError_t cudaDeviceSetMemPool(int, cudaMemPool_t);
cudaError_t cudaMemPoolCreate(cudaMemPool_t *pool, const cudaMemPoolProps *);
cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool);
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr a, void *v);
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr a, void *v);
cudaError_t cudaMemPoolSetAccess(cudaMemPool_t, const cudaMemAccessDesc *, size_t);
cudaError_t cudaMemPoolGetAccess(cudaMemAccessFlags *f, cudaMemPool_t, cudaMemLocation *);
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t, size_t);
// Inter-process sharing needs a driver: these fail as on a device without the feature.
cudaError_t cudaMemPoolExportToShareableHandle(void *, cudaMemPool_t,
                                               cudaMemAllocationHandleType, unsigned);
cudaError_t cudaMemPoolImportFromShareableHandle(cudaMemPool_t *, void *,
                                                 cudaMemAllocationHandleType, unsigned);
cudaError_t cudaMemPoolExportPointer(cudaMemPoolPtrExportData *, void *);
cudaError_t cudaMemPoolImportPointer(void **, cudaMemPool_t, cudaMemPoolPtrExportData *);
cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *, void *);
cudaError_t cudaIpcOpenMemHandle(void **, cudaIpcMemHandle_t, unsigned);
cudaError_t cudaIpcCloseMemHandle(void *);
cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *, cudaEvent_t);
cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *, cudaIpcEventHandle_t);

// ---- streams ----------------------------------------------------------------------------
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned flags, int priority);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t);
cudaError_t cudaStreamQuery(cudaStream_t);
cudaError_t cudaStreamGetFlags(cudaStream_t s, unsigned *f);
cudaError_t cudaStreamGetPriority(cudaStream_t s, int *p);
cudaError_t cudaStreamGetDevice(cudaStream_t, int *d);
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned);
cudaError_t cudaStreamAttachMemAsync(cudaStream_t, void *, size_t,
                                     unsigned);
// Everything enqueued before has completed, so a callback runs at once, in program order.
cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb, void *data,
                                  unsigned);
cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *data);
cudaError_t cudaStreamSetAttribute(cudaStream_t s, cudaStreamAttrID a,
                                   const cudaStreamAttrValue *v);
cudaError_t cudaStreamGetAttribute(cudaStream_t s, cudaStreamAttrID a,
                                   cudaStreamAttrValue *v);

// ---- events: the host clock when recorded (the work before them has completed) ----------
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags);
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventCreate(cudaEvent_t *e, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s);
cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s,
                                     unsigned);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventQuery(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t ea, cudaEvent_t eb);

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
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, const void *f);
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
