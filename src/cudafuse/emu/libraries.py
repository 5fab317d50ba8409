"""What the emulator has no stand-in for, refused at the construct with file:line:col.

Libraries without a stand-in (OpenGL interop, CUB, ...), the driver API and the few CUDA
graph calls the emulator lacks would otherwise reach the user as g++'s "No such file or
directory" or "was not declared" errors. Found on the main file's text (comments skipped),
before parsing.

Libraries the emulator does not run but whose headers real programs include without using
them (darknet includes curand.h in every .cu file): cuRAND, cuSOLVER, cuDNN, nvJPEG, NPP and
NVRTC have stand-in headers (include/) that declare only handle and status types. Such a
program is refused at its first use of an identifier of the library's API that the stand-in
does not declare (a function, a constant, a state type), in the main file or in the
program's own headers; a use this text scan misses fails g++ with "not declared", which
`gxx_refusal` turns into the same refusal.
"""

from __future__ import annotations

import re
from pathlib import Path

from cudafuse.diagnostics import CudafuseError, Diagnostic, Severity
from cudafuse.emu import include_dir
from cudafuse.ir.code_text import code_only
from cudafuse.ir.source import SourceFile

_INCLUDE = rb'^[ \t]*#[ \t]*include[ \t]*[<"]'
_OWN_LIBCUDACXX = b"|".join(  # the emulator's stand-ins under include/cuda: barrier, std/array...
    re.escape(p.relative_to(include_dir() / "cuda").as_posix().encode())
    for p in sorted((include_dir() / "cuda").rglob("*")) if p.is_file() and "." not in p.name)
_LIBRARIES: list[tuple[bytes, str]] = [
    # cuBLAS, cuBLASLt, cuFFT and part of cuSPARSE have stand-ins (cublas_v2.h, cublasLt.h,
    # cufft.h, cufftXt.h, cusparse.h); not these headers
    (rb"cublas(?:Xt)?\.h[>\"]", "this cuBLAS header (legacy or Xt API)"),
    (rb"cufftw\.h", "cuFFTW"),
    (rb"cusparse(?!\.h[>\"])\w*\.h", "this cuSPARSE header"),
    (rb"cudla\w*\.h", "cuDLA"),
    (rb"nvsci\w*\.h", "NvSci"),
    (rb"cub/", "CUB"),
    # libcu++ beyond the emulator's own <cuda/barrier>, <cuda/pipeline> and <cuda/std/...>
    (rb"cuda/(?!(?:" + _OWN_LIBCUDACXX + rb")[>\"])", "this libcu++ header ({header})"),
    (rb"cuda_gl_interop\.h|cudaGL\w*\.h|GL/|GLES\w*/|helper_gl\.h",
     "OpenGL interoperability"),
    (rb"cuda_egl_interop\.h|cudaEGL\w*\.h|EGL/", "EGL interoperability"),
    (rb"vulkan/|cuda_d3d\w*\.h|d3d\w*\.h", "graphics interoperability (Vulkan, Direct3D)"),
    (rb"cudaVDPAU\w*\.h|cuda_vdpau_interop\.h", "VDPAU interoperability"),
    (rb"cuda_fp[864]\.h", "FP8/FP6/FP4 (cuda_fp8.h, cuda_fp6.h, cuda_fp4.h)"),
    (rb"cudaProfiler(?:Typedefs)?\.h",
     "the driver API's profiler (cudaProfiler.h; cuda_profiler_api.h is provided)"),
    (rb"cupti\w*\.h|nvperf_\w*\.h", "CUPTI and the profiling API"),
    (rb"nvvm\.h", "libNVVM"),
    (rb"crt/cuda_tile\.h", "CUDA Tile (crt/cuda_tile.h)"),
    (rb"cudaTypedefs\.h|generated_\w*_meta\.h|fatbinary_section\.h|nv_decode\.h",
     "this toolkit-internal header"),
]
_INCLUDE_LINE = re.compile(_INCLUDE + rb"[^\n]*", re.M)
_INCLUDED = re.compile(rb'[ \t]*#[ \t]*include[ \t]*([<"][^>"\n]*[>"])')
# (character literals too: a `'"'` would otherwise open a string hiding the rest of its line)
_COMMENT_OR_STRING = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                                re.S)


def _code(data: bytes) -> bytes:
    """`data` with comments and literals blanked (same length), include paths kept."""
    blanked = bytearray(data)
    for m in _COMMENT_OR_STRING.finditer(data):
        # keep the text of include paths in quotes: `#include "cufft.h"`
        line_start = data.rfind(b"\n", 0, m.start()) + 1
        if re.match(rb"[ \t]*#[ \t]*include", data[line_start:m.start()]):
            continue
        blanked[m.start():m.end()] = b" " * (m.end() - m.start())
    return bytes(blanked)


# Libraries with stand-in headers that declare only handle and status types: (name, its
# headers, the identifiers of its API). A header of theirs without a stand-in is refused at
# the include as before.
_STANDIN_LIBRARIES: list[tuple[str, bytes, bytes]] = [
    # (the API's own spelling: a prefix then a capital, cuRAND's device API curand_*;
    # darknet's cudnn_handle() is its own)
    ("cuRAND", rb"curand\w*\.h", rb"curand(?:[A-Z_]\w*)?|CURAND_\w+"),
    ("cuSOLVER", rb"cusolver\w*\.h", rb"cusolver[A-Z]\w*|CUSOLVER_\w+"),
    ("cuDNN", rb"cudnn\w*\.h", rb"cudnn[A-Z]\w*|CUDNN_\w+"),
    ("nvJPEG", rb"nvjpeg\w*\.h", rb"nvjpeg[A-Z]\w*|NVJPEG_\w+"),
    ("NPP", rb"npp\w*\.h", rb"npp[a-z]?[A-Z]\w*|Npp[A-Z0-9]\w*|NPP_\w+"),
    ("NVRTC", rb"nvrtc\w*\.h", rb"nvrtc[A-Z]\w*|NVRTC_\w+"),
]
_IDENTIFIER = re.compile(rb"[A-Za-z_]\w*")


def _standins(header: bytes) -> list[Path]:
    """The emulator's stand-ins among the headers `header` (a pattern) names."""
    pattern = re.compile(header)
    return sorted(p for p in include_dir().iterdir()
                  if p.is_file() and pattern.fullmatch(p.name.encode()))


def _declared(header: bytes, api: bytes) -> frozenset[bytes]:
    """The API names the library's stand-ins declare: a program may use these."""
    whole = re.compile(api)
    return frozenset(m.group(0) for p in _standins(header)
                     for m in _IDENTIFIER.finditer(_code(p.read_bytes()))
                     if whole.fullmatch(m.group(0)))


_LIBRARY_API = [(name, re.compile(_INCLUDE + rb"(?:[^>\"\n]*/)?" + header + rb"[>\"]", re.M),
                 re.compile(rb"\b(?:" + api + rb")\b"), re.compile(api),
                 _declared(header, api))
                for name, header, api in _STANDIN_LIBRARIES]
_LIBRARIES += [
    (rb"(?:[^>\"\n]*/)?(?!(?:" + b"|".join(re.escape(p.name.encode()) for p in _standins(header))
     + rb")[>\"])" + header, f"this {name} header ({{header}})")
    for name, header, _ in _STANDIN_LIBRARIES]
_REFUSALS: list[tuple[re.Pattern[bytes], str]] = [
    *((re.compile(_INCLUDE + pattern, re.M), f"{what} is not supported by the emulator")
      for pattern, what in _LIBRARIES),
    (re.compile(rb"\bcudaGraph(?:AddExternalSemaphores\w*|ExternalSemaphores\w*|"
                rb"AddMemcpyNode(?:To|From)Symbol|AddBatchMemOpNode|InstantiateWithParams|"
                rb"AddNode_v2)\s*\(|\bcudaUserObject\w*\s*\("),
     "this CUDA graph API is not supported by the emulator (see docs/emulation.md, \"Graphs "
     "and stream capture\")"),
    (re.compile(rb"\bcu(?:Init|Device[A-Z]\w*|Ctx[A-Z]\w*|Mem[A-Z]\w*|Module[A-Z]\w*|"
                rb"LaunchKernel\w*|Stream[A-Z]\w*|Event[A-Z]\w*|Func[A-Z]\w*|"
                rb"GetErrorName|GetErrorString|DriverGetVersion)\s*\("),
     "the CUDA driver API (cu* calls) is not supported by the emulator"),
]
def check_library_uses(path: str, data: bytes, inactive: list[tuple[int, int]],
                       headers: list[bytes], own: set[str]) -> None:
    """Refuse each library with a stand-in header that the main file (`data`, with the
    preprocessor's `inactive` ranges) or one of the program's own `headers` (their text)
    includes, at its first use in the main file's active code: an identifier of its API
    that the stand-in does not declare, nor the program itself (`own`: darknet's
    cudnn_handle). The program's headers are left to g++, whose "not declared" errors
    there are the same refusal (gxx_refusal): g++ knows which of their branches are live."""
    live = code_only(_code(data), inactive)
    code = _INCLUDE_LINE.sub(lambda m: b" " * len(m.group(0)), live)  # header names: no use
    diags = []
    for name, include, use, _, declared in _LIBRARY_API:
        if not any(include.search(text) for text in [live, *headers]):
            continue
        first = next((m for m in use.finditer(code) if m.group(0) not in declared
                      and m.group(0).decode() not in own), None)
        if first is None:
            continue
        source = SourceFile(path, data)
        line, col = source.line_col(first.start())
        diags.append(Diagnostic(
            Severity.ERROR, f"{name} is not supported by the emulator: "
            f"'{first.group(0).decode()}' is part of its API (the emulator's stand-in for "
            f"its headers declares only its handle and status types)", path, line, col,
            source.line_text(line)))
    if diags:
        diags.sort(key=lambda d: (d.line, d.col))
        raise CudafuseError(diags)


def gxx_refusal(message: str) -> str | None:
    """g++'s error about an undeclared name of a library with a stand-in header (a use the
    text scan missed: one a macro builds, say) as that library's refusal; None otherwise."""
    m = re.search(r"[\u2018']([A-Za-z_]\w*)[\u2019'] (?:was not declared|has not been declared|"
                  r"does not name a type|is not a member of|that depend on a template)",
                  message)
    if m is None:
        return None
    for name, _, _, api, declared in _LIBRARY_API:
        if api.fullmatch(m.group(1).encode()) and m.group(1).encode() not in declared:
            return (f"{name} is not supported by the emulator: '{m.group(1)}' is part of its "
                    f"API (g++: {message})")
    return None


def check_unsupported(path: str, data: bytes,
                      inactive: list[tuple[int, int]] | tuple[()] = ()) -> None:
    """Raise CudafuseError at each include of a library, unsupported graph call or driver API
    call, outside the preprocessor's `inactive` ranges (clang's skipped ranges, once the
    file is parsed: llm.c includes cudnn_frontend.h under #ifdef ENABLE_CUDNN)."""
    blanked = code_only(_code(data), inactive)
    source = SourceFile(path, data)
    diags = []
    for pattern, message in _REFUSALS:
        for m in pattern.finditer(bytes(blanked)):
            line, col = source.line_col(m.start())
            # the header as the program names it, where the message names no library
            named = _INCLUDED.match(data, m.start())
            header = named.group(1).decode("utf-8", "replace") if named else "?"
            diags.append(Diagnostic(Severity.ERROR, message.replace("{header}", header), path,
                                    line, col, source.line_text(line)))
    if diags:
        diags.sort(key=lambda d: (d.line, d.col))
        raise CudafuseError(diags)
