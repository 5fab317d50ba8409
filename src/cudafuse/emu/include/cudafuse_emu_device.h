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
#define CUDAFUSE_FRONT_END_BODY ;  // the runtime's headers define those functions
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

[[noreturn]] void report_exit(const char *msg);

[[noreturn]] void vfail(const char *fmt, va_list ap);

[[noreturn]] void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

inline cudaError_t g_last_error = cudaSuccess;
inline cudaError_t rt_error(cudaError_t e) {
  if (e != cudaSuccess) g_last_error = e;
  return e;
}

// The device the emulator pretends to be: an H100 (SXM, 80 GB), compute capability 9.0.
const cudaDeviceProp &device_props();

// Live allocations, for cudaMemGetInfo and cudaPointerGetAttributes.
struct Allocations {
  std::mutex mu;
  std::map<const char *, std::pair<size_t, cudaMemoryType>> live;
  size_t device_bytes = 0;
};
Allocations &allocations();
// Fresh memory of cudaMalloc & co. holds whatever a GPU left there. The emulator fills it
// with one byte, CUDAFUSE_EMU_FILL (default 0), so that a run is reproducible; `verify`
// runs the original with two fills, and a program whose outputs change with the fill reads
// memory that nothing wrote (what compute-sanitizer's initcheck reports).
int fill_byte();

// Where each allocation was made (cudaMalloc's caller), for the unwritten-bytes report.
struct AllocSite {
  const char *file;
  int line;
  // The first kernel launched with a pointer into the allocation while it still held fill
  // bytes (a reader, when the bytes stay unwritten to the end).
  const char *kernel = nullptr, *launch_file = nullptr;
  int launch_line = 0;
};
std::map<const char *, AllocSite> &alloc_sites();

// With CUDAFUSE_EMU_UNWRITTEN=PATH, every allocation that still holds fill bytes when it is
// freed (or at exit) is a line of PATH: "file<TAB>line<TAB>size<TAB>ranges", the ranges
// "start+length" of fill bytes, comma-separated (the first 64; a final "..." says there are
// more). A byte equal to the fill may have been written with that value: only the bytes
// that hold the fill in runs with two different fills were never written (runtime/uninit.py).
void note_unwritten(const char *mem, size_t n, AllocSite site);
// A launch's pointer argument: the first kernel given an allocation that holds fill bytes
// is recorded (only while the report is asked for: it scans the allocation).
void note_passed(const char *kernel, const char *file, int line, const void *p);
void note_unwritten_at_exit();

cudaError_t rt_alloc(void **p, size_t n, cudaMemoryType type, const char *file = nullptr,
                     int line = 0);
cudaError_t rt_free(void *p);
cudaMemoryType rt_kind(const void *p);

double host_ms();
inline unsigned g_device_flags = 0;
inline cudaFuncCache g_cache_config = cudaFuncCachePreferNone;
inline cudaSharedMemConfig g_smem_config = cudaSharedMemBankSizeFourByte;
inline size_t g_limits[7] = {1024, 1 << 20, 8 << 20, 2, 2048, 64, 0};
}  // namespace cudafuse_emu
