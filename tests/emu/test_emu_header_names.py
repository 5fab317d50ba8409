"""A program's own macros never reach the emulator's internals (issue 31).

A program may `#define BLOCK 512` (or N, TILE, Mode, ...) before it includes
<cooperative_groups.h>, <mma.h> or <cufft.h>: with nvcc that compiles, since NVIDIA's headers
name their internals with reserved identifiers. The emulator's stand-ins for the headers a
program includes after its own code (every header but the forced cudafuse_emu.h and what it
includes, which the build reads before the program) do the same: an identifier there that
starts with a capital letter is the toolkit's public API (the toolkit's own header of that
name uses it too), a C library name, or reserved (`__cf_...`). The same holds for the bodies
of the macros the forced headers leave defined, which expand in the program's text.
"""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from cudafuse.emu import header_path, include_dir
from cudafuse.emu.toolkit import toolkit_include
from cudafuse.runtime import load

_TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|'
                    r"[A-Za-z_]\w*|\d[\w.']*", re.S)
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)(?:\(([^)]*)\))?((?:[^\n]*\\\n)*[^\n]*)",
                     re.M)
_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
# Prefixes of the libraries' public names (cuBLAS, cuFFT, cuSPARSE, cuRAND are not installed
# with the toolkit here, so their headers cannot be read for them; CU_ and CUxxx: the driver
# API) and of the emulator's own macros; public names without such a prefix: cuRAND's Philox
# state member, cuFFTXt's descriptor bound, the Windows macro NVTX's header tests.
_PUBLIC_PREFIX = re.compile(r"(?:CU|NVTX|LIB_FORMAT_|MAX_CUDA_|CF_|STATE$|UNICODE$)")
# Names of the C library (<math.h>, <stdint.h>, <limits.h>): a program defining them breaks
# the C headers as well.
_C_LIBRARY = frozenset({"INFINITY", "NAN", "INT32_MAX", "INT32_MIN", "UINT32_MAX", "INT_MAX",
                        "INT_MIN", "UINT_MAX", "FLT_MAX", "DBL_MAX", "FP_SUBNORMAL", "FILE",
                        "EOF", "SIZE_MAX", "CHAR_BIT"})
# The toolkit's headers a stand-in answers for, by the stand-in's first path component.
_COUNTERPARTS = {
    "cooperative_groups": ("cooperative_groups.h", "cooperative_groups"),
    "cuda_fp16": ("cuda_fp16.h*", "cuda_bf16.h*"), "cuda_bf16": ("cuda_fp16.h*", "cuda_bf16.h*"),
    "cudafuse_f16": ("cuda_fp16.h*", "cuda_bf16.h*"), "mma": ("mma.h", "crt/mma.h*"),
    "cuda_pipeline": ("cuda_pipeline*", "cuda_awbarrier*"),
    "cuda_awbarrier": ("cuda_awbarrier*",),
    "cudafuse_emu_async": ("cuda_pipeline*", "cuda_awbarrier*"),
    "cuda": ("cccl/cuda",), "math_constants": ("math_constants.h",),
    "library_types": ("library_types.h",), "nvtx3": ("nvtx3",), "nvToolsExt": ("nvtx3",),
}


def _code_identifiers(text: str) -> set[str]:
    """The identifiers of `text`'s code (not comments or strings), macro parameters left out
    (a program's macro of that name does not reach a parameter)."""
    params = [(m.start(), m.end(), {p.strip() for p in (m.group(2) or "").split(",")})
              for m in _DEFINE.finditer(text)]
    names = set()
    for m in _TOKEN.finditer(text):
        tok = m.group(0)
        if (tok[0].isalpha() or tok[0] == "_") and not any(
                s <= m.start() < e and tok in p for s, e, p in params):
            names.add(tok)
    return names


@functools.cache
def _files_identifiers(root: Path, globs: tuple[str, ...]) -> frozenset[str]:
    names: set[str] = set()
    for g in globs:
        for p in root.glob(g):
            for f in [p] if p.is_file() else sorted(p.rglob("*")):
                if f.is_file():
                    names |= _code_identifiers(f.read_text("utf-8", "replace"))
    return frozenset(names)


def _closure(start: Path) -> set[Path]:
    """`start` and the headers it includes with #include "...", transitively."""
    seen: set[Path] = set()
    todo = [start]
    while todo:
        p = todo.pop().resolve()
        if p not in seen and p.is_file():
            seen.add(p)
            todo += [p.parent / m.group(1) for m in _INCLUDE.finditer(p.read_text())]
    return seen


def _forced() -> set[Path]:
    """cudafuse_emu.h and the headers it includes: read before the program's own text."""
    return _closure(header_path())


# The front end parses with a shim read before the program and stand-ins (stubs/) for the
# headers a program includes: the same rule holds there, or `cudafuse run` refuses the
# program before the emulator sees it.
_FRONTEND = Path(__file__).resolve().parents[2] / "src" / "cudafuse" / "frontend" / "include"


def _headers_after_the_program() -> dict[str, Path]:
    """Every header a program may include, by a name that says its side, and the
    cuda_api/ declarations they include, less what the forced headers read first."""
    out = {}
    for side, root, forced in (("emu", include_dir(), _forced()),
                               ("frontend", _FRONTEND / "stubs",
                                _closure(_FRONTEND / "cudafuse_cuda_shim.h"))):
        for f in sorted(root.rglob("*")):
            if f.is_file() and f.suffix != ".pyc" and f.resolve() not in forced:
                for g in sorted(_closure(f) - forced):
                    rel = g.relative_to(root).as_posix() if g.is_relative_to(root) else g.name
                    out[f"{side}:{rel}"] = g
    return out


# cuda_api/'s declarations, by the stand-in that includes them.
_API_NAMES = {"cudafuse_fp16_api": "cuda_fp16", "cudafuse_bf16_api": "cuda_bf16",
              "cudafuse_f16_api": "cuda_fp16", "cudafuse_math_constants": "math_constants",
              "cudafuse_library_types": "library_types"}


def _unreserved(names: set[str], public: frozenset[str]) -> list[str]:
    # (A name of one or two letters is no public API even where NVIDIA's header has it: there
    # it is a template parameter or a local, which a program's macro may not reach in the
    # branches nvcc compiles; the emulator's must be reserved all the same.)
    return sorted(n for n in names if n[0].isupper() and (n not in public or len(n) <= 2)
                  and n not in _C_LIBRARY and not _PUBLIC_PREFIX.match(n))


needs_toolkit = pytest.mark.skipif(toolkit_include() is None, reason="no CUDA toolkit installed")


@needs_toolkit
def test_headers_a_program_includes_use_only_public_or_reserved_capitalised_names():
    tk = toolkit_include()
    assert tk is not None
    found = {}
    for name, f in _headers_after_the_program().items():
        key = re.split(r"[/.]", name.split(":", 1)[1])[0]
        public = _files_identifiers(tk, _COUNTERPARTS.get(_API_NAMES.get(key, key), ()))
        bad = _unreserved(_code_identifiers(f.read_text()), public)
        if bad:
            found[name] = bad
    assert not found, f"internal names a program's macro would replace: {found}"


@needs_toolkit
def test_live_macros_of_the_forced_headers_expand_to_public_or_reserved_names():
    tk = toolkit_include()
    assert tk is not None
    public = _files_identifiers(tk, ("*.h", "crt"))
    # The macros still defined after the forced headers (by meaning: the preprocessor's own
    # list), whose bodies expand inside the program's text.
    out = subprocess.run(["g++", "-std=c++17", "-x", "c++", "-dM", "-E", "-I",
                          str(include_dir()), str(header_path())],
                         capture_output=True, text=True, check=True).stdout
    ours = {m.group(1) for f in _forced() for m in _DEFINE.finditer(f.read_text())}
    found = {}
    for m in _DEFINE.finditer(out):
        name = m.group(1)
        if name not in ours or name.startswith(("CF_", "__CUDAFUSE")):
            continue
        params = {p.strip() for p in (m.group(2) or "").split(",")}
        bad = [n for n in _unreserved(_code_identifiers(m.group(3)), public)
               if n not in params and n != name]
        if bad:
            found[name] = bad
    assert not found, f"macros expanding to internal names a program may define: {found}"


# Macros programs define before their includes (`#define BLOCK 512`, TILE, Mode, ...) and the
# names the emulator's headers used for their internals before they were reserved; nvcc
# compiles the program below with every one of them defined (N, T, Group and Align are left
# out: NVIDIA's own headers use them, so nvcc fails on those as well).
USER_MACROS = ("BLOCK GRID TILE COALESCED RUN DONE MASK LOAD STORE Plan Mode Half BF16 RN RZ RD "
               "RU EB MB Fmt Kind Label Scope Shape Callback Scalar Prior A B C D E F G I K M "
               "P R S U V LA LB LC LD TA TB TC TD Op SizeT Fiber Block KernelReg").split()
_HEADERS = ("cooperative_groups.h", "cooperative_groups/reduce.h", "cooperative_groups/scan.h",
            "cooperative_groups/memcpy_async.h", "cuda_fp16.h", "cuda_bf16.h", "mma.h",
            "cuda_pipeline.h", "cuda_awbarrier.h", "cuda/barrier", "cuda/pipeline",
            "math_constants.h", "nvtx3/nvToolsExt.h")
_LIBRARIES = ("cublas_v2.h", "cublasLt.h", "cufft.h", "cufftXt.h", "cusparse.h")


def _program() -> str:
    text = "".join(f"#define {m} 7\n" for m in USER_MACROS)
    text += "".join(f"#include <{h}>\n" for h in _HEADERS)
    # (not installed with the toolkit here: nvcc skips them, the emulator has them)
    text += "".join(f"#if __has_include(<{h}>)\n#include <{h}>\n#endif\n" for h in _LIBRARIES)
    return text + """
namespace cg = cooperative_groups;
__global__ void tile_sums(int *out) {
  cg::thread_block b = cg::this_thread_block();
  cg::thread_block_tile<8> t = cg::tiled_partition<8>(b);
  int v = cg::reduce(t, (int)threadIdx.x, cg::plus<int>());
  b.sync();
  out[threadIdx.x] = v + BLOCK - TILE;  // the program's own macros still mean its values
}
"""


def test_a_programs_macros_leave_the_headers_it_includes_intact(tmp_path):
    src = tmp_path / "macros.cu"
    src.write_text(_program())
    got = np.zeros(32, np.int32)
    with load(src, opt="-O0") as lib:
        lib.launch("tile_sums", 1, 32, args=(got,))
    lanes = np.arange(32)
    np.testing.assert_array_equal(got, [sum(range(i & ~7, (i & ~7) + 8)) for i in lanes])


# nvcc checks this test's own program, no cudafuse code: its verdict changes only with the
# program or the toolkit, so `make test-slow` runs it (about 2-11 CPU-s; issue 27).
@pytest.mark.nvcc
@pytest.mark.slow
def test_nvcc_compiles_the_same_program(tmp_path):
    src = tmp_path / "macros.cu"
    src.write_text(_program())
    proc = subprocess.run(["nvcc", "-c", "-std=c++17", "-arch=sm_90", str(src), "-o",
                           str(tmp_path / "macros.o")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
