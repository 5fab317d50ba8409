// cudafuse_emu_launch.h: launches through the runtime API (cudaLaunchKernel,
// cudaLaunchCooperativeKernel) and the cooperative grid scheduler that makes grid.sync() a
// real barrier across every block (see docs/emulation.md, "Cooperative launches").
//
// Included at the end of cudafuse_emu.h. A kernel passed as `(void *)k` has lost its type, so
// the rewrite registers every kernel of the program (address -> a thunk that calls it with
// `void **` arguments, the parameter sizes, whether it needs fibers) with __CF_KERNEL.
#pragma once
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

namespace cudafuse_emu {
// The type of a kernel's I-th parameter: a null pointer constant (NULL, 0) passed to a
// pointer parameter is cast to it at the launch, since forwarding it through the launch's
// generic call would turn it into an integer (emu/rewrite.py, _null_arguments).
template <class F, int I> struct nth_param;
template <class... P, int I> struct nth_param<void (*)(P...), I> {
  using type = typename std::tuple_element<I, std::tuple<P...>>::type;
};
template <class F, int I> using __cf_nth_param_t = typename nth_param<F, I>::type;


// ---- the kernel registry ----------------------------------------------------------------
struct KernelInfo {
  const char *name = "";
  bool fibers = true;
  bool parallel = false;  // its blocks may run on several OS threads (cudafuse_emu_parallel.h)
  void (*call)(void **args) = nullptr;       // calls the kernel once (one thread)
  std::vector<size_t> sizes;                  // parameter sizes, for copying arguments
  std::vector<const std::type_info *> types;  // parameter types (param_key), for captures
};
inline std::map<const void *, KernelInfo> &kernel_registry() {
  static std::map<const void *, KernelInfo> *r = new std::map<const void *, KernelInfo>;
  return *r;
}
template <class... P, size_t... I>
inline void call_unpacked(void (*f)(P...), void **a, std::index_sequence<I...>) {
  f(*static_cast<std::remove_cv_t<std::remove_reference_t<P>> *>(a[I])...);
}
template <class... P> inline void __cf_call_with_args(void (*f)(P...), void **a) {
  call_unpacked(f, a, std::index_sequence_for<P...>{});
}
template <class... P> inline std::vector<size_t> param_sizes(void (*)(P...)) {
  return {sizeof(std::remove_cv_t<std::remove_reference_t<P>>)...};
}
struct __cf_KernelReg {
  template <class... P>
  __cf_KernelReg(void (*f)(P...), const char *name, void (*call)(void **), bool fibers,
                 bool parallel = false) {
    const size_t sizes[] = {sizeof(std::remove_cv_t<std::remove_reference_t<P>>)..., 0};
    const std::type_info *types[] = {param_key<P>()..., nullptr};
    register_kernel(reinterpret_cast<const void *>(f), name, call, fibers, parallel, sizes,
                    types, sizeof...(P));
  }
  // Defined in emu/runtime.cpp, as find_kernel: the registry's map code is compiled once.
  static void register_kernel(const void *f, const char *name, void (*call)(void **),
                              bool fibers, bool parallel, const size_t *sizes,
                              const std::type_info *const *types, size_t n);
};
const KernelInfo *find_kernel(const void *f);
// A launch through a variable (`kernel_fn<<<g, b>>>(...)`, a function pointer or a generic
// lambda's parameter; emu/rewrite.py): the kernel it holds, found by address, gives the
// launch its name, fibers and parallel blocks, as the kernel's own launch would; another
// (a template instance: not registered) runs on fibers, serially, as an unseen kernel does.
template <class F>
inline LaunchConfig __cf_launch_via(const char *name, const char *file, int line, F *f) {
  const KernelInfo *k = find_kernel(reinterpret_cast<const void *>(f));
  if (!k) return LaunchConfig{Site{name, file, line}, true, false};
  return LaunchConfig{Site{k->name, file, line}, k->fibers, k->parallel};
}

// A kernel whose address the host code takes (`(void *)k<float, 3>`, `kernel_t p = k<int>;`):
// the rewrite spells it registered<&k<float, 3>>("k", fibers, parallel) where it is written
// (emu/rewrite.py, _kernel_addresses), so that cudaLaunchKernel finds a template's instance
// by address as it finds the kernels registered after the program.
template <auto F>
inline decltype(F) registered(const char *name, bool fibers, bool parallel) {
  static const __cf_KernelReg once(F, name, [](void **a) { __cf_call_with_args(F, a); }, fibers,
                                   parallel);
  (void)once;
  return F;
}
// The rewrite's spelling of registered (reserved: see the top of cudafuse_emu.h).
template <auto F>
inline decltype(F) __cf_registered(const char *name, bool fibers, bool parallel) {
  return registered<F>(name, fibers, parallel);
}
// Where a cudaLaunchKernel / cudaLaunchCooperativeKernel call is written, and its kernel
// argument's text: the rewrite wraps that argument in __cf_api_site(__FILE__, __LINE__, "text", f),
// so that a pointer the registry does not hold stops the run at the call, naming it.
struct ApiSite {
  const char *file = nullptr;
  int line = 0;
  const char *text = "";
};
inline thread_local ApiSite g_api_site;
// ` (0x..., symbol 'void k<3>(float*)')`: what the dynamic symbols say is at `f` (runtime.cpp).
const char *describe_function(const void *f);
template <class T> inline T __cf_api_site(const char *file, int line, const char *text, T f) {
  g_api_site = ApiSite{file, line, text};
  return f;
}

// Whether the registered kernel at `f` may run its blocks in parallel (the trampolines ask).
inline bool parallel_kernel(const void *f) {
  const KernelInfo *k = find_kernel(f);
  return k && k->parallel;
}

// ---- the cooperative grid scheduler -----------------------------------------------------
// All blocks of a cooperative launch are resident at once, as on the GPU. Blocks still run
// one after another, each until every live thread waits at grid.sync() (or has exited); the
// block is then parked: its threads' used stack bytes (from the saved stack pointer to the top
// of each fiber's stack), fiber records and dynamic shared memory are copied out, so every
// block reuses the same blockDim fiber stacks. When every block waits, the grid barrier
// completes and each block is resumed in turn (stacks copied back to the same addresses).
constexpr uint8_t __cf_AT_GRID = 5;  // cooperative_groups.h's coalesced_threads uses 4


struct ParkedBlock {
  bool started = false, done = false;
  int live = 0;
  std::vector<__cf_Fiber> fibers;
  std::vector<int> warp_live;
  std::vector<std::vector<unsigned char>> stacks;  // per thread, [sp, top) of its stack
  std::vector<unsigned char> smem;
};
inline size_t g_grid_saved = 0;  // bytes of parked stacks, against the limit

inline size_t grid_limit_bytes() {
  const char *env = getenv("CUDAFUSE_EMU_GRID_MB");
  return (env ? strtoull(env, nullptr, 10) : 4096) << 20;
}

__attribute__((no_sanitize_address)) inline void raw_copy(void *d, const void *s, size_t n) {
  auto *dc = static_cast<volatile unsigned char *>(d);
  auto *sc = static_cast<const volatile unsigned char *>(s);
  for (size_t i = 0; i < n; ++i) dc[i] = sc[i];
}

[[noreturn]] inline void grid_stuck(const std::vector<ParkedBlock> &blocks, dim3 grid) {
  std::string waiting, exited;
  int nw = 0, ne = 0;
  for (size_t b = 0; b < blocks.size(); ++b) {
    unsigned bx = b % grid.x, by = (b / grid.x) % grid.y, bz = b / (grid.x * grid.y);
    char id[64];
    snprintf(id, sizeof id, "(%u,%u,%u)", bx, by, bz);
    std::string &s = blocks[b].done ? exited : waiting;
    int &count = blocks[b].done ? ne : nw;
    if (count < 8) s += (s.empty() ? "" : " ") + std::string(id);
    else if (count == 8) s += " ...";
    ++count;
  }
  const char *file = "", *where = "grid.sync()";
  int line = 0;
  for (const ParkedBlock &pb : blocks)
    for (const __cf_Fiber &f : pb.fibers)
      if (f.state == __cf_AT_GRID) { file = f.file; line = f.line; break; }
  g_in_kernel = false;
  fail("%s:%d: kernel '%s': deadlock at %s (%s:%d): %d blocks wait (%s) but %d blocks have "
       "exited without reaching it (%s); every block of the grid must reach each grid "
       "synchronisation",
       g_site.file, g_site.line, g_site.kernel, where, file, line, nw, waiting.c_str(), ne,
       exited.c_str());
}

inline void run_grid_fibers(int n, dim3 grid, size_t shared) {
  __cf_Block &B = *__cf_tls_block();
  size_t nb = (size_t)grid.x * grid.y * grid.z;
  std::vector<ParkedBlock> blocks(nb);
  static std::vector<__cf_Fiber> fibers;
  size_t limit = grid_limit_bytes();
  g_grid_saved = 0;
  for (int i = 0; i < n; ++i) stack_top(i);  // allocate the stacks up front
  std::vector<int> order;
  for (;;) {
    size_t parked = 0, finished = 0;
    for (size_t b = 0; b < nb; ++b) {
      ParkedBlock &pb = blocks[b];
      if (pb.done) { ++finished; continue; }
      blockIdx = uint3{unsigned(b % grid.x), unsigned((b / grid.x) % grid.y),
                       unsigned(b / ((size_t)grid.x * grid.y))};
      B.n = n;
      thread_ids(B, n);
      B.nwarps = (n + 31) / 32;
      B.at_warp = 0;  // a parked block waits only at the grid barrier
      B.at_active = 0;
      B.warp_at.assign(B.nwarps, 0u);
      B.warp_wait.assign(16 * B.nwarps, 0);
      for (int k = 0; k < 16; ++k) {
        B.bar_expected[k] = B.bar_waiting[k] = 0;
        B.bar_pred[k] = 0;
        B.bar_pred_and[k] = 1;
      }
      B.bars_busy = 0;
      if (!pb.started) {
        pb.started = true;
        fibers.assign(n, __cf_Fiber{});
        B.f = fibers.data();
        B.live = n;
        B.warp_live.assign(B.nwarps, 0);
        for (int i = 0; i < n; ++i) ++B.warp_live[i >> 5];
        for (int i = 0; i < n; ++i) B.f[i].sp = fresh_context(i);
      } else {  // resume after the grid barrier
        fibers.swap(pb.fibers);
        B.f = fibers.data();
        B.live = pb.live;
        B.warp_live.swap(pb.warp_live);
        for (int i = 0; i < n; ++i) {
          __cf_Fiber &f = B.f[i];
          if (f.state == __cf_DONE) continue;
          std::vector<unsigned char> &st = pb.stacks[i];
          raw_copy(stack_top(i) - st.size(), st.data(), st.size());
          g_grid_saved -= st.size();
          std::vector<unsigned char>().swap(st);
          f.state = __cf_RUN;
        }
        if (shared) memcpy(__cf_g_dyn_smem, pb.smem.data(), shared);
      }
      while (B.live) {
        bool ran = false;
        order.clear();
        for (int i = 0; i < n; ++i)
          if (B.f[i].state == __cf_RUN) order.push_back(i);
        if (g_seed)
          for (size_t k = order.size(); k > 1; --k)
            std::swap(order[k - 1], order[next_rand() % k]);
        for (int i : order) {
          if (B.f[i].state != __cf_RUN) continue;
          B.cur = i;
          set_thread(i);
          to_fiber(i);
          ran = true;
        }
        if (ran) continue;
        int at_grid = 0;
        for (int i = 0; i < n; ++i) at_grid += B.f[i].state == __cf_AT_GRID;
        if (at_grid == B.live) break;  // parked at the grid barrier
        if (!(g_on_stall && g_on_stall()))
          report_stuck("deadlock: no thread of the block can make progress");
      }
      if (!B.live) {
        pb.done = true;
        ++finished;
        std::vector<__cf_Fiber>().swap(pb.fibers);
        continue;
      }
      ++parked;
      pb.live = B.live;
      pb.stacks.resize(n);
      for (int i = 0; i < n; ++i) {
        const __cf_Fiber &f = B.f[i];
        if (f.state == __cf_DONE) continue;
        char *top = stack_top(i), *sp = static_cast<char *>(f.sp);
        pb.stacks[i].resize(top - sp);
        raw_copy(pb.stacks[i].data(), sp, top - sp);
        g_grid_saved += top - sp;
      }
      if (g_grid_saved > limit)
        fail("cooperative launch of '%s' (%s:%d): the parked blocks' fiber stacks take more "
             "than %zu MiB (%zu blocks of %d threads); raise CUDAFUSE_EMU_GRID_MB or launch "
             "a smaller grid",
             g_site.kernel, g_site.file, g_site.line, limit >> 20, nb, n);
      if (shared) pb.smem.assign(__cf_g_dyn_smem, __cf_g_dyn_smem + shared);
      pb.fibers.swap(fibers);
      pb.warp_live.swap(B.warp_live);
    }
    if (finished == nb) break;
    if (finished) grid_stuck(blocks, grid);
    (void)parked;  // every block waits: the grid barrier completes, the next pass resumes them
  }
}

// grid.sync() (cooperative_groups.h): a barrier across every thread of the grid.
inline void grid_barrier(const char *file, int line) {
  if (!g_in_kernel) fail("%s:%d: grid_group::sync() called outside a kernel", file, line);
  if (!g_coop)
    fail("%s:%d: grid_group::sync() in a kernel launched with <<<...>>> (or cudaLaunchKernel): "
         "grid synchronisation is undefined unless the kernel is launched with "
         "cudaLaunchCooperativeKernel, which makes every block resident at once (on the GPU "
         "this hangs or fails); the emulator does not run it",
         file, line);
  need_fibers("grid_group::sync", file, line);
  __cf_Fiber &me = __cf_tls_block()->f[__cf_tls_block()->cur];
  me.state = __cf_AT_GRID;
  me.file = file;
  me.line = line;
  block_wait();
}

// ---- __launch_bounds__ -----------------------------------------------------------------
// On a GPU a launch with more threads a block than the kernel's __launch_bounds__(N, ...)
// allows does not run: the runtime returns cudaErrorLaunchOutOfResources ("too many resources
// requested for launch": the driver checks the block against the function's maximum threads
// per block, which the bound sets, as it does for a register count that leaves too few). The
// rewrite (emu/launch_bounds.py) puts __CF_LAUNCH_BOUNDS(text, args) first in the body of
// every kernel declared with a bound, so the compiler evaluates the bound where the kernel is
// written (template parameters, #defines, constexpr). Every thread of a refused launch returns
// before its first statement: nothing the kernel does happens, the launch's error is the
// program's last error, and a warning names the kernel, the block and the bound. A launch
// made from Python or a spec (verify --hfuse, `cudafuse run` of a kernel entry) has no program
// to check the error: there it is an error. __maxnreg__ sets no thread limit.
inline std::atomic<unsigned long long> g_bounds_refused{0};  // launches refused so far

template <class T, class... R>
constexpr long long __cf_bound_threads(T max_threads, R...) { return (long long)max_threads; }

// The bound of each kernel the rewrite could name (not a template: __CF_BOUNDS_OF after
// the kernel's body; a template's instances: __CF_INSTANCE_BOUNDS in it), for what the runtime
// reports before any launch: cudaFuncGetAttributes' maxThreadsPerBlock and the occupancy
// API, which a program tuning its block size asks (cudafuse_emu_runtime.h).
inline std::map<const void *, long long> &bound_registry() {
  static std::map<const void *, long long> *r = new std::map<const void *, long long>;
  return *r;
}
// (Lowercase: a program may #define a capitalised name, which would reach __CF_BOUNDS_OF.)
struct __cf_bound_reg {
  __cf_bound_reg(const void *f, long long threads) { bound_registry()[f] = threads; }
};
// The bound of a template kernel's instance, by its address (__CF_INSTANCE_BOUNDS).
template <auto F, long long N>
inline __cf_bound_reg __cf_instance_bound{reinterpret_cast<const void *>(F), N};
inline int max_threads_of(const void *f) {
  auto it = bound_registry().find(f);
  const int most = device_props().maxThreadsPerBlock;
  return it == bound_registry().end() || it->second > most ? most : (int)it->second;
}

inline bool __cf_over_bounds(long long bound, const char *text, const char *file, int line) {
  const long long threads = (long long)blockDim.x * blockDim.y * blockDim.z;
  if (threads <= bound) return false;
  // Once per launch (every thread of it lands here): the first thread of the first block.
  if (threadIdx.x || threadIdx.y || threadIdx.z || blockIdx.x || blockIdx.y || blockIdx.z)
    return true;
  ++g_bounds_refused;
  rt_error(cudaErrorLaunchOutOfResources);
  char what[1024];
  snprintf(what, sizeof what,
           "launch of '%s' with block (%u,%u,%u) = %lld threads fails on a GPU: its "
           "__launch_bounds__(%s) (%s:%d) allows at most %lld threads a block; the launch "
           "returns cudaErrorLaunchOutOfResources and the kernel does not run",
           g_site.kernel, blockDim.x, blockDim.y, blockDim.z, threads, text, file, line,
           bound);
  // Launched from Python or a spec (runtime/trampoline.py): nothing checks the launch's error.
  if (!strcmp(g_site.file, "<python>")) {
    g_in_kernel = false;
    fail("%s", what);
  }
  static std::mutex lock;
  static std::set<std::string> said;
  std::lock_guard<std::mutex> hold(lock);
  char where[1024];
  if (g_site.line) snprintf(where, sizeof where, "%s:%d: %s", g_site.file, g_site.line, what);
  else snprintf(where, sizeof where, "%s", what);  // cudaLaunchKernel: the site is unknown
  if (said.insert(where).second) {
    fprintf(stderr, "cudafuse-emu: warning: %s\n", where);
    fflush(stderr);
  }
  return true;
}

// ---- launches through the runtime API ---------------------------------------------------
// Runs `call` as the kernel of a launch (the registry's thunk, or a typed function pointer).
template <class F>
inline cudaError_t launch_with(const char *name, bool fibers, bool coop, F call, dim3 grid,
                               dim3 block, size_t shared, cudaStream_t stream,
                               bool parallel = false) {
  Launch l{Site{name, "", 0}, fibers, grid, block, shared};
  l.stream = stream;
  l.cooperative = coop;
  l.parallel = parallel && !coop;
  const unsigned long long refused = g_bounds_refused, invalid = g_config_refused;
  l.run(call);
  // A launch its kernel's __launch_bounds__ or an invalid configuration refuses returns the
  // error itself, as on a GPU.
  if (g_config_refused != invalid) return cudaErrorInvalidConfiguration;
  return g_bounds_refused != refused ? cudaErrorLaunchOutOfResources : cudaSuccess;
}

inline cudaError_t coop_check(dim3 grid, dim3 block, size_t shared) {
  long long threads = (long long)block.x * block.y * block.z;
  if (threads <= 0 || threads > 1024 || !grid.x || !grid.y || !grid.z)
    return rt_error(cudaErrorInvalidConfiguration);
  long long resident = (long long)occupancy((int)threads, shared) *
                       device_props().multiProcessorCount;
  if ((long long)grid.x * grid.y * grid.z > resident)
    return rt_error(cudaErrorCooperativeLaunchTooLarge);
  return cudaSuccess;
}

inline cudaError_t launch_registered(const void *func, dim3 grid, dim3 block, void **args,
                                     size_t shared, cudaStream_t stream, bool coop) {
  const KernelInfo *k = find_kernel(func);
  const ApiSite site = g_api_site;
  g_api_site = ApiSite{};
  // On a GPU an unknown pointer fails the launch, which a program rarely checks: here a
  // launch that would silently do nothing would make every comparison of outputs vacuous.
  const char *api = coop ? "cudaLaunchCooperativeKernel" : "cudaLaunchKernel";
  if (!k && site.file)
    fail("%s:%d: %s of '%s': the emulator cannot tell which kernel this pointer names%s: "
         "not a kernel of this program, or one whose address is taken where the rewrite "
         "does not see it (in a header, a macro or a global initialiser)",
         site.file, site.line, api, site.text, describe_function(func));
  if (!k)
    fail("%s of a pointer the emulator cannot tell the kernel of%s (a call the rewrite did "
         "not see, in a header or a macro)", api, describe_function(func));
  if (coop) {
    cudaError_t e = coop_check(grid, block, shared);
    if (e != cudaSuccess) return e;
  }
  ArgPack pack;
  pack.set(k->sizes, args);
  void (*call)(void **) = k->call;
  return launch_with(k->name, k->fibers || coop, coop,
                     [call, pack]() mutable { call(pack.ptrs.data()); }, grid, block, shared,
                     stream, k->parallel);
}

}  // namespace cudafuse_emu

inline cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args,
                                    size_t shared, cudaStream_t stream) {
  return ::cudafuse_emu::launch_registered(func, grid, block, args, shared, stream, false);
}
// The API header's `T *` templates (cuda_api/cudafuse_cuda_api.h), which a call with a
// `void *` (`cudaLaunchKernel((void *)k, ...)`) selects: defined here as the untyped launch.
template <class T>
inline cudaError_t cudaLaunchKernel(T *func, dim3 grid, dim3 block, void **args, size_t shared,
                                    cudaStream_t stream) {
  return cudaLaunchKernel(reinterpret_cast<const void *>(func), grid, block, args, shared,
                          stream);
}
template <class... P>
inline cudaError_t cudaLaunchKernel(void (*func)(P...), dim3 grid, dim3 block, void **args,
                                    size_t shared = 0, cudaStream_t stream = nullptr) {
  if (::cudafuse_emu::find_kernel(reinterpret_cast<const void *>(func)))
    return cudaLaunchKernel(reinterpret_cast<const void *>(func), grid, block, args, shared,
                            stream);
  ::cudafuse_emu::g_api_site = {};  // typed: runs without the registry
  ::cudafuse_emu::ArgPack pack;
  pack.set(::cudafuse_emu::param_sizes(func), args);
  return ::cudafuse_emu::launch_with(
      "kernel", true, false,
      [func, pack]() mutable { ::cudafuse_emu::__cf_call_with_args(func, pack.ptrs.data()); }, grid,
      block, shared, stream);
}
inline cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 grid, dim3 block,
                                               void **args, size_t shared,
                                               cudaStream_t stream) {
  return ::cudafuse_emu::launch_registered(func, grid, block, args, shared, stream, true);
}
template <class T>
inline cudaError_t cudaLaunchCooperativeKernel(T *func, dim3 grid, dim3 block, void **args,
                                               size_t shared, cudaStream_t stream) {
  return cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(func), grid, block, args,
                                     shared, stream);
}
template <class... P>
inline cudaError_t cudaLaunchCooperativeKernel(void (*func)(P...), dim3 grid, dim3 block,
                                               void **args, size_t shared = 0,
                                               cudaStream_t stream = nullptr) {
  if (::cudafuse_emu::find_kernel(reinterpret_cast<const void *>(func)))
    return cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(func), grid, block, args,
                                       shared, stream);
  cudaError_t e = ::cudafuse_emu::coop_check(grid, block, shared);
  if (e != cudaSuccess) return e;
  ::cudafuse_emu::g_api_site = {};  // typed: runs without the registry
  ::cudafuse_emu::ArgPack pack;
  pack.set(::cudafuse_emu::param_sizes(func), args);
  return ::cudafuse_emu::launch_with(
      "kernel", true, true,
      [func, pack]() mutable { ::cudafuse_emu::__cf_call_with_args(func, pack.ptrs.data()); }, grid,
      block, shared, stream);
}

// cudaLaunchKernelEx: the configuration's grid, block, shared bytes and stream, and of its
// attributes the one that changes how blocks run (cooperative); thread-block clusters need a
// grid of whole clusters (no kernel API of the emulator observes a cluster), and the rest are
// hints (priority, access policy windows, programmatic serialisation: a stronger order).
namespace cudafuse_emu {
inline bool ex_cooperative(const cudaLaunchConfig_t *c) {
  bool coop = false;
  for (unsigned i = 0; c->attrs && i < c->numAttrs; ++i) {
    const cudaLaunchAttribute &a = c->attrs[i];
    if (a.id == cudaLaunchAttributeCooperative) coop = a.val.cooperative != 0;
    if (a.id == cudaLaunchAttributeClusterDimension) {
      const unsigned x = a.val.clusterDim.x, y = a.val.clusterDim.y, z = a.val.clusterDim.z;
      if (!x || !y || !z || c->gridDim.x % x || c->gridDim.y % y || c->gridDim.z % z)
        fail("cudaLaunchKernelEx: grid (%u,%u,%u) is not a whole number of clusters (%u,%u,%u)",
             c->gridDim.x, c->gridDim.y, c->gridDim.z, x, y, z);
    }
  }
  return coop;
}
}  // namespace cudafuse_emu
inline cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *f,
                                       void **args) {
  if (::cudafuse_emu::ex_cooperative(config))
    return cudaLaunchCooperativeKernel(f, config->gridDim, config->blockDim, args,
                                       config->dynamicSmemBytes, config->stream);
  return cudaLaunchKernel(f, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
                          config->stream);
}
// The typed form converts each argument to its parameter's type, as the toolkit's does.
template <class... P, class... A>
inline cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(P...),
                                      A &&...args) {
  static_assert(sizeof...(P) == sizeof...(A), "cudaLaunchKernelEx: one argument a parameter");
  std::tuple<std::remove_cv_t<std::remove_reference_t<P>>...> values(std::forward<A>(args)...);
  return std::apply(
      [&](auto &...v) {
        void *ptrs[] = {static_cast<void *>(&v)..., nullptr};
        if (::cudafuse_emu::ex_cooperative(config))
          return cudaLaunchCooperativeKernel(kernel, config->gridDim, config->blockDim, ptrs,
                                             config->dynamicSmemBytes, config->stream);
        return cudaLaunchKernel(kernel, config->gridDim, config->blockDim, ptrs,
                                config->dynamicSmemBytes, config->stream);
      },
      values);
}

// Registration emitted by the rewrite after the program: __CF_KERNEL(::ns::k, "k", fibers)
// or __CF_KERNEL(::ns::k, "k", fibers, true) for a kernel whose blocks may run in parallel.
#define __CF_KERNEL(fn, name, ...)                                                     \
  static ::__cf_emu::__cf_KernelReg __CF_KREG_CAT(__cf_kreg_, __COUNTER__)(                     \
      &fn, name, [](void **__cf_a) { ::__cf_emu::__cf_call_with_args(&fn, __cf_a); }, __VA_ARGS__)
// First in the body of a kernel declared with __launch_bounds__(args) (emu/launch_bounds.py).
#define __CF_LAUNCH_BOUNDS(text, ...)                                                  \
  if (::__cf_emu::__cf_over_bounds(::__cf_emu::__cf_bound_threads(__VA_ARGS__), text,        \
                                  __FILE__, __LINE__))                                      \
    return;
// After the body of a (non-template) kernel declared with __launch_bounds__(args).
#define __CF_BOUNDS_OF(fn, ...)                                                        \
  static ::__cf_emu::__cf_bound_reg __CF_KREG_CAT(__cf_bounds_, __COUNTER__)(                    \
      reinterpret_cast<const void *>(&fn), ::__cf_emu::__cf_bound_threads(__VA_ARGS__));
// First in the body of a template kernel with a bound, after __CF_LAUNCH_BOUNDS:
// `fn` is the instance's own address, (&k<P1, P2>). Naming __cf_instance_bound<fn, bound> makes
// each instance of the kernel the program compiles register its bound at start-up (the
// variable is initialised with the program's statics), before any launch.
#define __CF_INSTANCE_BOUNDS(fn, ...)                                                  \
  (void)&::__cf_emu::__cf_instance_bound<fn, ::__cf_emu::__cf_bound_threads(__VA_ARGS__)>;
#define __CF_KREG_CAT(a, b) __CF_KREG_CAT2(a, b)
#define __CF_KREG_CAT2(a, b) a##b
