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
namespace cudafuse_rt {
template <class CfR, class... CfP> using fn_ptr = CfR (*)(CfP...);
template <class CfT, class = void> struct complete : std::false_type {};
template <class CfT> struct complete<CfT, std::void_t<decltype(sizeof(CfT))>> : std::true_type {};
// A value Python can pass or receive as bytes: copied with memcpy, at most 16 bytes back.
template <class CfU> constexpr bool plain() {
  if constexpr (std::is_void_v<CfU> || std::is_function_v<CfU> || std::is_array_v<CfU>)
    return false;
  else if constexpr (!complete<CfU>::value) return false;
  else return std::is_trivially_copyable_v<CfU>;
}
template <class CfU> std::string scalar_code() {
  if constexpr (std::is_same_v<CfU, dim3>) return "D";
  else if constexpr (std::is_same_v<CfU, bool>) return "b1";
  else if constexpr (std::is_floating_point_v<CfU>) return "f" + std::to_string(sizeof(CfU));
  else if constexpr (std::is_enum_v<CfU>)
    return (std::is_signed_v<std::underlying_type_t<CfU>> ? "i" : "u") +
           std::to_string(sizeof(CfU));
  else if constexpr (std::is_integral_v<CfU>)
    return (std::is_signed_v<CfU> ? "i" : "u") + std::to_string(sizeof(CfU));
  else if constexpr (std::is_pointer_v<CfU>) return "q8";
  else if constexpr (plain<CfU>()) return "s" + std::to_string(sizeof(CfU));
  else return "x0";  // incomplete, or a class bytes cannot make (std::vector, std::string)
}
template <class CfT> std::string code() {
  using CfU = std::remove_cv_t<std::remove_reference_t<CfT>>;
  if constexpr (std::is_pointer_v<CfU>) {
    using CfP = std::remove_cv_t<std::remove_pointer_t<CfU>>;
    if constexpr (std::is_void_v<CfP>) return "pv0";
    else return "p" + scalar_code<CfP>();
  } else return scalar_code<CfU>();
}
// A result Python receives: by value or through a reference, plain and at most 16 bytes
// (the caller's buffer); any other is computed and dropped ("v").
template <class CfR> constexpr bool returned() {
  using CfU = std::remove_cv_t<std::remove_reference_t<CfR>>;
  if constexpr (std::is_void_v<CfR>) return false;
  else if constexpr (plain<CfU>()) return sizeof(CfU) <= 16;
  else return false;
}
template <class CfR, class... CfP> std::string signature(CfR (*)(CfP...)) {
  std::string cf_s;
  if constexpr (returned<CfR>()) cf_s = code<CfR>(); else cf_s = "v";
  ((cf_s += "," + code<CfP>()), ...);
  return cf_s;
}
// Each argument as its parameter's own kind of value: an lvalue for T&, an xvalue for T&&
// and by-value parameters (moved from the argument's buffer).
template <class CfP> CfP &&arg(void *cf_p) {
  return static_cast<CfP &&>(*static_cast<std::remove_reference_t<CfP> *>(cf_p));
}
template <class CfR, class... CfP, std::size_t... CfI>
void invoke_(CfR (*cf_f)(CfP...), void **cf_a, void *cf_r, std::index_sequence<CfI...>) {
  if constexpr (returned<CfR>()) {
    auto &&cf_v = cf_f(arg<CfP>(cf_a[CfI])...);
    std::memcpy(cf_r, std::addressof(cf_v), sizeof(std::remove_reference_t<CfR>));
  } else {
    cf_f(arg<CfP>(cf_a[CfI])...);
  }
}
template <class CfR, class... CfP> void invoke(CfR (*cf_f)(CfP...), void **cf_a, void *cf_r) {
  invoke_(cf_f, cf_a, cf_r, std::index_sequence_for<CfP...>{});
}
// Default arguments: CfC calls the function by its name (a struct per entry, its call
// operator SFINAE-friendly), so the compiler says which leading argument counts a call
// takes, whether the defaults are on the definition or on an earlier declaration. The
// arguments are of the parameters' own types: among the name's overloads, the entry's own
// is an exact match, and a second exact match would make the call ambiguous (not taken).
template <class CfF> struct fn_traits;
template <class CfR, class... CfP> struct fn_traits<CfR (*)(CfP...)> {
  using ret = CfR;
  using params = std::tuple<CfP...>;
  static constexpr std::size_t arity = sizeof...(CfP);
};
template <class CfC, class CfT, class CfI> struct takes_;
template <class CfC, class CfT, std::size_t... CfI>
struct takes_<CfC, CfT, std::index_sequence<CfI...>>
    : std::is_invocable<CfC, std::tuple_element_t<CfI, CfT>...> {};
template <class CfC, class CfF, std::size_t CfN> constexpr bool takes() {
  return takes_<CfC, typename fn_traits<CfF>::params, std::make_index_sequence<CfN>>::value;
}
// The fewest leading arguments a call takes (the parameter count when none has a default).
template <class CfC, class CfF, std::size_t... CfN>
constexpr int required_(std::index_sequence<CfN...>) {
  constexpr bool cf_takes[] = {takes<CfC, CfF, CfN>()..., true};
  int cf_n = 0;
  while (!cf_takes[cf_n]) ++cf_n;
  return cf_n;
}
template <class CfC, class CfF> int required(CfF) {
  return required_<CfC, CfF>(std::make_index_sequence<fn_traits<CfF>::arity>{});
}
template <class CfC, class CfF, std::size_t... CfI>
void invoke_first_(void **cf_a, void *cf_r, std::index_sequence<CfI...>) {
  using CfR = typename fn_traits<CfF>::ret;
  using CfT = typename fn_traits<CfF>::params;
  if constexpr (returned<CfR>()) {
    auto &&cf_v = CfC{}(arg<std::tuple_element_t<CfI, CfT>>(cf_a[CfI])...);
    std::memcpy(cf_r, std::addressof(cf_v), sizeof(std::remove_reference_t<CfR>));
  } else {
    CfC{}(arg<std::tuple_element_t<CfI, CfT>>(cf_a[CfI])...);
  }
}
// The first CfN arguments passed, the others from their defaults; -1 if no call takes CfN.
template <class CfC, std::size_t CfN, class CfF> int invoke_first(CfF, void **cf_a, void *cf_r) {
  if constexpr (takes<CfC, CfF, CfN>()) {
    invoke_first_<CfC, CfF>(cf_a, cf_r, std::make_index_sequence<CfN>{});
    return 0;
  } else {
    return -1;
  }
}
}  // namespace cudafuse_rt
"""

_EMU_LAUNCH = r"""
namespace cudafuse_rt {
template <class... CfP, std::size_t... CfI>
void launch_(const char *cf_name, bool cf_fibers, void (*cf_k)(CfP...), const unsigned *cf_c,
             std::size_t cf_sh, void **cf_a, std::index_sequence<CfI...>) {
  // In parallel when the rewrite registered the kernel so (cudafuse_emu_launch.h).
  ::cudafuse_emu::launch(cf_name, "<python>", 0, cf_fibers, ::cudafuse_emu::parallel_kernel(
      reinterpret_cast<const void *>(cf_k)))(dim3(cf_c[0], cf_c[1], cf_c[2]),
                                             dim3(cf_c[3], cf_c[4], cf_c[5]), cf_sh)
      .run(cf_k, *static_cast<std::remove_reference_t<CfP> *>(cf_a[CfI])...);
}
template <class... CfP>
int launch(const char *cf_name, bool cf_fibers, void (*cf_k)(CfP...), const unsigned *cf_c,
           std::size_t cf_sh, void **cf_a) {
  launch_(cf_name, cf_fibers, cf_k, cf_c, cf_sh, cf_a, std::index_sequence_for<CfP...>{});
  return 0;
}
}  // namespace cudafuse_rt
"""

_GPU_LAUNCH = r"""
#pragma push_macro("min")
#pragma push_macro("max")
#undef min
#undef max
#include <exception>
#pragma pop_macro("max")
#pragma pop_macro("min")
namespace cudafuse_rt {
// The program's host code runs in the Python process: an exception it lets out (or a
// stand-in's, runtime/standins.py, a const char *) is caught here, its message kept for
// cudafuse_thrown(), and the call returns -2 (standins.THROWN), not std::terminate().
static thread_local std::string thrown;
template <class CfF> int guarded(CfF &&cf_f) {
  try {
    return cf_f();
  } catch (const char *cf_m) {
    thrown = cf_m;
  } catch (const std::exception &cf_e) {
    thrown = std::string("the program threw an exception: ") + cf_e.what();
  } catch (...) {
    thrown = "the program threw an exception (not a std::exception)";
  }
  return -2;
}
template <class... CfP>
int launch(const char *, bool, void (*cf_k)(CfP...), const unsigned *cf_c, std::size_t cf_sh,
           void **cf_a) {
  cudaError_t cf_e = cudaLaunchKernel((const void *)cf_k, dim3(cf_c[0], cf_c[1], cf_c[2]),
                                   dim3(cf_c[3], cf_c[4], cf_c[5]), cf_a, cf_sh, 0);
  if (cf_e != cudaSuccess) return (int)cf_e;
  return (int)cudaDeviceSynchronize();
}
// For timing: queue the launch on the legacy default stream and return.
template <class... CfP>
int launch_async(void (*cf_k)(CfP...), const unsigned *cf_c, std::size_t cf_sh, void **cf_a) {
  return (int)cudaLaunchKernel((const void *)cf_k, dim3(cf_c[0], cf_c[1], cf_c[2]),
                               dim3(cf_c[3], cf_c[4], cf_c[5]), cf_a, cf_sh, 0);
}
}  // namespace cudafuse_rt
extern "C" const char *cudafuse_thrown() { return cudafuse_rt::thrown.c_str(); }
"""


_EMU_MAIN = r"""
#include <tuple>
// (environ declared rather than <unistd.h> included: that header declares pipe, read,
// write... and a program's own function of such a name would conflict with it)
extern "C" char **environ;
namespace cudafuse_rt {
struct exit_called { int status; };
inline thread_local bool in_main = false;
// `main` run as an entry, with argc 1 (the program's name): its call of exit() (the linker
// sends it here, -Wl,--wrap=exit) returns the status instead of ending the worker.
template <class CfR, class... CfP> int run_main(CfR (*cf_m)(CfP...), const char *cf_prog) {
  static std::string cf_name;
  static char *cf_argv[2];
  cf_name = cf_prog;
  cf_argv[0] = cf_name.data();
  cf_argv[1] = nullptr;
  in_main = true;
  int cf_rc = 0;
  try {
    if constexpr (sizeof...(CfP) == 0) {
      cf_rc = cf_m();
    } else {  // char **, const char **, char *const *...: as the program declares argv
      using CfV = std::tuple_element_t<1, std::tuple<CfP...>>;
      if constexpr (sizeof...(CfP) == 2) cf_rc = cf_m(1, (CfV)cf_argv);
      else cf_rc = cf_m(1, (CfV)cf_argv, (std::tuple_element_t<2, std::tuple<CfP...>>)environ);
    }
  } catch (const exit_called &cf_e) {
    cf_rc = cf_e.status;
  }
  in_main = false;
  return cf_rc;
}
}  // namespace cudafuse_rt
extern "C" [[noreturn]] void __real_exit(int);
extern "C" [[noreturn]] void __wrap_exit(int cf_status) {
  if (cudafuse_rt::in_main) throw cudafuse_rt::exit_called{cf_status};
  __real_exit(cf_status);
}
"""

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
    pointer_type: str = ""  # cudafuse_rt::fn_ptr<R, P...> of the spelled types
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
    return "cudafuse_rt::fn_ptr<" + ", ".join([f.return_type, *(p.type for p in f.params)]) + ">"


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
    var = f"cudafuse_fp_{e.sym}"
    decl = f"static const {e.pointer_type} {var} = &{bare};"
    for ns in reversed(e.scope):
        decl = f"namespace {ns} {{ {decl} }}"
    return "::" + "::".join([*(s for s in e.scope if s), var]), decl


def _defaults(e: Entry, addr: str, backend: str, add: Callable[[Entry, str], None]) -> str:
    """Trampolines that pass the first N arguments and leave the rest to the function's
    default arguments (`cudafuse_h_<sym>__n<N>`, one per N below the parameter count; those
    no call takes return -1), and the manifest's text giving the fewest arguments a call
    takes."""
    caller = f"cudafuse_c_{e.sym}"
    fn = e.cxx_name
    add(e, f"struct {caller} {{ template <class... CfA> auto operator()(CfA &&...cf_x) const "
        f"-> decltype({fn}(std::forward<CfA>(cf_x)...)) {{ return "
        f"{fn}(std::forward<CfA>(cf_x)...); }} }};")
    for n in range(len(e.params)):
        call = f"int cf_e = cudafuse_rt::invoke_first<{caller}, {n}>({addr}, cf_a, cf_r);"
        if backend == "emu":
            add(e, f'extern "C" int cudafuse_h_{e.sym}__n{n}(void **cf_a, void *cf_r) {{ '
                f"{call} return cf_e; }}")
            continue
        add(e, f'extern "C" int cudafuse_h_{e.sym}__n{n}(void **cf_a, void *cf_r) {{ '
            f"return cudafuse_rt::guarded([&] {{ {call} if (cf_e == 0) cf_e = "
            "(int)cudaDeviceSynchronize(); return cf_e; }); }")
        add(e, f'extern "C" int cudafuse_ha_{e.sym}__n{n}(void **cf_a, void *cf_r) {{ '
            f"return cudafuse_rt::guarded([&] {{ {call} "
            "return cf_e ? cf_e : (int)cudaGetLastError(); }); }")
    return f' + " " + std::to_string(cudafuse_rt::required<{caller}>({addr}))'


def source(entries_: list[Entry], backend: str, fiber_kernels: frozenset[str]
           ) -> tuple[str, dict[str, list[int]]]:
    """The trampolines' text, and for each entry (by symbol) the lines of it that name the
    entry: a build whose errors point there can leave that entry out (build.py)."""
    lines: list[str] = []
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
            add(e, f'extern "C" int cudafuse_h_main(void **, void *cf_r) {{ int cf_s = '
                f'cudafuse_rt::run_main({addr}, "{prog}"); std::memcpy(cf_r, &cf_s, '
                "sizeof cf_s); return 0; }")
            manifest.append((e, 'cf_s += "host main i4 \\n";'))
            continue
        required = ""
        if e.kind == "host" and backend == "emu":
            add(e, f'extern "C" int cudafuse_h_{e.sym}(void **cf_a, void *cf_r) {{ '
                f"cudafuse_rt::invoke({addr}, cf_a, cf_r);  return 0; }}")
        elif e.kind == "host":
            call = f"cudafuse_rt::invoke({addr}, cf_a, cf_r);"
            add(e, f'extern "C" int cudafuse_h_{e.sym}(void **cf_a, void *cf_r) {{ '
                f"return cudafuse_rt::guarded([&] {{ {call} "
                "return (int)cudaDeviceSynchronize(); }); }")
            # the same without waiting, for timing (runtime.prepared)
            add(e, f'extern "C" int cudafuse_ha_{e.sym}(void **cf_a, void *cf_r) {{ '
                f"return cudafuse_rt::guarded([&] {{ {call} "
                "return (int)cudaGetLastError(); }); }")
        if e.kind == "host":
            if e.params and e.defaults:
                required = _defaults(e, addr, backend, add)
        else:
            fib = "true" if e.cxx_name.rsplit("::", 1)[-1] in fiber_kernels else "false"
            add(e, f'extern "C" int cudafuse_k_{e.sym}(const unsigned *cf_c, '
                f"std::size_t cf_sh, void **cf_a) {{ return cudafuse_rt::launch("
                f'"{e.name}", {fib}, {addr}, cf_c, cf_sh, cf_a); }}')
            if backend != "emu":
                add(e, f'extern "C" int cudafuse_ka_{e.sym}(const unsigned *cf_c, '
                    f"std::size_t cf_sh, void **cf_a) {{ return "
                    f"cudafuse_rt::launch_async({addr}, cf_c, cf_sh, cf_a); }}")
        names = "|".join(e.params)
        manifest.append((e, f'cf_s += std::string("{e.kind} {e.sym} ") + '
                            f'cudafuse_rt::signature({addr}) + " {names}"{required} + "\\n";'))
    lines += ['extern "C" const char *cudafuse_manifest() {', "  static std::string cf_s;",
              "  if (!cf_s.empty()) return cf_s.c_str();"]
    for e, text in manifest:
        add(e, "  " + text)
    lines += ['  cf_s += "end\\n";', "  return cf_s.c_str();", "}", ""]
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
