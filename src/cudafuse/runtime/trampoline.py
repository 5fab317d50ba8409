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
template <class CfT, class = void> struct complete : std::false_type {};
template <class CfT> struct complete<CfT, std::void_t<decltype(sizeof(CfT))>> : std::true_type {};
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
  else if constexpr (complete<CfU>::value) return "s" + std::to_string(sizeof(CfU));
  else return "x0";
}
template <class CfT> std::string code() {
  using CfU = std::remove_cv_t<std::remove_reference_t<CfT>>;
  if constexpr (std::is_pointer_v<CfU>) {
    using CfP = std::remove_cv_t<std::remove_pointer_t<CfU>>;
    if constexpr (std::is_void_v<CfP>) return "pv0";
    else return "p" + scalar_code<CfP>();
  } else return scalar_code<CfU>();
}
template <class CfR, class... CfP> std::string signature(CfR (*)(CfP...)) {
  std::string cf_s;
  if constexpr (std::is_void_v<CfR>) cf_s = "v"; else cf_s = code<CfR>();
  ((cf_s += "," + code<CfP>()), ...);
  return cf_s;
}
template <class CfR, class... CfP, std::size_t... CfI>
void invoke_(CfR (*cf_f)(CfP...), void **cf_a, void *cf_r, std::index_sequence<CfI...>) {
  if constexpr (std::is_void_v<CfR>)
    cf_f(*static_cast<std::remove_reference_t<CfP> *>(cf_a[CfI])...);
  else
    *static_cast<CfR *>(cf_r) = cf_f(*static_cast<std::remove_reference_t<CfP> *>(cf_a[CfI])...);
}
template <class CfR, class... CfP> void invoke(CfR (*cf_f)(CfP...), void **cf_a, void *cf_r) {
  invoke_(cf_f, cf_a, cf_r, std::index_sequence_for<CfP...>{});
}
}  // namespace cudafuse_rt
"""

_EMU_LAUNCH = r"""
namespace cudafuse_rt {
template <class... CfP, std::size_t... CfI>
void launch_(const char *cf_name, bool cf_fibers, void (*cf_k)(CfP...), const unsigned *cf_c,
             std::size_t cf_sh, void **cf_a, std::index_sequence<CfI...>) {
  ::cudafuse_emu::launch(cf_name, "<python>", 0, cf_fibers)(dim3(cf_c[0], cf_c[1], cf_c[2]),
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
namespace cudafuse_rt {
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
            parts.append(f'extern "C" int cudafuse_h_{e.name}(void **cf_a, void *cf_r) {{ '
                         f"cudafuse_rt::invoke(&{e.cxx_name}, cf_a, cf_r); {sync} return 0; }}")
            if backend != "emu":  # the same without waiting, for timing (runtime.prepared)
                parts.append(f'extern "C" int cudafuse_ha_{e.name}(void **cf_a, void *cf_r) '
                             f"{{ cudafuse_rt::invoke(&{e.cxx_name}, cf_a, cf_r); "
                             "return (int)cudaGetLastError(); }")
        else:
            fib = "true" if e.name in fiber_kernels else "false"
            parts.append(f'extern "C" int cudafuse_k_{e.name}(const unsigned *cf_c, '
                         f"std::size_t cf_sh, void **cf_a) {{ return cudafuse_rt::launch("
                         f'"{e.name}", {fib}, &{e.cxx_name}, cf_c, cf_sh, cf_a); }}')
            if backend != "emu":
                parts.append(f'extern "C" int cudafuse_ka_{e.name}(const unsigned *cf_c, '
                             f"std::size_t cf_sh, void **cf_a) {{ return "
                             f"cudafuse_rt::launch_async(&{e.cxx_name}, cf_c, cf_sh, cf_a); }}")
        names = "|".join(e.params)
        manifest.append(f'  cf_s += std::string("{e.kind} {e.name} ") + '
                        f'cudafuse_rt::signature(&{e.cxx_name}) + " {names}\\n";')
    parts.append('extern "C" const char *cudafuse_manifest() {\n'
                 "  static std::string cf_s;\n  if (!cf_s.empty()) return cf_s.c_str();\n"
                 + "\n".join(manifest) + "\n  cf_s += \"end\\n\";\n  return cf_s.c_str();\n}\n")
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
