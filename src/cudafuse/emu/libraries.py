"""What the emulator has no stand-in for, refused at the construct with file:line:col.

Libraries without a stand-in (cuRAND, cuSOLVER, OpenGL interop, ...), the driver API and the
few CUDA graph calls the emulator lacks would otherwise reach the user as g++'s "No such file
or directory" or "was not declared" errors. Found on the main file's text (comments skipped),
before parsing.
"""

from __future__ import annotations

import re

from cudafuse.diagnostics import CudafuseError, Diagnostic, Severity
from cudafuse.emu import include_dir
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
    (rb"cusolver\w*\.h", "cuSOLVER"),
    (rb"curand\w*\.h", "cuRAND"),
    (rb"npp\w*\.h", "NPP"),
    (rb"nvjpeg\w*\.h", "nvJPEG"),
    (rb"nvrtc\w*\.h", "NVRTC"),
    (rb"cudla\w*\.h", "cuDLA"),
    (rb"nvsci\w*\.h", "NvSci"),
    (rb"cudnn\w*\.h", "cuDNN"),
    (rb"cub/", "CUB"),
    # libcu++ beyond the emulator's own <cuda/barrier>, <cuda/pipeline> and <cuda/std/...>
    (rb"cuda/(?!(?:" + _OWN_LIBCUDACXX + rb")[>\"])", "this libcu++ header ({header})"),
    (rb"cuda_gl_interop\.h|GL/|GLES\w*/|helper_gl\.h", "OpenGL interoperability"),
    (rb"cuda_egl_interop\.h|cudaEGL\.h|EGL/", "EGL interoperability"),
    (rb"vulkan/|cuda_d3d\w*\.h|d3d\w*\.h", "graphics interoperability (Vulkan, Direct3D)"),
    (rb"cudaVDPAU\w*\.h|cuda_vdpau_interop\.h", "VDPAU interoperability"),
    (rb"cuda_fp[864]\.h", "FP8/FP6/FP4 (cuda_fp8.h, cuda_fp6.h, cuda_fp4.h)"),
    (rb"cudaProfiler\.h", "the driver API's profiler (cudaProfiler.h; cuda_profiler_api.h is "
                          "provided)"),
    (rb"cupti\w*\.h|nvperf_\w*\.h", "CUPTI and the profiling API"),
    (rb"nvvm\.h", "libNVVM"),
    (rb"cudaTypedefs\.h|generated_\w*_meta\.h|fatbinary_section\.h|nv_decode\.h",
     "this toolkit-internal header"),
]
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
_INCLUDED = re.compile(rb'[ \t]*#[ \t]*include[ \t]*([<"][^>"\n]*[>"])')
# (character literals too: a `'"'` would otherwise open a string hiding the rest of its line)
_COMMENT_OR_STRING = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                                re.S)


def check_unsupported(path: str, data: bytes) -> None:
    """Raise CudafuseError at each include of a library, unsupported graph call or driver API
    call."""
    blanked = bytearray(data)
    for m in _COMMENT_OR_STRING.finditer(data):
        # keep the text of include paths in quotes: `#include "cufft.h"`
        line_start = data.rfind(b"\n", 0, m.start()) + 1
        if re.match(rb"[ \t]*#[ \t]*include", data[line_start:m.start()]):
            continue
        blanked[m.start():m.end()] = b" " * (m.end() - m.start())
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
