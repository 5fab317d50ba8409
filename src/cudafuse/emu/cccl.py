"""Thrust on the emulator: the CUDA toolkit's own CCCL headers (Thrust, libcu++), built with
Thrust's host (C++) backend.

With `THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CPP`, `thrust::device_vector` lives in host
memory and every algorithm runs on the calling thread, which is what the emulator's device
is: a kernel launched on `thrust::raw_pointer_cast(v.data())` reads the vector's elements,
and `cudaMemcpy` moves them like any other buffer.

CCCL decides once, at its first configuration header, whether a CUDA compiler is compiling;
the emulator's header defines `__CUDACC__`, so CCCL's configuration must come first:
`cudafuse_emu_cccl.h` is force-included before `cudafuse_emu.h`, and so are the Thrust
headers the program includes: a `__CUDA_ARCH__` of the build (device branches of the
program's own `__host__ __device__` code) is defined only after them, by
`cudafuse_emu_cccl_end.h`, since Thrust's headers would take their device paths. The toolkit's CCCL
directory (thrust/, cub/, cuda/, nv/: no CUDA runtime header) is searched just before the
emulator's stand-ins: Thrust needs the real libcu++ (`<cuda/std/...>`), not the emulator's
stand-ins of it, while the `cuda_runtime_api.h` CCCL includes is still the emulator's.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from cudafuse.diagnostics import CudafuseError, Diagnostic, Severity
from cudafuse.ir.source import SourceFile

PRELUDE = "cudafuse_emu_cccl.h"
PRELUDE_END = "cudafuse_emu_cccl_end.h"
_CCCL_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"](thrust/[^>"\s]+)[>"]', re.M)
_ARCH = "-D__CUDA_ARCH__="


def includes_cccl(data: bytes) -> bool:
    """Whether `data` includes a Thrust header."""
    return _CCCL_INCLUDE.search(data) is not None


def thrust_headers(data: bytes) -> list[str]:
    """The Thrust headers `data` includes (`thrust/sort.h`, ...), in order."""
    return [m.group(1).decode() for m in _CCCL_INCLUDE.finditer(data)]


def toolkit_roots() -> list[Path]:
    roots = [Path(os.environ[v]) for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]
    nvcc = shutil.which("nvcc")
    if nvcc:
        roots.append(Path(nvcc).resolve().parent.parent)
    roots.append(Path("/usr/local/cuda"))
    return roots


def cccl_dir() -> Path | None:
    """The toolkit directory holding `thrust/` (CUDA 13's include/cccl, or include itself in
    older toolkits), or None."""
    for root in toolkit_roots():
        for sub in ("include/cccl", "targets/x86_64-linux/include/cccl", "include"):
            if (root / sub / "thrust" / "version.h").is_file():
                return root / sub
    return None


def check(path: str, data: bytes) -> None:
    """Without the toolkit's headers Thrust cannot be built: say so at the first include."""
    m = _CCCL_INCLUDE.search(data)
    if m is None or cccl_dir() is not None:
        return
    source = SourceFile(path, data)
    line, col = source.line_col(m.start())
    raise CudafuseError([Diagnostic(
        Severity.ERROR, "Thrust needs the CUDA toolkit's CCCL headers (thrust/ under "
        "include/cccl), which were not found: set CUDA_HOME", path, line, col,
        source.line_text(line))])


def with_cccl(flags: list[str], stand_ins: Path, headers: list[str]) -> list[str]:
    """An emu build's g++ flags with Thrust's: the prelude, the program's Thrust `headers` and
    the prelude's end before the emulator's `-include`; a `-D__CUDA_ARCH__=N` moved to that
    end; the CCCL directory before the stand-ins' `-I`."""
    cccl = cccl_dir()
    assert cccl is not None
    arch = [f for f in flags if f.startswith(_ARCH)]
    flags = [f for f in flags if not f.startswith(_ARCH)]
    at = flags.index("-include")
    pre = ["-DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CPP", "-include",
           str(stand_ins / PRELUDE), *(a for h in dict.fromkeys(headers) for a in ("-include", h))]
    if arch:
        pre += [f"-DCUDAFUSE_EMU_CUDA_ARCH={arch[-1][len(_ARCH):]}", "-include",
                str(stand_ins / PRELUDE_END)]
    out = [*flags[:at], *pre, *flags[at:]]
    at = out.index(str(stand_ins)) - 1  # "-I", stand_ins
    return [*out[:at], "-I", str(cccl), *out[at:]]
