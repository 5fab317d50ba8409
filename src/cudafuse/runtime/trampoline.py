"""extern "C" trampolines appended to a program so Python can call it through ctypes.

Each callable function gets one trampoline taking `void **args` (a pointer to each argument's
value) and a manifest line with its signature, encoded by C++ type traits on the real
parameter types (typedefs, enums and template aliases resolved by the compiler, not by us):

    D dim3    fN float of N bytes    iN/uN signed/unsigned integer    b1 bool    sN struct
    p<code> pointer to <code>        pv0 void*    px0 pointer to an incomplete type
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from cudafuse.ir.program import Function, TranslationUnit

_HELPERS = r"""
// A program's own function-like min/max macros (C code, ccminer's miner.h) would rewrite
// std::min in the standard headers below: set aside while they are read.
#pragma push_macro("min")
#pragma push_macro("max")
#undef min
#undef max
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#pragma pop_macro("max")
#pragma pop_macro("min")
namespace __cf_rt {
template <class __cf_R, class... __cf_P> using __cf_fn_ptr = __cf_R (*)(__cf_P...);
template <class __cf_T, class = void> struct __cf_complete : std::false_type {};
template <class __cf_T> struct __cf_complete<__cf_T,
    std::void_t<decltype(sizeof(__cf_T))>> : std::true_type {};
// A value Python can pass or receive as bytes: copied with memcpy, at most 16 bytes back.
template <class __cf_U> constexpr bool __cf_plain() {
  if constexpr (std::is_void_v<__cf_U> || std::is_function_v<__cf_U> || std::is_array_v<__cf_U>)
    return false;
  else if constexpr (!__cf_complete<__cf_U>::value) return false;
  else return std::is_trivially_copyable_v<__cf_U>;
}
template <class __cf_U> std::string __cf_scalar_code() {
  if constexpr (std::is_same_v<__cf_U, dim3>) return "D";
  else if constexpr (std::is_same_v<__cf_U, bool>) return "b1";
  else if constexpr (std::is_floating_point_v<__cf_U>) return "f" + std::to_string(sizeof(__cf_U));
  else if constexpr (std::is_enum_v<__cf_U>)
    return (std::is_signed_v<std::underlying_type_t<__cf_U>> ? "i" : "u") +
           std::to_string(sizeof(__cf_U));
  else if constexpr (std::is_integral_v<__cf_U>)
    return (std::is_signed_v<__cf_U> ? "i" : "u") + std::to_string(sizeof(__cf_U));
  else if constexpr (std::is_pointer_v<__cf_U>) return "q8";
  else if constexpr (__cf_plain<__cf_U>()) return "s" + std::to_string(sizeof(__cf_U));
  else return "x0";  // incomplete, or a class bytes cannot make (std::vector, std::string)
}
template <class __cf_T> std::string __cf_code() {
  using __cf_U = std::remove_cv_t<std::remove_reference_t<__cf_T>>;
  if constexpr (std::is_pointer_v<__cf_U>) {
    using __cf_P = std::remove_cv_t<std::remove_pointer_t<__cf_U>>;
    if constexpr (std::is_void_v<__cf_P>) return "pv0";
    else return "p" + __cf_scalar_code<__cf_P>();
  } else return __cf_scalar_code<__cf_U>();
}
// A result Python receives: by value or through a reference, plain and at most 16 bytes
// (the caller's buffer); any other is computed and dropped ("v").
template <class __cf_R> constexpr bool __cf_returned() {
  using __cf_U = std::remove_cv_t<std::remove_reference_t<__cf_R>>;
  if constexpr (std::is_void_v<__cf_R>) return false;
  else if constexpr (__cf_plain<__cf_U>()) return sizeof(__cf_U) <= 16;
  else return false;
}
template <class __cf_R, class... __cf_P> std::string __cf_signature(__cf_R (*)(__cf_P...)) {
  std::string __cf_s;
  if constexpr (__cf_returned<__cf_R>()) __cf_s = __cf_code<__cf_R>(); else __cf_s = "v";
  ((__cf_s += "," + __cf_code<__cf_P>()), ...);
  return __cf_s;
}
// Each argument as its parameter's own kind of value: an lvalue for T&, an xvalue for T&&
// and by-value parameters (moved from the argument's buffer).
template <class __cf_P> __cf_P &&__cf_arg(void *__cf_p) {
  return static_cast<__cf_P &&>(*static_cast<std::remove_reference_t<__cf_P> *>(__cf_p));
}
template <class __cf_R, class... __cf_P, std::size_t... __cf_I>
void __cf_invoke_(__cf_R (*__cf_f)(__cf_P...), void **__cf_a, void *__cf_r,
    std::index_sequence<__cf_I...>) {
  if constexpr (__cf_returned<__cf_R>()) {
    auto &&__cf_v = __cf_f(__cf_arg<__cf_P>(__cf_a[__cf_I])...);
    std::memcpy(__cf_r, std::addressof(__cf_v), sizeof(std::remove_reference_t<__cf_R>));
  } else {
    __cf_f(__cf_arg<__cf_P>(__cf_a[__cf_I])...);
  }
}
template <class __cf_R, class... __cf_P> void __cf_invoke(__cf_R (*__cf_f)(__cf_P...),
    void **__cf_a, void *__cf_r) {
  __cf_invoke_(__cf_f, __cf_a, __cf_r, std::index_sequence_for<__cf_P...>{});
}
// Default arguments: __cf_C calls the function by its name (a struct per entry, its call
// operator SFINAE-friendly), so the compiler says which leading argument counts a call
// takes, whether the defaults are on the definition or on an earlier declaration. The
// arguments are of the parameters' own types: among the name's overloads, the entry's own
// is an exact match, and a second exact match would make the call ambiguous (not taken).
template <class __cf_F> struct __cf_fn_traits;
template <class __cf_R, class... __cf_P> struct __cf_fn_traits<__cf_R (*)(__cf_P...)> {
  using __cf_ret = __cf_R;
  using __cf_params = std::tuple<__cf_P...>;
  static constexpr std::size_t __cf_arity = sizeof...(__cf_P);
};
template <class __cf_C, class __cf_T, class __cf_I> struct __cf_takes_;
template <class __cf_C, class __cf_T, std::size_t... __cf_I>
struct __cf_takes_<__cf_C, __cf_T, std::index_sequence<__cf_I...>>
    : std::is_invocable<__cf_C, std::tuple_element_t<__cf_I, __cf_T>...> {};
template <class __cf_C, class __cf_F, std::size_t __cf_N> constexpr bool __cf_takes() {
  return __cf_takes_<__cf_C, typename __cf_fn_traits<__cf_F>::__cf_params,
      std::make_index_sequence<__cf_N>>::value;
}
// The fewest leading arguments a call takes (the parameter count when none has a default).
template <class __cf_C, class __cf_F, std::size_t... __cf_N>
constexpr int __cf_required_(std::index_sequence<__cf_N...>) {
  constexpr bool __cf_ok[] = {__cf_takes<__cf_C, __cf_F, __cf_N>()..., true};
  int __cf_n = 0;
  while (!__cf_ok[__cf_n]) ++__cf_n;
  return __cf_n;
}
template <class __cf_C, class __cf_F> int __cf_required(__cf_F) {
  return __cf_required_<__cf_C,
      __cf_F>(std::make_index_sequence<__cf_fn_traits<__cf_F>::__cf_arity>{});
}
template <class __cf_C, class __cf_F, std::size_t... __cf_I>
void __cf_invoke_first_(void **__cf_a, void *__cf_r, std::index_sequence<__cf_I...>) {
  using __cf_R = typename __cf_fn_traits<__cf_F>::__cf_ret;
  using __cf_T = typename __cf_fn_traits<__cf_F>::__cf_params;
  if constexpr (__cf_returned<__cf_R>()) {
    auto &&__cf_v = __cf_C{}(__cf_arg<std::tuple_element_t<__cf_I, __cf_T>>(__cf_a[__cf_I])...);
    std::memcpy(__cf_r, std::addressof(__cf_v), sizeof(std::remove_reference_t<__cf_R>));
  } else {
    __cf_C{}(__cf_arg<std::tuple_element_t<__cf_I, __cf_T>>(__cf_a[__cf_I])...);
  }
}
// The first __cf_N arguments passed, the others from their defaults; -1 if no call takes __cf_N.
template <class __cf_C, std::size_t __cf_N, class __cf_F> int __cf_invoke_first(__cf_F,
    void **__cf_a, void *__cf_r) {
  if constexpr (__cf_takes<__cf_C, __cf_F, __cf_N>()) {
    __cf_invoke_first_<__cf_C, __cf_F>(__cf_a, __cf_r, std::make_index_sequence<__cf_N>{});
    return 0;
  } else {
    return -1;
  }
}
}  // namespace __cf_rt
"""

_EMU_LAUNCH = r"""
namespace __cf_rt {
// A kernel called from Python is launched through one body type for every kernel, which
// calls it through a function per signature that only unpacks the arguments: the launch's
// code (Launch::run and run_body's thunks) is compiled once a program, not once per kernel
// signature (issue 27: a program of 117 kernels spent 1.1 of its 7 s of g++ on them).
struct __cf_body {
  void (*__cf_call)(void (*)(), void **);
  void (*__cf_k)();
  void **__cf_a;
  void operator()() const { __cf_call(__cf_k, __cf_a); }
};
// Each thread's arguments are copies of the caller's values, as a launch passes them.
template <class... __cf_P, std::size_t... __cf_I>
void __cf_call_(void (*__cf_k)(), void **__cf_a, std::index_sequence<__cf_I...>) {
  reinterpret_cast<void (*)(__cf_P...)>(__cf_k)(
      *static_cast<std::remove_reference_t<__cf_P> *>(__cf_a[__cf_I])...);
}
template <class... __cf_P> void __cf_call(void (*__cf_k)(), void **__cf_a) {
  __cf_call_<__cf_P...>(__cf_k, __cf_a, std::index_sequence_for<__cf_P...>{});
}
template <class... __cf_P, std::size_t... __cf_I>
void __cf_launch_(const char *__cf_name, bool __cf_fibers, void (*__cf_k)(__cf_P...),
    const unsigned *__cf_c, std::size_t __cf_sh, void **__cf_a,
    std::index_sequence<__cf_I...>) {
  // In parallel when the rewrite registered the kernel so (cudafuse_emu_launch.h).
  ::cudafuse_emu::Launch __cf_l = ::cudafuse_emu::launch(__cf_name, "<python>", 0, __cf_fibers,
      ::cudafuse_emu::parallel_kernel(reinterpret_cast<const void *>(__cf_k)))(
      dim3(__cf_c[0], __cf_c[1], __cf_c[2]), dim3(__cf_c[3], __cf_c[4], __cf_c[5]), __cf_sh);
  // The arguments Launch::run(kernel, args...) would note (verify's report of memory
  // nothing wrote), then the launch as Launch::run does it for a body taking none.
  (__cf_l.note_argument(*static_cast<std::remove_reference_t<__cf_P> *>(__cf_a[__cf_I])), ...);
  __cf_l.run(__cf_body{&__cf_call<__cf_P...>, reinterpret_cast<void (*)()>(__cf_k), __cf_a});
}
template <class... __cf_P>
int __cf_launch(const char *__cf_name, bool __cf_fibers, void (*__cf_k)(__cf_P...),
    const unsigned *__cf_c, std::size_t __cf_sh, void **__cf_a) {
  __cf_launch_(__cf_name, __cf_fibers, __cf_k, __cf_c, __cf_sh, __cf_a,
      std::index_sequence_for<__cf_P...>{});
  return 0;
}
}  // namespace __cf_rt
"""

_GPU_LAUNCH = r"""
#pragma push_macro("min")
#pragma push_macro("max")
#undef min
#undef max
#include <exception>
#pragma pop_macro("max")
#pragma pop_macro("min")
namespace __cf_rt {
// The program's host code runs in the Python process: an exception it lets out (or a
// stand-in's, runtime/standins.py, a const char *) is caught here, its message kept for
// cudafuse_thrown(), and the call returns -2 (standins.THROWN), not std::terminate().
static thread_local std::string __cf_thrown;
template <class __cf_F> int __cf_guarded(__cf_F &&__cf_f) {
  try {
    return __cf_f();
  } catch (const char *__cf_m) {
    __cf_thrown = __cf_m;
  } catch (const std::exception &__cf_e) {
    __cf_thrown = std::string("the program threw an exception: ") + __cf_e.what();
  } catch (...) {
    __cf_thrown = "the program threw an exception (not a std::exception)";
  }
  return -2;
}
template <class... __cf_P>
int __cf_launch(const char *, bool, void (*__cf_k)(__cf_P...), const unsigned *__cf_c,
    std::size_t __cf_sh,
           void **__cf_a) {
  cudaError_t __cf_e = cudaLaunchKernel((const void *)__cf_k, dim3(__cf_c[0], __cf_c[1], __cf_c[2]),
                                   dim3(__cf_c[3], __cf_c[4], __cf_c[5]), __cf_a, __cf_sh, 0);
  if (__cf_e != cudaSuccess) return (int)__cf_e;
  return (int)cudaDeviceSynchronize();
}
// For timing: queue the launch on the legacy default stream and return.
template <class... __cf_P>
int __cf_launch_async(void (*__cf_k)(__cf_P...), const unsigned *__cf_c, std::size_t __cf_sh,
    void **__cf_a) {
  return (int)cudaLaunchKernel((const void *)__cf_k, dim3(__cf_c[0], __cf_c[1], __cf_c[2]),
                               dim3(__cf_c[3], __cf_c[4], __cf_c[5]), __cf_a, __cf_sh, 0);
}
}  // namespace __cf_rt
extern "C" const char *cudafuse_thrown() { return __cf_rt::__cf_thrown.c_str(); }
"""


_EMU_MAIN = r"""
#include <tuple>
// (environ declared rather than <unistd.h> included: that header declares pipe, read,
// write... and a program's own function of such a name would conflict with it)
extern "C" char **environ;
namespace __cf_rt {
struct __cf_exit_called { int __cf_status; };
inline thread_local bool __cf_in_main = false;
// `main` run as an entry, with argc 1 (the program's name): its call of exit() (the linker
// sends it here, -Wl,--wrap=exit) returns the status instead of ending the worker.
template <class __cf_R, class... __cf_P> int __cf_run_main(__cf_R (*__cf_m)(__cf_P...),
    const char *__cf_prog) {
  static std::string __cf_name;
  static char *__cf_argv[2];
  __cf_name = __cf_prog;
  __cf_argv[0] = __cf_name.data();
  __cf_argv[1] = nullptr;
  __cf_in_main = true;
  int __cf_rc = 0;
  try {
    if constexpr (sizeof...(__cf_P) == 0) {
      __cf_rc = __cf_m();
    } else {  // char **, const char **, char *const *...: as the program declares argv
      using __cf_V = std::tuple_element_t<1, std::tuple<__cf_P...>>;
      if constexpr (sizeof...(__cf_P) == 2) __cf_rc = __cf_m(1, (__cf_V)__cf_argv);
      else __cf_rc = __cf_m(1, (__cf_V)__cf_argv, (std::tuple_element_t<2,
          std::tuple<__cf_P...>>)environ);
    }
  } catch (const __cf_exit_called &__cf_e) {
    __cf_rc = __cf_e.__cf_status;
  }
  __cf_in_main = false;
  return __cf_rc;
}
}  // namespace __cf_rt
extern "C" [[noreturn]] void __real_exit(int);
extern "C" [[noreturn]] void __wrap_exit(int __cf_status) {
  if (__cf_rt::__cf_in_main) throw __cf_rt::__cf_exit_called{__cf_status};
  __real_exit(__cf_status);
}
"""

# Names the trampolines spell that cannot be `__cf_...` (see source()).
_SPELLED = ("cudafuse_emu", "launch", "Launch", "note_argument", "parallel_kernel", "run",
            "environ", "cudafuse_manifest", "cudafuse_thrown")

# Linker flags the emu build needs for the `main` entry (see _EMU_MAIN).
EMU_LINK_FLAGS = ("-Wl,--wrap=exit",)


@dataclass(frozen=True)
class Entry:
    """A function Python can call: its name (as Python and specs name it), kind ('host' or
    'kernel'), parameter names, the C++ expression naming it, and the suffix of its
    trampoline's symbol. An overloaded name's definitions are `name(T1, T2)` each, named
    through their spelled type (`pointer_type`) inside their namespaces (`scope`), where
    the types' spellings mean what they meant at the definition."""

    name: str
    kind: str
    params: tuple[str, ...]
    cxx_name: str
    symbol: str = ""
    pointer_type: str = ""  # __cf_rt::__cf_fn_ptr<R, P...> of the spelled types
    scope: tuple[str, ...] = ()  # enclosing namespaces, "" for an anonymous one
    where: tuple[str, int, int] = ("", 0, 0)  # the definition: file, line, column
    typed: bool = False  # named through pointer_type, not by `&name` alone
    defaults: bool = False  # a declaration of it gives a parameter a default argument

    @property
    def sym(self) -> str:
        return self.symbol or self.name

    def spelled(self) -> Entry:
        """This entry named through its spelled type: `&name` alone is ambiguous when a
        header declares another function of the name (`round(double, int)` and libm's)."""
        return replace(self, typed=True)


def _pointer_type(f: Function) -> str:
    return "__cf_rt::__cf_fn_ptr<" + ", ".join([f.return_type, *(p.type for p in f.params)]) + ">"


def _scope(regions: list[tuple[int, int, str]], f: Function) -> tuple[str, ...]:
    outer = sorted((r for r in regions if r[0] <= f.span.start < r[1]), key=lambda r: r[0])
    return tuple(r[2] for r in outer)


def entries(unit: TranslationUnit, qualified: dict[str, str],
            regions: list[tuple[int, int, str]] | None = None,
            with_main: bool = False) -> list[Entry]:
    """Host functions and non-template kernels defined in the program (templates have no
    instance to name). An overloaded name gives one entry per definition, `name(T1, T2)`;
    `main` is an entry only when `with_main` (the emulator, where exit() returns)."""
    defs: dict[str, list[Function]] = {}
    for f in unit.functions:
        if f.body is not None:
            defs.setdefault(f.name, []).append(f)
    defaulted = _with_defaults(unit)
    out = []
    for name, fns in defs.items():
        if name == "main":
            f = fns[0]
            if with_main and len(fns) == 1 and len(f.params) in (0, 2, 3):
                out.append(Entry("main", "main", (), "::main", where=_where(unit, f)))
            continue
        fns = [f for f in fns if not (f.is_template or f.space == "device"
                                      or "operator" in name)]
        overloaded = len(fns) > 1
        # definitions in different namespaces are named with theirs (`a::f(int)`,
        # `b::f(int)`): the same parameter types would otherwise give both one name
        scoped = len({_scope(regions or [], f) for f in fns}) > 1
        for i, f in enumerate(fns):
            kind = "kernel" if f.is_kernel else "host"
            params = tuple(p.name or f"arg{i}" for i, p in enumerate(f.params))
            scope = _scope(regions or [], f)
            defaults = name in defaulted
            if not overloaded:
                out.append(Entry(name, kind, params, qualified.get(name, "::" + name), "",
                                 _pointer_type(f), scope, _where(unit, f), defaults=defaults))
                continue
            shown = f"{name}({', '.join(' '.join(p.type.split()) for p in f.params)})"
            if scoped:
                shown = "::".join([*(s or "(anonymous namespace)" for s in scope), shown])
            cxx = "::" + "::".join([*(s for s in scope if s), name])
            out.append(Entry(shown, kind, params, cxx, f"{name}__cf{i}", _pointer_type(f),
                             scope, _where(unit, f), typed=True, defaults=defaults))
    return out


def _with_defaults(unit: TranslationUnit) -> set[str]:
    """Names of the program's functions some declaration of which (the definition or a
    prototype before it) gives a parameter a default argument: a parameter's extent covers
    its `= value` (the IR keeps no other trace of it). Only these get the trampolines of
    calls with fewer arguments (`_defaults`), which cost a compile-time overload check for
    each argument count."""
    names = set()
    data = unit.source.data
    for f in unit.functions:
        if any(p.span.file == unit.path and b"=" in data[p.span.start:p.span.end]
               for p in f.params):
            names.add(f.name)
    return names


def _where(unit: TranslationUnit, f: Function) -> tuple[str, int, int]:
    return (unit.path, f.name_span.line, f.name_span.col)


def _named(e: Entry) -> tuple[str, str]:
    """The expression of `e`'s address, and the declaration that expression needs first."""
    if not e.typed:
        return f"&{e.cxx_name}", ""
    bare = e.cxx_name.rsplit("::", 1)[-1]
    var = f"__cf_fp_{e.sym}"
    decl = f"static const {e.pointer_type} {var} = &{bare};"
    for ns in reversed(e.scope):
        decl = f"namespace {ns} {{ {decl} }}"
    return "::" + "::".join([*(s for s in e.scope if s), var]), decl


def _defaults(e: Entry, addr: str, backend: str, add: Callable[[Entry, str], None]) -> str:
    """Trampolines that pass the first N arguments and leave the rest to the function's
    default arguments (`cudafuse_h_<sym>__n<N>`, one per N below the parameter count; those
    no call takes return -1), and the manifest's text giving the fewest arguments a call
    takes."""
    caller = f"__cf_c_{e.sym}"
    fn = e.cxx_name
    add(e, f"struct {caller} {{ template <class... __cf_A> "
        "auto operator()(__cf_A &&...__cf_x) const "
        f"-> decltype({fn}(std::forward<__cf_A>(__cf_x)...)) {{ return "
        f"{fn}(std::forward<__cf_A>(__cf_x)...); }} }};")
    for n in range(len(e.params)):
        call = f"int __cf_e = __cf_rt::__cf_invoke_first<{caller}, {n}>({addr}, __cf_a, __cf_r);"
        if backend == "emu":
            add(e, f'extern "C" int cudafuse_h_{e.sym}__n{n}(void **__cf_a, void *__cf_r) {{ '
                f"{call} return __cf_e; }}")
            continue
        add(e, f'extern "C" int cudafuse_h_{e.sym}__n{n}(void **__cf_a, void *__cf_r) {{ '
            f"return __cf_rt::__cf_guarded([&] {{ {call} if (__cf_e == 0) __cf_e = "
            "(int)cudaDeviceSynchronize(); return __cf_e; }); }")
        add(e, f'extern "C" int cudafuse_ha_{e.sym}__n{n}(void **__cf_a, void *__cf_r) {{ '
            f"return __cf_rt::__cf_guarded([&] {{ {call} "
            "return __cf_e ? __cf_e : (int)cudaGetLastError(); }); }")
    return f' + " " + std::to_string(__cf_rt::__cf_required<{caller}>({addr}))'


def source(entries_: list[Entry], backend: str, fiber_kernels: frozenset[str]
           ) -> tuple[str, dict[str, list[int]]]:
    """The trampolines' text, and for each entry (by symbol) the lines of it that name the
    entry: a build whose errors point there can leave that entry out (build.py)."""
    # Names the text must spell that are not reserved (the emulator's, the C library's
    # environ, the exported symbols Python looks up): a program's `-D` of one is set aside
    # while the trampolines are read. Every other name they spell is `__cf_...`.
    lines = [f'#pragma push_macro("{m}")\n#undef {m}' for m in _SPELLED]
    lines = "\n".join(lines).splitlines()
    for part in (_HELPERS, _EMU_LAUNCH if backend == "emu" else _GPU_LAUNCH):
        lines += part.splitlines()
    if backend == "emu":  # always: the build links with --wrap=exit
        lines += _EMU_MAIN.splitlines()
    owned: dict[str, list[int]] = {}

    def add(e: Entry, text: str) -> None:
        lines.append(text)
        owned.setdefault(e.sym, []).append(len(lines))

    manifest = []
    for e in entries_:
        addr, decl = _named(e)
        if decl:
            add(e, decl)
        if e.kind == "main":
            prog = e.where[0].rsplit("/", 1)[-1].replace("\\", "").replace('"', "")
            add(e, f'extern "C" int cudafuse_h_main(void **, void *__cf_r) {{ int __cf_s = '
                f'__cf_rt::__cf_run_main({addr}, "{prog}"); std::memcpy(__cf_r, &__cf_s, '
                "sizeof __cf_s); return 0; }")
            manifest.append((e, '__cf_s += "host main i4 \\n";'))
            continue
        required = ""
        if e.kind == "host" and backend == "emu":
            add(e, f'extern "C" int cudafuse_h_{e.sym}(void **__cf_a, void *__cf_r) {{ '
                f"__cf_rt::__cf_invoke({addr}, __cf_a, __cf_r);  return 0; }}")
        elif e.kind == "host":
            call = f"__cf_rt::__cf_invoke({addr}, __cf_a, __cf_r);"
            add(e, f'extern "C" int cudafuse_h_{e.sym}(void **__cf_a, void *__cf_r) {{ '
                f"return __cf_rt::__cf_guarded([&] {{ {call} "
                "return (int)cudaDeviceSynchronize(); }); }")
            # the same without waiting, for timing (runtime.prepared)
            add(e, f'extern "C" int cudafuse_ha_{e.sym}(void **__cf_a, void *__cf_r) {{ '
                f"return __cf_rt::__cf_guarded([&] {{ {call} "
                "return (int)cudaGetLastError(); }); }")
        if e.kind == "host":
            if e.params and e.defaults:
                required = _defaults(e, addr, backend, add)
        else:
            fib = "true" if e.cxx_name.rsplit("::", 1)[-1] in fiber_kernels else "false"
            add(e, f'extern "C" int cudafuse_k_{e.sym}(const unsigned *__cf_c, '
                f"std::size_t __cf_sh, void **__cf_a) {{ return __cf_rt::__cf_launch("
                f'"{e.name}", {fib}, {addr}, __cf_c, __cf_sh, __cf_a); }}')
            if backend != "emu":
                add(e, f'extern "C" int cudafuse_ka_{e.sym}(const unsigned *__cf_c, '
                    f"std::size_t __cf_sh, void **__cf_a) {{ return "
                    f"__cf_rt::__cf_launch_async({addr}, __cf_c, __cf_sh, __cf_a); }}")
        names = "|".join(e.params)
        manifest.append((e, f'__cf_s += std::string("{e.kind} {e.sym} ") + '
                            f'__cf_rt::__cf_signature({addr}) + " {names}"{required} + "\\n";'))
    lines += ['extern "C" const char *cudafuse_manifest() {', "  static std::string __cf_s;",
              "  if (!__cf_s.empty()) return __cf_s.c_str();"]
    for e, text in manifest:
        add(e, "  " + text)
    lines += ['  __cf_s += "end\\n";', "  return __cf_s.c_str();", "}"]
    lines += [f'#pragma pop_macro("{m}")' for m in reversed(_SPELLED)] + [""]
    return "\n".join(lines), owned


@dataclass(frozen=True)
class Signature:
    kind: str
    name: str
    ret: str
    codes: tuple[str, ...]
    params: tuple[str, ...]
    symbol: str = ""  # the trampoline's suffix, when it is not the name (an overload)
    # The fewest leading arguments a call takes (fewer than the parameters: the rest have
    # default arguments, passed by the trampoline `<symbol>__n<count>`).
    required: int = -1

    def takes(self, count: int) -> bool:
        """Whether a call with `count` leading arguments is possible."""
        least = len(self.codes) if self.required < 0 else self.required
        return least <= count <= len(self.codes)

    def symbol_for(self, count: int) -> str:
        """The trampoline's suffix for a call with `count` arguments."""
        base = self.symbol or self.name
        return base if count == len(self.codes) else f"{base}__n{count}"


def parse_manifest(text: str, names: dict[str, str] | None = None) -> dict[str, Signature]:
    """The signatures a library reports, by name; `names` maps the manifest's symbols to
    the names Python uses where they differ (the overloads, `name(T1, T2)`)."""
    out: dict[str, Signature] = {}
    for line in text.splitlines():
        if line == "end" or not line.strip():
            continue
        kind, sym, sig, *rest = line.split(" ")
        codes = sig.split(",")
        params = tuple(rest[0].split("|")) if rest and rest[0] else ()
        required = int(rest[1]) if len(rest) > 1 and rest[1] else -1
        name = (names or {}).get(sym, sym)
        out[name] = Signature(kind, name, codes[0], tuple(codes[1:]), params,
                              sym if sym != name else "", required)
    return out
