"""A program's -D macros never reach the emulator's forced headers (issue 27).

PolyBench builds with `-D N=37`: g++ reads every -D before the emulator's forced header, whose
`template <auto F, long long N>` then failed to compile. emu/defines.py defines such a macro
after the forced headers instead. The test does not list the names it knows: it collects every
identifier the forced headers spell that is neither reserved (`_X`, `__x`) nor a public name of
the CUDA toolkit's or the C and C++ libraries' headers, and builds and runs a program with all
of them defined at once (the names that text after the program spells are left out: see
_macro_names; they are what is left of issue 27, docs/emulation.md).
"""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from cudafuse.emu import header_path, include_dir
from cudafuse.emu.defines import code_identifiers, forced_headers
from cudafuse.emu.toolkit import toolkit_include
from cudafuse.runtime import load
from cudafuse.runtime.build import BuildOptions, prepare

_STD_HEADERS = ("algorithm", "atomic", "cassert", "cfenv", "climits", "cmath", "complex",
                "cstdint", "cstdio", "cstdlib", "cstring", "functional", "iostream", "limits",
                "map", "memory", "mutex", "new", "set", "string", "thread", "tuple",
                "type_traits", "utility", "vector", "math.h", "stdarg.h", "stdint.h",
                "stdio.h", "stdlib.h", "string.h", "pthread.h", "ucontext.h", "dlfcn.h",
                "signal.h", "unistd.h", "sanitizer/asan_interface.h")

# The language's alternative tokens (no macro may be named so) and the vector types' members
# (one letter, but public: a program defining y breaks every float4).
_KEYWORDS = frozenset("and and_eq bitand bitor compl not not_eq or or_eq xor xor_eq "
                      "x y z w".split())

PROGRAM = r"""
#include <cstdio>

__global__ void __launch_bounds__(64) zz_scale(float *zz_out, const float *zz_in, int zz_n) {
  __shared__ float zz_tile[64];
  extern __shared__ float zz_dyn[];
  int zz_i = blockIdx.x * blockDim.x + threadIdx.x;
  zz_tile[threadIdx.x] = zz_i < zz_n ? zz_in[zz_i] : 0.0f;
  zz_dyn[threadIdx.x] = 2.0f;
  __syncthreads();
  int zz_d = zz_n - zz_n;  // 0: integer division by zero is not what this test is about
  if (zz_i < zz_n) zz_out[zz_i] = zz_tile[threadIdx.x] * zz_dyn[threadIdx.x] + zz_d;
}

void zz_entry(float *zz_out, const float *zz_in, int zz_n) {
  float *zz_dout, *zz_din;
  cudaMalloc(&zz_dout, zz_n * sizeof(float));
  cudaMalloc(&zz_din, zz_n * sizeof(float));
  cudaMemcpy(zz_din, zz_in, zz_n * sizeof(float), cudaMemcpyHostToDevice);
  zz_scale<<<(zz_n + 63) / 64, 64, 64 * sizeof(float)>>>(zz_dout, zz_din, zz_n);
  void *zz_args[] = {&zz_dout, &zz_din, &zz_n};
  cudaLaunchKernel((const void *)zz_scale, dim3((zz_n + 63) / 64), dim3(64), zz_args,
                   64 * sizeof(float), 0);
  cudaDeviceSynchronize();
  cudaMemcpy(zz_out, zz_dout, zz_n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(zz_dout);
  cudaFree(zz_din);
}
"""


def _reserved(name: str) -> bool:
    return name.startswith("__") or (name[0] == "_" and name[1:2].isupper())


@functools.cache
def _public_names() -> frozenset[str]:
    """Names a program cannot define without breaking nvcc's own build: the identifiers of the
    C and C++ library headers (whose internals are all reserved, so what is left is their
    API and the language's keywords), and the CUDA toolkit headers' longer than two letters
    (a one- or two-letter name there is a template parameter or a local, which the toolkit
    may use in code nvcc does not compile for a given program)."""
    text = "".join(f"#include <{h}>\n" for h in _STD_HEADERS)
    pre = subprocess.run(["g++", "-std=c++17", "-E", "-P", "-x", "c++", "-"], input=text,
                         capture_output=True, text=True, check=True).stdout
    names = code_identifiers(pre.encode())
    tk = toolkit_include()
    if tk is not None:
        for f in [*tk.glob("*.h"), *tk.glob("*.hpp"), *(tk / "crt").rglob("*"),
                  *(tk / "cooperative_groups").rglob("*")]:
            if f.is_file():
                names |= {n for n in code_identifiers(f.read_bytes()) if len(n) > 2}
    return frozenset(names | _KEYWORDS)


def _live_macro_names() -> set[str]:
    """The identifiers in the bodies of the macros the forced header leaves defined: they
    expand in the program's text, after its -D."""
    out = subprocess.run(["g++", "-std=c++17", "-x", "c++", "-dM", "-E", "-I",
                          str(include_dir()), str(header_path())],
                         capture_output=True, text=True, check=True).stdout
    names: set[str] = set()
    for m in re.finditer(r"^#define (\w+)(?:\(([^)]*)\))? ?(.*)$", out, re.M):
        params = {p.strip() for p in (m.group(2) or "").split(",")}
        names |= code_identifiers(m.group(3).encode()) - params
    return names


def _macro_names(tmp_path: Path) -> list[str]:
    """The names the forced headers spell that a program may define: what emu/defines.py
    keeps from them. Left out, besides reserved and public names and the program's own: the
    names the text the build writes around the program (its rewrite, the trampolines) and
    the bodies of the header's live macros spell, which see every -D, and the front end's
    clashes below."""
    src = tmp_path / "program.cu"
    src.write_text(PROGRAM)
    generated = prepare(str(src), "emu", BuildOptions()).text
    seen_after = code_identifiers(generated.encode()) | _live_macro_names()
    public = _public_names()
    names: set[str] = set()
    for f in forced_headers():
        names |= code_identifiers(f.read_bytes())
    return sorted(n for n in names - seen_after - public
                  if not _reserved(n) and n not in FRONT_END_CLASHES)


@pytest.mark.slow  # about 80 s of g++: no precompiled header serves 700 -D macros
@pytest.mark.skipif(toolkit_include() is None, reason="no CUDA toolkit installed")
def test_every_name_the_emulator_spells_may_be_a_programs_command_line_macro(tmp_path):
    names = _macro_names(tmp_path)
    # (what the test stands on: the names PolyBench's -D hit, and hundreds of the emulator's)
    assert {"N", "T", "F", "W"} <= set(names) and len(names) > 300, names
    src = tmp_path / "program.cu"
    src.write_text(PROGRAM)
    zz_in = np.arange(100, dtype=np.float32)
    zz_out = np.zeros(100, np.float32)
    with load(src, opt="-O0", defines={n: 1 for n in names}) as lib:
        lib.call("zz_entry", zz_out, zz_in, 100)
    np.testing.assert_array_equal(zz_out, zz_in * 2)


# Names the front end's own declarations (frontend/include's shim, cuda_api/) spell: none left
# out now, frontend/defines.py defines a -D of them after the shim as emu/defines.py does after
# the emulator's header (tests/frontend/test_command_line_macros.py).
FRONT_END_CLASHES: tuple[str, ...] = ()
