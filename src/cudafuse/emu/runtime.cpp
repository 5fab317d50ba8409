// runtime.cpp: the bodies of the emulator runtime's functions that are not templates (the
// runtime API, allocations, stream capture, graphs, CUDA arrays, dynamic parallelism's grid
// switch) and of a launch past its kernel's type (Launch::run_erased: the checks, the block
// and fiber schedulers, the block pool; kernel registration), compiled once per build cache
// into an object that every emulated program links (runtime/build.py, _runtime_object), as
// guard.cpp is. Their declarations, and everything that is a template or runs per thread in a
// kernel (texture sampling, barriers, fibers), stay in the headers.
//
// Why: g++ compiles an inline function of a header again in every program, with the std
// containers it instantiates (maps of allocations and captures, vectors, std::function),
// about 1 s of CPU a build whether or not the program calls it. Here that is paid once.
//
// Compiled as guard.cpp is: `-include cudafuse_emu.h`, without the program's macros (a
// program's `#define BLOCK 512` or `min` cannot reach this code), with the build's language
// standard, optimisation and sanitizer options. The object is linked into each program's
// shared library, so each program still has its own runtime state (allocations, last error),
// as with the inline functions before; -Bsymbolic binds the library's calls to its own copy.

#include <cxxabi.h>  // describe_function: a symbol's C++ name
#include <dlfcn.h>   // describe_function: the symbol at an address
#include <sys/mman.h>  // rt_alloc: guard pages around device allocations

// ---- cudafuse_emu_device.h: error reports, device properties, allocations -----------------
namespace cudafuse_emu {
[[noreturn]] void report_exit(const char *msg) {
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
[[noreturn]] void vfail(const char *fmt, va_list ap) {
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
[[noreturn]] void fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(fmt, ap);
}
const cudaDeviceProp &device_props() {
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
Allocations &allocations() {
  static Allocations *a = new Allocations;  // never destroyed: frees may come from destructors
  return *a;
}
int fill_byte() {
  static const int b = [] {
    const char *s = getenv("CUDAFUSE_EMU_FILL");
    return s ? int(strtol(s, nullptr, 0) & 0xff) : 0;
  }();
  return b;
}
std::map<const char *, AllocSite> &alloc_sites() {
  static auto *m = new std::map<const char *, AllocSite>;  // guarded by allocations().mu
  return *m;
}
void note_unwritten(const char *mem, size_t n, AllocSite site) {
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
void note_passed(const char *kernel, const char *file, int line, const void *p) {
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
void note_unwritten_at_exit() {
  Allocations &a = allocations();
  std::lock_guard<std::mutex> lock(a.mu);
  for (auto &[mem, info] : a.live) {
    auto it = alloc_sites().find(mem);
    if (info.second != cudaMemoryTypeHost && it != alloc_sites().end())
      note_unwritten(mem, info.first, it->second);
  }
}
// Guard zones around each device allocation (cudaMalloc, cudaMallocManaged, and what calls
// them): a kernel that reads or writes past an allocation's end, or before its start, is
// the program's fault, which compute-sanitizer's memcheck names and a GPU may not (it reads
// whatever lies there). Under AddressSanitizer the 256 bytes before the allocation and
// every byte from its end to the end of the 256-byte rounding and a 256-byte zone past it
// are poisoned (exact on both sides). Otherwise the allocation's rounding ends where 1 MiB
// of inaccessible address space begins, after a page of it before the allocation's first
// page: emu/guard.cpp's fault handler records the access. Both then name the allocation
// (cudafuse_emu_alloc_record). The bytes up to the 256-byte rounding hold the fill.
struct Guarded {
  char *base;     // what was mapped (or malloc'ed, under ASan)
  size_t length;  // its length: the zones and the allocation
};
std::map<const char *, Guarded> &guarded() {  // by the allocation's start; allocations().mu
  static auto *m = new std::map<const char *, Guarded>;
  return *m;
}
constexpr size_t kPage = 4096, kGuardAfter = size_t(1) << 20, kZone = 256;
// Past this many live guarded allocations the others get none (each mapping is up to three
// of the kernel's memory areas; Linux allows 65,530 a process by default).
constexpr size_t kMaxGuarded = 16384;

// The allocation whose zones or bytes hold `addr`, as lines of the fault record (guard.cpp)
// or of an AddressSanitizer report: its start, size and cudaMalloc site. 0 when none.
extern "C" int cudafuse_emu_alloc_record(const void *addr, char *buf, int size) {
  Allocations &a = allocations();
  if (!a.mu.try_lock()) return 0;  // called while the process dies: never wait
  const char *at = static_cast<const char *>(addr);
  auto it = guarded().upper_bound(at);  // the first allocation starting after `at`
  if ((it == guarded().end() || at < it->second.base) && it != guarded().begin()) --it;
  int n = 0;
  if (it != guarded().end() && at >= it->second.base &&
      at < it->second.base + it->second.length) {
    auto live = a.live.find(it->first);
    auto site = alloc_sites().find(it->first);
    const bool known = site != alloc_sites().end() && site->second.file;
    n = snprintf(buf, size_t(size), "alloc_start %p\nalloc_size %zu\nalloc_line %d\n"
                 "alloc_file %s\n", static_cast<const void *>(it->first),
                 live != a.live.end() ? live->second.first : size_t(0),
                 known ? site->second.line : 0, known ? site->second.file : "");
  }
  a.mu.unlock();
  return n > 0 && n < size ? n : 0;
}

#if defined(__SANITIZE_ADDRESS__)
// After AddressSanitizer's report, before the process ends: the allocation the bad address
// lies in or beside, appended to the report (runtime/asan.py reads it).
void name_allocation_on_death() {
  char buf[1024];
  if (cudafuse_emu_alloc_record(__asan_get_report_address(), buf, sizeof buf) > 0)
    __sanitizer_report_error_summary(buf);
}
#endif

// A guarded allocation of n bytes (n > 0), its fill written; nullptr when none can be made.
char *guarded_alloc(size_t n, size_t rounded) {
  const unsigned char fill = (unsigned char)fill_byte();
#if defined(__SANITIZE_ADDRESS__)
  static const bool named = (__asan_set_death_callback(name_allocation_on_death), true);
  (void)named;
  const size_t length = kZone + rounded + kZone;
  char *base = static_cast<char *>(aligned_alloc(kZone, length));
  if (!base) return nullptr;
  memset(base, fill, length);
  char *mem = base + kZone;
  ASAN_POISON_MEMORY_REGION(base, kZone);
  ASAN_POISON_MEMORY_REGION(mem + n, length - kZone - n);
#else
  const size_t data = (rounded + kPage - 1) & ~(kPage - 1), length = kPage + data + kGuardAfter;
  void *map = mmap(nullptr, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
  if (map == MAP_FAILED) return nullptr;
  char *base = static_cast<char *>(map);
  if (mprotect(base + kPage, data, PROT_READ | PROT_WRITE) != 0) {
    munmap(base, length);
    return nullptr;
  }
  char *mem = base + kPage + data - rounded;
  if (fill) memset(base + kPage, fill, data);  // fresh pages hold zeros
#endif
  guarded()[mem] = {base, length};
  return mem;
}

cudaError_t rt_alloc(void **p, size_t n, cudaMemoryType type, const char *file,
                     int line) {
  if (!p) return rt_error(cudaErrorInvalidValue);
  *p = nullptr;
  if (n > device_props().totalGlobalMem) return rt_error(cudaErrorMemoryAllocation);
  const size_t rounded = (n + 255) & ~size_t(255), total = rounded + 256;
  void *mem = nullptr;
  if (type != cudaMemoryTypeHost && n) {
    std::lock_guard<std::mutex> lock(allocations().mu);
    if (guarded().size() < kMaxGuarded) mem = guarded_alloc(n, rounded);
  }
  if (!mem) {
    // Host memory, an empty allocation, or past kMaxGuarded: a zone of fill bytes follows
    // (a read past the allocation then reads the fill, which verify's two fills tell
    // apart, rather than this process's heap, which changes from run to run).
    mem = aligned_alloc(256, total);
    if (!mem && n) return rt_error(cudaErrorMemoryAllocation);
    // glibc serves blocks above its largest mmap threshold (32 MiB) with fresh, zeroed
    // pages: a zero fill there would only commit the memory of a large pool the program
    // barely uses.
    if (mem && (fill_byte() != 0 || n < (size_t(32) << 20))) memset(mem, fill_byte(), total);
    else if (mem) memset(static_cast<char *>(mem) + n, fill_byte(), total - n);
  }
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
#if !defined(__SANITIZE_ADDRESS__)
// Without ASan the bytes of a guarded allocation's pages before its start and past its end
// (up to the 256-byte rounding) are not protected, but hold the fill: a kernel or copy that
// wrote there changed them, which is said when the allocation is freed.
void check_slack(const char *mem, size_t n, const Guarded &g, const AllocSite *site) {
  const unsigned char fill = (unsigned char)fill_byte();
  const char *first = g.base + kPage, *end = mem + ((n + 255) & ~size_t(255));
  const char *bad = nullptr;
  for (const char *c = first; c < mem && !bad; ++c)
    if ((unsigned char)*c != fill) bad = c;
  for (const char *c = mem + n; c < end && !bad; ++c)
    if ((unsigned char)*c != fill) bad = c;
  if (!bad) return;
  char where[600];
  if (site && site->file)
    snprintf(where, sizeof where, "%s:%d: the %zu-byte device allocation made here", site->file,
             site->line, n);
  else
    snprintf(where, sizeof where, "the %zu-byte device allocation at %p (cudaMallocPitch or a "
             "CUDA array)", n, static_cast<const void *>(mem));
  fail("%s was written %s (byte %lld holds 0x%02x, not the fill 0x%02x), found when it was "
       "freed: a kernel or a copy wrote outside it (rerun with --sanitize for the access)",
       where, bad < mem ? "before its start" : "past its end", (long long)(bad - mem),
       (unsigned char)*bad, fill);
}
#endif

cudaError_t rt_free(void *p) {
  if (!p) return cudaSuccess;
  Allocations &a = allocations();
  Guarded zones{nullptr, 0};
  {
    std::lock_guard<std::mutex> lock(a.mu);
    auto it = a.live.find(static_cast<const char *>(p));
    if (it == a.live.end()) return rt_error(cudaErrorInvalidValue);
#if !defined(__SANITIZE_ADDRESS__)
    auto zone = guarded().find(it->first);
    if (zone != guarded().end()) {
      auto made = alloc_sites().find(it->first);
      check_slack(it->first, it->second.first, zone->second,
                  made != alloc_sites().end() ? &made->second : nullptr);
    }
#endif
    auto site = alloc_sites().find(it->first);
    if (site != alloc_sites().end()) {
      if (it->second.second != cudaMemoryTypeHost)
        note_unwritten(it->first, it->second.first, site->second);
      alloc_sites().erase(site);
    }
    if (it->second.second != cudaMemoryTypeHost) a.device_bytes -= it->second.first;
    a.live.erase(it);
    auto g = guarded().find(static_cast<const char *>(p));
    if (g != guarded().end()) {
      zones = g->second;
      guarded().erase(g);
    }
  }
  if (!zones.base) {
    free(p);
  } else {
#if defined(__SANITIZE_ADDRESS__)
    ASAN_UNPOISON_MEMORY_REGION(zones.base, zones.length);
    free(zones.base);
#else
    munmap(zones.base, zones.length);
#endif
  }
  return cudaSuccess;
}
cudaMemoryType rt_kind(const void *p) {
  Allocations &a = allocations();
  std::lock_guard<std::mutex> lock(a.mu);
  auto it = a.live.upper_bound(static_cast<const char *>(p));
  if (it == a.live.begin()) return cudaMemoryTypeUnregistered;
  --it;
  if (static_cast<const char *>(p) >= it->first + (it->second.first ? it->second.first : 1))
    return cudaMemoryTypeUnregistered;
  return it->second.second;
}
double host_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace cudafuse_emu

// ---- cudafuse_emu_capture.h: graphs as the emulator holds them, stream capture -----------
namespace cudafuse_emu {
void ArgPack::set(const std::vector<size_t> &sizes, void **args) {
  size_t total = 0;
  std::vector<size_t> at;
  for (size_t s : sizes) {
    total = (total + 15) & ~size_t(15);
    at.push_back(total);
    total += s;
  }
  bytes.assign(total + 16, 0);
  ptrs.resize(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i]) memcpy(bytes.data() + at[i], args[i], sizes[i]);
    ptrs[i] = bytes.data() + at[i];
  }
}
ArgPack::ArgPack(const ArgPack &o) { *this = o; }
ArgPack &ArgPack::operator=(const ArgPack &o) {
  bytes = o.bytes;
  ptrs.resize(o.ptrs.size());
  for (size_t i = 0; i < o.ptrs.size(); ++i)
    ptrs[i] = bytes.data() + (static_cast<unsigned char *>(o.ptrs[i]) - o.bytes.data());
  return *this;
}
}  // namespace cudafuse_emu
namespace cudafuse_emu {
std::map<cudaGraphConditionalHandle, std::pair<unsigned, unsigned>> &cond_values() {
  static auto *m = new std::map<cudaGraphConditionalHandle, std::pair<unsigned, unsigned>>;
  return *m;  // handle -> (value, default applied at each launch)
}
std::shared_ptr<Graph> clone_graph(const Graph &g, std::map<const __cf_GNode *, __cf_GNode *> *map) {
  auto out = std::make_shared<Graph>();
  std::map<const __cf_GNode *, __cf_GNode *> local;
  std::map<const __cf_GNode *, __cf_GNode *> &m = map ? *map : local;
  for (const auto &n : g.nodes) {
    out->nodes.push_back(std::make_unique<__cf_GNode>(*n));
    __cf_GNode *c = out->nodes.back().get();
    if (n->child) c->child = clone_graph(*n->child, nullptr);
    for (auto &b : c->bodies) b = clone_graph(*b, nullptr);
    m[n.get()] = c;
  }
  for (auto &n : out->nodes)
    for (__cf_GNode *&d : n->deps) d = m[d];
  return out;
}
GraphMem &graph_mem() {
  static GraphMem *m = new GraphMem;
  return *m;
}
void *graph_alloc(size_t n) {
  void *p = aligned_alloc(256, (n + 255) & ~size_t(255));
  if (!p) return nullptr;
  graph_mem().live[p] = n;
  graph_mem().used += n;
  graph_mem().high = std::max(graph_mem().high, graph_mem().used);
  return p;
}
bool graph_owned(void *p) { return graph_mem().live.count(p) != 0; }
std::map<cudaStream_t, Capture> &captures() {
  static auto *m = new std::map<cudaStream_t, Capture>;
  return *m;
}
std::map<cudaEvent_t, Capture> &captured_events() {
  static auto *m = new std::map<cudaEvent_t, Capture>;
  return *m;
}
bool stream_capturing(cudaStream_t s) { return captures().count(s) != 0; }
__cf_GNode *add_node(Graph &g, const cudaGraphNode_t *deps, size_t n) {
  g.nodes.push_back(std::make_unique<__cf_GNode>());
  __cf_GNode *node = g.nodes.back().get();
  for (size_t i = 0; i < n; ++i) node->deps.push_back(node_of(deps[i]));
  return node;
}
__cf_GNode *capture_node(cudaStream_t s, cudaGraphNodeType type) {
  Capture &c = captures()[s];
  c.graph->nodes.push_back(std::make_unique<__cf_GNode>());
  __cf_GNode *node = c.graph->nodes.back().get();
  node->type = type;
  node->deps = c.deps;
  c.deps = {node};
  return node;
}
__cf_GNode *capture_launch(cudaStream_t s, const char *, std::function<void()> op) {
  __cf_GNode *node = capture_node(s, cudaGraphNodeTypeKernel);
  node->op = std::move(op);
  return node;
}
cudaError_t capture_op(cudaStream_t s, int type, std::function<void()> op) {
  capture_node(s, (cudaGraphNodeType)type)->op = std::move(op);
  return cudaSuccess;
}
cudaError_t capture_malloc(void **p, size_t n, cudaStream_t s) {
  __cf_GNode *node = capture_node(s, cudaGraphNodeTypeMemAlloc);
  node->ptr = *p = graph_alloc(n);
  return *p ? cudaSuccess : rt_error(cudaErrorMemoryAllocation);
}
cudaError_t capture_free(void *p, cudaStream_t s) {
  capture_node(s, cudaGraphNodeTypeMemFree)->ptr = p;
  return cudaSuccess;
}
cudaError_t capture_event_record(cudaEvent_t e, cudaStream_t s) {
  captured_events()[e] = captures()[s];
  return cudaSuccess;
}
bool capture_wait_event(cudaStream_t s, cudaEvent_t e) {
  auto it = captured_events().find(e);
  if (it == captured_events().end()) return false;
  bool live = false;
  for (auto &c : captures()) live |= c.second.graph == it->second.graph;
  if (!live) return false;
  auto own = captures().find(s);
  if (own == captures().end()) {
    captures()[s] = it->second;
  } else {
    for (__cf_GNode *d : it->second.deps)
      if (std::find(own->second.deps.begin(), own->second.deps.end(), d) ==
          own->second.deps.end())
        own->second.deps.push_back(d);
  }
  return true;
}
}  // namespace cudafuse_emu

// ---- cudafuse_emu_cdp.h: launches in device code -------------------------------------------
namespace cudafuse_emu {
std::vector<std::vector<char *>> g_level_stacks;
std::vector<std::function<void()>> g_tail;
ChildGrid::ChildGrid(const Site &child) : nested_(g_in_kernel) {
  if (!nested_) return;
  if (g_depth + 1 >= MAX_NESTING) {
    refused = true;
    rt_error(cudaErrorLaunchMaxDepthExceeded);
    (void)child;
    return;
  }
  site_ = g_site;
  fibers_ = g_fibers;
  coop_ = g_coop;
  grid_ = gridDim;
  block_ = blockDim;
  bidx_ = blockIdx;
  tidx_ = threadIdx;
  smem_size_ = g_dyn_smem_size;
  dyn_.assign(__cf_g_dyn_smem, __cf_g_dyn_smem + smem_size_);
  nvars_ = smem_vars().size();
  for (const SmemVar &v : smem_vars()) statics_.insert(statics_.end(), v.p, v.p + v.n);
  block_state_ = std::move((*__cf_tls_block()));
  (*__cf_tls_block()) = __cf_Block{};
  store_.swap((*__cf_tls_fibers()));
  sched_sp_ = g_sched_sp;
  level_ = g_depth++;
  if (g_level_stacks.size() < size_t(level_) + 2) g_level_stacks.resize(level_ + 2);
  std::swap((*__cf_tls_stacks()), g_level_stacks[level_]);      // park the parent's stacks
  std::swap((*__cf_tls_stacks()), g_level_stacks[level_ + 1]);  // take the child level's
  g_in_kernel = false;
}
ChildGrid::~ChildGrid() {
  if (!nested_ || refused) return;
  std::swap((*__cf_tls_stacks()), g_level_stacks[level_ + 1]);
  std::swap((*__cf_tls_stacks()), g_level_stacks[level_]);
  g_depth = level_;
  g_sched_sp = sched_sp_;
  __cf_tls_fibers()->swap(store_);
  (*__cf_tls_block()) = std::move(block_state_);
  size_t at = 0;
  for (size_t k = 0; k < nvars_; ++k) {
    const SmemVar &v = smem_vars()[k];
    memcpy(v.p, statics_.data() + at, v.n);
    at += v.n;
  }
  if (smem_size_) memcpy(__cf_g_dyn_smem, dyn_.data(), smem_size_);
  g_dyn_smem_size = smem_size_;
  gridDim = grid_;
  blockDim = block_;
  blockIdx = bidx_;
  threadIdx = tidx_;
  g_site = site_;
  g_fibers = fibers_;
  g_coop = coop_;
  g_in_kernel = true;
}
}  // namespace cudafuse_emu
namespace cudafuse_emu {
std::vector<SmemVar> &smem_vars() {
  static std::vector<SmemVar> *v = new std::vector<SmemVar>;
  return *v;
}
void push_tail(std::function<void()> op) { g_tail.push_back(std::move(op)); }
void run_tail_launches(size_t mark) {
  while (g_tail.size() > mark) {
    std::function<void()> op = std::move(g_tail[mark]);
    g_tail.erase(g_tail.begin() + (long)mark);
    op();
  }
}
}  // namespace cudafuse_emu

// ---- cudafuse_emu_runtime.h: the runtime API ------------------------------------------------
namespace cudafuse_emu {
cudaMemPool_t default_pool() {
  static Pool pool{};
  return reinterpret_cast<cudaMemPool_t>(&pool);
}
int occupancy(int block, size_t smem) {
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
cudaError_t cudaGetDeviceCount(int *n) {
  if (!n) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  *n = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int *d) {
  if (!d) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  *d = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int d) {
  return d == 0 ? cudaSuccess : ::cudafuse_emu::rt_error(cudaErrorInvalidDevice);
}
cudaError_t cudaInitDevice(int d, unsigned, unsigned) { return cudaSetDevice(d); }
cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
cudaError_t cudaDeviceReset() { return cudaSuccess; }
cudaError_t cudaSetDeviceFlags(unsigned f) {
  ::cudafuse_emu::g_device_flags = f;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceFlags(unsigned *f) {
  *f = ::cudafuse_emu::g_device_flags | cudaDeviceMapHost;
  return cudaSuccess;
}
cudaError_t cudaChooseDevice(int *d, const cudaDeviceProp *) {
  *d = 0;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int d) {
  if (!p) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  if (d != 0) return ::cudafuse_emu::rt_error(cudaErrorInvalidDevice);
  *p = ::cudafuse_emu::device_props();
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int d) {
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
cudaError_t cudaDeviceGetP2PAttribute(int *v, cudaDeviceP2PAttr, int, int) {
  *v = 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceCanAccessPeer(int *can, int, int) {
  *can = 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceEnablePeerAccess(int, unsigned) {
  return ::cudafuse_emu::rt_error(cudaErrorInvalidDevice);
}
cudaError_t cudaDeviceDisablePeerAccess(int) {
  return ::cudafuse_emu::rt_error(cudaErrorInvalidDevice);
}
cudaError_t cudaDeviceGetPCIBusId(char *id, int len, int d) {
  if (d != 0) return ::cudafuse_emu::rt_error(cudaErrorInvalidDevice);
  snprintf(id, len, "0000:00:00.0");
  return cudaSuccess;
}
cudaError_t cudaDeviceGetByPCIBusId(int *d, const char *) {
  *d = 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceSetLimit(cudaLimit l, size_t v) {
  if ((unsigned)l >= 7) return ::cudafuse_emu::rt_error(cudaErrorUnsupportedLimit);
  ::cudafuse_emu::g_limits[l] = v;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetLimit(size_t *v, cudaLimit l) {
  if ((unsigned)l >= 7) return ::cudafuse_emu::rt_error(cudaErrorUnsupportedLimit);
  *v = ::cudafuse_emu::g_limits[l];
  return cudaSuccess;
}
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache c) {
  ::cudafuse_emu::g_cache_config = c;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache *c) {
  *c = ::cudafuse_emu::g_cache_config;
  return cudaSuccess;
}
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig c) {
  ::cudafuse_emu::g_smem_config = c;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetSharedMemConfig(cudaSharedMemConfig *c) {
  *c = ::cudafuse_emu::g_smem_config;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = -5;
  return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int *v) {
  *v = 13000;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int *v) {
  *v = 13000;
  return cudaSuccess;
}
cudaError_t cudaProfilerStart() { return cudaSuccess; }
cudaError_t cudaProfilerStop() { return cudaSuccess; }
cudaError_t cudaCtxResetPersistingL2Cache() { return cudaSuccess; }
cudaError_t cudaDeviceFlushGPUDirectRDMAWrites(int, int) { return cudaSuccess; }
cudaError_t cudaThreadSynchronize() { return cudaSuccess; }
cudaError_t cudaThreadExit() { return cudaDeviceReset(); }
cudaError_t cudaThreadSetCacheConfig(cudaFuncCache c) { return cudaDeviceSetCacheConfig(c); }
cudaError_t cudaThreadGetCacheConfig(cudaFuncCache *c) { return cudaDeviceGetCacheConfig(c); }
cudaError_t cudaThreadSetLimit(cudaLimit l, size_t v) { return cudaDeviceSetLimit(l, v); }
cudaError_t cudaThreadGetLimit(size_t *v, cudaLimit l) { return cudaDeviceGetLimit(v, l); }
cudaError_t cudaGetLastError() {
  cudaError_t e = ::cudafuse_emu::g_last_error;
  ::cudafuse_emu::g_last_error = cudaSuccess;
  return e;
}
cudaError_t cudaPeekAtLastError() { return ::cudafuse_emu::g_last_error; }
const char *cudaGetErrorName(cudaError_t e) {
  switch (e) {
#define CF_ERR_NAME(name, value, text) case cuda##name: return "cuda" #name;
    __CUDAFUSE_ERRORS(CF_ERR_NAME)
#undef CF_ERR_NAME
    default: return "cudaErrorUnknown";
  }
}
const char *cudaGetErrorString(cudaError_t e) {
  switch (e) {
#define CF_ERR_TEXT(name, value, text) case cuda##name: return text;
    __CUDAFUSE_ERRORS(CF_ERR_TEXT)
#undef CF_ERR_TEXT
    default: return "unrecognised error code";
  }
}
cudaError_t cudaMalloc(void **p, size_t n, const char *file,
                       int line) {
  return ::cudafuse_emu::rt_alloc(p, n, cudaMemoryTypeDevice, file, line);
}
cudaError_t cudaMallocManaged(void **p, size_t n, unsigned,
                              const char *file,
                              int line) {
  return ::cudafuse_emu::rt_alloc(p, n, cudaMemoryTypeManaged, file, line);
}
cudaError_t cudaMallocHost(void **p, size_t n) {
  return ::cudafuse_emu::rt_alloc(p, n, cudaMemoryTypeHost);
}
cudaError_t cudaMallocHost(void **p, size_t n, unsigned) { return cudaMallocHost(p, n); }
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned) { return cudaMallocHost(p, n); }
cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t w, size_t h) {
  *pitch = (w + 511) & ~size_t(511);
  return cudaMalloc(p, *pitch * h, nullptr, 0);  // no site: its padding is never written
}
cudaError_t cudaMalloc3D(cudaPitchedPtr *p, cudaExtent e) {
  size_t pitch = 0;
  void *mem = nullptr;
  cudaError_t r = cudaMallocPitch(&mem, &pitch, e.width, e.height * e.depth);
  *p = make_cudaPitchedPtr(mem, pitch, e.width, e.height);
  return r;
}
cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s,
                            const char *file,
                            int line) {
  if (::cudafuse_emu::stream_capturing(s)) return ::cudafuse_emu::capture_malloc(p, n, s);
  return cudaMalloc(p, n, file, line);
}
cudaError_t cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t, cudaStream_t,
                                    const char *file,
                                    int line) {
  return cudaMalloc(p, n, file, line);
}
cudaError_t cudaFree(void *p) {
  if (::cudafuse_emu::graph_owned(p)) return cudaSuccess;  // a graph allocation stays valid
  return ::cudafuse_emu::rt_free(p);
}
cudaError_t cudaFreeHost(void *p) { return ::cudafuse_emu::rt_free(p); }
cudaError_t cudaFreeAsync(void *p, cudaStream_t s) {
  if (::cudafuse_emu::stream_capturing(s)) return ::cudafuse_emu::capture_free(p, s);
  return cudaFree(p);
}
cudaError_t cudaHostRegister(void *, size_t, unsigned) { return cudaSuccess; }
cudaError_t cudaHostUnregister(void *) { return cudaSuccess; }
cudaError_t cudaHostGetDevicePointer(void **d, void *h, unsigned) {
  *d = h;  // host memory is device memory
  return cudaSuccess;
}
cudaError_t cudaHostGetFlags(unsigned *f, void *) {
  *f = cudaHostAllocMapped;
  return cudaSuccess;
}
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *a, const void *p) {
  memset(a, 0, sizeof *a);
  a->type = ::cudafuse_emu::rt_kind(p);
  a->devicePointer = a->hostPointer = const_cast<void *>(p);
  return cudaSuccess;
}
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total) {
  size_t all = ::cudafuse_emu::device_props().totalGlobalMem;
  size_t used = ::cudafuse_emu::allocations().device_bytes;
  if (free_bytes) *free_bytes = used < all ? all - used : 0;
  if (total) *total = all;
  return cudaSuccess;
}
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind k) {
  if ((unsigned)k > cudaMemcpyDefault) return ::cudafuse_emu::rt_error(cudaErrorInvalidMemcpyDirection);
  if (n) memmove(d, s, n);
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind k,
                            cudaStream_t st) {
  CF_CAPTURED(st, 1, cudaMemcpy(d, s, n, k));
  return cudaMemcpy(d, s, n, k);
}
cudaError_t cudaMemcpyPeer(void *d, int, const void *s, int, size_t n) {
  return cudaMemcpy(d, s, n, cudaMemcpyDefault);
}
cudaError_t cudaMemcpyPeerAsync(void *d, int dd, const void *s, int sd, size_t n,
                                cudaStream_t) {
  return cudaMemcpyPeer(d, dd, s, sd, n);
}
cudaError_t cudaMemcpy2D(void *d, size_t dp, const void *s, size_t sp, size_t w,
                         size_t h, cudaMemcpyKind k) {
  if (w > dp || w > sp) return ::cudafuse_emu::rt_error(cudaErrorInvalidPitchValue);
  if ((unsigned)k > cudaMemcpyDefault) return ::cudafuse_emu::rt_error(cudaErrorInvalidMemcpyDirection);
  for (size_t r = 0; r < h; ++r)
    memmove(static_cast<char *>(d) + r * dp, static_cast<const char *>(s) + r * sp, w);
  return cudaSuccess;
}
cudaError_t cudaMemcpy2DAsync(void *d, size_t dp, const void *s, size_t sp, size_t w,
                              size_t h, cudaMemcpyKind k, cudaStream_t st) {
  CF_CAPTURED(st, 1, cudaMemcpy2D(d, dp, s, sp, w, h, k));
  return cudaMemcpy2D(d, dp, s, sp, w, h, k);
}
cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *p) {
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
cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms *p, cudaStream_t st) {
  cudaMemcpy3DParms c = *p;
  CF_CAPTURED(st, 1, cudaMemcpy3D(&c));
  return cudaMemcpy3D(p);
}
cudaError_t cudaMemset(void *p, int v, size_t n) {
  if (n) memset(p, v, n);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t st) {
  CF_CAPTURED(st, 2, cudaMemset(p, v, n));
  return cudaMemset(p, v, n);
}
cudaError_t cudaMemset2D(void *p, size_t pitch, int v, size_t w, size_t h) {
  for (size_t r = 0; r < h; ++r) memset(static_cast<char *>(p) + r * pitch, v, w);
  return cudaSuccess;
}
cudaError_t cudaMemset2DAsync(void *p, size_t pitch, int v, size_t w, size_t h,
                              cudaStream_t st) {
  CF_CAPTURED(st, 2, cudaMemset2D(p, pitch, v, w, h));
  return cudaMemset2D(p, pitch, v, w, h);
}
cudaError_t cudaMemset3D(cudaPitchedPtr p, int v, cudaExtent e) {
  for (size_t z = 0; z < e.depth; ++z)
    cudaMemset2D(static_cast<char *>(p.ptr) + z * p.ysize * p.pitch, p.pitch, v, e.width,
                 e.height);
  return cudaSuccess;
}
cudaError_t cudaMemset3DAsync(cudaPitchedPtr p, int v, cudaExtent e,
                              cudaStream_t) {
  return cudaMemset3D(p, v, e);
}
cudaError_t cudaMemcpyToSymbol(const void *sym, const void *src, size_t n,
                               size_t off, cudaMemcpyKind) {
  if (n) memmove(static_cast<char *>(const_cast<void *>(sym)) + off, src, n);
  return cudaSuccess;
}
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *sym, size_t n, size_t off,
                                 cudaMemcpyKind) {
  if (n) memmove(dst, static_cast<const char *>(sym) + off, n);
  return cudaSuccess;
}
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *sym, size_t n, size_t off,
                                      cudaMemcpyKind k, cudaStream_t) {
  return cudaMemcpyFromSymbol(dst, sym, n, off, k);
}
cudaError_t cudaMemPrefetchAsync(const void *, size_t, cudaMemLocation, unsigned,
                                 cudaStream_t) {
  return cudaSuccess;
}
cudaError_t cudaMemPrefetchAsync(const void *, size_t, int, cudaStream_t) {
  return cudaSuccess;
}
cudaError_t cudaMemAdvise(const void *, size_t, cudaMemoryAdvise, cudaMemLocation) {
  return cudaSuccess;
}
cudaError_t cudaMemAdvise(const void *, size_t, cudaMemoryAdvise, int) {
  return cudaSuccess;
}
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int) {
  *pool = ::cudafuse_emu::default_pool();
  return cudaSuccess;
}
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *pool, int d) {
  return cudaDeviceGetDefaultMemPool(pool, d);
}
cudaError_t cudaDeviceSetMemPool(int, cudaMemPool_t) { return cudaSuccess; }
cudaError_t cudaMemPoolCreate(cudaMemPool_t *pool, const cudaMemPoolProps *) {
  *pool = reinterpret_cast<cudaMemPool_t>(new ::cudafuse_emu::Pool{});
  return cudaSuccess;
}
cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool) {
  if (pool != ::cudafuse_emu::default_pool()) delete ::cudafuse_emu::pool_of(pool);
  return cudaSuccess;
}
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr a, void *v) {
  if ((unsigned)a > 8) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  if (a <= cudaMemPoolReuseAllowInternalDependencies)
    ::cudafuse_emu::pool_of(pool)->attrs[a] = (unsigned long long)*static_cast<int *>(v);
  else
    ::cudafuse_emu::pool_of(pool)->attrs[a] = *static_cast<unsigned long long *>(v);
  return cudaSuccess;
}
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr a, void *v) {
  if ((unsigned)a > 8) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  if (a <= cudaMemPoolReuseAllowInternalDependencies)
    *static_cast<int *>(v) = (int)::cudafuse_emu::pool_of(pool)->attrs[a];
  else
    *static_cast<unsigned long long *>(v) = ::cudafuse_emu::pool_of(pool)->attrs[a];
  return cudaSuccess;
}
cudaError_t cudaMemPoolSetAccess(cudaMemPool_t, const cudaMemAccessDesc *, size_t) {
  return cudaSuccess;
}
cudaError_t cudaMemPoolGetAccess(cudaMemAccessFlags *f, cudaMemPool_t, cudaMemLocation *) {
  *f = cudaMemAccessFlagsProtReadWrite;
  return cudaSuccess;
}
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t, size_t) { return cudaSuccess; }
cudaError_t cudaMemPoolExportToShareableHandle(void *, cudaMemPool_t,
                                               cudaMemAllocationHandleType, unsigned) {
  return ::cudafuse_emu::rt_error(cudaErrorNotSupported);
}
cudaError_t cudaMemPoolImportFromShareableHandle(cudaMemPool_t *, void *,
                                                 cudaMemAllocationHandleType, unsigned) {
  return ::cudafuse_emu::rt_error(cudaErrorNotSupported);
}
cudaError_t cudaMemPoolExportPointer(cudaMemPoolPtrExportData *, void *) {
  return ::cudafuse_emu::rt_error(cudaErrorNotSupported);
}
cudaError_t cudaMemPoolImportPointer(void **, cudaMemPool_t, cudaMemPoolPtrExportData *) {
  return ::cudafuse_emu::rt_error(cudaErrorNotSupported);
}
cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *, void *) {
  return ::cudafuse_emu::rt_error(cudaErrorNotSupported);
}
cudaError_t cudaIpcOpenMemHandle(void **, cudaIpcMemHandle_t, unsigned) {
  return ::cudafuse_emu::rt_error(cudaErrorNotSupported);
}
cudaError_t cudaIpcCloseMemHandle(void *) {
  return ::cudafuse_emu::rt_error(cudaErrorNotSupported);
}
cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *, cudaEvent_t) {
  return ::cudafuse_emu::rt_error(cudaErrorNotSupported);
}
cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *, cudaIpcEventHandle_t) {
  return ::cudafuse_emu::rt_error(cudaErrorNotSupported);
}
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned flags, int priority) {
  if (!s) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  priority = std::max(-5, std::min(0, priority));  // clamped to the device's range
  *s = reinterpret_cast<cudaStream_t>(new ::cudafuse_emu::Stream{flags, priority, {}});
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags) {
  return cudaStreamCreateWithPriority(s, flags, 0);
}
cudaError_t cudaStreamCreate(cudaStream_t *s) { return cudaStreamCreateWithFlags(s, 0); }
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  if (reinterpret_cast<uintptr_t>(s) <= 2) return ::cudafuse_emu::rt_error(cudaErrorInvalidResourceHandle);
  delete ::cudafuse_emu::stream_of(s);
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamQuery(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamGetFlags(cudaStream_t s, unsigned *f) {
  *f = ::cudafuse_emu::stream_of(s)->flags;
  return cudaSuccess;
}
cudaError_t cudaStreamGetPriority(cudaStream_t s, int *p) {
  *p = ::cudafuse_emu::stream_of(s)->priority;
  return cudaSuccess;
}
cudaError_t cudaStreamGetDevice(cudaStream_t, int *d) {
  *d = 0;
  return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned) {
  ::cudafuse_emu::capture_wait_event(s, e);  // joins a capture the event was recorded in
  return cudaSuccess;
}
cudaError_t cudaStreamAttachMemAsync(cudaStream_t, void *, size_t,
                                     unsigned) {
  return cudaSuccess;
}
cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb, void *data,
                                  unsigned) {
  CF_CAPTURED(s, 3, cb(s, cudaSuccess, data));
  cb(s, cudaSuccess, data);
  return cudaSuccess;
}
cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *data) {
  CF_CAPTURED(s, 3, fn(data));
  fn(data);
  return cudaSuccess;
}
cudaError_t cudaStreamSetAttribute(cudaStream_t s, cudaStreamAttrID a,
                                   const cudaStreamAttrValue *v) {
  if (a == cudaLaunchAttributePriority)
    ::cudafuse_emu::stream_of(s)->priority = std::max(-5, std::min(0, v->priority));
  else if (a == cudaLaunchAttributeAccessPolicyWindow)
    ::cudafuse_emu::stream_of(s)->policy = *v;
  return cudaSuccess;
}
cudaError_t cudaStreamGetAttribute(cudaStream_t s, cudaStreamAttrID a,
                                   cudaStreamAttrValue *v) {
  memset(v, 0, sizeof *v);
  if (a == cudaLaunchAttributePriority)
    v->priority = ::cudafuse_emu::stream_of(s)->priority;
  else if (a == cudaLaunchAttributeAccessPolicyWindow)
    *v = ::cudafuse_emu::stream_of(s)->policy;
  return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags) {
  if (!e) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  *e = reinterpret_cast<cudaEvent_t>(new ::cudafuse_emu::Event{flags, false, 0.0});
  return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t *e) { return cudaEventCreateWithFlags(e, 0); }
cudaError_t cudaEventCreate(cudaEvent_t *e, unsigned flags) {
  return cudaEventCreateWithFlags(e, flags);
}
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  if (!e) return ::cudafuse_emu::rt_error(cudaErrorInvalidResourceHandle);
  delete ::cudafuse_emu::event_of(e);
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  if (!e) return ::cudafuse_emu::rt_error(cudaErrorInvalidResourceHandle);
  if (::cudafuse_emu::stream_capturing(s)) return ::cudafuse_emu::capture_event_record(e, s);
  ::cudafuse_emu::event_of(e)->recorded = true;
  ::cudafuse_emu::event_of(e)->ms = ::cudafuse_emu::host_ms();
  return cudaSuccess;
}
cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s,
                                     unsigned) {
  return cudaEventRecord(e, s);
}
cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  return e ? cudaSuccess : ::cudafuse_emu::rt_error(cudaErrorInvalidResourceHandle);
}
cudaError_t cudaEventQuery(cudaEvent_t e) { return cudaEventSynchronize(e); }
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t ea, cudaEvent_t eb) {
  if (!ms) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  ::cudafuse_emu::Event *a = ::cudafuse_emu::event_of(ea), *b = ::cudafuse_emu::event_of(eb);
  if (!a || !b || (a->flags & cudaEventDisableTiming) || (b->flags & cudaEventDisableTiming))
    return ::cudafuse_emu::rt_error(cudaErrorInvalidResourceHandle);
  if (!a->recorded || !b->recorded) return ::cudafuse_emu::rt_error(cudaErrorInvalidResourceHandle);
  *ms = (float)(b->ms - a->ms);
  return cudaSuccess;
}
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, const void *f) {
  return cudaFuncGetAttributes<const void>(a, f);
}

// ---- cudafuse_emu_texture.h: CUDA arrays, texture and surface objects (host side) ----------
namespace cudafuse_emu {
cudaError_t image_of_resource(const cudaResourceDesc *r, Image &m) {
  switch (r->resType) {
    case cudaResourceTypeArray:
      if (!r->res.array.array) return rt_error(cudaErrorInvalidResourceHandle);
      m = image_of(r->res.array.array);
      return cudaSuccess;
    case cudaResourceTypeLinear:
      m.fmt = r->res.linear.desc, m.elem = format_bytes(m.fmt);
      if (!m.elem) return rt_error(cudaErrorInvalidChannelDescriptor);
      if (!r->res.linear.devPtr) return rt_error(cudaErrorInvalidValue);
      m.base = static_cast<char *>(r->res.linear.devPtr);
      m.w = r->res.linear.sizeInBytes / m.elem, m.pitch = m.slice = m.w * m.elem;
      if (!m.w) return rt_error(cudaErrorInvalidValue);
      return cudaSuccess;
    case cudaResourceTypePitch2D:
      m.fmt = r->res.pitch2D.desc, m.elem = format_bytes(m.fmt);
      if (!m.elem) return rt_error(cudaErrorInvalidChannelDescriptor);
      if (!r->res.pitch2D.devPtr || !r->res.pitch2D.width || !r->res.pitch2D.height ||
          r->res.pitch2D.pitchInBytes < r->res.pitch2D.width * m.elem)
        return rt_error(cudaErrorInvalidValue);
      m.base = static_cast<char *>(r->res.pitch2D.devPtr);
      m.w = r->res.pitch2D.width, m.h = r->res.pitch2D.height;
      m.pitch = r->res.pitch2D.pitchInBytes, m.slice = m.pitch * m.h;
      return cudaSuccess;
    default:  // mipmapped arrays are refused at build time
      return rt_error(cudaErrorNotSupported);
  }
}
cudaError_t array_side(const cudaArray *a, size_t x, size_t y, size_t z, size_t wbytes,
                       size_t h, size_t d, CopySide &side) {
  if (!a) return rt_error(cudaErrorInvalidResourceHandle);
  if (x * a->elem + wbytes > a->pitch() || y + h > a->h || z + d > a->d)
    return rt_error(cudaErrorInvalidValue);
  side = CopySide{a->data + z * a->slice() + y * a->pitch() + x * a->elem, a->pitch(), a->h};
  return cudaSuccess;
}
void copy_rows(const CopySide &dst, const CopySide &src, size_t wbytes, size_t h,
               size_t d) {
  for (size_t k = 0; k < d; ++k)
    for (size_t j = 0; j < h; ++j)
      memmove(dst.base + (k * dst.rows + j) * dst.pitch, src.base + (k * src.rows + j) * src.pitch,
              wbytes);
}
cudaError_t array_copy3d(const cudaMemcpy3DParms *p) {
  if (!p) return rt_error(cudaErrorInvalidValue);
  const cudaArray *arr = p->srcArray ? p->srcArray : p->dstArray;
  size_t wbytes = p->extent.width * arr->elem;  // an array's extent counts its elements
  size_t h = std::max<size_t>(p->extent.height, 1), d = std::max<size_t>(p->extent.depth, 1);
  CopySide src, dst;
  cudaError_t e;
  if (p->srcArray) e = array_side(p->srcArray, p->srcPos.x, p->srcPos.y, p->srcPos.z, wbytes, h, d, src);
  else {
    const cudaPitchedPtr &s = p->srcPtr;
    if (!s.ptr || s.pitch < p->srcPos.x + wbytes) return rt_error(cudaErrorInvalidPitchValue);
    size_t rows = s.ysize ? s.ysize : h;
    src = CopySide{static_cast<char *>(s.ptr) + (p->srcPos.z * rows + p->srcPos.y) * s.pitch +
                       p->srcPos.x, s.pitch, rows};
    e = cudaSuccess;
  }
  if (e != cudaSuccess) return e;
  if (p->dstArray) e = array_side(p->dstArray, p->dstPos.x, p->dstPos.y, p->dstPos.z, wbytes, h, d, dst);
  else {
    const cudaPitchedPtr &s = p->dstPtr;
    if (!s.ptr || s.pitch < p->dstPos.x + wbytes) return rt_error(cudaErrorInvalidPitchValue);
    size_t rows = s.ysize ? s.ysize : h;
    dst = CopySide{static_cast<char *>(s.ptr) + (p->dstPos.z * rows + p->dstPos.y) * s.pitch +
                       p->dstPos.x, s.pitch, rows};
  }
  if (e != cudaSuccess) return e;
  copy_rows(dst, src, wbytes, h, d);
  return cudaSuccess;
}
}  // namespace cudafuse_emu
cudaError_t cudaMalloc3DArray(cudaArray_t *a, const cudaChannelFormatDesc *desc,
                              cudaExtent e, unsigned flags) {
  using namespace ::cudafuse_emu;
  if (!a || !desc) return rt_error(cudaErrorInvalidValue);
  *a = nullptr;
  size_t elem = format_bytes(*desc);
  if (!elem) return rt_error(cudaErrorInvalidChannelDescriptor);
  if (!e.width || (e.depth && !e.height && !(flags & cudaArrayLayered)))
    return rt_error(cudaErrorInvalidValue);
  if (flags & cudaArrayCubemap) {  // 6 square faces, or 6 per layer
    bool ok = e.width == e.height && e.depth &&
              ((flags & cudaArrayLayered) ? e.depth % 6 == 0 : e.depth == 6);
    if (!ok) return rt_error(cudaErrorInvalidValue);
  }
  if ((flags & cudaArrayLayered) && !e.depth) return rt_error(cudaErrorInvalidValue);
  cudaArray *arr = new cudaArray;
  arr->desc = *desc, arr->extent = e, arr->flags = flags, arr->elem = elem;
  arr->w = e.width, arr->h = std::max<size_t>(e.height, 1), arr->d = std::max<size_t>(e.depth, 1);
  void *mem = nullptr;
  cudaError_t err = rt_alloc(&mem, arr->slice() * arr->d, cudaMemoryTypeDevice);
  if (err != cudaSuccess) {
    delete arr;
    return err;
  }
  arr->data = static_cast<char *>(mem);
  *a = arr;
  return cudaSuccess;
}
cudaError_t cudaMallocArray(cudaArray_t *a, const cudaChannelFormatDesc *desc, size_t w,
                            size_t h, unsigned flags) {
  if (flags & (cudaArrayLayered | cudaArrayCubemap))
    return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  return cudaMalloc3DArray(a, desc, make_cudaExtent(w, h, 0), flags);
}
cudaError_t cudaFreeArray(cudaArray_t a) {
  if (!a) return cudaSuccess;
  cudaError_t e = ::cudafuse_emu::rt_free(a->data);
  delete a;
  return e;
}
cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc *desc, cudaExtent *e, unsigned *flags,
                             cudaArray_t a) {
  if (!a) return ::cudafuse_emu::rt_error(cudaErrorInvalidResourceHandle);
  if (desc) *desc = a->desc;
  if (e) *e = a->extent;
  if (flags) *flags = a->flags;
  return cudaSuccess;
}
cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc *desc, cudaArray_const_t a) {
  if (!a || !desc) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  *desc = a->desc;
  return cudaSuccess;
}
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOff, size_t hOff, const void *src,
                                size_t spitch, size_t w, size_t h, cudaMemcpyKind) {
  using namespace ::cudafuse_emu;
  if (!dst) return rt_error(cudaErrorInvalidResourceHandle);
  if (w > spitch) return rt_error(cudaErrorInvalidPitchValue);
  if (wOff + w > dst->pitch() || hOff + h > dst->h) return rt_error(cudaErrorInvalidValue);
  copy_rows(CopySide{dst->data + hOff * dst->pitch() + wOff, dst->pitch(), h},
            CopySide{const_cast<char *>(static_cast<const char *>(src)), spitch, h}, w, h, 1);
  return cudaSuccess;
}
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOff, size_t hOff,
                                     const void *src, size_t spitch, size_t w, size_t h,
                                     cudaMemcpyKind k, cudaStream_t) {
  return cudaMemcpy2DToArray(dst, wOff, hOff, src, spitch, w, h, k);
}
cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src,
                                  size_t wOff, size_t hOff, size_t w, size_t h,
                                  cudaMemcpyKind) {
  using namespace ::cudafuse_emu;
  if (!src) return rt_error(cudaErrorInvalidResourceHandle);
  if (w > dpitch) return rt_error(cudaErrorInvalidPitchValue);
  if (wOff + w > src->pitch() || hOff + h > src->h) return rt_error(cudaErrorInvalidValue);
  copy_rows(CopySide{static_cast<char *>(dst), dpitch, h},
            CopySide{src->data + hOff * src->pitch() + wOff, src->pitch(), h}, w, h, 1);
  return cudaSuccess;
}
cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src,
                                       size_t wOff, size_t hOff, size_t w, size_t h,
                                       cudaMemcpyKind k, cudaStream_t) {
  return cudaMemcpy2DFromArray(dst, dpitch, src, wOff, hOff, w, h, k);
}
cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffDst, size_t hOffDst,
                                     cudaArray_const_t src, size_t wOffSrc,
                                     size_t hOffSrc, size_t w, size_t h,
                                     cudaMemcpyKind) {
  using namespace ::cudafuse_emu;
  if (!src || !dst) return rt_error(cudaErrorInvalidResourceHandle);
  if (wOffSrc + w > src->pitch() || hOffSrc + h > src->h || wOffDst + w > dst->pitch() ||
      hOffDst + h > dst->h)
    return rt_error(cudaErrorInvalidValue);
  copy_rows(CopySide{dst->data + hOffDst * dst->pitch() + wOffDst, dst->pitch(), h},
            CopySide{src->data + hOffSrc * src->pitch() + wOffSrc, src->pitch(), h}, w, h, 1);
  return cudaSuccess;
}
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOff, size_t hOff, const void *src,
                              size_t n, cudaMemcpyKind) {
  using namespace ::cudafuse_emu;
  if (!dst) return rt_error(cudaErrorInvalidResourceHandle);
  size_t at = hOff * dst->pitch() + wOff;
  if (wOff > dst->pitch() || at + n > dst->slice() * dst->d) return rt_error(cudaErrorInvalidValue);
  memmove(dst->data + at, src, n);
  return cudaSuccess;
}
cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOff, size_t hOff,
                                   const void *src, size_t n, cudaMemcpyKind k,
                                   cudaStream_t) {
  return cudaMemcpyToArray(dst, wOff, hOff, src, n, k);
}
cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOff, size_t hOff,
                                size_t n, cudaMemcpyKind) {
  using namespace ::cudafuse_emu;
  if (!src) return rt_error(cudaErrorInvalidResourceHandle);
  size_t at = hOff * src->pitch() + wOff;
  if (wOff > src->pitch() || at + n > src->slice() * src->d) return rt_error(cudaErrorInvalidValue);
  memmove(dst, src->data + at, n);
  return cudaSuccess;
}
cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOff,
                                     size_t hOff, size_t n, cudaMemcpyKind k,
                                     cudaStream_t) {
  return cudaMemcpyFromArray(dst, src, wOff, hOff, n, k);
}
cudaError_t cudaCreateTextureObject(cudaTextureObject_t *t, const cudaResourceDesc *r,
                                    const cudaTextureDesc *d,
                                    const cudaResourceViewDesc *v) {
  using namespace ::cudafuse_emu;
  if (!t || !r || !d) return rt_error(cudaErrorInvalidValue);
  *t = 0;
  if (v && v->format != cudaResViewFormatNone) return rt_error(cudaErrorNotSupported);
  Image m;
  if (cudaError_t e = image_of_resource(r, m)) return e;
  if (d->readMode == cudaReadModeNormalizedFloat && m.fmt.f != cudaChannelFormatKindFloat &&
      m.fmt.x == 32)  // normalizedFloat applies to 8- and 16-bit integers only
    return rt_error(cudaErrorInvalidValue);
  Texture *tex = new Texture{*r, *d, m,
                             d->readMode == cudaReadModeNormalizedFloat &&
                                 m.fmt.f != cudaChannelFormatKindFloat};
  *t = cudaTextureObject_t(reinterpret_cast<uintptr_t>(tex));
  return cudaSuccess;
}
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t t) {
  delete reinterpret_cast<::cudafuse_emu::Texture *>(uintptr_t(t));
  return cudaSuccess;
}
cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc *r, cudaTextureObject_t t) {
  if (!r || !t) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  *r = reinterpret_cast<const ::cudafuse_emu::Texture *>(uintptr_t(t))->res;
  return cudaSuccess;
}
cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc *d, cudaTextureObject_t t) {
  if (!d || !t) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  *d = reinterpret_cast<const ::cudafuse_emu::Texture *>(uintptr_t(t))->desc;
  return cudaSuccess;
}
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *s, const cudaResourceDesc *r) {
  using namespace ::cudafuse_emu;
  if (!s || !r) return rt_error(cudaErrorInvalidValue);
  *s = 0;
  // Surfaces live on arrays allocated with cudaArraySurfaceLoadStore.
  if (r->resType != cudaResourceTypeArray) return rt_error(cudaErrorInvalidValue);
  if (!r->res.array.array) return rt_error(cudaErrorInvalidResourceHandle);
  if (!(r->res.array.array->flags & cudaArraySurfaceLoadStore))
    return rt_error(cudaErrorInvalidValue);
  Surface *surf = new Surface{*r, image_of(r->res.array.array)};
  *s = cudaSurfaceObject_t(reinterpret_cast<uintptr_t>(surf));
  return cudaSuccess;
}
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t s) {
  delete reinterpret_cast<::cudafuse_emu::Surface *>(uintptr_t(s));
  return cudaSuccess;
}
cudaError_t cudaGetSurfaceObjectResourceDesc(cudaResourceDesc *r, cudaSurfaceObject_t s) {
  if (!r || !s) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  *r = reinterpret_cast<const ::cudafuse_emu::Surface *>(uintptr_t(s))->res;
  return cudaSuccess;
}

// ---- cudafuse_emu_graph.h: running graphs, the graph API -------------------------------------
namespace cudafuse_emu {
void run_node(__cf_GNode &n) {
  if (n.op) {  // captured work (launches, copies, sets, host functions)
    n.op();
    return;
  }
  switch (n.type) {
    case cudaGraphNodeTypeKernel: {
      const KernelInfo *k = find_kernel(n.kp.func);
      if (!k) fail("cudaGraphLaunch: a kernel node's function %p is not a kernel of this "
                   "program", n.kp.func);
      ArgPack pack = n.args;
      void (*call)(void **) = k->call;
      launch_with(k->name, k->fibers, false, [call, &pack]() { call(pack.ptrs.data()); },
                  n.kp.gridDim, n.kp.blockDim, n.kp.sharedMemBytes, nullptr);
      break;
    }
    case cudaGraphNodeTypeMemcpy: cudaMemcpy3D(&n.copy); break;
    case cudaGraphNodeTypeMemset: {
      const cudaMemsetParams &p = n.set;
      for (size_t r = 0; r < (p.height ? p.height : 1); ++r) {
        char *row = static_cast<char *>(p.dst) + r * p.pitch;
        for (size_t i = 0; i < p.width; ++i)
          memcpy(row + i * p.elementSize, &p.value, p.elementSize);  // little-endian
      }
      break;
    }
    case cudaGraphNodeTypeHost: n.host.fn(n.host.userData); break;
    case cudaGraphNodeTypeGraph: run_graph(*n.child); break;
    case cudaGraphNodeTypeEventRecord: cudaEventRecord(n.event, nullptr); break;
    case cudaGraphNodeTypeConditional: {
      auto &v = cond_values()[n.handle];
      if (n.cond == cudaGraphCondTypeIf) {
        if (v.first) run_graph(*n.bodies[0]);
        else if (n.bodies.size() > 1) run_graph(*n.bodies[1]);
      } else if (n.cond == cudaGraphCondTypeWhile) {
        while (v.first) run_graph(*n.bodies[0]);
      } else if (v.first < n.bodies.size()) {
        run_graph(*n.bodies[v.first]);
      }
      break;
    }
    default: break;  // empty, event wait, allocation and free (addresses fixed at creation)
  }
}
void run_graph(Graph &g) {
  for (auto &n : g.nodes)
    if (n->type == cudaGraphNodeTypeConditional) {
      auto &v = cond_values()[n->handle];
      if (v.second & 1u) v.first = v.second >> 1;  // cudaGraphCondAssignDefault
    }
  std::map<__cf_GNode *, int> pending;
  std::map<__cf_GNode *, std::vector<__cf_GNode *>> users;
  for (auto &n : g.nodes) {
    pending[n.get()] = (int)n->deps.size();
    for (__cf_GNode *d : n->deps) users[d].push_back(n.get());
  }
  std::vector<__cf_GNode *> ready;
  for (auto &n : g.nodes)
    if (!n->deps.size()) ready.push_back(n.get());
  size_t done = 0;
  for (size_t k = 0; k < ready.size(); ++k) {
    run_node(*ready[k]);
    ++done;
    for (__cf_GNode *u : users[ready[k]])
      if (--pending[u] == 0) ready.push_back(u);
  }
  if (done != g.nodes.size()) fail("cudaGraphLaunch: the graph's dependencies form a cycle");
}
// What the dynamic symbol table says is at `f`, demangled, for a report naming a pointer the
// registry lacks: ` (0x..., symbol 'void box<3>(float const*, float*, int)')`, or the address
// alone (a static function has no dynamic symbol; the nearest one below would name another).
const char *describe_function(const void *f) {
  static thread_local char text[512];
  Dl_info info{};
  if (f && dladdr(f, &info) && info.dli_sname && info.dli_saddr == f) {
    int status = 0;
    char *name = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
    snprintf(text, sizeof text, " (%p, symbol '%s')", f, status == 0 && name ? name
                                                                          : info.dli_sname);
    free(name);
  } else {
    snprintf(text, sizeof text, " (%p)", f);
  }
  return text;
}
ApiSite take_api_site() {
  const ApiSite site = g_api_site;
  g_api_site = ApiSite{};
  return site;
}
// The kernel a kernel node's parameters name. On a GPU an unknown pointer makes the graph call
// return cudaErrorInvalidDeviceFunction, which programs rarely check: the node would then do
// nothing and every comparison of outputs would be vacuous, so the run stops at the call (the
// rewrite wraps the call's parameters argument in __cf_api_site(...), emu/rewrite.py).
const KernelInfo *node_kernel(const cudaKernelNodeParams *p, const char *api, ApiSite site) {
  if (!p) return nullptr;
  if (const KernelInfo *k = find_kernel(p->func)) return k;
  if (site.file && !p->func)  // as cudaGraphKernelNodeGetParams gave a captured launch
    fail("%s:%d: %s with '%s': the node's function pointer is null: a kernel node captured "
         "from a <<<>>> launch has its kernel's address and arguments here only when they are "
         "of the kernel's parameter types and the kernel is no template instance (an "
         "argument that converts on the call, an `int` for a `float`, has other bytes)",
         site.file, site.line, api, site.text);
  if (site.file)
    fail("%s:%d: %s with '%s': the emulator cannot tell which kernel the node's function "
         "pointer names%s: not a kernel of this program, or one whose address is taken "
         "where the rewrite does not see it (in a header, a macro or a global initialiser)",
         site.file, site.line, api, site.text, describe_function(p->func));
  fail("%s: the emulator cannot tell which kernel the kernel node's function pointer "
       "names%s (a call the rewrite did not see, in a header or a macro)", api,
       describe_function(p->func));
}
const void *kernel_named(const char *name, const std::type_info *const *types, size_t n,
                         const std::vector<size_t> **sizes) {
  const void *found = nullptr;
  for (auto &[f, k] : kernel_registry()) {
    if (strcmp(k.name, name) != 0 || k.types.size() != n) continue;
    bool same = true;
    for (size_t i = 0; i < n && same; ++i) same = *k.types[i] == *types[i];
    if (!same) continue;
    if (found) return nullptr;  // two instances of one template take these types
    found = f;
    *sizes = &k.sizes;
  }
  return found;
}
cudaError_t add_kernel_params(__cf_GNode *n, const cudaKernelNodeParams *p, const char *api,
                              ApiSite site) {
  const KernelInfo *k = node_kernel(p, api, site);
  if (!k) return rt_error(cudaErrorInvalidValue);
  if (p->extra && !p->kernelParams) return rt_error(cudaErrorNotSupported);
  n->type = cudaGraphNodeTypeKernel;
  n->op = nullptr;  // a captured launch now runs as these parameters say
  n->kp = *p;
  n->args.set(k->sizes, p->kernelParams);
  n->kp.kernelParams = nullptr;
  return cudaSuccess;
}
}  // namespace cudafuse_emu
#define CF_GRAPH_NODE(g, deps, n)                                                              \
  ::cudafuse_emu::__cf_GNode *node = ::cudafuse_emu::add_node(*::cudafuse_emu::graph_of(g), deps, n); \
  if (out) *out = ::cudafuse_emu::handle_of(node)
namespace cudafuse_emu {
// cudaGraphAddKernelNode, and cudaGraphAddNode of a kernel node: the kernel is looked up
// before the node is made, so that a failing call leaves the graph as it was.
cudaError_t add_kernel_node(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                            size_t n, const cudaKernelNodeParams *p, const char *api,
                            ApiSite site) {
  if (!node_kernel(p, api, site)) return rt_error(cudaErrorInvalidValue);
  CF_GRAPH_NODE(g, deps, n);
  return add_kernel_params(node, p, api, site);
}
}  // namespace cudafuse_emu
cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode mode) {
  using namespace ::cudafuse_emu;
  if (reinterpret_cast<uintptr_t>(s) <= 2) return rt_error(cudaErrorStreamCaptureUnsupported);
  if (stream_capturing(s)) return rt_error(cudaErrorIllegalState);
  static unsigned long long next_id = 0;
  Capture c;
  c.graph = new Graph;
  c.origin = s;
  c.mode = mode;
  c.id = ++next_id;
  captures()[s] = c;
  return cudaSuccess;
}
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t s, cudaGraph_t g,
                                          const cudaGraphNode_t *deps,
                                          const cudaGraphEdgeData *, size_t n,
                                          cudaStreamCaptureMode mode) {
  using namespace ::cudafuse_emu;
  cudaError_t e = cudaStreamBeginCapture(s, mode);
  if (e != cudaSuccess) return e;
  Capture &c = captures()[s];
  delete c.graph;
  c.graph = graph_of(g);
  for (size_t i = 0; i < n; ++i) c.deps.push_back(node_of(deps[i]));
  return cudaSuccess;
}
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g) {
  using namespace ::cudafuse_emu;
  auto it = captures().find(s);
  if (it == captures().end() || it->second.origin != s)
    return rt_error(cudaErrorIllegalState);
  Graph *graph = it->second.graph;
  for (auto c = captures().begin(); c != captures().end();)
    c = c->second.graph == graph ? captures().erase(c) : std::next(c);
  for (auto c = captured_events().begin(); c != captured_events().end();)
    c = c->second.graph == graph ? captured_events().erase(c) : std::next(c);
  if (g) *g = reinterpret_cast<cudaGraph_t>(graph);
  return cudaSuccess;
}
cudaError_t cudaStreamIsCapturing(cudaStream_t s, cudaStreamCaptureStatus *st) {
  *st = ::cudafuse_emu::stream_capturing(s) ? cudaStreamCaptureStatusActive
                                            : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t s, cudaStreamCaptureStatus *st,
                                     unsigned long long *id,
                                     cudaGraph_t *g,
                                     const cudaGraphNode_t **deps,
                                     const cudaGraphEdgeData **edges,
                                     size_t *n) {
  using namespace ::cudafuse_emu;
  auto it = captures().find(s);
  if (st) *st = it == captures().end() ? cudaStreamCaptureStatusNone : cudaStreamCaptureStatusActive;
  if (it == captures().end()) return cudaSuccess;
  if (id) *id = it->second.id;
  if (g) *g = reinterpret_cast<cudaGraph_t>(it->second.graph);
  if (deps) *deps = reinterpret_cast<const cudaGraphNode_t *>(it->second.deps.data());
  if (edges) *edges = nullptr;
  if (n) *n = it->second.deps.size();
  return cudaSuccess;
}
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t s, cudaGraphNode_t *deps,
                                                size_t n, unsigned flags) {
  using namespace ::cudafuse_emu;
  auto it = captures().find(s);
  if (it == captures().end()) return rt_error(cudaErrorIllegalState);
  if (flags & cudaStreamSetCaptureDependencies) it->second.deps.clear();
  for (size_t i = 0; i < n; ++i) it->second.deps.push_back(node_of(deps[i]));
  return cudaSuccess;
}
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t s, cudaGraphNode_t *deps,
                                                const cudaGraphEdgeData *, size_t n,
                                                unsigned flags) {
  return cudaStreamUpdateCaptureDependencies(s, deps, n, flags);
}
cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode *) {
  return cudaSuccess;
}
cudaError_t cudaGraphCreate(cudaGraph_t *g, unsigned) {
  if (!g) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  *g = reinterpret_cast<cudaGraph_t>(new ::cudafuse_emu::Graph);
  return cudaSuccess;
}
cudaError_t cudaGraphDestroy(cudaGraph_t g) {
  delete ::cudafuse_emu::graph_of(g);
  return cudaSuccess;
}
cudaError_t cudaGraphClone(cudaGraph_t *out, cudaGraph_t g) {
  auto copy = ::cudafuse_emu::clone_graph(*::cudafuse_emu::graph_of(g), nullptr);
  *out = reinterpret_cast<cudaGraph_t>(new ::cudafuse_emu::Graph(std::move(*copy)));
  return cudaSuccess;
}
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *e, cudaGraph_t g,
                                 unsigned long long) {
  if (!e || !g) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  auto *x = new ::cudafuse_emu::Exec;
  x->graph = ::cudafuse_emu::clone_graph(*::cudafuse_emu::graph_of(g), &x->from);
  *e = reinterpret_cast<cudaGraphExec_t>(x);
  return cudaSuccess;
}
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *e, cudaGraph_t g, cudaGraphNode_t *err,
                                 char *log, size_t log_size) {
  if (err) *err = nullptr;
  if (log && log_size) log[0] = 0;
  return cudaGraphInstantiate(e, g, 0ull);
}
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *e, cudaGraph_t g,
                                          unsigned long long flags) {
  return cudaGraphInstantiate(e, g, flags);
}
cudaError_t cudaGraphUpload(cudaGraphExec_t, cudaStream_t) { return cudaSuccess; }
cudaError_t cudaGraphLaunch(cudaGraphExec_t e, cudaStream_t s) {
  using namespace ::cudafuse_emu;
  if (!e) return rt_error(cudaErrorInvalidValue);
  if (stream_capturing(s)) {  // a graph launched into a capture becomes a child graph node
    __cf_GNode *n = capture_node(s, cudaGraphNodeTypeGraph);
    n->child = clone_graph(*exec_of(e)->graph, nullptr);
    return cudaSuccess;
  }
  run_graph(*exec_of(e)->graph);
  return cudaSuccess;
}
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t e) {
  delete ::cudafuse_emu::exec_of(e);
  return cudaSuccess;
}
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g,
                                cudaGraphExecUpdateResultInfo *info) {
  using namespace ::cudafuse_emu;
  Exec *x = exec_of(e);
  Graph *src = graph_of(g);
  if (info) *info = cudaGraphExecUpdateResultInfo{cudaGraphExecUpdateSuccess, nullptr, nullptr};
  if (src->nodes.size() != x->graph->nodes.size()) {
    if (info) info->result = cudaGraphExecUpdateErrorTopologyChanged;
    return rt_error(cudaErrorGraphExecUpdateFailure);
  }
  for (size_t i = 0; i < src->nodes.size(); ++i)
    if (src->nodes[i]->type != x->graph->nodes[i]->type) {
      if (info) info->result = cudaGraphExecUpdateErrorNodeTypeChanged;
      return rt_error(cudaErrorGraphExecUpdateFailure);
    }
  std::map<const __cf_GNode *, __cf_GNode *> from;
  x->graph = clone_graph(*src, &from);
  for (auto &kv : x->from) kv.second = nullptr;
  for (auto &kv : from) x->from[kv.first] = kv.second;
  return cudaSuccess;
}
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g, cudaGraphNode_t *err,
                                cudaGraphExecUpdateResult *result) {
  cudaGraphExecUpdateResultInfo info;
  cudaError_t r = cudaGraphExecUpdate(e, g, &info);
  if (err) *err = info.errorNode;
  if (result) *result = info.result;
  return r;
}
cudaError_t cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *n) {
  auto &all = ::cudafuse_emu::graph_of(g)->nodes;
  if (nodes)
    for (size_t i = 0; i < *n && i < all.size(); ++i) nodes[i] = ::cudafuse_emu::handle_of(all[i].get());
  else *n = all.size();
  return cudaSuccess;
}
cudaError_t cudaGraphGetRootNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *n) {
  std::vector<cudaGraphNode_t> roots;
  for (auto &node : ::cudafuse_emu::graph_of(g)->nodes)
    if (node->deps.empty()) roots.push_back(::cudafuse_emu::handle_of(node.get()));
  if (nodes)
    for (size_t i = 0; i < *n && i < roots.size(); ++i) nodes[i] = roots[i];
  else *n = roots.size();
  return cudaSuccess;
}
cudaError_t cudaGraphGetEdges(cudaGraph_t g, cudaGraphNode_t *from, cudaGraphNode_t *to,
                              size_t *n) {
  size_t k = 0;
  for (auto &node : ::cudafuse_emu::graph_of(g)->nodes)
    for (auto *d : node->deps) {
      if (from && to && k < *n) {
        from[k] = ::cudafuse_emu::handle_of(d);
        to[k] = ::cudafuse_emu::handle_of(node.get());
      }
      ++k;
    }
  if (!from) *n = k;
  return cudaSuccess;
}
cudaError_t cudaGraphGetEdges(cudaGraph_t g, cudaGraphNode_t *from, cudaGraphNode_t *to,
                              cudaGraphEdgeData *edges, size_t *n) {
  if (edges && *n) memset(edges, 0, *n * sizeof *edges);
  return cudaGraphGetEdges(g, from, to, n);
}
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType *t) {
  *t = ::cudafuse_emu::node_of(node)->type;
  return cudaSuccess;
}
cudaError_t cudaGraphAddDependencies(cudaGraph_t, const cudaGraphNode_t *from,
                                     const cudaGraphNode_t *to, size_t n) {
  for (size_t i = 0; i < n; ++i)
    ::cudafuse_emu::node_of(to[i])->deps.push_back(::cudafuse_emu::node_of(from[i]));
  return cudaSuccess;
}
cudaError_t cudaGraphAddDependencies(cudaGraph_t g, const cudaGraphNode_t *from,
                                     const cudaGraphNode_t *to,
                                     const cudaGraphEdgeData *, size_t n) {
  return cudaGraphAddDependencies(g, from, to, n);
}
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *out, cudaGraph_t g,
                                  const cudaGraphNode_t *deps, size_t n) {
  CF_GRAPH_NODE(g, deps, n);
  return cudaSuccess;
}
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *out, cudaGraph_t g,
                                   const cudaGraphNode_t *deps, size_t n,
                                   const cudaKernelNodeParams *p) {
  return ::cudafuse_emu::add_kernel_node(out, g, deps, n, p, "cudaGraphAddKernelNode",
                                         ::cudafuse_emu::take_api_site());
}
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *out, cudaGraph_t g,
                                   const cudaGraphNode_t *deps, size_t n,
                                   const cudaMemcpy3DParms *p) {
  CF_GRAPH_NODE(g, deps, n);
  node->type = cudaGraphNodeTypeMemcpy;
  node->copy = *p;
  return cudaSuccess;
}
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *out, cudaGraph_t g,
                                     const cudaGraphNode_t *deps, size_t n, void *dst,
                                     const void *src, size_t count, cudaMemcpyKind) {
  CF_GRAPH_NODE(g, deps, n);
  node->type = cudaGraphNodeTypeMemcpy;
  node->copy.srcPtr = cudaPitchedPtr{const_cast<void *>(src), count, count, 1};
  node->copy.dstPtr = cudaPitchedPtr{dst, count, count, 1};
  node->copy.extent = cudaExtent{count, 1, 1};
  return cudaSuccess;
}
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *out, cudaGraph_t g,
                                   const cudaGraphNode_t *deps, size_t n,
                                   const cudaMemsetParams *p) {
  if (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4)
    return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  CF_GRAPH_NODE(g, deps, n);
  node->type = cudaGraphNodeTypeMemset;
  node->set = *p;
  return cudaSuccess;
}
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *out, cudaGraph_t g,
                                 const cudaGraphNode_t *deps, size_t n,
                                 const cudaHostNodeParams *p) {
  CF_GRAPH_NODE(g, deps, n);
  node->type = cudaGraphNodeTypeHost;
  node->host = *p;
  return cudaSuccess;
}
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *out, cudaGraph_t g,
                                       const cudaGraphNode_t *deps, size_t n,
                                       cudaGraph_t child) {
  CF_GRAPH_NODE(g, deps, n);
  node->type = cudaGraphNodeTypeGraph;
  node->child = ::cudafuse_emu::clone_graph(*::cudafuse_emu::graph_of(child), nullptr);
  return cudaSuccess;
}
cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *out, cudaGraph_t g,
                                        const cudaGraphNode_t *deps, size_t n,
                                        cudaEvent_t e) {
  CF_GRAPH_NODE(g, deps, n);
  node->type = cudaGraphNodeTypeEventRecord;
  node->event = e;
  return cudaSuccess;
}
cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *out, cudaGraph_t g,
                                      const cudaGraphNode_t *deps, size_t n,
                                      cudaEvent_t e) {
  CF_GRAPH_NODE(g, deps, n);
  node->type = cudaGraphNodeTypeWaitEvent;
  node->event = e;
  return cudaSuccess;
}
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *out, cudaGraph_t g,
                                     const cudaGraphNode_t *deps, size_t n,
                                     cudaMemAllocNodeParams *p) {
  if (!p || !p->bytesize) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  CF_GRAPH_NODE(g, deps, n);
  node->type = cudaGraphNodeTypeMemAlloc;
  node->ptr = p->dptr = ::cudafuse_emu::graph_alloc(p->bytesize);
  return p->dptr ? cudaSuccess : ::cudafuse_emu::rt_error(cudaErrorMemoryAllocation);
}
cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *out, cudaGraph_t g,
                                    const cudaGraphNode_t *deps, size_t n, void *p) {
  CF_GRAPH_NODE(g, deps, n);
  node->type = cudaGraphNodeTypeMemFree;
  node->ptr = p;
  return cudaSuccess;
}
cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *h, cudaGraph_t,
                                             unsigned value, unsigned flags) {
  static cudaGraphConditionalHandle next = 0;
  *h = ++next;
  ::cudafuse_emu::cond_values()[*h] = {value, flags & 1u ? (value << 1) | 1u : 0u};
  return cudaSuccess;
}
void cudaGraphSetConditional(cudaGraphConditionalHandle h, unsigned value) {
  ::cudafuse_emu::cond_values()[h].first = value;
}
cudaError_t cudaGraphAddNode(cudaGraphNode_t *out, cudaGraph_t g,
                             const cudaGraphNode_t *deps, size_t n,
                             cudaGraphNodeParams *p) {
  const ::cudafuse_emu::ApiSite site = ::cudafuse_emu::take_api_site();
  if (!p) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  switch (p->type) {
    case cudaGraphNodeTypeKernel:
      return ::cudafuse_emu::add_kernel_node(out, g, deps, n, &p->kernel, "cudaGraphAddNode",
                                             site);
    case cudaGraphNodeTypeMemset: return cudaGraphAddMemsetNode(out, g, deps, n, &p->memset);
    case cudaGraphNodeTypeHost: return cudaGraphAddHostNode(out, g, deps, n, &p->host);
    case cudaGraphNodeTypeGraph:
      return cudaGraphAddChildGraphNode(out, g, deps, n, p->graph.graph);
    case cudaGraphNodeTypeEmpty: return cudaGraphAddEmptyNode(out, g, deps, n);
    case cudaGraphNodeTypeMemAlloc: return cudaGraphAddMemAllocNode(out, g, deps, n, &p->alloc);
    case cudaGraphNodeTypeMemFree: return cudaGraphAddMemFreeNode(out, g, deps, n, p->free.dptr);
    case cudaGraphNodeTypeConditional: {
      cudaConditionalNodeParams &c = p->conditional;
      unsigned count = c.type == cudaGraphCondTypeWhile ? 1 : c.size;
      if (!count || (c.type != cudaGraphCondTypeSwitch && count > 2))
        return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
      CF_GRAPH_NODE(g, deps, n);
      node->type = cudaGraphNodeTypeConditional;
      node->handle = c.handle;
      node->cond = c.type;
      for (unsigned i = 0; i < count; ++i) {
        node->bodies.push_back(std::make_shared<::cudafuse_emu::Graph>());
        // The body graphs belong to the node: the handles given out stay valid with it.
        c.phGraph_out[i] = reinterpret_cast<cudaGraph_t>(node->bodies.back().get());
      }
      return cudaSuccess;
    }
    default: return ::cudafuse_emu::rt_error(cudaErrorNotSupported);
  }
}
cudaError_t cudaGraphAddNode(cudaGraphNode_t *out, cudaGraph_t g,
                             const cudaGraphNode_t *deps, const cudaGraphEdgeData *,
                             size_t n, cudaGraphNodeParams *p) {
  return cudaGraphAddNode(out, g, deps, n, p);
}
cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams *p) {
  ::cudafuse_emu::__cf_GNode *n = ::cudafuse_emu::node_of(node);
  *p = n->kp;
  p->kernelParams = n->args.ptrs.data();
  return cudaSuccess;
}
cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
                                         const cudaKernelNodeParams *p) {
  return ::cudafuse_emu::add_kernel_params(::cudafuse_emu::node_of(node), p,
                                           "cudaGraphKernelNodeSetParams",
                                           ::cudafuse_emu::take_api_site());
}
cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t node,
                                             const cudaKernelNodeParams *p) {
  const ::cudafuse_emu::ApiSite site = ::cudafuse_emu::take_api_site();
  ::cudafuse_emu::__cf_GNode *n = ::cudafuse_emu::exec_of(e)->from[::cudafuse_emu::node_of(node)];
  if (!n) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  return ::cudafuse_emu::add_kernel_params(n, p, "cudaGraphExecKernelNodeSetParams", site);
}
cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const cudaMemsetParams *p) {
  ::cudafuse_emu::node_of(node)->set = *p;
  return cudaSuccess;
}
cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t node,
                                             const cudaMemsetParams *p) {
  ::cudafuse_emu::__cf_GNode *n = ::cudafuse_emu::exec_of(e)->from[::cudafuse_emu::node_of(node)];
  if (!n) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  n->set = *p;
  return cudaSuccess;
}
cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const cudaHostNodeParams *p) {
  ::cudafuse_emu::node_of(node)->host = *p;
  return cudaSuccess;
}
cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t node,
                                           const cudaHostNodeParams *p) {
  ::cudafuse_emu::__cf_GNode *n = ::cudafuse_emu::exec_of(e)->from[::cudafuse_emu::node_of(node)];
  if (!n) return ::cudafuse_emu::rt_error(cudaErrorInvalidValue);
  n->host = *p;
  return cudaSuccess;
}
cudaError_t cudaGraphDebugDotPrint(cudaGraph_t, const char *, unsigned) {
  return cudaSuccess;
}
cudaError_t cudaDeviceGraphMemTrim(int) { return cudaSuccess; }
cudaError_t cudaDeviceGetGraphMemAttribute(int, cudaGraphMemAttributeType a, void *v) {
  const ::cudafuse_emu::GraphMem &m = ::cudafuse_emu::graph_mem();
  *static_cast<unsigned long long *>(v) = a == cudaGraphMemAttrUsedMemCurrent ||
                                                  a == cudaGraphMemAttrReservedMemCurrent
                                              ? m.used
                                              : m.high;
  return cudaSuccess;
}
cudaError_t cudaDeviceSetGraphMemAttribute(int, cudaGraphMemAttributeType a, void *) {
  if (a == cudaGraphMemAttrUsedMemHigh || a == cudaGraphMemAttrReservedMemHigh)
    ::cudafuse_emu::graph_mem().high = ::cudafuse_emu::graph_mem().used;
  return cudaSuccess;
}
#undef CF_GRAPH_NODE

// ---- cudafuse_emu.h / cudafuse_emu_parallel.h: a launch, past its kernel's type ----------
// Launch::run_body and ParallelLaunch::run were templates on the launch's body, so every
// program compiled them (and the scheduler, pool, child-grid and vector code they call) once
// per kernel; the body now comes type-erased (BodyRef), so that code is compiled here once.
namespace cudafuse_emu {
// A kernel computes in the GPU's floating-point environment (round to nearest, subnormals
// kept) whatever the host code set before the launch (fesetround, FTZ/DAZ in MXCSR: a
// program may for its own CPU reference); the host's comes back after it. Set once per launch
// and per pool thread's share of it. (Fibers started from the default MXCSR already; a
// plain-loop kernel on the launching thread ran in the host's rounding mode.)
struct GpuFpEnv {
  std::fenv_t host;
  GpuFpEnv() {
    std::fegetenv(&host);
    std::fesetenv(FE_DFL_ENV);
  }
  ~GpuFpEnv() { std::fesetenv(&host); }
};

// The thread-local launch state the thread that runs a launch's blocks reads: the launching
// thread's, or each pool worker's (thread-local, so each sets its own), in one place.
static void enter_launch(const Site &site, bool fibers, bool coop, size_t shared, dim3 grid,
                         dim3 block, const BodyRef &body) {
  g_site = site;
  g_in_kernel = true;
  g_fibers = fibers;
  g_coop = coop;
  g_dyn_smem_size = shared;
  gridDim = grid;
  blockDim = block;
  __cf_tls_block()->body = body.thread;
  __cf_tls_block()->ctx = body.ctx;
}

void Launch::run_erased(const BodyRef &body) {
  long long threads = (long long)block.x * block.y * block.z;
  char what[512];
  if (!grid.x || !grid.y || !grid.z || !threads) {
    snprintf(what, sizeof what, "launch of '%s' with an empty grid (%u,%u,%u) or block "
             "(%u,%u,%u)", site.kernel, grid.x, grid.y, grid.z, block.x, block.y, block.z);
    return refuse_config(what);
  }
  if (threads > 1024 || block.z > 64 || grid.y > 65535 || grid.z > 65535) {
    snprintf(what, sizeof what, "launch of '%s' with block (%u,%u,%u) / grid (%u,%u,%u) "
             "exceeds CUDA's limits (1024 threads, block.z <= 64, grid.y/z <= 65535)",
             site.kernel, block.x, block.y, block.z, grid.x, grid.y, grid.z);
    return refuse_config(what);
  }
  if (shared > sizeof __cf_g_dyn_smem)
    fail("%s:%d: launch of '%s' asks for %zu bytes of dynamic shared memory (at most %zu)",
         site.file, site.line, site.kernel, shared, sizeof __cf_g_dyn_smem);
  const bool top = !g_in_kernel;  // not a child grid (a launch in device code)
  ChildGrid child(site);  // a launch in device code sets its parent aside until it ends
  if (child.refused) return;
  // Dynamic shared memory holds what nothing wrote: bytes that follow the fill of fresh
  // device memory (verify's two runs with different fills then tell a read of them), and
  // past the launch's size they are a canary: a kernel that writes there (extern
  // __shared__ with too small a third <<<>>> argument) is an error, as it faults on a GPU.
  const unsigned char canary = (unsigned char)(fill_byte() ^ 0x5A);
  memset(__cf_g_dyn_smem, canary, sizeof __cf_g_dyn_smem);
  size_t tail_mark = g_tail.size();
  if (g_force_fibers < 0) {
    const char *env = getenv("CUDAFUSE_EMU_FIBERS");
    g_force_fibers = env && *env == '1';
    const char *seed = getenv("CUDAFUSE_EMU_SEED");
    g_seed = seed ? strtoull(seed, nullptr, 10) : 0;
    if (g_seed) {
      g_force_fibers = 1;
      unsigned long long z = g_seed + 0x9e3779b97f4a7c15ull;  // splitmix64: small seeds
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;           // differ in every bit
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      g_seed = (z ^ (z >> 31)) | 1;
    }
  }
  bool use_fibers = fibers || g_force_fibers;
  GpuFpEnv fp_env;
  int n = (int)threads;
  long long nb = (long long)grid.x * grid.y * grid.z;
  // Seeded runs (CUDAFUSE_EMU_SEED) expose races in one reproducible order: serial; so
  // are the blocks of a launch verify's race check reverses (order_check).
  const bool reverse = parallel && top && !cooperative && order_check(site);
  int workers = parallel && top && !cooperative && !g_seed && !reverse ? worker_count() : 1;
  if (workers > nb) workers = (int)nb;
  if (workers > 1) {
    ParallelLaunch p{site, grid, block, shared, use_fibers, canary, n, nb};
    p.run(body, workers);
    run_tail_launches(tail_mark);
    return;
  }
  enter_launch(site, use_fibers, cooperative, shared, grid, block, body);
  if (cooperative) run_grid_fibers(n, grid, shared);
  else
    for (long long i = 0; i < nb; ++i) {
      const long long b = reverse ? nb - 1 - i : i;  // blocks in linear id order
      blockIdx = uint3{unsigned(b % grid.x), unsigned((b / grid.x) % grid.y),
                       unsigned(b / ((long long)grid.x * grid.y))};
      if (use_fibers) {
        run_block_fibers(n);
      } else {
        body.block(body.ctx, block);
      }
    }
  g_in_kernel = false;
  g_fibers = false;
  g_coop = false;
  for (size_t i = shared; i < sizeof __cf_g_dyn_smem; ++i)
    if (__cf_g_dyn_smem[i] != canary)
      fail("%s:%d: kernel '%s' wrote dynamic shared memory (extern __shared__) at byte %zu, "
           "past the %zu bytes its launch gives (the third <<<>>> argument): on a GPU the "
           "launch fails", site.file, site.line, site.kernel, i, shared);
  run_tail_launches(tail_mark);
}

void ParallelLaunch::run(const BodyRef &body, int workers) {
  std::atomic<long long> next{0};
  std::vector<size_t> past(workers, SIZE_MAX);  // each thread's first byte written past `shared`
  BlockPool &P = block_pool();
  pool_run(workers, [&](int w) {
    std::fesetenv(FE_DFL_ENV);  // a pool thread started under the host's environment
    enter_launch(site, fibers, false, shared, grid, block, body);
    memset(__cf_g_dyn_smem, canary, sizeof __cf_g_dyn_smem);
    for (;;) {
      long long b = next.fetch_add(1, std::memory_order_relaxed);
      if (b >= nb || b > P.stop.block.load()) break;
      g_par_block = b;
      blockIdx = uint3{unsigned(b % grid.x), unsigned((b / grid.x) % grid.y),
                       unsigned(b / ((long long)grid.x * grid.y))};
      if (fibers) {
        run_block_fibers(n);
      } else {  // thread ids in set_thread's order, as the serial loop runs them
        body.block(body.ctx, block);
      }
    }
    g_par_block = -1;
    g_in_kernel = false;
    g_fibers = false;
    for (size_t i = shared; i < sizeof __cf_g_dyn_smem; ++i)
      if (__cf_g_dyn_smem[i] != canary) {
        past[w] = i;
        break;
      }
  });
  if (P.stop.block.load() != LLONG_MAX) {
    if (P.stop.sig && g_refault) g_refault(P.stop.text, P.stop.sig);
    report_exit(P.stop.text);
  }
  size_t first = *std::min_element(past.begin(), past.end());
  if (first != SIZE_MAX)
    fail("%s:%d: kernel '%s' wrote dynamic shared memory (extern __shared__) at byte %zu, "
         "past the %zu bytes its launch gives (the third <<<>>> argument): on a GPU the "
         "launch fails", site.file, site.line, site.kernel, first, shared);
}

void __cf_KernelReg::register_kernel(const void *f, const char *name, void (*call)(void **),
                                     bool fibers, bool parallel, const size_t *sizes,
                                     const std::type_info *const *types, size_t n) {
  KernelInfo &k = kernel_registry()[f];
  k.name = name;
  k.fibers = fibers;
  k.parallel = parallel;
  k.call = call;
  k.sizes.assign(sizes, sizes + n);
  k.types.assign(types, types + n);
}
const KernelInfo *find_kernel(const void *f) {
  auto it = kernel_registry().find(f);
  return it == kernel_registry().end() ? nullptr : &it->second;
}
}  // namespace cudafuse_emu
