// Bounds checks of the default emulated build: a second translation unit linked into every
// emu library that is not built with AddressSanitizer (runtime/build.py).
//
// The worker (runtime/worker.py, GuardedBuffers) places each spec array so that it ends
// where an inaccessible guard region begins. An access past the end then faults; this
// handler writes the faulting address, whether it was a write, and which kernel, block and
// thread was running to $CUDAFUSE_EMU_GUARDS, and lets the signal end the process as it
// would have. The runtime (runtime/guards.py) names the argument and the index.
//
// It lives in its own file because <signal.h> and <unistd.h> declare `signal`, `open`,
// `write`... in the global namespace, where they would clash with a program's own names.

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

namespace {

char g_path[4096];
char g_altstack[1 << 16];  // a fiber's stack overflow faults too; the handler needs a stack

void write_report(const char *buf, int n) {
  int fd = open(g_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd >= 0) {
    if (n > 0) (void)!write(fd, buf, static_cast<size_t>(n) < 2048 ? n : 2047);
    close(fd);
  }
}

void on_fault(int sig, siginfo_t *si, void *ctx) {
  auto *uc = static_cast<ucontext_t *>(ctx);
  // x86-64 page-fault error code: bit 1 set for a write.
  long long err = uc->uc_mcontext.gregs[REG_ERR];
  void *pc = reinterpret_cast<void *>(uc->uc_mcontext.gregs[REG_RIP]);
  // The function holding pc, only if pc lies inside the symbol found: dladdr alone names
  // the nearest exported symbol before it, which for a static function is another one.
  Dl_info info{};
  void *extra = nullptr;
  const char *sym = "";
  if (dladdr1(pc, &info, &extra, RTLD_DL_SYMENT) && extra && info.dli_sname &&
      static_cast<char *>(pc) < static_cast<char *>(info.dli_saddr) +
                                    static_cast<const ElfW(Sym) *>(extra)->st_size)
    sym = info.dli_sname;
  const auto &site = ::cudafuse_emu::g_site;
  char buf[2048];
  int n = snprintf(buf, sizeof buf,
                   "addr %p\ncode %d\nwrite %d\nin_kernel %d\nkernel %s\nfile %s\n"
                   "line %d\nblock %u %u %u\nthread %u %u %u\nsymbol %s\n",
                   si->si_addr, si->si_code, static_cast<int>((err >> 1) & 1),
                   ::cudafuse_emu::g_in_kernel ? 1 : 0, site.kernel ? site.kernel : "",
                   site.file ? site.file : "", site.line, blockIdx.x, blockIdx.y, blockIdx.z,
                   threadIdx.x, threadIdx.y, threadIdx.z, sym);
  // A pool thread of a parallel launch: the launching thread reports the lowest block's fault
  // once the blocks below it have run (cudafuse_emu_parallel.h), through refault below.
  if (::cudafuse_emu::g_par_block >= 0) ::cudafuse_emu::par_stop(sig, buf);
  write_report(buf, n);
  signal(sig, SIG_DFL);  // returning re-runs the access, which now ends the process
}

// The report of a fault in a parallel launch's lowest stopped block, then the same end.
void refault(const char *text, int sig) {
  write_report(text, static_cast<int>(strlen(text)));
  signal(sig, SIG_DFL);
  raise(sig);
  _exit(128 + sig);
}

// Each pool thread gets its own signal stack: a fiber's stack overflow faults there too.
void thread_start() {
  stack_t ss{};
  ss.ss_size = 1 << 16;
  ss.ss_sp = malloc(ss.ss_size);
  if (ss.ss_sp) sigaltstack(&ss, nullptr);
}

bool install() {
  const char *path = getenv("CUDAFUSE_EMU_GUARDS");
  if (!path) return false;
  snprintf(g_path, sizeof g_path, "%s", path);
  stack_t ss{};
  ss.ss_sp = g_altstack;
  ss.ss_size = sizeof g_altstack;
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, nullptr);
  sigaction(SIGBUS, &sa, nullptr);
  ::cudafuse_emu::g_thread_start = &thread_start;
  ::cudafuse_emu::g_refault = &refault;
  return true;
}

const bool g_installed = install();

}  // namespace
