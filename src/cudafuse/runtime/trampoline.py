"""extern "C" trampolines appended to a program so Python can call it through ctypes.

Each callable function gets one trampoline taking `void **args` (a pointer to each argument's
value) and a manifest line with its signature, encoded by C++ type traits on the real
parameter types (typedefs, enums and template aliases resolved by the compiler, not by us):

    D dim3    fN float of N bytes    iN/uN signed/unsigned integer    b1 bool    sN struct
    p<code> pointer to <code>        pv0 void*    px0 pointer to an incomplete type
"""

from __future__ import annotations

from dataclasses import dataclass

from cudafuse.ir.program import Function, TranslationUnit

_HELPERS = r"""
#include <string>
#include <type_traits>
#include <utility>
namespace cudafuse_rt {
template <class T, class = void> struct complete : std::false_type {};
template <class T> struct complete<T, std::void_t<decltype(sizeof(T))>> : std::true_type {};
template <class U> std::string scalar_code() {
  if constexpr (std::is_same_v<U, dim3>) return "D";
  else if constexpr (std::is_same_v<U, bool>) return "b1";
  else if constexpr (std::is_floating_point_v<U>) return "f" + std::to_string(sizeof(U));
  else if constexpr (std::is_enum_v<U>)
    return (std::is_signed_v<std::underlying_type_t<U>> ? "i" : "u") + std::to_string(sizeof(U));
  else if constexpr (std::is_integral_v<U>)
    return (std::is_signed_v<U> ? "i" : "u") + std::to_string(sizeof(U));
  else if constexpr (std::is_pointer_v<U>) return "q8";
  else if constexpr (complete<U>::value) return "s" + std::to_string(sizeof(U));
  else return "x0";
}
template <class T> std::string code() {
  using U = std::remove_cv_t<std::remove_reference_t<T>>;
  if constexpr (std::is_pointer_v<U>) {
    using P = std::remove_cv_t<std::remove_pointer_t<U>>;
    if constexpr (std::is_void_v<P>) return "pv0";
    else return "p" + scalar_code<P>();
  } else return scalar_code<U>();
}
template <class R, class... P> std::string signature(R (*)(P...)) {
  std::string s;
  if constexpr (std::is_void_v<R>) s = "v"; else s = code<R>();
  ((s += "," + code<P>()), ...);
  return s;
}
template <class R, class... P, std::size_t... I>
void invoke_(R (*f)(P...), void **a, void *r, std::index_sequence<I...>) {
  if constexpr (std::is_void_v<R>) f(*static_cast<std::remove_reference_t<P> *>(a[I])...);
  else *static_cast<R *>(r) = f(*static_cast<std::remove_reference_t<P> *>(a[I])...);
}
template <class R, class... P> void invoke(R (*f)(P...), void **a, void *r) {
  invoke_(f, a, r, std::index_sequence_for<P...>{});
}
}  // namespace cudafuse_rt
"""

_EMU_LAUNCH = r"""
namespace cudafuse_rt {
template <class... P, std::size_t... I>
void launch_(const char *name, bool fibers, void (*k)(P...), const unsigned *c, std::size_t sh,
             void **a, std::index_sequence<I...>) {
  ::cudafuse_emu::launch(name, "<python>", 0, fibers)(dim3(c[0], c[1], c[2]),
                                                       dim3(c[3], c[4], c[5]), sh)
      .run(k, *static_cast<std::remove_reference_t<P> *>(a[I])...);
}
template <class... P>
int launch(const char *name, bool fibers, void (*k)(P...), const unsigned *c, std::size_t sh,
           void **a) {
  launch_(name, fibers, k, c, sh, a, std::index_sequence_for<P...>{});
  return 0;
}
}  // namespace cudafuse_rt
"""

_GPU_LAUNCH = r"""
namespace cudafuse_rt {
template <class... P>
int launch(const char *, bool, void (*k)(P...), const unsigned *c, std::size_t sh, void **a) {
  cudaError_t e = cudaLaunchKernel((const void *)k, dim3(c[0], c[1], c[2]),
                                   dim3(c[3], c[4], c[5]), a, sh, 0);
  if (e != cudaSuccess) return (int)e;
  return (int)cudaDeviceSynchronize();
}
}  // namespace cudafuse_rt
"""


@dataclass(frozen=True)
class Entry:
    """A function Python can call: its name, kind ('host' or 'kernel') and parameter names."""

    name: str
    kind: str
    params: tuple[str, ...]
    cxx_name: str


def entries(unit: TranslationUnit, qualified: dict[str, str]) -> list[Entry]:
    """Host functions and kernels with one definition, no templates, and a C-callable shape."""
    defs: dict[str, list[Function]] = {}
    for f in unit.functions:
        if f.body is not None:
            defs.setdefault(f.name, []).append(f)
    out = []
    for name, fns in defs.items():
        if len(fns) != 1 or name == "main":
            continue
        f = fns[0]
        if f.is_template or f.space == "device" or "operator" in name:
            continue
        kind = "kernel" if f.is_kernel else "host"
        out.append(Entry(name, kind, tuple(p.name or f"arg{i}" for i, p in enumerate(f.params)),
                         qualified.get(name, name)))
    return out


def source(entries_: list[Entry], backend: str, fiber_kernels: frozenset[str]) -> str:
    parts = [_HELPERS, _EMU_LAUNCH if backend == "emu" else _GPU_LAUNCH]
    manifest = []
    for e in entries_:
        if e.kind == "host":
            sync = "" if backend == "emu" else "return (int)cudaDeviceSynchronize();"
            parts.append(f'extern "C" int cudafuse_h_{e.name}(void **a, void *r) {{ '
                         f"cudafuse_rt::invoke(&{e.cxx_name}, a, r); {sync} return 0; }}")
        else:
            fib = "true" if e.name in fiber_kernels else "false"
            parts.append(f'extern "C" int cudafuse_k_{e.name}(const unsigned *c, '
                         f"std::size_t sh, void **a) {{ return cudafuse_rt::launch("
                         f'"{e.name}", {fib}, &{e.cxx_name}, c, sh, a); }}')
        names = "|".join(e.params)
        manifest.append(f'  s += std::string("{e.kind} {e.name} ") + '
                        f'cudafuse_rt::signature(&{e.cxx_name}) + " {names}\\n";')
    parts.append('extern "C" const char *cudafuse_manifest() {\n'
                 "  static std::string s;\n  if (!s.empty()) return s.c_str();\n"
                 + "\n".join(manifest) + "\n  s += \"end\\n\";\n  return s.c_str();\n}\n")
    return "\n".join(parts)


@dataclass(frozen=True)
class Signature:
    kind: str
    name: str
    ret: str
    codes: tuple[str, ...]
    params: tuple[str, ...]


def parse_manifest(text: str) -> dict[str, Signature]:
    out: dict[str, Signature] = {}
    for line in text.splitlines():
        if line == "end" or not line.strip():
            continue
        kind, name, sig, *rest = line.split(" ")
        codes = sig.split(",")
        names = tuple(rest[0].split("|")) if rest and rest[0] else ()
        out[name] = Signature(kind, name, codes[0], tuple(codes[1:]), names)
    return out
