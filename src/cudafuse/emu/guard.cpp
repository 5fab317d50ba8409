// Bounds checks of the default emulated build, and the GPU's values for an integer division
// by zero in a kernel (below): a second translation unit linked into every emu library that
// is not built with AddressSanitizer (runtime/build.py).
//
// The worker (runtime/worker.py, GuardedBuffers) places each spec array so that it ends
// where an inaccessible guard region begins. An access past the end then faults; this
// handler writes the faulting address, whether it was a write, and which kernel, block and
// thread was running to $CUDAFUSE_EMU_GUARDS, and lets the signal end the process as it
// would have. The runtime (runtime/guards.py) names the argument and the index.
//
// A fault in the guard zones of a device allocation (cudaMalloc...: runtime.cpp, rt_alloc)
// adds that allocation's start, size and site to the record, from the runtime's table.
//
// It lives in its own file because <signal.h> and <unistd.h> declare `signal`, `open`,
// `write`... in the global namespace, where they would clash with a program's own names.

#include <cxxabi.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

extern "C" int cudafuse_emu_alloc_record(const void *addr, char *buf, int size);

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
  if (n > 0 && n < static_cast<int>(sizeof buf))
    n += cudafuse_emu_alloc_record(si->si_addr, buf + n, static_cast<int>(sizeof buf) - n);
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

// Integer division by zero in a kernel. x86's DIV/IDIV traps (SIGFPE), which ended the run;
// an NVIDIA GPU's integer divide (a software sequence; PTX leaves the result unspecified)
// gives a value with all bits set, for / and % alike, and the kernel goes on. So, while a
// kernel runs, the handler decodes the faulting DIV/IDIV, writes that value to its quotient
// and remainder registers and resumes after it; it also gives the GPU's two's-complement
// wrap for MIN / -1 (quotient MIN, remainder 0), the other x86 trap. Ordinary division costs
// nothing: the handler runs only when the hardware traps. Division by zero in host code
// still ends the process, as it does when nvcc compiles it. Each faulting instruction is
// reported once, with its kernel and the function holding it.

uint64_t *gpr(greg_t *g, unsigned r) {  // x86-64 register number -> its slot in the context
  static const int slot[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP,
                               REG_RSI, REG_RDI, REG_R8,  REG_R9,  REG_R10, REG_R11,
                               REG_R12, REG_R13, REG_R14, REG_R15};
  return reinterpret_cast<uint64_t *>(&g[slot[r & 15]]);
}

uint64_t mask(int width) { return width == 64 ? ~0ull : (1ull << width) - 1; }

// The divisor of the DIV/IDIV at pc and where the instruction ends, or false when pc holds
// no DIV/IDIV this decodes.
bool decode_div(greg_t *g, const unsigned char *p, int &width, bool &is_signed,
                uint64_t &divisor, const unsigned char *&next) {
  bool op16 = false;
  for (;; ++p) {
    if (*p == 0x66) op16 = true;
    else if (*p != 0x2e && *p != 0x3e && *p != 0x26 && *p != 0x36 && *p != 0x64 &&
             *p != 0x65 && *p != 0xf2 && *p != 0xf3)
      break;
  }
  unsigned rex = (*p & 0xf0) == 0x40 ? *p++ : 0;
  unsigned op = *p++;
  if (op != 0xf6 && op != 0xf7) return false;
  unsigned modrm = *p++, mod = modrm >> 6, reg = (modrm >> 3) & 7, rm = modrm & 7;
  if (reg != 6 && reg != 7) return false;
  is_signed = reg == 7;
  width = op == 0xf6 ? 8 : (rex & 8) ? 64 : op16 ? 16 : 32;
  if (mod == 3) {
    unsigned r = rm | ((rex & 1) << 3);
    uint64_t v = *gpr(g, r);
    if (width == 8 && !rex && rm >= 4) v = *gpr(g, rm - 4) >> 8;  // AH, CH, DH, BH
    divisor = v & mask(width);
    next = p;
    return true;
  }
  uint64_t addr = 0;
  bool rip_relative = false;
  int32_t disp = 0;
  if (rm == 4) {
    unsigned sib = *p++, index = ((sib >> 3) & 7) | ((rex & 2) << 2);
    unsigned base = (sib & 7) | ((rex & 1) << 3);
    if (index != 4) addr += *gpr(g, index) << (sib >> 6);
    if ((sib & 7) == 5 && mod == 0) {
      memcpy(&disp, p, 4);
      p += 4;
      addr += static_cast<int64_t>(disp);
    } else {
      addr += *gpr(g, base);
    }
  } else if (rm == 5 && mod == 0) {
    memcpy(&disp, p, 4);
    p += 4;
    rip_relative = true;
  } else {
    addr += *gpr(g, rm | ((rex & 1) << 3));
  }
  if (mod == 1) {
    addr += static_cast<int64_t>(static_cast<int8_t>(*p++));
  } else if (mod == 2) {
    memcpy(&disp, p, 4);
    p += 4;
    addr += static_cast<int64_t>(disp);
  }
  if (rip_relative) addr = reinterpret_cast<uint64_t>(p) + static_cast<int64_t>(disp);
  uint64_t v = 0;
  memcpy(&v, reinterpret_cast<const void *>(addr), static_cast<size_t>(width / 8));
  divisor = v & mask(width);
  next = p;
  return true;
}

// The quotient and remainder registers of a DIV/IDIV of `width` bits set to q and r.
void set_result(greg_t *g, int width, uint64_t q, uint64_t r) {
  uint64_t *ax = gpr(g, 0), *dx = gpr(g, 2);
  if (width == 8) {
    *ax = (*ax & ~0xffffull) | (q & 0xff) | ((r & 0xff) << 8);
  } else if (width == 16) {
    *ax = (*ax & ~0xffffull) | (q & 0xffff);
    *dx = (*dx & ~0xffffull) | (r & 0xffff);
  } else {  // a 32-bit register write clears the upper half
    *ax = q & mask(width);
    *dx = r & mask(width);
  }
}

constexpr int kReported = 64;
const void *g_reported[kReported];  // the instructions already reported

void report_division(const void *at, bool by_zero) {
  // one report per instruction and kind (a DIV is two bytes or more: pc + 1 starts none)
  const void *pc = static_cast<const char *>(at) + (by_zero ? 0 : 1);
  for (int i = 0; i < kReported; ++i) {
    const void *seen = __atomic_load_n(&g_reported[i], __ATOMIC_ACQUIRE);
    if (seen == pc) return;
    const void *none = nullptr;
    if (!seen && __atomic_compare_exchange_n(&g_reported[i], &none, pc, false,
                                             __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      break;
    if (none == pc) return;
  }
  Dl_info info{};
  const char *sym = "?";
  char *demangled = nullptr;
  if (dladdr(at, &info) && info.dli_sname) {
    int status = 0;
    demangled = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
    sym = demangled ? demangled : info.dli_sname;
  }
  const auto &site = ::cudafuse_emu::g_site;
  char buf[1024];
  int n = snprintf(buf, sizeof buf,
                   "cudafuse: warning: kernel '%s' (launched at %s:%d) %s in '%s' "
                   "(block %u %u %u, thread %u %u %u): %s, as NVIDIA GPUs give; the kernel "
                   "goes on (reported once for this division)\n",
                   site.kernel ? site.kernel : "?", site.file ? site.file : "?", site.line,
                   by_zero ? "divides an integer by zero" : "divides the most negative "
                   "integer by -1", sym, blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x,
                   threadIdx.y, threadIdx.z,
                   by_zero ? "the quotient and the remainder are all ones"
                           : "the quotient wraps to it, the remainder is 0");
  if (n > 0) (void)!write(2, buf, static_cast<size_t>(n) < sizeof buf ? n : sizeof buf - 1);
  free(demangled);
}

struct sigaction g_prev_fpe {};

void on_divide(int sig, siginfo_t *si, void *ctx) {
  auto *uc = static_cast<ucontext_t *>(ctx);
  greg_t *g = uc->uc_mcontext.gregs;
  const auto *pc = reinterpret_cast<const unsigned char *>(g[REG_RIP]);
  int width = 0;
  bool is_signed = false;
  uint64_t divisor = 0;
  const unsigned char *next = nullptr;
  if (::cudafuse_emu::g_in_kernel && decode_div(g, pc, width, is_signed, divisor, next)) {
    if (divisor == 0) {
      report_division(pc, true);
      set_result(g, width, mask(width), mask(width));
      g[REG_RIP] = reinterpret_cast<greg_t>(next);
      return;
    }
    if (is_signed && divisor == mask(width)) {  // MIN / -1: the quotient MIN, remainder 0
      report_division(pc, false);
      set_result(g, width, 1ull << (width - 1), 0);
      g[REG_RIP] = reinterpret_cast<greg_t>(next);
      return;
    }
  }
  // Host code, no division decoded, or another emu library's kernel (each library has its
  // own runtime state): the handler installed before this one, or the trap's default end.
  if (g_prev_fpe.sa_flags & SA_SIGINFO) {
    if (g_prev_fpe.sa_sigaction) return g_prev_fpe.sa_sigaction(sig, si, ctx);
  } else if (g_prev_fpe.sa_handler != SIG_DFL && g_prev_fpe.sa_handler != SIG_IGN) {
    return g_prev_fpe.sa_handler(sig);
  }
  signal(sig, SIG_DFL);
}

// Installed when the library loads, the previous handler restored when it unloads (if this
// one is still the installed one).
struct DivideHandler {
  DivideHandler() {
    struct sigaction sa {};
    sa.sa_sigaction = on_divide;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGFPE, &sa, &g_prev_fpe);
  }
  ~DivideHandler() {
    struct sigaction now {};
    if (sigaction(SIGFPE, nullptr, &now) == 0 && (now.sa_flags & SA_SIGINFO) &&
        now.sa_sigaction == on_divide)
      sigaction(SIGFPE, &g_prev_fpe, nullptr);
  }
} g_divide_handler;

}  // namespace
