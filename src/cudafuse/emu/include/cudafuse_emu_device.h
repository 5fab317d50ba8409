// cudafuse_emu_device.h: the device the emulator pretends to be, and what every other part
// of it builds on: the geometry of the thread now running, error reports (fail), the runtime's
// last error, the device's properties and its memory (allocations, their fill, their callers).
//
// Included by cudafuse_emu.h right after dim3, through cudafuse_emu_runtime.h; below it stand
// only the runtime API's declarations (cuda_api/cudafuse_cuda_api.h, shared with the front end).
#pragma once
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

// The runtime API's types and declarations, shared with the front end: the emulator's headers
// define the functions declared there. An allocation's caller (file, line) comes in by default
// arguments, for the unwritten-memory report.
#define CUDAFUSE_CALL_SITE , const char *file = __builtin_FILE(), int line = __builtin_LINE()
#define CUDAFUSE_NOT_EMULATED(why) __attribute__((error(why)))
#include "../../cuda_api/cudafuse_cuda_api.h"

// The emulator's per-OS-thread state: the blocks of a launch may run on several
// (cudafuse_emu_parallel.h). Local-dynamic: the library defines all of it, so an access costs
// one lookup of the library's TLS block per function, not one call per access (the default
// for a symbol another library could define, about twice the run time of a fiber kernel).
#define __CUDAFUSE_TLS thread_local __attribute__((tls_model("local-dynamic")))

// The launch geometry of the thread now running (set by the scheduler before it runs one).
inline __CUDAFUSE_TLS uint3 threadIdx, blockIdx;
inline __CUDAFUSE_TLS dim3 blockDim, gridDim;
constexpr int warpSize = 32;

namespace cudafuse_emu {

// POSIX calls the emulator needs, declared here rather than by including <unistd.h> and
// <sys/mman.h>, which would put names such as `pipe`, `sync` or `open` in the program's
// global namespace (where user functions of those names would then clash).
namespace sys {
extern "C" void *mmap(void *, size_t, int, int, int, long) noexcept;
extern "C" int mprotect(void *, size_t, int) noexcept;
}  // namespace sys

// ---- error reports ----------------------------------------------------------------------
struct Site { const char *kernel; const char *file; int line; };
inline __CUDAFUSE_TLS Site g_site{"", "", 0};
inline __CUDAFUSE_TLS bool g_in_kernel = false;
// The linear id of the block this OS thread runs for a launch whose blocks run in parallel
// (-1 elsewhere): an error there is reported only once every lower block has run, as the
// serial order would have (par_stop, cudafuse_emu_parallel.h).
inline __CUDAFUSE_TLS long long g_par_block = -1;
[[noreturn]] inline void par_stop(int sig, const char *text);

[[noreturn]] inline void report_exit(const char *msg) {
  bool reported = false;  // the runtime shows the report: stderr would repeat it
  if (const char *path = getenv("CUDAFUSE_EMU_REPORT")) {
    if (FILE *fh = fopen(path, "w")) {
      reported = fputs(msg, fh) >= 0;
      reported = fclose(fh) == 0 && reported;
    }
  }
  if (!reported) fprintf(stderr, "cudafuse-emu: error: %s\n", msg);
  fflush(stdout);
  fflush(stderr);
  std::_Exit(86);
}

[[noreturn]] inline void vfail(const char *fmt, va_list ap) {
  char msg[8192];
  int n = 0;
  if (g_in_kernel && g_site.line)
    n = snprintf(msg, sizeof msg, "%s:%d: kernel '%s', block (%u,%u,%u): ", g_site.file,
                 g_site.line, g_site.kernel, blockIdx.x, blockIdx.y, blockIdx.z);
  else if (g_in_kernel)
    n = snprintf(msg, sizeof msg, "kernel '%s', block (%u,%u,%u): ", g_site.kernel,
                 blockIdx.x, blockIdx.y, blockIdx.z);
  vsnprintf(msg + n, sizeof msg - n, fmt, ap);
  if (g_par_block >= 0) par_stop(0, msg);
  report_exit(msg);
}

[[noreturn]] inline void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
[[noreturn]] inline void fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(fmt, ap);
}

inline cudaError_t g_last_error = cudaSuccess;
inline cudaError_t rt_error(cudaError_t e) {
  if (e != cudaSuccess) g_last_error = e;
  return e;
}

// The device the emulator pretends to be: an H100 (SXM, 80 GB), compute capability 9.0.
inline const cudaDeviceProp &device_props() {
  static const cudaDeviceProp props = [] {
    cudaDeviceProp p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "NVIDIA H100 80GB HBM3 (cudafuse emulator)");
    memcpy(p.uuid.bytes, "cudafuse-emu-gpu", 16);
    p.totalGlobalMem = size_t(80) << 30;
    p.sharedMemPerBlock = 48 << 10;
    p.regsPerBlock = 65536;
    p.warpSize = 32;
    p.memPitch = 2147483647;
    p.maxThreadsPerBlock = 1024;
    p.maxThreadsDim[0] = 1024, p.maxThreadsDim[1] = 1024, p.maxThreadsDim[2] = 64;
    p.maxGridSize[0] = 2147483647, p.maxGridSize[1] = 65535, p.maxGridSize[2] = 65535;
    p.totalConstMem = 64 << 10;
    p.major = 9, p.minor = 0;
    p.textureAlignment = 512, p.texturePitchAlignment = 32;
    p.multiProcessorCount = 132;
    p.canMapHostMemory = 1;
    p.maxTexture1D = 131072, p.maxTexture1DMipmap = 32768;
    p.maxTexture2D[0] = 131072, p.maxTexture2D[1] = 65536;
    p.maxTexture2DMipmap[0] = p.maxTexture2DMipmap[1] = 32768;
    p.maxTexture2DLinear[0] = 131072, p.maxTexture2DLinear[1] = 65000;
    p.maxTexture2DLinear[2] = 2097120;
    p.maxTexture2DGather[0] = p.maxTexture2DGather[1] = 32768;
    p.maxTexture3D[0] = p.maxTexture3D[1] = p.maxTexture3D[2] = 16384;
    p.maxTexture3DAlt[0] = p.maxTexture3DAlt[1] = 8192, p.maxTexture3DAlt[2] = 32768;
    p.maxTextureCubemap = 32768;
    p.maxTexture1DLayered[0] = 32768, p.maxTexture1DLayered[1] = 2048;
    p.maxTexture2DLayered[0] = p.maxTexture2DLayered[1] = 32768, p.maxTexture2DLayered[2] = 2048;
    p.maxTextureCubemapLayered[0] = 32768, p.maxTextureCubemapLayered[1] = 2046;
    p.maxSurface1D = 32768, p.maxSurface2D[0] = 131072, p.maxSurface2D[1] = 65536;
    p.maxSurface3D[0] = p.maxSurface3D[1] = p.maxSurface3D[2] = 16384;
    p.maxSurface1DLayered[0] = 32768, p.maxSurface1DLayered[1] = 2048;
    p.maxSurface2DLayered[0] = p.maxSurface2DLayered[1] = 32768, p.maxSurface2DLayered[2] = 2048;
    p.maxSurfaceCubemap = 32768;
    p.maxSurfaceCubemapLayered[0] = 32768, p.maxSurfaceCubemapLayered[1] = 2046;
    p.surfaceAlignment = 512;
    p.concurrentKernels = 1, p.ECCEnabled = 1;
    p.asyncEngineCount = 3, p.unifiedAddressing = 1;
    p.memoryBusWidth = 5120, p.l2CacheSize = 50 << 20;
    p.persistingL2CacheMaxSize = 30 << 20;
    p.maxThreadsPerMultiProcessor = 2048, p.streamPrioritiesSupported = 1;
    p.globalL1CacheSupported = 1, p.localL1CacheSupported = 1;
    p.sharedMemPerMultiprocessor = 228 << 10;
    p.regsPerMultiprocessor = 65536, p.managedMemory = 1;
    p.concurrentManagedAccess = 1, p.computePreemptionSupported = 1;
    p.canUseHostPointerForRegisteredMem = 1, p.cooperativeLaunch = 1;
    p.sharedMemPerBlockOptin = 227 << 10;
    p.maxBlocksPerMultiProcessor = 32, p.accessPolicyMaxWindowSize = 134213632;
    p.reservedSharedMemPerBlock = 1024;
    p.hostRegisterSupported = 1, p.sparseCudaArraySupported = 1;
    p.hostRegisterReadOnlySupported = 1, p.timelineSemaphoreInteropSupported = 1;
    p.memoryPoolsSupported = 1, p.memoryPoolSupportedHandleTypes = 1;
    p.deferredMappingCudaArraySupported = 1, p.ipcEventSupported = 1, p.clusterLaunch = 1;
    p.unifiedFunctionPointers = 1, p.deviceNumaId = -1, p.hostNumaId = -1;
    p.gpuPciDeviceID = 0x233010de;
    p.clockRate = 1980000, p.memoryClockRate = 2619000, p.deviceOverlap = 1;
    p.singleToDoublePrecisionPerfRatio = 2, p.maxTexture1DLinear = 268435456;
    return p;
  }();
  return props;
}

// Live allocations, for cudaMemGetInfo and cudaPointerGetAttributes.
struct Allocations {
  std::mutex mu;
  std::map<const char *, std::pair<size_t, cudaMemoryType>> live;
  size_t device_bytes = 0;
};
inline Allocations &allocations() {
  static Allocations *a = new Allocations;  // never destroyed: frees may come from destructors
  return *a;
}
// Fresh memory of cudaMalloc & co. holds whatever a GPU left there. The emulator fills it
// with one byte, CUDAFUSE_EMU_FILL (default 0), so that a run is reproducible; `verify`
// runs the original with two fills, and a program whose outputs change with the fill reads
// memory that nothing wrote (what compute-sanitizer's initcheck reports).
inline int fill_byte() {
  static const int b = [] {
    const char *s = getenv("CUDAFUSE_EMU_FILL");
    return s ? int(strtol(s, nullptr, 0) & 0xff) : 0;
  }();
  return b;
}

// Where each allocation was made (cudaMalloc's caller), for the unwritten-bytes report.
struct AllocSite {
  const char *file;
  int line;
  // The first kernel launched with a pointer into the allocation while it still held fill
  // bytes (a reader, when the bytes stay unwritten to the end).
  const char *kernel = nullptr, *launch_file = nullptr;
  int launch_line = 0;
};
inline std::map<const char *, AllocSite> &alloc_sites() {
  static auto *m = new std::map<const char *, AllocSite>;  // guarded by allocations().mu
  return *m;
}

// With CUDAFUSE_EMU_UNWRITTEN=PATH, every allocation that still holds fill bytes when it is
// freed (or at exit) is a line of PATH: "file<TAB>line<TAB>size<TAB>ranges", the ranges
// "start+length" of fill bytes, comma-separated (the first 64; a final "..." says there are
// more). A byte equal to the fill may have been written with that value: only the bytes
// that hold the fill in runs with two different fills were never written (runtime/uninit.py).
inline void note_unwritten(const char *mem, size_t n, AllocSite site) {
  static const char *path = getenv("CUDAFUSE_EMU_UNWRITTEN");
  if (!path || !n) return;
  const unsigned char fill = (unsigned char)fill_byte();
  const unsigned char *b = reinterpret_cast<const unsigned char *>(mem);
  std::string ranges;
  int listed = 0;
  for (size_t i = 0; i < n;) {
    if (b[i] != fill) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < n && b[j] == fill) ++j;
    if (listed == 64) {
      ranges += ",...";
      break;
    }
    ranges += (listed++ ? "," : "") + std::to_string(i) + "+" + std::to_string(j - i);
    i = j;
  }
  if (ranges.empty()) return;
  if (FILE *f = fopen(path, "a")) {
    fprintf(f, "%s\t%d\t%zu\t%s", site.file ? site.file : "", site.line, n, ranges.c_str());
    if (site.kernel)
      fprintf(f, "\t%s\t%s\t%d", site.kernel, site.launch_file ? site.launch_file : "",
              site.launch_line);
    fprintf(f, "\n");
    fclose(f);
  }
}
// A launch's pointer argument: the first kernel given an allocation that holds fill bytes
// is recorded (only while the report is asked for: it scans the allocation).
inline void note_passed(const char *kernel, const char *file, int line, const void *p) {
  static const bool on = getenv("CUDAFUSE_EMU_UNWRITTEN") != nullptr;
  if (!on || !p) return;
  Allocations &a = allocations();
  std::lock_guard<std::mutex> lock(a.mu);
  auto it = a.live.upper_bound(static_cast<const char *>(p));
  if (it == a.live.begin()) return;
  --it;
  if (static_cast<const char *>(p) >= it->first + it->second.first) return;
  auto site = alloc_sites().find(it->first);
  if (site == alloc_sites().end() || site->second.kernel) return;
  const unsigned char fill = (unsigned char)fill_byte();
  const unsigned char *b = reinterpret_cast<const unsigned char *>(it->first);
  for (size_t i = 0; i < it->second.first; ++i)
    if (b[i] == fill) {
      site->second.kernel = kernel;
      site->second.launch_file = file;
      site->second.launch_line = line;
      return;
    }
}
inline void note_unwritten_at_exit() {
  Allocations &a = allocations();
  std::lock_guard<std::mutex> lock(a.mu);
  for (auto &[mem, info] : a.live) {
    auto it = alloc_sites().find(mem);
    if (info.second != cudaMemoryTypeHost && it != alloc_sites().end())
      note_unwritten(mem, info.first, it->second);
  }
}

inline cudaError_t rt_alloc(void **p, size_t n, cudaMemoryType type, const char *file = nullptr,
                            int line = 0) {
  if (!p) return rt_error(cudaErrorInvalidValue);
  *p = nullptr;
  if (n > device_props().totalGlobalMem) return rt_error(cudaErrorMemoryAllocation);
  // A guard zone of fill bytes follows every allocation (what a GPU holds past an
  // allocation is whatever was there): a program that reads past its allocation then reads
  // the fill there, which verify's two fills tell apart, rather than this process's heap,
  // which changes from run to run and would be blamed on a transformed program.
  const size_t rounded = (n + 255) & ~size_t(255), total = rounded + 256;
  void *mem = aligned_alloc(256, total);
  if (!mem && n) return rt_error(cudaErrorMemoryAllocation);
  // glibc serves blocks above its largest mmap threshold (32 MiB) with fresh, zeroed pages:
  // a zero fill there would only commit the memory of a large pool the program barely uses.
  if (mem && (fill_byte() != 0 || n < (size_t(32) << 20))) memset(mem, fill_byte(), total);
  else if (mem) memset(static_cast<char *>(mem) + n, fill_byte(), total - n);
  static const bool reporting = [] {
    if (getenv("CUDAFUSE_EMU_UNWRITTEN")) std::atexit(note_unwritten_at_exit);
    return true;
  }();
  (void)reporting;
  Allocations &a = allocations();
  std::lock_guard<std::mutex> lock(a.mu);
  a.live[static_cast<const char *>(mem)] = {n, type};
  if (file) alloc_sites()[static_cast<const char *>(mem)] = {file, line};
  if (type != cudaMemoryTypeHost) a.device_bytes += n;
  *p = mem;
  return cudaSuccess;
}
inline cudaError_t rt_free(void *p) {
  if (!p) return cudaSuccess;
  Allocations &a = allocations();
  {
    std::lock_guard<std::mutex> lock(a.mu);
    auto it = a.live.find(static_cast<const char *>(p));
    if (it == a.live.end()) return rt_error(cudaErrorInvalidValue);
    auto site = alloc_sites().find(it->first);
    if (site != alloc_sites().end()) {
      if (it->second.second != cudaMemoryTypeHost)
        note_unwritten(it->first, it->second.first, site->second);
      alloc_sites().erase(site);
    }
    if (it->second.second != cudaMemoryTypeHost) a.device_bytes -= it->second.first;
    a.live.erase(it);
  }
  free(p);
  return cudaSuccess;
}
inline cudaMemoryType rt_kind(const void *p) {
  Allocations &a = allocations();
  std::lock_guard<std::mutex> lock(a.mu);
  auto it = a.live.upper_bound(static_cast<const char *>(p));
  if (it == a.live.begin()) return cudaMemoryTypeUnregistered;
  --it;
  if (static_cast<const char *>(p) >= it->first + (it->second.first ? it->second.first : 1))
    return cudaMemoryTypeUnregistered;
  return it->second.second;
}

inline double host_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}
inline unsigned g_device_flags = 0;
inline cudaFuncCache g_cache_config = cudaFuncCachePreferNone;
inline cudaSharedMemConfig g_smem_config = cudaSharedMemBankSizeFourByte;
inline size_t g_limits[7] = {1024, 1 << 20, 8 << 20, 2, 2048, 64, 0};
}  // namespace cudafuse_emu
